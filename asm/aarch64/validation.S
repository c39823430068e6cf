// Validation kernels: per iteration, a memory unit repeated j times and an FP unit repeated k
// times, j and k given at run time (x5 = j << 32 | k). The declaration gives the counts of ONE
// memory unit (loads, stores) and ONE FP unit (fma, add, mul): bytes = j x unit bytes and
// flops = k x unit flops per iteration, so the arithmetic intensity k*F/(j*B) is exact by
// construction. The k FP units are spread evenly among the j memory units (an error term adds
// k after each memory unit and runs an FP unit per j it holds), as on x86-64
// (asm/x86_64/validation.S). Labels: 1 = pass, 2 = iteration, 3 = memory unit, 4 = FP unit.
// Registers: x13 = j, x14 = k, x15 = memory units left, x16 = error term; the FP chains are
// flops.S's (v0-v7, v16-v23, constants v30, v31, scratch v29), the memory units use v24-v28.
//
// Prefetching twins (declared with prefetch=D, D bytes): each memory unit first asks for
// every line it holds, D bytes further on (prfm pldl1keep, or pstl1keep for a stream it
// stores to; SVE: prfb over each vector of the unit). A prefetch retires without waiting for
// its line (docs/evidence.md, "Prefetching twins").

.macro VSPLIT
    lsr x13, x5, #32
    mov w14, w5
.endm
.macro VOUTER
1:
    mov x9, x0
    mov x10, x1
    mov x11, x2
    mov x12, x3
    .p2align 6
2:
    mov x15, x13
    mov x16, #0
3:
.endm
.macro VMID
    add x16, x16, x14
    cmp x16, x13
    b.lo 5f
4:
.endm
.macro VNEXT
    sub x16, x16, x13
    cmp x16, x13
    b.hs 4b
5:
    subs x15, x15, #1
    b.ne 3b
    subs x12, x12, #1
    b.ne 2b
    subs x4, x4, #1
    b.ne 1b
.endm

// Prefetch the lines at base + pf + each offset (nothing when pf is 0).
.macro VPF kind, base, pf, offsets:vararg
.if \pf
.irp o,\offsets
    prfm \kind, [\base, #(\pf + \o)]
.endr
.endif
.endm
// SVE: prefetch the unit's vectors at base + pf, through x17.
.macro VPF_sve kind, base, pf
.if \pf
    add x17, \base, #\pf
.irp i,0,1,2,3,4,5,6,7
    prfb \kind, p7, [x17, #\i, mul vl]
.endr
.endif
.endm

// Memory units of 16 loads (load; SVE 8) or 16 loads and 8 stores (2ld1st: ldldst, as
// LLVM's assembler mangles a macro argument starting with a digit), per ISA; r is the
// register spelling of the precision (the scalar units access its elements).
.macro VMEM_load_scalar r, pf=0
.ifc \r,d
    VPF pldl1keep, x9, \pf, 0, 64
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    ldr d24, [x9, #8*\i]
.endr
    add x9, x9, #128
.else
    VPF pldl1keep, x9, \pf, 0
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    ldr s24, [x9, #4*\i]
.endr
    add x9, x9, #64
.endif
.endm
.macro VMEM_ldldst_scalar r, pf=0
    VPF pldl1keep, x9, \pf, 0
    VPF pldl1keep, x10, \pf, 0
    VPF pstl1keep, x11, \pf, 0
.ifc \r,d
.irp i,0,1,2,3,4,5,6,7
    ldr d24, [x9, #8*\i]
    ldr d25, [x10, #8*\i]
    str d24, [x11, #8*\i]
.endr
    add x9, x9, #64
    add x10, x10, #64
    add x11, x11, #64
.else
.irp i,0,1,2,3,4,5,6,7
    ldr s24, [x9, #4*\i]
    ldr s25, [x10, #4*\i]
    str s24, [x11, #4*\i]
.endr
    add x9, x9, #32
    add x10, x10, #32
    add x11, x11, #32
.endif
.endm
.macro VMEM_load_neon r, pf=0
    VPF pldl1keep, x9, \pf, 0, 64, 128, 192
.irp i,0,1,2,3,4,5,6,7
    ldp q24, q25, [x9, #32*\i]
.endr
    add x9, x9, #256
.endm
.macro VMEM_ldldst_neon r, pf=0
    VPF pldl1keep, x9, \pf, 0, 64
    VPF pldl1keep, x10, \pf, 0, 64
    VPF pstl1keep, x11, \pf, 0, 64
.irp i,0,1,2,3
    ldp q24, q25, [x9, #32*\i]
    ldp q26, q27, [x10, #32*\i]
    stp q24, q25, [x11, #32*\i]
.endr
    add x9, x9, #128
    add x10, x10, #128
    add x11, x11, #128
.endm
.macro VMEM_load_sve r, pf=0
    VPF_sve pldl1keep, x9, \pf
.irp i,0,1,2,3,4,5,6,7
    ld1d {z24.d}, p7/z, [x9, #\i, mul vl]
.endr
    addvl x9, x9, #8
.endm
.macro VMEM_ldldst_sve r, pf=0
    VPF_sve pldl1keep, x9, \pf
    VPF_sve pldl1keep, x10, \pf
    VPF_sve pstl1keep, x11, \pf
.irp i,0,1,2,3,4,5,6,7
    ld1d {z24.d}, p7/z, [x9, #\i, mul vl]
    ld1d {z25.d}, p7/z, [x10, #\i, mul vl]
    st1d {z24.d}, p7, [x11, #\i, mul vl]
.endr
    addvl x9, x9, #8
    addvl x10, x10, #8
    addvl x11, x11, #8
.endm

// A whole validation kernel: the constants and chains of its ISA (flops.S's INIT, which for
// SVE also sets p7), the memory unit of its mix and ISA, the FP unit of its op (flops.S's
// body), spell being the register spelling of its precision; pf for a prefetching twin.
.macro VKERNEL name, isa, mem, fpisa, op, spell, pf=0
    BEGIN \name
    \fpisa\()_INIT \spell
    VSPLIT
    VOUTER
    VMEM_\mem\()_\isa \spell, \pf
    VMID
    \fpisa\()_\op \spell
    VNEXT
    END \name
.endm
