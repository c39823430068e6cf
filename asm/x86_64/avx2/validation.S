# Validation kernels, avx2: see asm/x86_64/validation.S for the layout and VKERNEL.
# The units below are written once and shared: every kernel is one line built from
# them, next to its declaration.

# Constants and accumulators, per precision.
.macro VINIT_avx2_dp
    mov rax, 0x3FF0000000000000
    vmovq xmm15, rax
    vbroadcastsd ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
.endm
.macro VINIT_avx2_sp
    mov eax, 0x3F800000
    vmovd xmm15, eax
    vbroadcastss ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
.endm

# Memory units, one per mix (their counts are the loads= and stores= of the declarations);
# s is the instruction suffix of the precision.
.macro VMEM_load_avx2 s, pf=0
    VPF t0, r10, \pf, 0, 64, 128, 192, 256, 320, 384, 448
    vmovapd ymm12, [r10 + 32*0]
    vmovapd ymm13, [r10 + 32*1]
    vmovapd ymm12, [r10 + 32*2]
    vmovapd ymm13, [r10 + 32*3]
    vmovapd ymm12, [r10 + 32*4]
    vmovapd ymm13, [r10 + 32*5]
    vmovapd ymm12, [r10 + 32*6]
    vmovapd ymm13, [r10 + 32*7]
    vmovapd ymm12, [r10 + 32*8]
    vmovapd ymm13, [r10 + 32*9]
    vmovapd ymm12, [r10 + 32*10]
    vmovapd ymm13, [r10 + 32*11]
    vmovapd ymm12, [r10 + 32*12]
    vmovapd ymm13, [r10 + 32*13]
    vmovapd ymm12, [r10 + 32*14]
    vmovapd ymm13, [r10 + 32*15]
    add r10, 512
.endm
.macro VMEM_ldldst_avx2 s, pf=0
    VPF t0, r10, \pf, 0, 64, 128, 192
    VPF t0, r11, \pf, 0, 64, 128, 192
    VPF w, rax, \pf, 0, 64, 128, 192
    vmovapd ymm12, [r10 + 32*0]
    vmovapd ymm13, [r11 + 32*0]
    vmovapd [rax + 32*0], ymm12
    vmovapd ymm12, [r10 + 32*1]
    vmovapd ymm13, [r11 + 32*1]
    vmovapd [rax + 32*1], ymm12
    vmovapd ymm12, [r10 + 32*2]
    vmovapd ymm13, [r11 + 32*2]
    vmovapd [rax + 32*2], ymm12
    vmovapd ymm12, [r10 + 32*3]
    vmovapd ymm13, [r11 + 32*3]
    vmovapd [rax + 32*3], ymm12
    vmovapd ymm12, [r10 + 32*4]
    vmovapd ymm13, [r11 + 32*4]
    vmovapd [rax + 32*4], ymm12
    vmovapd ymm12, [r10 + 32*5]
    vmovapd ymm13, [r11 + 32*5]
    vmovapd [rax + 32*5], ymm12
    vmovapd ymm12, [r10 + 32*6]
    vmovapd ymm13, [r11 + 32*6]
    vmovapd [rax + 32*6], ymm12
    vmovapd ymm12, [r10 + 32*7]
    vmovapd ymm13, [r11 + 32*7]
    vmovapd [rax + 32*7], ymm12
    add r10, 256
    add r11, 256
    add rax, 256
.endm

# FP units, one per op; s is the instruction suffix of the precision.
.macro VFP_fma_avx2 s
    VFMA_CHAINS \s, ymm, 12, 14, 15
.endm
# The addmul roof kernel's body (asm/x86_64/flops.S): ADD in 12 chains, MUL independent into a
# scratch register.
.macro VFP_addmul_avx2 s
    ADD_MUL_12 vadd\s, vmul\s, ymm, ymm14, ymm15, ymm12
.endm

# @kernel avx2_dp_v_load_fma kind=validation mix=load op=fma isa=avx2 precision=dp width=32 loads=16 stores=0 fma=12
VKERNEL avx2_dp_v_load_fma, avx2, dp, load, fma, pd, END

