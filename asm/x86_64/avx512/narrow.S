# Narrow-precision kernels, 512-bit: INT8, INT16 and BF16 dot products (AVX512_VNNI,
# AVX512_BF16), INT16 ones without VNNI, half-precision FMAs (AVX512_FP16), INT32 adds
# and multiplies.
# Each accumulator is its own dependency chain: 16 cover the longest latency here
# times two pipes (VNNI and BF16 dot products 5-6 cycles on Zen 4/5 and Golden Cove,
# 2 a cycle: 10-12 in flight; VPMULLD 10 cycles, 1 a cycle). Sources are 1 in every
# element (1.0 for BF16 and FP16); FP accumulators start at 1.0 and only grow or
# saturate, so no denormal assist can slow a kernel. See common.S for the ABI.

# zmm30 and zmm31 hold `src` in every 32-bit lane; zmm0-15 hold `acc`.
.macro NINIT src, acc
    mov eax, \src
    vpbroadcastd zmm31, eax
    vmovdqa64 zmm30, zmm31
    mov eax, \acc
    vpbroadcastd zmm0, eax
.irp i,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovdqa64 zmm\i, zmm0
.endr
.endm

# Sixteen independent instructions `op zmmN, zmm30, zmm31`.
.macro N16 op
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    \op zmm\i, zmm30, zmm31
.endr
.endm

# @kernel avx512_int8_dot kind=compute op=dot isa=avx512 precision=int8 width=64 dot=16 needs=avx512vnni
BEGIN avx512_int8_dot
    NINIT 0x01010101, 0
    OUTER
    INNER
    N16 vpdpbusd
    NEXT
    END avx512_int8_dot

# @kernel avx512_int16_dot kind=compute op=dot isa=avx512 precision=int16 width=64 dot=16 needs=avx512vnni
BEGIN avx512_int16_dot
    NINIT 0x00010001, 0
    OUTER
    INNER
    N16 vpdpwssd
    NEXT
    END avx512_int16_dot

# @kernel avx512_bf16_dot kind=compute op=dot isa=avx512 precision=bf16 width=64 dot=16 needs=avx512bf16
BEGIN avx512_bf16_dot
    NINIT 0x3F803F80, 0x3F800000
    OUTER
    INNER
    N16 vdpbf16ps
    NEXT
    END avx512_bf16_dot

# @kernel avx512_fp16_fma kind=compute op=fma isa=avx512 precision=fp16 width=64 fma=16 needs=avx512fp16
BEGIN avx512_fp16_fma
    NINIT 0x3C003C00, 0x3C003C00
    OUTER
    INNER
    N16 vfmadd231ph
    NEXT
    END avx512_fp16_fma

# INT16 dot products without VNNI (AVX512_BW): `vpmaddwd` into a temporary (renamed at
# every write), `vpaddd` into a chain.
# @kernel avx512_int16_madd kind=compute op=madd isa=avx512 precision=int16 width=64 madd=16 needs=avx512bw
BEGIN avx512_int16_madd
    NINIT 0x00010001, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vpmaddwd zmm16, zmm30, zmm31
    vpaddd zmm\i, zmm\i, zmm16
.endr
    NEXT
    END avx512_int16_madd

# @kernel avx512_int32_add kind=compute op=add isa=avx512 precision=int32 width=64 add=16
BEGIN avx512_int32_add
    NINIT 1, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vpaddd zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_int32_add

# @kernel avx512_int32_mul kind=compute op=mul isa=avx512 precision=int32 width=64 mul=16
BEGIN avx512_int32_mul
    NINIT 1, 1
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vpmulld zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_int32_mul

# Integer ALU work of 64-bit lanes (precision `int`, the vector side of the integer
# roofs): VPADDQ, sixteen chains.
# @kernel avx512_int_add kind=compute op=add isa=avx512 precision=int width=64 add=16
BEGIN avx512_int_add
    NINIT 1, 0
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vpaddq zmm\i, zmm\i, zmm31
.endr
    NEXT
    END avx512_int_add
