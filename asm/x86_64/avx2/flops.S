# FP kernels, 256-bit AVX2 + FMA3, double (dp) and single (sp) precision.
# Every accumulator is its own dependency chain, enough of them to cover the latency
# of each pipe (e.g. FMA: 4 cycles x 2 pipes = 8 chains in flight; 12 here). The
# two-op mixes use the shared bodies of asm/x86_64/flops.S.
# Accumulators and sources start at 1.0: x*1.0, x/1.0 and x+1.0 never leave the
# normal range, so no denormal assist can slow a kernel. See common.S for the ABI.

# Constants and accumulators, per precision: every kernel below starts with one.
.macro FINIT_avx2_dp
    mov rax, 0x3FF0000000000000
    vmovq xmm15, rax
    vbroadcastsd ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13
    vmovapd ymm\i, ymm15
.endr
.endm
.macro FINIT_avx2_sp
    mov eax, 0x3F800000
    vmovd xmm15, eax
    vbroadcastss ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13
    vmovapd ymm\i, ymm15
.endr
.endm

# @kernel avx2_dp_add kind=compute op=add isa=avx2 precision=dp width=32 add=12
BEGIN avx2_dp_add
    FINIT_avx2_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vaddpd ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_dp_add

# @kernel avx2_dp_mul kind=compute op=mul isa=avx2 precision=dp width=32 mul=12
BEGIN avx2_dp_mul
    FINIT_avx2_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmulpd ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_dp_mul

# @kernel avx2_dp_addmul kind=compute op=addmul isa=avx2 precision=dp width=32 add=12 mul=12
BEGIN avx2_dp_addmul
    FINIT_avx2_dp
    OUTER
    INNER
    ADD_MUL_12 vaddpd, vmulpd, ymm, ymm14, ymm15, ymm12
    NEXT
    END avx2_dp_addmul

# @kernel avx2_dp_fma kind=compute op=fma isa=avx2 precision=dp width=32 fma=12
BEGIN avx2_dp_fma
    FINIT_avx2_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vfmadd231pd ymm\i, ymm14, ymm15
.endr
    NEXT
    END avx2_dp_fma

# @kernel avx2_dp_fma_add kind=compute op=fma_add isa=avx2 precision=dp width=32 fma=12 add=12
BEGIN avx2_dp_fma_add
    FINIT_avx2_dp
    OUTER
    INNER
    FMA_ADD_12 vfmadd231pd, vaddpd, ymm, ymm14, ymm15, ymm13
    NEXT
    END avx2_dp_fma_add

# @kernel avx2_dp_div kind=compute op=div isa=avx2 precision=dp width=32 div=8
BEGIN avx2_dp_div
    FINIT_avx2_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    vdivpd ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_dp_div

# @kernel avx2_sp_add kind=compute op=add isa=avx2 precision=sp width=32 add=12
BEGIN avx2_sp_add
    FINIT_avx2_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vaddps ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_sp_add

# @kernel avx2_sp_mul kind=compute op=mul isa=avx2 precision=sp width=32 mul=12
BEGIN avx2_sp_mul
    FINIT_avx2_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmulps ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_sp_mul

# @kernel avx2_sp_addmul kind=compute op=addmul isa=avx2 precision=sp width=32 add=12 mul=12
BEGIN avx2_sp_addmul
    FINIT_avx2_sp
    OUTER
    INNER
    ADD_MUL_12 vaddps, vmulps, ymm, ymm14, ymm15, ymm12
    NEXT
    END avx2_sp_addmul

# @kernel avx2_sp_fma kind=compute op=fma isa=avx2 precision=sp width=32 fma=12
BEGIN avx2_sp_fma
    FINIT_avx2_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vfmadd231ps ymm\i, ymm14, ymm15
.endr
    NEXT
    END avx2_sp_fma

# @kernel avx2_sp_fma_add kind=compute op=fma_add isa=avx2 precision=sp width=32 fma=12 add=12
BEGIN avx2_sp_fma_add
    FINIT_avx2_sp
    OUTER
    INNER
    FMA_ADD_12 vfmadd231ps, vaddps, ymm, ymm14, ymm15, ymm13
    NEXT
    END avx2_sp_fma_add

# @kernel avx2_sp_div kind=compute op=div isa=avx2 precision=sp width=32 div=8
BEGIN avx2_sp_div
    FINIT_avx2_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    vdivps ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_sp_div