# @kernel avx2_dp_v_load_addmul kind=validation mix=load op=addmul isa=avx2 precision=dp width=32 loads=16 stores=0 add=12 mul=12
VKERNEL avx2_dp_v_load_addmul, avx2, dp, load, addmul, pd, END

# @kernel avx2_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx2 precision=dp width=32 loads=16 stores=8 fma=12
VKERNEL avx2_dp_v_2ld1st_fma, avx2, dp, ldldst, fma, pd, END

# @kernel avx2_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx2 precision=dp width=32 loads=16 stores=8 add=12 mul=12
VKERNEL avx2_dp_v_2ld1st_addmul, avx2, dp, ldldst, addmul, pd, END

# @kernel avx2_sp_v_load_fma kind=validation mix=load op=fma isa=avx2 precision=sp width=32 loads=16 stores=0 fma=12
VKERNEL avx2_sp_v_load_fma, avx2, sp, load, fma, ps, END

# @kernel avx2_sp_v_load_addmul kind=validation mix=load op=addmul isa=avx2 precision=sp width=32 loads=16 stores=0 add=12 mul=12
VKERNEL avx2_sp_v_load_addmul, avx2, sp, load, addmul, ps, END

# @kernel avx2_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx2 precision=sp width=32 loads=16 stores=8 fma=12
VKERNEL avx2_sp_v_2ld1st_fma, avx2, sp, ldldst, fma, ps, END

# @kernel avx2_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx2 precision=sp width=32 loads=16 stores=8 add=12 mul=12
VKERNEL avx2_sp_v_2ld1st_addmul, avx2, sp, ldldst, addmul, ps, END

# The prefetching twins (asm/x86_64/validation.S, VPF): the same units, each memory unit asking
# for its lines 4 KiB ahead. The validator runs them at levels off the core near and above
# the ridge, keeping the faster form where both may run (validate/sweep.rs, BOTH_FORMS).

# @kernel avx2_dp_v_load_fma_pf kind=validation mix=load op=fma isa=avx2 precision=dp width=32 loads=16 stores=0 fma=12 prefetch=4096
VKERNEL avx2_dp_v_load_fma_pf, avx2, dp, load, fma, pd, END, 4096

# @kernel avx2_dp_v_load_addmul_pf kind=validation mix=load op=addmul isa=avx2 precision=dp width=32 loads=16 stores=0 add=12 mul=12 prefetch=4096
VKERNEL avx2_dp_v_load_addmul_pf, avx2, dp, load, addmul, pd, END, 4096

# @kernel avx2_dp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=avx2 precision=dp width=32 loads=16 stores=8 fma=12 prefetch=4096
VKERNEL avx2_dp_v_2ld1st_fma_pf, avx2, dp, ldldst, fma, pd, END, 4096

# @kernel avx2_dp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=avx2 precision=dp width=32 loads=16 stores=8 add=12 mul=12 prefetch=4096
VKERNEL avx2_dp_v_2ld1st_addmul_pf, avx2, dp, ldldst, addmul, pd, END, 4096

# @kernel avx2_sp_v_load_fma_pf kind=validation mix=load op=fma isa=avx2 precision=sp width=32 loads=16 stores=0 fma=12 prefetch=4096
VKERNEL avx2_sp_v_load_fma_pf, avx2, sp, load, fma, ps, END, 4096

# @kernel avx2_sp_v_load_addmul_pf kind=validation mix=load op=addmul isa=avx2 precision=sp width=32 loads=16 stores=0 add=12 mul=12 prefetch=4096
VKERNEL avx2_sp_v_load_addmul_pf, avx2, sp, load, addmul, ps, END, 4096

# @kernel avx2_sp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=avx2 precision=sp width=32 loads=16 stores=8 fma=12 prefetch=4096
VKERNEL avx2_sp_v_2ld1st_fma_pf, avx2, sp, ldldst, fma, ps, END, 4096

# @kernel avx2_sp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=avx2 precision=sp width=32 loads=16 stores=8 add=12 mul=12 prefetch=4096
VKERNEL avx2_sp_v_2ld1st_addmul_pf, avx2, sp, ldldst, addmul, ps, END, 4096
