# FP kernels, 512-bit AVX-512F, double (dp) and single (sp) precision.
# Every accumulator is its own dependency chain, enough of them to cover the latency
# of each pipe (e.g. FMA: 4 cycles x 2 pipes = 8 chains in flight; 16 here). The
# two-op mixes use the shared bodies of asm/x86_64/flops.S.
# Accumulators and sources start at 1.0: x*1.0, x/1.0 and x+1.0 never leave the
# normal range, so no denormal assist can slow a kernel. See common.S for the ABI.

# Constants and accumulators, per precision: every kernel below starts with one.
.macro FINIT_avx512_dp
    mov rax, 0x3FF0000000000000
    vpbroadcastq zmm31, rax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29
    vmovapd zmm\i, zmm31
.endr
.endm
.macro FINIT_avx512_sp
    mov eax, 0x3F800000
    vpbroadcastd zmm31, eax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29
    vmovapd zmm\i, zmm31
.endr
.endm

# @kernel avx512_dp_add kind=compute op=add isa=avx512 precision=dp width=64 add=16
BEGIN avx512_dp_add
    FINIT_avx512_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vaddpd zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_dp_add

# @kernel avx512_dp_mul kind=compute op=mul isa=avx512 precision=dp width=64 mul=16
BEGIN avx512_dp_mul
    FINIT_avx512_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmulpd zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_dp_mul

# @kernel avx512_dp_addmul kind=compute op=addmul isa=avx512 precision=dp width=64 add=12 mul=12
BEGIN avx512_dp_addmul
    FINIT_avx512_dp
    OUTER
    INNER
    ADD_MUL_12 vaddpd, vmulpd, zmm, zmm30, zmm31, zmm12
    NEXT
    END avx512_dp_addmul

# @kernel avx512_dp_fma kind=compute op=fma isa=avx512 precision=dp width=64 fma=16
BEGIN avx512_dp_fma
    FINIT_avx512_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vfmadd231pd zmm\i, zmm30, zmm31
.endr
    NEXT
    END avx512_dp_fma

.macro FA_avx512_dp f, a
    vfmadd231pd zmm\f, zmm30, zmm31
    vaddpd zmm\a, zmm\a, zmm31
.endm
# @kernel avx512_dp_fma_add kind=compute op=fma_add isa=avx512 precision=dp width=64 fma=12 add=12
BEGIN avx512_dp_fma_add
    FINIT_avx512_dp
    OUTER
    INNER
    FA_avx512_dp 0, 12
    FA_avx512_dp 1, 13
    FA_avx512_dp 2, 14
    FA_avx512_dp 3, 15
    FA_avx512_dp 4, 16
    FA_avx512_dp 5, 17
    FA_avx512_dp 6, 18
    FA_avx512_dp 7, 19
    FA_avx512_dp 8, 20
    FA_avx512_dp 9, 21
    FA_avx512_dp 10, 22
    FA_avx512_dp 11, 23
    NEXT
    END avx512_dp_fma_add

# @kernel avx512_dp_div kind=compute op=div isa=avx512 precision=dp width=64 div=8
BEGIN avx512_dp_div
    FINIT_avx512_dp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    vdivpd zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_dp_div

# @kernel avx512_sp_add kind=compute op=add isa=avx512 precision=sp width=64 add=16
BEGIN avx512_sp_add
    FINIT_avx512_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vaddps zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_sp_add

# @kernel avx512_sp_mul kind=compute op=mul isa=avx512 precision=sp width=64 mul=16
BEGIN avx512_sp_mul
    FINIT_avx512_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmulps zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_sp_mul

# @kernel avx512_sp_addmul kind=compute op=addmul isa=avx512 precision=sp width=64 add=12 mul=12
BEGIN avx512_sp_addmul
    FINIT_avx512_sp
    OUTER
    INNER
    ADD_MUL_12 vaddps, vmulps, zmm, zmm30, zmm31, zmm12
    NEXT
    END avx512_sp_addmul

# @kernel avx512_sp_fma kind=compute op=fma isa=avx512 precision=sp width=64 fma=16
BEGIN avx512_sp_fma
    FINIT_avx512_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vfmadd231ps zmm\i, zmm30, zmm31
.endr
    NEXT
    END avx512_sp_fma

.macro FA_avx512_sp f, a
    vfmadd231ps zmm\f, zmm30, zmm31
    vaddps zmm\a, zmm\a, zmm31
.endm
# @kernel avx512_sp_fma_add kind=compute op=fma_add isa=avx512 precision=sp width=64 fma=12 add=12
BEGIN avx512_sp_fma_add
    FINIT_avx512_sp
    OUTER
    INNER
    FA_avx512_sp 0, 12
    FA_avx512_sp 1, 13
    FA_avx512_sp 2, 14
    FA_avx512_sp 3, 15
    FA_avx512_sp 4, 16
    FA_avx512_sp 5, 17
    FA_avx512_sp 6, 18
    FA_avx512_sp 7, 19
    FA_avx512_sp 8, 20
    FA_avx512_sp 9, 21
    FA_avx512_sp 10, 22
    FA_avx512_sp 11, 23
    NEXT
    END avx512_sp_fma_add

# @kernel avx512_sp_div kind=compute op=div isa=avx512 precision=sp width=64 div=8
BEGIN avx512_sp_div
    FINIT_avx512_sp
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    vdivps zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_sp_div
