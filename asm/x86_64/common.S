# Shared entry/exit and loop macros for every carmbench kernel.
#
# ABI (System V, all kernels alike):
#   rdi = A, first load stream      rsi = B, second load stream
#   rdx = C, store stream           rcx = inner-loop iterations per pass (>= 1)
#   r8  = passes over the buffers (>= 1)
# Scratch: rax, r9, r10, r11 and every vector register. No stack, no callee-saved register.
#
# A kernel is `BEGIN name`, `OUTER`, `INNER`, its loop body (one iteration, whose
# instructions match the `# @kernel` declaration line above it), `NEXT`, `END`.
# The declaration lists counts per inner-loop iteration; build.rs reads it and every
# byte and flop figure in carmbench is derived from it.

.macro BEGIN name
    .globl carm_\name
    .type carm_\name, @function
    .p2align 6
carm_\name:
.endm

# Start of a pass: reset the stream pointers and the iteration counter.
.macro OUTER
1:
    mov r10, rdi
    mov r11, rsi
    mov rax, rdx
    mov r9, rcx
.endm

# Start of the inner loop, aligned (alignment moved L1 results by several percent).
.macro INNER
    .p2align 6
2:
.endm

# End of the inner loop and of a pass.
.macro NEXT
    dec r9
    jnz 2b
    dec r8
    jnz 1b
.endm

.macro END name
    vzeroupper
    ret
    .size carm_\name, . - carm_\name
.endm

# Variant for kernels that use only legacy SSE encodings (no VEX): no vzeroupper,
# so they run on any x86-64 CPU.
.macro END_SSE name
    ret
    .size carm_\name, . - carm_\name
.endm

# Variant for non-temporal stores: order them before returning.
.macro END_NT name
    sfence
    vzeroupper
    ret
    .size carm_\name, . - carm_\name
.endm

.macro END_NT_SSE name
    sfence
    ret
    .size carm_\name, . - carm_\name
.endm
