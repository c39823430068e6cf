// The FP kernels' bodies, shared by the three AArch64 ISAs. Each macro takes the register
// spelling of its ISA and precision: scalar `d`/`s` (r, no arrangement), NEON `v` with `.2d`
// or `.4s`, SVE `z` with `.d` or `.s`. One op runs in the 16 chains; in the two-op mixes the
// other op is independent: it reads the constants and writes the scratch register v29 (z29)
// that nothing reads. Every kernel starts from 1.0 in every chain and constant: x + 1.0,
// x * 1.0, x + 1.0 * 1.0 and x / 1.0 never leave the normal range.

// Scalar: op \r\i, ... with r = d or s.
.macro SCALAR_INIT r
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,29,30,31
    fmov \r\i, #1.0
.endr
.endm
.macro SCALAR_add r
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    fadd \r\i, \r\i, \r\()31
.endr
.endm
.macro SCALAR_mul r
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    fmul \r\i, \r\i, \r\()31
.endr
.endm
.macro SCALAR_addmul r
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    fadd \r\i, \r\i, \r\()31
    fmul \r\()29, \r\()30, \r\()31
.endr
.endm
.macro SCALAR_fma r
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    fmadd \r\i, \r\()30, \r\()31, \r\i
.endr
.endm
.macro SCALAR_fma_add r
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    fmadd \r\i, \r\()30, \r\()31, \r\i
    fadd \r\()29, \r\()30, \r\()31
.endr
.endm
.macro SCALAR_div r
.irp i,0,1,2,3,4,5,6,7
    fdiv \r\i, \r\i, \r\()31
.endr
.endm

// NEON: op v\i.t, ... with t = 2d or 4s. One register at a time through NV, NVI (LLVM
// reads `\i.2d` inside .irp as one name: the arrangement must be joined in a macro of its own).
.macro NV op, d, t, a, b
    \op v\d\().\t, v\a\().\t, v\b\().\t
.endm
.macro NVI d, t
    fmov v\d\().\t, #1.0
.endm
.macro NEON_INIT t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,29,30,31
    NVI \i, \t
.endr
.endm
.macro NEON_add t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    NV fadd, \i, \t, \i, 31
.endr
.endm
.macro NEON_mul t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    NV fmul, \i, \t, \i, 31
.endr
.endm
.macro NEON_addmul t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    NV fadd, \i, \t, \i, 31
    NV fmul, 29, \t, 30, 31
.endr
.endm
.macro NEON_fma t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    NV fmla, \i, \t, 30, 31
.endr
.endm
.macro NEON_fma_add t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    NV fmla, \i, \t, 30, 31
    NV fadd, 29, \t, 30, 31
.endr
.endm
.macro NEON_div t
.irp i,0,1,2,3,4,5,6,7
    NV fdiv, \i, \t, \i, 31
.endr
.endm

// SVE: op z\i.t, ... with t = d or s; p7 is all true (ptrue p7.b: every element of any size).
// ZV: unpredicated (fadd, fmul); ZP: predicated, destructive (fmla, fdiv).
.macro ZV op, d, t, a, b
    \op z\d\().\t, z\a\().\t, z\b\().\t
.endm
.macro ZP op, d, t, a, b
    \op z\d\().\t, p7/m, z\a\().\t, z\b\().\t
.endm
.macro ZI d, t
    fmov z\d\().\t, #1.0
.endm
.macro SVE_INIT t
    ptrue p7.b
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,29,30,31
    ZI \i, \t
.endr
.endm
.macro SVE_add t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZV fadd, \i, \t, \i, 31
.endr
.endm
.macro SVE_mul t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZV fmul, \i, \t, \i, 31
.endr
.endm
.macro SVE_addmul t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZV fadd, \i, \t, \i, 31
    ZV fmul, 29, \t, 30, 31
.endr
.endm
.macro SVE_fma t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZP fmla, \i, \t, 30, 31
.endr
.endm
.macro SVE_fma_add t
.irp i,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23
    ZP fmla, \i, \t, 30, 31
    ZV fadd, 29, \t, 30, 31
.endr
.endm
.macro SVE_div t
.irp i,0,1,2,3,4,5,6,7
    ZP fdiv, \i, \t, \i, 31
.endr
.endm

// A whole FP kernel: its ISA's constants (INIT), the body of its op, and chain 0 kept in C.
.macro FKERNEL name, isa, op, spell, keep:vararg
    BEGIN \name
    \isa\()_INIT \spell
    OUTER
    INNER
    \isa\()_\op \spell
    NEXT
    END_KEEP \name, \keep
.endm
