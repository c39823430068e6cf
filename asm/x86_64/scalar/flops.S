# FP kernels, scalar SSE2 (FMA3 for the FMA kernels), double (dp) and single (sp) precision.
# Every accumulator is its own dependency chain, enough of them to cover the latency
# of each pipe (e.g. FMA: 4 cycles x 2 pipes = 8 chains in flight; 12 here). fma_add
# uses the shared two-op body of asm/x86_64/flops.S; addmul keeps legacy SSE encodings in 6 + 6
# chains (enough for every CPU of configs/limits.yaml) so that it runs without AVX.
# Accumulators and sources start at 1.0: x*1.0, x/1.0 and x+1.0 never leave the
# normal range, so no denormal assist can slow a kernel. See common.S for the ABI.

# Constants and accumulators, per precision: every kernel below starts with one.
.macro FINIT_scalar_dp
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13
    movapd xmm\i, xmm15
.endr
.endm
.macro FINIT_scalar_sp
    mov eax, 0x3F800000
    movd xmm15, eax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13
    movapd xmm\i, xmm15
.endr
.endm

# @kernel scalar_dp_add kind=compute op=add isa=scalar precision=dp width=8 add=12
BEGIN scalar_dp_add
    FINIT_scalar_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    addsd xmm\i, xmm15
.endr
    NEXT
    END_SSE scalar_dp_add

# @kernel scalar_dp_mul kind=compute op=mul isa=scalar precision=dp width=8 mul=12
BEGIN scalar_dp_mul
    FINIT_scalar_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    mulsd xmm\i, xmm15
.endr
    NEXT
    END_SSE scalar_dp_mul

.macro AM_scalar_dp a, m
    addsd xmm\a, xmm15
    mulsd xmm\m, xmm15
.endm
# @kernel scalar_dp_addmul kind=compute op=addmul isa=scalar precision=dp width=8 add=6 mul=6
BEGIN scalar_dp_addmul
    FINIT_scalar_dp
    OUTER
    INNER
    AM_scalar_dp 0, 6
    AM_scalar_dp 1, 7
    AM_scalar_dp 2, 8
    AM_scalar_dp 3, 9
    AM_scalar_dp 4, 10
    AM_scalar_dp 5, 11
    NEXT
    END_SSE scalar_dp_addmul

# @kernel scalar_dp_fma kind=compute op=fma isa=scalar precision=dp width=8 fma=12
BEGIN scalar_dp_fma
    FINIT_scalar_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vfmadd231sd xmm\i, xmm14, xmm15
.endr
    NEXT
    END scalar_dp_fma

# @kernel scalar_dp_fma_add kind=compute op=fma_add isa=scalar precision=dp width=8 fma=12 add=12
BEGIN scalar_dp_fma_add
    FINIT_scalar_dp
    OUTER
    INNER
    FMA_ADD_12 vfmadd231sd, vaddsd, xmm, xmm14, xmm15, xmm13
    NEXT
    END scalar_dp_fma_add

# @kernel scalar_dp_div kind=compute op=div isa=scalar precision=dp width=8 div=8
BEGIN scalar_dp_div
    FINIT_scalar_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    divsd xmm\i, xmm15
.endr
    NEXT
    END_SSE scalar_dp_div

# @kernel scalar_sp_add kind=compute op=add isa=scalar precision=sp width=4 add=12
BEGIN scalar_sp_add
    FINIT_scalar_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    addss xmm\i, xmm15
.endr
    NEXT
    END_SSE scalar_sp_add

# @kernel scalar_sp_mul kind=compute op=mul isa=scalar precision=sp width=4 mul=12
BEGIN scalar_sp_mul
    FINIT_scalar_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    mulss xmm\i, xmm15
.endr
    NEXT
    END_SSE scalar_sp_mul

.macro AM_scalar_sp a, m
    addss xmm\a, xmm15
    mulss xmm\m, xmm15
.endm
# @kernel scalar_sp_addmul kind=compute op=addmul isa=scalar precision=sp width=4 add=6 mul=6
BEGIN scalar_sp_addmul
    FINIT_scalar_sp
    OUTER
    INNER
    AM_scalar_sp 0, 6
    AM_scalar_sp 1, 7
    AM_scalar_sp 2, 8
    AM_scalar_sp 3, 9
    AM_scalar_sp 4, 10
    AM_scalar_sp 5, 11
    NEXT
    END_SSE scalar_sp_addmul

# @kernel scalar_sp_fma kind=compute op=fma isa=scalar precision=sp width=4 fma=12
BEGIN scalar_sp_fma
    FINIT_scalar_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vfmadd231ss xmm\i, xmm14, xmm15
.endr
    NEXT
    END scalar_sp_fma

# @kernel scalar_sp_fma_add kind=compute op=fma_add isa=scalar precision=sp width=4 fma=12 add=12
BEGIN scalar_sp_fma_add
    FINIT_scalar_sp
    OUTER
    INNER
    FMA_ADD_12 vfmadd231ss, vaddss, xmm, xmm14, xmm15, xmm13
    NEXT
    END scalar_sp_fma_add

# @kernel scalar_sp_div kind=compute op=div isa=scalar precision=sp width=4 div=8
BEGIN scalar_sp_div
    FINIT_scalar_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    divss xmm\i, xmm15
.endr
    NEXT
    END_SSE scalar_sp_div
