# Integer ALU kernel, 128-bit SSE2: adds of 64-bit lanes (PADDQ). Twelve chains of
# 1-cycle adds of xmm15 (1 in every lane), four times an iteration: with one, the
# loop's own cost held Zen 5 to three adds a cycle of four. See common.S.

# @kernel sse_int_add kind=compute op=add isa=sse precision=int width=16 add=48
BEGIN sse_int_add
    mov eax, 1
    movq xmm15, rax
    punpcklqdq xmm15, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    pxor xmm\i, xmm\i
.endr
    OUTER
    INNER
.rept 4
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    paddq xmm\i, xmm15
.endr
.endr
    NEXT
    END_SSE sse_int_add
