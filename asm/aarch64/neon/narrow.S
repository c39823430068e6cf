// Narrow-precision kernels, 128-bit Advanced SIMD: INT8 dot products (SDOT, dotprod) and
// matrix multiply-accumulates (SMMLA, i8mm), BF16 dot products and matrix multiply-
// accumulates (BFDOT, BFMMLA, bf16), half-precision FMAs (FMLA .8h, fp16), INT32 adds and
// multiplies. Sixteen chains in v0-v7 and v16-v23 (v8-v15 are the caller's), sources in v30
// and v31: the Neoverse V1 and V2 guides give these instructions four pipes and accumulate
// latencies of 1 to 4 cycles (BFMMLA on V2: 4), so 16 keep every pipe busy.
// Sources are 1 in every element (1.0 for BF16 and FP16); INT accumulators start at 0
// (the products only add), FP ones at 1.0 (they only grow). See common.S for the ABI.

.arch_extension dotprod
.arch_extension i8mm
.arch_extension bf16
.arch_extension fp16

// `op v\d.\td, v30.\ts, v31.\ts` in the 16 chains.
.macro NX op, d, td, ts
    \op v\d\().\td, v30.\ts, v31.\ts
.endm
.macro NX16 op, td, ts
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    NX \op, \i, \td, \ts
.endr
.endm
// `op v\d.4s, v\d.4s, v31.4s`: an integer op on the chain itself.
.macro NI op, d
    \op v\d\().4s, v\d\().4s, v31.4s
.endm
.macro NI16 op
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    NI \op, \i
.endr
.endm

.macro NIMM d, t, v
    movi v\d\().\t, #\v
.endm
.macro NFONE d, t, unused=0
    fmov v\d\().\t, #1.0
.endm
// Every chain set by `how` (NIMM: an integer, NFONE: 1.0) in arrangement t.
.macro NCHAINS how, t, v=0
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    \how \i, \t, \v
.endr
.endm
// Sources: 1 in every byte, or the BF16 1.0 (0x3F80) in every half.
.macro SRC_I8
    movi v30.16b, #1
    movi v31.16b, #1
.endm
.macro SRC_BF16
    mov w9, #0x3F80
    dup v30.8h, w9
    dup v31.8h, w9
.endm

// A dot-product or matrix kernel: sources by `src`, the chains set by `how` (arrangement t,
// value v), `op vN.td, v30.ts, v31.ts` in each chain, chain 0 kept in C.
.macro NKERNEL name, src, how, t, v, op, td, ts
BEGIN \name
    \src
    NCHAINS \how, \t, \v
    OUTER
    INNER
    NX16 \op, \td, \ts
    NEXT
    END_KEEP \name, str q0, [x2]
.endm

// @kernel neon_int8_dot kind=compute op=dot isa=neon precision=int8 width=16 dot=16 needs=dotprod
NKERNEL neon_int8_dot, SRC_I8, NIMM, 4s, 0, sdot, 4s, 16b

// @kernel neon_int8_mmla kind=compute op=mmla isa=neon precision=int8 width=16 mmla=16 needs=i8mm
NKERNEL neon_int8_mmla, SRC_I8, NIMM, 4s, 0, smmla, 4s, 16b

// @kernel neon_bf16_dot kind=compute op=dot isa=neon precision=bf16 width=16 dot=16 needs=bf16
NKERNEL neon_bf16_dot, SRC_BF16, NFONE, 4s, 0, bfdot, 4s, 8h

// @kernel neon_bf16_mmla kind=compute op=mmla isa=neon precision=bf16 width=16 mmla=16 needs=bf16
NKERNEL neon_bf16_mmla, SRC_BF16, NFONE, 4s, 0, bfmmla, 4s, 8h

// @kernel neon_fp16_fma kind=compute op=fma isa=neon precision=fp16 width=16 fma=16 needs=fp16
BEGIN neon_fp16_fma
    fmov v30.8h, #1.0
    fmov v31.8h, #1.0
    NCHAINS NFONE, 8h
    OUTER
    INNER
    NX16 fmla, 8h, 8h
    NEXT
    END_KEEP neon_fp16_fma, str q0, [x2]

// @kernel neon_int32_add kind=compute op=add isa=neon precision=int32 width=16 add=16
BEGIN neon_int32_add
    movi v31.4s, #1
    NCHAINS NIMM, 4s, 0
    OUTER
    INNER
    NI16 add
    NEXT
    END_KEEP neon_int32_add, str q0, [x2]

// @kernel neon_int32_mul kind=compute op=mul isa=neon precision=int32 width=16 mul=16
BEGIN neon_int32_mul
    movi v31.4s, #1
    NCHAINS NIMM, 4s, 1
    OUTER
    INNER
    NI16 mul
    NEXT
    END_KEEP neon_int32_mul, str q0, [x2]
