# Narrow-precision kernels, 256-bit VEX: INT8 and INT16 dot products (AVX-VNNI, the
# {vex} forms: Alder Lake and later, Zen 5), INT16 dot products without VNNI and INT32
# adds and multiplies (AVX2).
# Twelve accumulators, ymm0-11 (VEX reaches ymm0-15 only; ymm14 and ymm15 hold the
# sources): 5-cycle dot products at 2 a cycle need 10 in flight; VPMULLD's 10 cycles
# at 1 a cycle, 10. See avx512/narrow.S for the values and common.S for the ABI.

.macro NINIT2 src, acc
    mov eax, \src
    vmovd xmm15, eax
    vpbroadcastd ymm15, xmm15
    vmovdqa ymm14, ymm15
    mov eax, \acc
    vmovd xmm0, eax
    vpbroadcastd ymm0, xmm0
.irp i,1,2,3,4,5,6,7,8,9,10,11
    vmovdqa ymm\i, ymm0
.endr
.endm

# @kernel avx2_int8_dot kind=compute op=dot isa=avx2 precision=int8 width=32 dot=12 needs=avxvnni
BEGIN avx2_int8_dot
    NINIT2 0x01010101, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    {vex} vpdpbusd ymm\i, ymm14, ymm15
.endr
    NEXT
    END avx2_int8_dot

# @kernel avx2_int16_dot kind=compute op=dot isa=avx2 precision=int16 width=32 dot=12 needs=avxvnni
BEGIN avx2_int16_dot
    NINIT2 0x00010001, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    {vex} vpdpwssd ymm\i, ymm14, ymm15
.endr
    NEXT
    END avx2_int16_dot

# INT16 dot products without VNNI, as compilers write them for AVX2: `vpmaddwd` into a
# temporary, `vpaddd` into a chain; two pairs at a time (temporaries ymm12 and ymm13).
.macro MADD2 a, b
    vpmaddwd ymm12, ymm14, ymm15
    vpmaddwd ymm13, ymm14, ymm15
    vpaddd ymm\a, ymm\a, ymm12
    vpaddd ymm\b, ymm\b, ymm13
.endm
# @kernel avx2_int16_madd kind=compute op=madd isa=avx2 precision=int16 width=32 madd=12
BEGIN avx2_int16_madd
    NINIT2 0x00010001, 0
    OUTER
    INNER
    MADD2 0, 1
    MADD2 2, 3
    MADD2 4, 5
    MADD2 6, 7
    MADD2 8, 9
    MADD2 10, 11
    NEXT
    END avx2_int16_madd

# @kernel avx2_int32_add kind=compute op=add isa=avx2 precision=int32 width=32 add=12
BEGIN avx2_int32_add
    NINIT2 1, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vpaddd ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_int32_add

# @kernel avx2_int32_mul kind=compute op=mul isa=avx2 precision=int32 width=32 mul=12
BEGIN avx2_int32_mul
    NINIT2 1, 1
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vpmulld ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_int32_mul

# Integer ALU work of 64-bit lanes (precision `int`, the vector side of the integer
# roofs): VPADDQ, twelve chains.
# @kernel avx2_int_add kind=compute op=add isa=avx2 precision=int width=32 add=12
BEGIN avx2_int_add
    NINIT2 1, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vpaddq ymm\i, ymm\i, ymm15
.endr
    NEXT
    END avx2_int_add
