# Bandwidth kernels, scalar SSE2 (8-byte accesses).
# Streams advance together; each access is its own register so nothing depends on
# anything but the memory system. See common.S for the ABI and the macros.

# @kernel scalar_load kind=bandwidth mix=load isa=scalar width=8 loads=16 stores=0
BEGIN scalar_load
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    movsd xmm\i, [r10 + 8*\i]
.endr
    add r10, 128
    NEXT
    END_SSE scalar_load

# @kernel scalar_store kind=bandwidth mix=store isa=scalar width=8 loads=0 stores=16
BEGIN scalar_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    movsd [rax + 8*\i], xmm\i
.endr
    add rax, 128
    NEXT
    END_SSE scalar_store

# Two loads (A, B) and one store (C) per element, interleaved: the CARM default mix.
.macro LLS_scalar i, j
    movsd xmm\i, [r10 + 8*\i]
    movsd xmm\j, [r11 + 8*\i]
    movsd [rax + 8*\i], xmm\i
.endm
# @kernel scalar_2ld1st kind=bandwidth mix=2ld1st isa=scalar width=8 loads=16 stores=8
BEGIN scalar_2ld1st
    OUTER
    INNER
    LLS_scalar 0, 8
    LLS_scalar 1, 9
    LLS_scalar 2, 10
    LLS_scalar 3, 11
    LLS_scalar 4, 12
    LLS_scalar 5, 13
    LLS_scalar 6, 14
    LLS_scalar 7, 15
    add r10, 64
    add r11, 64
    add rax, 64
    NEXT
    END_SSE scalar_2ld1st

# One load (A) and one store (C) per element: a copy.
# @kernel scalar_1ld1st kind=bandwidth mix=1ld1st isa=scalar width=8 loads=8 stores=8
BEGIN scalar_1ld1st
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    movsd xmm\i, [r10 + 8*\i]
    movsd [rax + 8*\i], xmm\i
.endr
    add r10, 64
    add rax, 64
    NEXT
    END_SSE scalar_1ld1st

# Non-temporal stores (C), bypassing the caches: for DRAM only.
# @kernel scalar_nt_store kind=bandwidth mix=nt_store isa=scalar width=8 loads=0 stores=16
BEGIN scalar_nt_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    movnti [rax + 8*\i], r8
.endr
    add rax, 128
    NEXT
    END_NT_SSE scalar_nt_store
