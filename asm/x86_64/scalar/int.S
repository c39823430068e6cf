# Integer ALU kernels on the general registers: adds alone, and the simple operations
# every integer ALU does mixed (add, and, or, xor, sub). Twelve chains of 1-cycle ops
# cover six ALUs (Zen 5) twice over; each chain reads only itself or an immediate, so
# no chain waits on another. The ABI's scratch registers give six (rax, rdi, rsi, rdx,
# r10, r11: OUTER reloads them each pass, and compute kernels use none); the other six
# are callee-saved (rbx, rbp, r12-r15), kept in xmm0-5 meanwhile: no stack. rcx, r8 and
# r9 count the iterations and passes. `sub r, r` and `xor r, r` are zeroing idioms the
# core may drop, so the ALU mix subtracts and xors immediates; and Golden Cove's renamer
# adds and subtracts small immediates to 64-bit registers itself, with no ALU (measured:
# the mix at 115 % of five ALUs on Emerald Rapids), so the mix subtracts from the chains'
# 32-bit halves (zero-extending: each chain still reads only itself). See common.S.

.macro KEEP_GPRS
    movq xmm0, rbx
    movq xmm1, rbp
    movq xmm2, r12
    movq xmm3, r13
    movq xmm4, r14
    movq xmm5, r15
.endm

.macro GIVE_BACK_GPRS
    movq rbx, xmm0
    movq rbp, xmm1
    movq r12, xmm2
    movq r13, xmm3
    movq r14, xmm4
    movq r15, xmm5
.endm

# `op reg, src` on each of the twelve chains.
.macro I12 op, src:vararg
.irp r,rax,rdi,rsi,rdx,r10,r11,rbx,rbp,r12,r13,r14,r15
    \op \r, \src
.endr
.endm

# `op reg32, src` on each chain's 32-bit half.
.macro I12D op, src:vararg
.irp r,eax,edi,esi,edx,r10d,r11d,ebx,ebp,r12d,r13d,r14d,r15d
    \op \r, \src
.endr
.endm

# The same, each chain adding itself: its only input.
.macro I12SELF op
.irp r,rax,rdi,rsi,rdx,r10,r11,rbx,rbp,r12,r13,r14,r15
    \op \r, \r
.endr
.endm

# @kernel scalar_int_add kind=compute op=add isa=scalar precision=int width=8 add=48
BEGIN scalar_int_add
    KEEP_GPRS
    OUTER
    INNER
    I12SELF add
    I12SELF add
    I12SELF add
    I12SELF add
    NEXT
    GIVE_BACK_GPRS
    END_SSE scalar_int_add

# @kernel scalar_int_alu kind=compute op=alu isa=scalar precision=int width=8 add=12 alu=48
BEGIN scalar_int_alu
    KEEP_GPRS
    OUTER
    INNER
    I12SELF add
    I12 and, -2
    I12 or, 0x11
    I12 xor, 0x22
    I12D sub, 0x33
    NEXT
    GIVE_BACK_GPRS
    END_SSE scalar_int_alu
