# Validation kernels, avx512: see asm/x86_64/validation.S for the layout and VKERNEL.
# The units below are written once and shared: every kernel is one line built from
# them, next to its declaration.

# Constants and accumulators, per precision.
.macro VINIT_avx512_dp
    mov rax, 0x3FF0000000000000
    vpbroadcastq zmm31, rax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
.endm
.macro VINIT_avx512_sp
    mov eax, 0x3F800000
    vpbroadcastd zmm31, eax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
.endm

# Memory units, one per mix (their counts are the loads= and stores= of the declarations);
# s is the instruction suffix of the precision.
.macro VMEM_load_avx512 s, pf=0
    VPF t0, r10, \pf, 0, 64, 128, 192, 256, 320, 384, 448, 512, 576, 640, 704, 768, 832, 896, 960
    vmovapd zmm16, [r10 + 64*0]
    vmovapd zmm17, [r10 + 64*1]
    vmovapd zmm18, [r10 + 64*2]
    vmovapd zmm19, [r10 + 64*3]
    vmovapd zmm20, [r10 + 64*4]
    vmovapd zmm21, [r10 + 64*5]
    vmovapd zmm22, [r10 + 64*6]
    vmovapd zmm23, [r10 + 64*7]
    vmovapd zmm24, [r10 + 64*8]
    vmovapd zmm25, [r10 + 64*9]
    vmovapd zmm26, [r10 + 64*10]
    vmovapd zmm27, [r10 + 64*11]
    vmovapd zmm28, [r10 + 64*12]
    vmovapd zmm29, [r10 + 64*13]
    vmovapd zmm16, [r10 + 64*14]
    vmovapd zmm17, [r10 + 64*15]
    add r10, 1024
.endm
.macro VMEM_ldldst_avx512 s, pf=0
    VPF t0, r10, \pf, 0, 64, 128, 192, 256, 320, 384, 448
    VPF t0, r11, \pf, 0, 64, 128, 192, 256, 320, 384, 448
    VPF w, rax, \pf, 0, 64, 128, 192, 256, 320, 384, 448
    vmovapd zmm16, [r10 + 64*0]
    vmovapd zmm24, [r11 + 64*0]
    vmovapd [rax + 64*0], zmm16
    vmovapd zmm17, [r10 + 64*1]
    vmovapd zmm25, [r11 + 64*1]
    vmovapd [rax + 64*1], zmm17
    vmovapd zmm18, [r10 + 64*2]
    vmovapd zmm26, [r11 + 64*2]
    vmovapd [rax + 64*2], zmm18
    vmovapd zmm19, [r10 + 64*3]
    vmovapd zmm27, [r11 + 64*3]
    vmovapd [rax + 64*3], zmm19
    vmovapd zmm20, [r10 + 64*4]
    vmovapd zmm28, [r11 + 64*4]
    vmovapd [rax + 64*4], zmm20
    vmovapd zmm21, [r10 + 64*5]
    vmovapd zmm29, [r11 + 64*5]
    vmovapd [rax + 64*5], zmm21
    vmovapd zmm22, [r10 + 64*6]
    vmovapd zmm24, [r11 + 64*6]
    vmovapd [rax + 64*6], zmm22
    vmovapd zmm23, [r10 + 64*7]
    vmovapd zmm25, [r11 + 64*7]
    vmovapd [rax + 64*7], zmm23
    add r10, 512
    add r11, 512
    add rax, 512
.endm

# FP units, one per op; s is the instruction suffix of the precision.
.macro VFP_fma_avx512 s
    VFMA_CHAINS \s, zmm, 16, 30, 31
.endm
.macro VFP_addmul_avx512 s
    ADD_MUL_12 vadd\s, vmul\s, zmm, zmm30, zmm31, zmm12
.endm

# @kernel avx512_dp_v_load_fma kind=validation mix=load op=fma isa=avx512 precision=dp width=64 loads=16 stores=0 fma=16
VKERNEL avx512_dp_v_load_fma, avx512, dp, load, fma, pd, END

