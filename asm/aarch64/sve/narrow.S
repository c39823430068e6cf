// Narrow-precision kernels, SVE at the CPU's vector length (width=vl): INT8 dot products
// (SDOT, in every SVE) and matrix multiply-accumulates (SMMLA, svei8mm), BF16 dot
// products and matrix multiply-accumulates (BFDOT, BFMMLA, svebf16), half-precision FMAs
// (FMLA .h, in every SVE), INT32 adds and multiplies. Chains, sources and starting values
// as in asm/aarch64/neon/narrow.S (16 chains in z0-z7 and z16-z23, sources z30 and z31);
// p7 is all true. See common.S for the ABI.

.arch_extension i8mm
.arch_extension bf16

// `op z\d.\td, z30.\ts, z31.\ts` in the 16 chains.
.macro ZX op, d, td, ts
    \op z\d\().\td, z30.\ts, z31.\ts
.endm
.macro ZX16 op, td, ts
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZX \op, \i, \td, \ts
.endr
.endm
// Every chain set to an integer, or to 1.0, in arrangement t.
.macro ZIMM d, t, v
    dup z\d\().\t, #\v
.endm
.macro ZFONE d, t, unused=0
    fmov z\d\().\t, #1.0
.endm
.macro ZCHAINS how, t, v=0
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    \how \i, \t, \v
.endr
.endm
// Sources: 1 in every byte, or the BF16 1.0 (0x3F80) in every half.
.macro ZSRC_I8
    ptrue p7.b
    dup z30.b, #1
    dup z31.b, #1
.endm
.macro ZSRC_BF16
    ptrue p7.b
    mov w9, #0x3F80
    dup z30.h, w9
    dup z31.h, w9
.endm

// A dot-product or matrix kernel: as NKERNEL in asm/aarch64/neon/narrow.S, on z registers.
.macro ZKERNEL name, src, how, t, v, op, td, ts
BEGIN \name
    \src
    ZCHAINS \how, \t, \v
    OUTER
    INNER
    ZX16 \op, \td, \ts
    NEXT
    END_KEEP \name, st1d {z0.d}, p7, [x2]
.endm

// @kernel sve_int8_dot kind=compute op=dot isa=sve precision=int8 width=vl dot=16
ZKERNEL sve_int8_dot, ZSRC_I8, ZIMM, s, 0, sdot, s, b

// @kernel sve_int8_mmla kind=compute op=mmla isa=sve precision=int8 width=vl mmla=16 needs=svei8mm
ZKERNEL sve_int8_mmla, ZSRC_I8, ZIMM, s, 0, smmla, s, b

// @kernel sve_bf16_dot kind=compute op=dot isa=sve precision=bf16 width=vl dot=16 needs=svebf16
ZKERNEL sve_bf16_dot, ZSRC_BF16, ZFONE, s, 0, bfdot, s, h

// @kernel sve_bf16_mmla kind=compute op=mmla isa=sve precision=bf16 width=vl mmla=16 needs=svebf16
ZKERNEL sve_bf16_mmla, ZSRC_BF16, ZFONE, s, 0, bfmmla, s, h

// `fmla z\d.h, p7/m, z30.h, z31.h`: predicated, the chain is the addend.
.macro ZFMLA_H d
    fmla z\d\().h, p7/m, z30.h, z31.h
.endm
// @kernel sve_fp16_fma kind=compute op=fma isa=sve precision=fp16 width=vl fma=16
BEGIN sve_fp16_fma
    ptrue p7.b
    fmov z30.h, #1.0
    fmov z31.h, #1.0
    ZCHAINS ZFONE, h
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZFMLA_H \i
.endr
    NEXT
    END_KEEP sve_fp16_fma, st1d {z0.d}, p7, [x2]

// Integer ops on the chain itself: `add z\d.s, z\d.s, z31.s` (unpredicated) and
// `mul z\d.s, p7/m, z\d.s, z31.s` (predicated, destructive).
.macro ZADD_S d
    add z\d\().s, z\d\().s, z31.s
.endm
.macro ZMUL_S d
    mul z\d\().s, p7/m, z\d\().s, z31.s
.endm

// @kernel sve_int32_add kind=compute op=add isa=sve precision=int32 width=vl add=16
BEGIN sve_int32_add
    ptrue p7.b
    dup z31.s, #1
    ZCHAINS ZIMM, s, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZADD_S \i
.endr
    NEXT
    END_KEEP sve_int32_add, st1d {z0.d}, p7, [x2]

// @kernel sve_int32_mul kind=compute op=mul isa=sve precision=int32 width=vl mul=16
BEGIN sve_int32_mul
    ptrue p7.b
    dup z31.s, #1
    ZCHAINS ZIMM, s, 1
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZMUL_S \i
.endr
    NEXT
    END_KEEP sve_int32_mul, st1d {z0.d}, p7, [x2]
