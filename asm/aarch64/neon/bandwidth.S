// Bandwidth kernels, 128-bit NEON q registers, in pairs (ldp, stp: the widest access of
// the Neoverse load and store pipes). Streams advance together; each access is its own
// register. Stored registers hold 1.0 (or what was just loaded), so the tests can read back
// what a kernel wrote. See common.S for the ABI and the macros.

.macro ONES_neon
    fmov v16.2d, #1.0
    mov v17.16b, v16.16b
.endm

// @kernel neon_load kind=bandwidth mix=load isa=neon width=16 loads=16 stores=0
BEGIN neon_load
    OUTER
    INNER
    ldp q0, q1, [x9, #0]
    ldp q2, q3, [x9, #32]
    ldp q4, q5, [x9, #64]
    ldp q6, q7, [x9, #96]
    ldp q16, q17, [x9, #128]
    ldp q18, q19, [x9, #160]
    ldp q20, q21, [x9, #192]
    ldp q22, q23, [x9, #224]
    add x9, x9, #256
    NEXT
    END_KEEP neon_load, str q23, [x2]

// @kernel neon_store kind=bandwidth mix=store isa=neon width=16 loads=0 stores=16
BEGIN neon_store
    ONES_neon
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    stp q16, q17, [x11, #32*\i]
.endr
    add x11, x11, #256
    NEXT
    END neon_store

// Two loads (A, B) and one store (C) per element: the CARM default mix. C gets A's values.
// @kernel neon_2ld1st kind=bandwidth mix=2ld1st isa=neon width=16 loads=16 stores=8
BEGIN neon_2ld1st
    OUTER
    INNER
    ldp q0, q1, [x9, #0]
    ldp q16, q17, [x10, #0]
    stp q0, q1, [x11, #0]
    ldp q2, q3, [x9, #32]
    ldp q18, q19, [x10, #32]
    stp q2, q3, [x11, #32]
    ldp q4, q5, [x9, #64]
    ldp q20, q21, [x10, #64]
    stp q4, q5, [x11, #64]
    ldp q6, q7, [x9, #96]
    ldp q22, q23, [x10, #96]
    stp q6, q7, [x11, #96]
    add x9, x9, #128
    add x10, x10, #128
    add x11, x11, #128
    NEXT
    END neon_2ld1st

// One load (A) and one store (C) per element: a copy.
// @kernel neon_1ld1st kind=bandwidth mix=1ld1st isa=neon width=16 loads=8 stores=8
BEGIN neon_1ld1st
    OUTER
    INNER
    ldp q0, q1, [x9, #0]
    stp q0, q1, [x11, #0]
    ldp q2, q3, [x9, #32]
    stp q2, q3, [x11, #32]
    ldp q4, q5, [x9, #64]
    stp q4, q5, [x11, #64]
    ldp q6, q7, [x9, #96]
    stp q6, q7, [x11, #96]
    add x9, x9, #128
    add x11, x11, #128
    NEXT
    END neon_1ld1st

// Non-temporal stores (C), in pairs (stnp): for DRAM only.
// @kernel neon_nt_store kind=bandwidth mix=nt_store isa=neon width=16 loads=0 stores=16
BEGIN neon_nt_store
    ONES_neon
    OUTER
    INNER
.irp i,0,1,2,3,4,5,6,7
    stnp q16, q17, [x11, #32*\i]
.endr
    add x11, x11, #256
    NEXT
    END neon_nt_store
