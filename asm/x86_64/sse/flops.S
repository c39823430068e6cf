# FP kernels, 128-bit SSE2 (FMA3, VEX-encoded, for the FMA kernels), double (dp) and single (sp) precision.
# Every accumulator is its own dependency chain, enough of them to cover the latency
# of each pipe (e.g. FMA: 4 cycles x 2 pipes = 8 chains in flight; 12 here). fma_add
# uses the shared two-op body of asm/x86_64/flops.S; addmul keeps legacy SSE encodings in 6 + 6
# chains (enough for every CPU of configs/limits.yaml) so that it runs without AVX.
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

.macro AM_sse_dp a, m
    addpd xmm\a, xmm15
    mulpd xmm\m, xmm15
.endm
# @kernel sse_dp_addmul kind=compute op=addmul isa=sse precision=dp width=16 add=6 mul=6
BEGIN sse_dp_addmul
    FINIT_sse_dp
    OUTER
    INNER
    AM_sse_dp 0, 6
    AM_sse_dp 1, 7
    AM_sse_dp 2, 8
    AM_sse_dp 3, 9
    AM_sse_dp 4, 10
    AM_sse_dp 5, 11
    NEXT
    END_SSE sse_dp_addmul

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

.macro AM_sse_sp a, m
    addps xmm\a, xmm15
    mulps xmm\m, xmm15
.endm
# @kernel sse_sp_addmul kind=compute op=addmul isa=sse precision=sp width=16 add=6 mul=6
BEGIN sse_sp_addmul
    FINIT_sse_sp
    OUTER
    INNER
    AM_sse_sp 0, 6
    AM_sse_sp 1, 7
    AM_sse_sp 2, 8
    AM_sse_sp 3, 9
    AM_sse_sp 4, 10
    AM_sse_sp 5, 11
    NEXT
    END_SSE sse_sp_addmul

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
