# FP kernels, 128-bit SSE2 (VEX-encoded AVX for addmul, FMA3 for the FMA kernels), double (dp) and single (sp) precision.
# Every accumulator is its own dependency chain, enough of them to cover the latency
# of each pipe (e.g. FMA: 4 cycles x 2 pipes = 8 chains in flight; 12 here). fma_add
# and addmul use the shared two-op body of asm/x86_64/flops.S (12 chains of one op, the
# other op independent), VEX-encoded, so addmul needs AVX: in legacy SSE with 6 + 6
# chains it read 75 % of its limit on Zen 5 (docs/evidence.md).
# Accumulators and sources start at 1.0: x*1.0, x/1.0 and x+1.0 never leave the
# normal range, so no denormal assist can slow a kernel. See common.S for the ABI.

# Constants and accumulators, per precision: every kernel below starts with one.
.macro FINIT_sse_dp
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    unpcklpd xmm15, xmm15
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13
    movapd xmm\i, xmm15
.endr
.endm
.macro FINIT_sse_sp
    mov eax, 0x3F800000
    movd xmm15, eax
    shufps xmm15, xmm15, 0
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13
    movapd xmm\i, xmm15
.endr
.endm

# @kernel sse_dp_add kind=compute op=add isa=sse precision=dp width=16 add=12
BEGIN sse_dp_add
    FINIT_sse_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    addpd xmm\i, xmm15
.endr
    NEXT
    END_SSE sse_dp_add

# @kernel sse_dp_mul kind=compute op=mul isa=sse precision=dp width=16 mul=12
BEGIN sse_dp_mul
    FINIT_sse_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    mulpd xmm\i, xmm15
.endr
    NEXT
    END_SSE sse_dp_mul

# @kernel sse_dp_addmul kind=compute op=addmul isa=sse precision=dp width=16 add=12 mul=12 needs=avx
BEGIN sse_dp_addmul
    FINIT_sse_dp
    OUTER
    INNER
    ADD_MUL_12 vaddpd, vmulpd, xmm, xmm14, xmm15, xmm13
    NEXT
    END sse_dp_addmul

# @kernel sse_dp_fma kind=compute op=fma isa=sse precision=dp width=16 fma=12
BEGIN sse_dp_fma
    FINIT_sse_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vfmadd231pd xmm\i, xmm14, xmm15
.endr
    NEXT
    END sse_dp_fma

# @kernel sse_dp_fma_add kind=compute op=fma_add isa=sse precision=dp width=16 fma=12 add=12
BEGIN sse_dp_fma_add
    FINIT_sse_dp
    OUTER
    INNER
    FMA_ADD_12 vfmadd231pd, vaddpd, xmm, xmm14, xmm15, xmm13
    NEXT
    END sse_dp_fma_add

# @kernel sse_dp_div kind=compute op=div isa=sse precision=dp width=16 div=8
BEGIN sse_dp_div
    FINIT_sse_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    divpd xmm\i, xmm15
.endr
    NEXT
    END_SSE sse_dp_div

# @kernel sse_sp_add kind=compute op=add isa=sse precision=sp width=16 add=12
BEGIN sse_sp_add
    FINIT_sse_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    addps xmm\i, xmm15
.endr
    NEXT
    END_SSE sse_sp_add

# @kernel sse_sp_mul kind=compute op=mul isa=sse precision=sp width=16 mul=12
BEGIN sse_sp_mul
    FINIT_sse_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    mulps xmm\i, xmm15
.endr
    NEXT
    END_SSE sse_sp_mul

# @kernel sse_sp_addmul kind=compute op=addmul isa=sse precision=sp width=16 add=12 mul=12 needs=avx
BEGIN sse_sp_addmul
    FINIT_sse_sp
    OUTER
    INNER
    ADD_MUL_12 vaddps, vmulps, xmm, xmm14, xmm15, xmm13
    NEXT
    END sse_sp_addmul

# @kernel sse_sp_fma kind=compute op=fma isa=sse precision=sp width=16 fma=12
BEGIN sse_sp_fma
    FINIT_sse_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vfmadd231ps xmm\i, xmm14, xmm15
.endr
    NEXT
    END sse_sp_fma

# @kernel sse_sp_fma_add kind=compute op=fma_add isa=sse precision=sp width=16 fma=12 add=12
BEGIN sse_sp_fma_add
    FINIT_sse_sp
    OUTER
    INNER
    FMA_ADD_12 vfmadd231ps, vaddps, xmm, xmm14, xmm15, xmm13
    NEXT
    END sse_sp_fma_add

# @kernel sse_sp_div kind=compute op=div isa=sse precision=sp width=16 div=8
BEGIN sse_sp_div
    FINIT_sse_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    divps xmm\i, xmm15
.endr
    NEXT
    END_SSE sse_sp_div
