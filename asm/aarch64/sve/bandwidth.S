// Bandwidth kernels, SVE at the CPU's vector length (width=vl: counts per vector), 64-bit
// elements under the all-true predicate p7. Offsets are in vectors (mul vl, 0 to 7 in one
// instruction) and the streams advance by `addvl`. Stored registers hold 1.0 (or what was
// just loaded), so the tests can read back what a kernel wrote. See common.S for the ABI.

.macro ONES_sve
    ptrue p7.b
    fmov z16.d, #1.0
.endm

// @kernel sve_load kind=bandwidth mix=load isa=sve width=vl loads=8 stores=0
BEGIN sve_load
    ptrue p7.b
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    ld1d {z\i\().d}, p7/z, [x9, #\i, mul vl]
.endr
    addvl x9, x9, #8
    NEXT
    END_KEEP sve_load, st1d {z7.d}, p7, [x2]

// @kernel sve_store kind=bandwidth mix=store isa=sve width=vl loads=0 stores=8
BEGIN sve_store
    ONES_sve
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    st1d {z16.d}, p7, [x11, #\i, mul vl]
.endr
    addvl x11, x11, #8
    NEXT
    END sve_store

// Two loads (A, B) and one store (C) per element: the CARM default mix. C gets A's values.
// @kernel sve_2ld1st kind=bandwidth mix=2ld1st isa=sve width=vl loads=16 stores=8
BEGIN sve_2ld1st
    ptrue p7.b
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    ld1d {z\i\().d}, p7/z, [x9, #\i, mul vl]
    ld1d {z2\i\().d}, p7/z, [x10, #\i, mul vl]
    st1d {z\i\().d}, p7, [x11, #\i, mul vl]
.endr
    addvl x9, x9, #8
    addvl x10, x10, #8
    addvl x11, x11, #8
    NEXT
    END sve_2ld1st

// One load (A) and one store (C) per element: a copy.
// @kernel sve_1ld1st kind=bandwidth mix=1ld1st isa=sve width=vl loads=8 stores=8
BEGIN sve_1ld1st
    ptrue p7.b
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    ld1d {z\i\().d}, p7/z, [x9, #\i, mul vl]
    st1d {z\i\().d}, p7, [x11, #\i, mul vl]
.endr
    addvl x9, x9, #8
    addvl x11, x11, #8
    NEXT
    END sve_1ld1st

// Non-temporal stores (C): for DRAM only.
// @kernel sve_nt_store kind=bandwidth mix=nt_store isa=sve width=vl loads=0 stores=8
BEGIN sve_nt_store
    ONES_sve
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    stnt1d {z16.d}, p7, [x11, #\i, mul vl]
.endr
    addvl x11, x11, #8
    NEXT
    END sve_nt_store
