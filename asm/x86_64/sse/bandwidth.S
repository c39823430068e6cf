# Bandwidth kernels, SSE2 (16-byte accesses).
# Streams advance together; each access is its own register so nothing depends on
# anything but the memory system. See common.S for the ABI and the macros.

# @kernel sse_load kind=bandwidth mix=load isa=sse width=16 loads=16 stores=0
BEGIN sse_load
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    movapd xmm\i, [r10 + 16*\i]
.endr
    add r10, 256
    NEXT
    END_SSE sse_load

# @kernel sse_store kind=bandwidth mix=store isa=sse width=16 loads=0 stores=16
BEGIN sse_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    movapd [rax + 16*\i], xmm\i
.endr
    add rax, 256
    NEXT
    END_SSE sse_store

# Two loads (A, B) and one store (C) per element, interleaved: the CARM default mix.
.macro LLS_sse i, j
    movapd xmm\i, [r10 + 16*\i]
    movapd xmm\j, [r11 + 16*\i]
    movapd [rax + 16*\i], xmm\i
.endm
# @kernel sse_2ld1st kind=bandwidth mix=2ld1st isa=sse width=16 loads=16 stores=8
BEGIN sse_2ld1st
    OUTER
    INNER
    LLS_sse 0, 8
    LLS_sse 1, 9
    LLS_sse 2, 10
    LLS_sse 3, 11
    LLS_sse 4, 12
    LLS_sse 5, 13
    LLS_sse 6, 14
    LLS_sse 7, 15
    add r10, 128
    add r11, 128
    add rax, 128
    NEXT
    END_SSE sse_2ld1st

# One load (A) and one store (C) per element: a copy.
# @kernel sse_1ld1st kind=bandwidth mix=1ld1st isa=sse width=16 loads=8 stores=8
BEGIN sse_1ld1st
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    movapd xmm\i, [r10 + 16*\i]
    movapd [rax + 16*\i], xmm\i
.endr
    add r10, 128
    add rax, 128
    NEXT
    END_SSE sse_1ld1st

# Non-temporal stores (C), bypassing the caches: for DRAM only.
# @kernel sse_nt_store kind=bandwidth mix=nt_store isa=sse width=16 loads=0 stores=16
BEGIN sse_nt_store
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    movntpd [rax + 16*\i], xmm\i
.endr
    add rax, 256
    NEXT
    END_NT_SSE sse_nt_store
