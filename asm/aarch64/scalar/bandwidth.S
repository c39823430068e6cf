// Bandwidth kernels, scalar (8-byte d registers). Streams advance together; each access is
// its own register, so nothing depends on anything but the memory system. Stored registers
// hold 1.0 (or what was just loaded), so the tests can read back what a kernel wrote. See
// common.S for the ABI and the macros.

.macro ONES_scalar
    fmov d16, #1.0
.irp i,17,18,19,20,21,22,23
    fmov d\i, d16
.endr
.endm

// @kernel scalar_load kind=bandwidth mix=load isa=scalar width=8 loads=16 stores=0
BEGIN scalar_load
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    ldr d\i, [x9, #8*\i]
.endr
.irp i,16,17,18,19,20,21,22,23
    ldr d\i, [x9, #8*(\i-8)]
.endr
    add x9, x9, #128
    NEXT
    END_KEEP scalar_load, str d23, [x2]

// @kernel scalar_store kind=bandwidth mix=store isa=scalar width=8 loads=0 stores=16
BEGIN scalar_store
    ONES_scalar
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    str d16, [x11, #8*\i]
.endr
    add x11, x11, #128
    NEXT
    END scalar_store

// Two loads (A, B) and one store (C) per element: the CARM default mix. C gets A's values.
// @kernel scalar_2ld1st kind=bandwidth mix=2ld1st isa=scalar width=8 loads=16 stores=8
BEGIN scalar_2ld1st
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    ldr d\i, [x9, #8*\i]
    ldr d2\i, [x10, #8*\i]
    str d\i, [x11, #8*\i]
.endr
    add x9, x9, #64
    add x10, x10, #64
    add x11, x11, #64
    NEXT
    END scalar_2ld1st

// One load (A) and one store (C) per element: a copy.
// @kernel scalar_1ld1st kind=bandwidth mix=1ld1st isa=scalar width=8 loads=8 stores=8
BEGIN scalar_1ld1st
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    ldr d\i, [x9, #8*\i]
    str d\i, [x11, #8*\i]
.endr
    add x9, x9, #64
    add x11, x11, #64
    NEXT
    END scalar_1ld1st

// Non-temporal stores (C), in pairs (stnp): for DRAM only.
// @kernel scalar_nt_store kind=bandwidth mix=nt_store isa=scalar width=8 loads=0 stores=16
BEGIN scalar_nt_store
    ONES_scalar
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    stnp d16, d17, [x11, #16*\i]
.endr
    add x11, x11, #128
    NEXT
    END scalar_nt_store
