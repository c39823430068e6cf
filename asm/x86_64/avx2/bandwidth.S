# Bandwidth kernels, AVX2 (32-byte accesses).
# Streams advance together; each access is its own register so nothing depends on
# anything but the memory system. See common.S for the ABI and the macros.

# @kernel avx2_load kind=bandwidth mix=load isa=avx2 width=32 loads=16 stores=0
BEGIN avx2_load
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd ymm\i, [r10 + 32*\i]
.endr
    add r10, 512
    NEXT
    END avx2_load

# @kernel avx2_store kind=bandwidth mix=store isa=avx2 width=32 loads=0 stores=16
BEGIN avx2_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd [rax + 32*\i], ymm\i
.endr
    add rax, 512
    NEXT
    END avx2_store

# Two loads (A, B) and one store (C) per element, interleaved: the CARM default mix. Element o
# of A into ymm i, of B into ymm j, and ymm i stored to element o of C.
.macro LLS_avx2 o, i, j
    vmovapd ymm\i, [r10 + 32*\o]
    vmovapd ymm\j, [r11 + 32*\o]
    vmovapd [rax + 32*\o], ymm\i
.endm
# @kernel avx2_2ld1st kind=bandwidth mix=2ld1st isa=avx2 width=32 loads=16 stores=8
BEGIN avx2_2ld1st
    OUTER
    INNER
    LLS_avx2 0, 0, 8
    LLS_avx2 1, 1, 9
    LLS_avx2 2, 2, 10
    LLS_avx2 3, 3, 11
    LLS_avx2 4, 4, 12
    LLS_avx2 5, 5, 13
    LLS_avx2 6, 6, 14
    LLS_avx2 7, 7, 15
    add r10, 256
    add r11, 256
    add rax, 256
    NEXT
    END avx2_2ld1st

# Paced forms of the load and 2LD1ST kernels (see avx512/bandwidth.S): the accesses in ymm0-7,
# then 64 vector integer adds in 8 chains of ymm8-15.
.macro PACE_avx2
.rept 8
.irp i,8,9,10,11,12,13,14,15
    vpaddq ymm\i, ymm\i, ymm\i
.endr
.endr
.endm

# @kernel avx2_load_paced kind=bandwidth mix=load isa=avx2 width=32 loads=16 stores=0 pace=64
BEGIN avx2_load_paced
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    vmovapd ymm\i, [r10 + 32*\i]
.endr
.irp i,0,1,2,3,4,5,6,7
    vmovapd ymm\i, [r10 + 256 + 32*\i]
.endr
    PACE_avx2
    add r10, 512
    NEXT
    END avx2_load_paced

# @kernel avx2_2ld1st_paced kind=bandwidth mix=2ld1st isa=avx2 width=32 loads=16 stores=8 pace=64
BEGIN avx2_2ld1st_paced
    OUTER
    INNER
    LLS_avx2 0, 0, 4
    LLS_avx2 1, 1, 5
    LLS_avx2 2, 2, 6
    LLS_avx2 3, 3, 7
    LLS_avx2 4, 0, 4
    LLS_avx2 5, 1, 5
    LLS_avx2 6, 2, 6
    LLS_avx2 7, 3, 7
    PACE_avx2
    add r10, 256
    add r11, 256
    add rax, 256
    NEXT
    END avx2_2ld1st_paced

# One load (A) and one store (C) per element: a copy.
# @kernel avx2_1ld1st kind=bandwidth mix=1ld1st isa=avx2 width=32 loads=8 stores=8
BEGIN avx2_1ld1st
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    vmovapd ymm\i, [r10 + 32*\i]
    vmovapd [rax + 32*\i], ymm\i
.endr
    add r10, 256
    add rax, 256
    NEXT
    END avx2_1ld1st

# Non-temporal stores (C), bypassing the caches: for DRAM only.
# @kernel avx2_nt_store kind=bandwidth mix=nt_store isa=avx2 width=32 loads=0 stores=16
BEGIN avx2_nt_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovntpd [rax + 32*\i], ymm\i
.endr
    add rax, 512
    NEXT
    END_NT avx2_nt_store