# @kernel avx512_dp_v_load_addmul kind=validation mix=load op=addmul isa=avx512 precision=dp width=64 loads=16 stores=0 add=12 mul=12
VKERNEL avx512_dp_v_load_addmul, avx512, dp, load, addmul, pd, END

# @kernel avx512_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx512 precision=dp width=64 loads=16 stores=8 fma=16
VKERNEL avx512_dp_v_2ld1st_fma, avx512, dp, ldldst, fma, pd, END

# @kernel avx512_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx512 precision=dp width=64 loads=16 stores=8 add=12 mul=12
VKERNEL avx512_dp_v_2ld1st_addmul, avx512, dp, ldldst, addmul, pd, END

# @kernel avx512_sp_v_load_fma kind=validation mix=load op=fma isa=avx512 precision=sp width=64 loads=16 stores=0 fma=16
VKERNEL avx512_sp_v_load_fma, avx512, sp, load, fma, ps, END

# @kernel avx512_sp_v_load_addmul kind=validation mix=load op=addmul isa=avx512 precision=sp width=64 loads=16 stores=0 add=12 mul=12
VKERNEL avx512_sp_v_load_addmul, avx512, sp, load, addmul, ps, END

# @kernel avx512_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx512 precision=sp width=64 loads=16 stores=8 fma=16
VKERNEL avx512_sp_v_2ld1st_fma, avx512, sp, ldldst, fma, ps, END

# @kernel avx512_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx512 precision=sp width=64 loads=16 stores=8 add=12 mul=12
VKERNEL avx512_sp_v_2ld1st_addmul, avx512, sp, ldldst, addmul, ps, END

# The prefetching twins (asm/x86_64/validation.S, VPF): the same units, each memory unit asking
# for its lines 4 KiB ahead. The validator runs them at levels off the core near and above
# the ridge, keeping the faster form where both may run (validate/sweep.rs, BOTH_FORMS).

# @kernel avx512_dp_v_load_fma_pf kind=validation mix=load op=fma isa=avx512 precision=dp width=64 loads=16 stores=0 fma=16 prefetch=4096
VKERNEL avx512_dp_v_load_fma_pf, avx512, dp, load, fma, pd, END, 4096

# @kernel avx512_dp_v_load_addmul_pf kind=validation mix=load op=addmul isa=avx512 precision=dp width=64 loads=16 stores=0 add=12 mul=12 prefetch=4096
VKERNEL avx512_dp_v_load_addmul_pf, avx512, dp, load, addmul, pd, END, 4096

# @kernel avx512_dp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=avx512 precision=dp width=64 loads=16 stores=8 fma=16 prefetch=4096
VKERNEL avx512_dp_v_2ld1st_fma_pf, avx512, dp, ldldst, fma, pd, END, 4096

# @kernel avx512_dp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=avx512 precision=dp width=64 loads=16 stores=8 add=12 mul=12 prefetch=4096
VKERNEL avx512_dp_v_2ld1st_addmul_pf, avx512, dp, ldldst, addmul, pd, END, 4096

# @kernel avx512_sp_v_load_fma_pf kind=validation mix=load op=fma isa=avx512 precision=sp width=64 loads=16 stores=0 fma=16 prefetch=4096
VKERNEL avx512_sp_v_load_fma_pf, avx512, sp, load, fma, ps, END, 4096

# @kernel avx512_sp_v_load_addmul_pf kind=validation mix=load op=addmul isa=avx512 precision=sp width=64 loads=16 stores=0 add=12 mul=12 prefetch=4096
VKERNEL avx512_sp_v_load_addmul_pf, avx512, sp, load, addmul, ps, END, 4096

# @kernel avx512_sp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=avx512 precision=sp width=64 loads=16 stores=8 fma=16 prefetch=4096
VKERNEL avx512_sp_v_2ld1st_fma_pf, avx512, sp, ldldst, fma, ps, END, 4096

# @kernel avx512_sp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=avx512 precision=sp width=64 loads=16 stores=8 add=12 mul=12 prefetch=4096
VKERNEL avx512_sp_v_2ld1st_addmul_pf, avx512, sp, ldldst, addmul, ps, END, 4096
