# Validation kernels: per iteration, a memory unit repeated j times and an FP unit repeated k
# times, j and k given at run time (r9 = j << 32 | k). The declaration gives the counts of ONE
# memory unit (loads, stores) and ONE FP unit (fma, add, mul): bytes = j x unit bytes and
# flops = k x unit flops per iteration, so the arithmetic intensity k*F/(j*B) is exact by
# construction. The k FP units are spread evenly among the j memory units (an error term adds
# k after each memory unit and runs an FP unit per j it holds), so memory and FP work overlap
# instead of queueing behind each other. Labels: 2 = iteration, 3 = memory unit, 4 = FP unit.
# These kernels save rbx, r12, r13 and r14 on the stack (they need more counters).
#
# Prefetching twins (declared with prefetch=D, D bytes): each memory unit first asks for
# every line it holds, D bytes further on, with prefetcht0 (prefetchw for a stream it
# stores to). A prefetch retires without waiting for its line, so the lines in flight are
# no longer bounded by how many FP instructions the reorder buffer holds beside the loads
# (docs/evidence.md, "Prefetching twins").
# A prefetch never faults, so asking past the end of a buffer is harmless.

.macro VBEGIN name
    BEGIN \name
    push rbx
    push r12
    push r13
    push r14
.endm
.macro VSPLIT
    mov r12, r9
    shr r12, 32
    mov r13d, r9d
.endm
.macro VOUTER
1:
    mov r10, rdi
    mov r11, rsi
    mov rax, rdx
    mov r9, rcx
    .p2align 6
2:
    mov rbx, r12
    xor r14d, r14d
3:
.endm
.macro VMID
    add r14, r13
    cmp r14, r12
    jb 5f
4:
.endm
.macro VNEXT
    sub r14, r12
    cmp r14, r12
    jae 4b
5:
    dec rbx
    jnz 3b
    dec r9
    jnz 2b
    dec r8
    jnz 1b
    pop r14
    pop r13
    pop r12
    pop rbx
.endm

.macro VPF kind, base, pf, offsets:vararg
.if \pf
.irp o,\offsets
    prefetch\kind [\base + \pf + \o]
.endr
.endif
.endm

# n independent FMA chains, r0 to r(n-1) += r(a) x r(b), r the register file (xmm, ymm,
# zmm) and s the instruction suffix: the FMA unit of every ISA.
.macro VFMA_CHAINS s, r, n, a, b
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
.if \i < \n
    vfmadd231\s \r\i, \r\a, \r\b
.endif
.endr
.endm

# The FP units of the scalar and SSE kernels, one per op: the same xmm instructions, the
# suffix s (sd/ss or pd/ps) making them scalar or packed.
.macro VFP_fma_xmm s
    VFMA_CHAINS \s, xmm, 12, 14, 15
.endm
.macro VFP_addmul_xmm s
    add\s xmm0, xmm15
    mul\s xmm6, xmm15
    add\s xmm1, xmm15
    mul\s xmm7, xmm15
    add\s xmm2, xmm15
    mul\s xmm8, xmm15
    add\s xmm3, xmm15
    mul\s xmm9, xmm15
    add\s xmm4, xmm15
    mul\s xmm10, xmm15
    add\s xmm5, xmm15
    mul\s xmm11, xmm15
.endm

# A whole validation kernel from the units its ISA file defines: constants and
# accumulators (VINIT_<isa>_<prec>), the memory unit of its mix (VMEM_<mix>_<isa>; mix 2ld1st
# is spelled ldldst here, as LLVM's assembler mangles a macro argument starting with a digit) and the
# FP unit of its op (VFP_<op>_<isa>), s being the instruction suffix of the precision
# (pd/ps, sd/ss), the END macro its encodings need (END, or END_SSE without VEX), and for
# a prefetching twin the distance pf in bytes (VPF above).
.macro VKERNEL name, isa, prec, mix, op, s, end, pf=0
    VBEGIN \name
    VINIT_\isa\()_\prec
    VSPLIT
    VOUTER
    VMEM_\mix\()_\isa \s, \pf
    VMID
    VFP_\op\()_\isa \s
    VNEXT
    \end \name
.endm
