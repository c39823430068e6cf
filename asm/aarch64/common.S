// Shared entry/exit and loop macros for every AArch64 carmbench kernel.
//
// ABI (AAPCS64, all kernels alike):
//   x0 = A, first load stream      x1 = B, second load stream
//   x2 = C, store stream           x3 = inner-loop iterations per pass (>= 1)
//   x4 = passes over the buffers (>= 1)
//   x5 = j << 32 | k (validation kernels)
// Scratch: x9 to x17 and the vector registers v0-v7 and v16-v31 (z, p7 with SVE).
// v8-v15 keep their values for the caller (their low halves are callee-saved), so no kernel
// touches them: no stack, no callee-saved register.
//
// A kernel is `BEGIN name`, `OUTER`, `INNER`, its loop body (one iteration, whose
// instructions match the `// @kernel` declaration line above it), `NEXT`, an END macro.
// The declaration lists counts per inner-loop iteration (for SVE, per vector: `width=vl`);
// build.rs reads it and every byte and flop figure in carmbench is derived from it.
//
// Where a kernel's work leaves nothing in memory (loads, FP ops), its END macro stores one
// register to C when C is given: the tests read back what the loop computed. The stream
// kernels of a measurement get a C buffer; the compute kernels get none and store nothing.

.arch_extension sve

.macro BEGIN name
    .globl carm_\name
    .type carm_\name, %function
    .p2align 6
carm_\name:
.endm

// Start of a pass: reset the stream pointers and the iteration counter.
.macro OUTER
1:
    mov x9, x0
    mov x10, x1
    mov x11, x2
    mov x12, x3
.endm

// Start of the inner loop, aligned.
.macro INNER
    .p2align 6
2:
.endm

// End of the inner loop and of a pass.
.macro NEXT
    subs x12, x12, #1
    b.ne 2b
    subs x4, x4, #1
    b.ne 1b
.endm

.macro END name
    ret
    .size carm_\name, . - carm_\name
.endm

// END with `insn` storing one register to [x2] when C is given: the result the tests check.
.macro END_KEEP name, insn:vararg
    cbz x2, 9f
    \insn
9:
    ret
    .size carm_\name, . - carm_\name
.endm

// FP kernels keep 16 independent chains in v0-v7 and v16-v23 (v8-v15 are the caller's):
// pipes x latency of the widest Neoverse (V1, V2: four 128-bit FMA pipes of 4 cycles),
// with the constants in v30 and v31 (1.0) and v29 as the two-op mixes' scratch.
