# Bandwidth kernels, AVX-512F (64-byte accesses).
# Streams advance together; each access is its own register so nothing depends on
# anything but the memory system. See common.S for the ABI and the macros.

# Paced forms (pace=64, for DRAM roofs): the same accesses, then 64 vector integer adds in 16
# chains of registers no access uses. On some cores a stream with vector work beside its loads
# pulls more from DRAM than the bare stream; DRAM roofs record what this form reads
# (docs/evidence.md, "Paced DRAM rates").
.macro PACE_avx512
.rept 4
.irp i,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    vpaddq zmm\i, zmm\i, zmm\i
.endr
.endr
.endm

# The load kernel and its paced form (pace=1).
.macro LKERNEL name, pace
BEGIN \name
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, [r10 + 64*\i]
.endr
.if \pace
    PACE_avx512
.endif
    add r10, 1024
    NEXT
    END \name
.endm

# @kernel avx512_load kind=bandwidth mix=load isa=avx512 width=64 loads=16 stores=0
LKERNEL avx512_load, 0

# @kernel avx512_load_paced kind=bandwidth mix=load isa=avx512 width=64 loads=16 stores=0 pace=64
LKERNEL avx512_load_paced, 1

# @kernel avx512_store kind=bandwidth mix=store isa=avx512 width=64 loads=0 stores=16
BEGIN avx512_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd [rax + 64*\i], zmm\i
.endr
    add rax, 1024
    NEXT
    END avx512_store

# Two loads (A, B) and one store (C) per element, interleaved: the CARM default mix.
.macro LLS_avx512 i, j
    vmovapd zmm\i, [r10 + 64*\i]
    vmovapd zmm\j, [r11 + 64*\i]
    vmovapd [rax + 64*\i], zmm\i
.endm
# The 2LD1ST kernel and its paced form (pace=1).
.macro LLSKERNEL name, pace
BEGIN \name
    OUTER
    INNER
    LLS_avx512 0, 8
    LLS_avx512 1, 9
    LLS_avx512 2, 10
    LLS_avx512 3, 11
    LLS_avx512 4, 12
    LLS_avx512 5, 13
    LLS_avx512 6, 14
    LLS_avx512 7, 15
.if \pace
    PACE_avx512
.endif
    add r10, 512
    add r11, 512
    add rax, 512
    NEXT
    END \name
.endm

# @kernel avx512_2ld1st kind=bandwidth mix=2ld1st isa=avx512 width=64 loads=16 stores=8
LLSKERNEL avx512_2ld1st, 0

# @kernel avx512_2ld1st_paced kind=bandwidth mix=2ld1st isa=avx512 width=64 loads=16 stores=8 pace=64
LLSKERNEL avx512_2ld1st_paced, 1

# One load (A) and one store (C) per element: a copy.
# @kernel avx512_1ld1st kind=bandwidth mix=1ld1st isa=avx512 width=64 loads=8 stores=8
BEGIN avx512_1ld1st
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    vmovapd zmm\i, [r10 + 64*\i]
    vmovapd [rax + 64*\i], zmm\i
.endr
    add r10, 512
    add rax, 512
    NEXT
    END avx512_1ld1st

# Non-temporal stores (C), bypassing the caches: for DRAM only.
# @kernel avx512_nt_store kind=bandwidth mix=nt_store isa=avx512 width=64 loads=0 stores=16
BEGIN avx512_nt_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovntpd [rax + 64*\i], zmm\i
.endr
    add rax, 1024
    NEXT
    END_NT avx512_nt_store
