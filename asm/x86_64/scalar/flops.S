# FP kernels, scalar SSE2 (VEX-encoded AVX for addmul, FMA3 for the FMA kernels), double (dp) and single (sp) precision.
# Every accumulator is its own dependency chain, enough of them to cover the latency
# of each pipe (e.g. FMA: 4 cycles x 2 pipes = 8 chains in flight; 12 here). fma_add
# and addmul use the shared two-op body of asm/x86_64/flops.S (12 chains of one op, the
# other op independent), VEX-encoded, so addmul needs AVX: in legacy SSE with 6 + 6
# chains it read 75 % of its limit on Zen 5 (docs/evidence.md).
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

# @kernel scalar_dp_addmul kind=compute op=addmul isa=scalar precision=dp width=8 add=12 mul=12 needs=avx
BEGIN scalar_dp_addmul
    FINIT_scalar_dp
    OUTER
    INNER
    ADD_MUL_12 vaddsd, vmulsd, xmm, xmm14, xmm15, xmm13
    NEXT
    END scalar_dp_addmul

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

# @kernel scalar_sp_addmul kind=compute op=addmul isa=scalar precision=sp width=4 add=12 mul=12 needs=avx
BEGIN scalar_sp_addmul
    FINIT_scalar_sp
    OUTER
    INNER
    ADD_MUL_12 vaddss, vmulss, xmm, xmm14, xmm15, xmm13
    NEXT
    END scalar_sp_addmul

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
