# Validation kernels, scalar: see asm/x86_64/validation.S for the layout and VKERNEL.
# The units below are written once and shared: every kernel is one line built from
# them, next to its declaration.

# Constants and accumulators, per precision.
.macro VINIT_scalar_dp
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
.endm
.macro VINIT_scalar_sp
    mov eax, 0x3F800000
    movd xmm15, eax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
.endm

# Memory units, one per mix (their counts are the loads= and stores= of the declarations);
# s is the instruction suffix of the precision.
.macro VMEM_load_scalar s, pf=0
.ifc \s,sd
    VPF t0, r10, \pf, 0, 64
    movsd xmm12, [r10 + 8*0]
    movsd xmm13, [r10 + 8*1]
    movsd xmm12, [r10 + 8*2]
    movsd xmm13, [r10 + 8*3]
    movsd xmm12, [r10 + 8*4]
    movsd xmm13, [r10 + 8*5]
    movsd xmm12, [r10 + 8*6]
    movsd xmm13, [r10 + 8*7]
    movsd xmm12, [r10 + 8*8]
    movsd xmm13, [r10 + 8*9]
    movsd xmm12, [r10 + 8*10]
    movsd xmm13, [r10 + 8*11]
    movsd xmm12, [r10 + 8*12]
    movsd xmm13, [r10 + 8*13]
    movsd xmm12, [r10 + 8*14]
    movsd xmm13, [r10 + 8*15]
    add r10, 128
.else
    VPF t0, r10, \pf, 0
    movss xmm12, [r10 + 4*0]
    movss xmm13, [r10 + 4*1]
    movss xmm12, [r10 + 4*2]
    movss xmm13, [r10 + 4*3]
    movss xmm12, [r10 + 4*4]
    movss xmm13, [r10 + 4*5]
    movss xmm12, [r10 + 4*6]
    movss xmm13, [r10 + 4*7]
    movss xmm12, [r10 + 4*8]
    movss xmm13, [r10 + 4*9]
    movss xmm12, [r10 + 4*10]
    movss xmm13, [r10 + 4*11]
    movss xmm12, [r10 + 4*12]
    movss xmm13, [r10 + 4*13]
    movss xmm12, [r10 + 4*14]
    movss xmm13, [r10 + 4*15]
    add r10, 64
.endif
.endm
.macro VMEM_ldldst_scalar s, pf=0
.ifc \s,sd
    VPF t0, r10, \pf, 0
    VPF t0, r11, \pf, 0
    VPF w, rax, \pf, 0
    movsd xmm12, [r10 + 8*0]
    movsd xmm13, [r11 + 8*0]
    movsd [rax + 8*0], xmm12
    movsd xmm12, [r10 + 8*1]
    movsd xmm13, [r11 + 8*1]
    movsd [rax + 8*1], xmm12
    movsd xmm12, [r10 + 8*2]
    movsd xmm13, [r11 + 8*2]
    movsd [rax + 8*2], xmm12
    movsd xmm12, [r10 + 8*3]
    movsd xmm13, [r11 + 8*3]
    movsd [rax + 8*3], xmm12
    movsd xmm12, [r10 + 8*4]
    movsd xmm13, [r11 + 8*4]
    movsd [rax + 8*4], xmm12
    movsd xmm12, [r10 + 8*5]
    movsd xmm13, [r11 + 8*5]
    movsd [rax + 8*5], xmm12
    movsd xmm12, [r10 + 8*6]
    movsd xmm13, [r11 + 8*6]
    movsd [rax + 8*6], xmm12
    movsd xmm12, [r10 + 8*7]
    movsd xmm13, [r11 + 8*7]
    movsd [rax + 8*7], xmm12
    add r10, 64
    add r11, 64
    add rax, 64
.else
    VPF t0, r10, \pf, 0
    VPF t0, r11, \pf, 0
    VPF w, rax, \pf, 0
    movss xmm12, [r10 + 4*0]
    movss xmm13, [r11 + 4*0]
    movss [rax + 4*0], xmm12
    movss xmm12, [r10 + 4*1]
    movss xmm13, [r11 + 4*1]
    movss [rax + 4*1], xmm12
    movss xmm12, [r10 + 4*2]
    movss xmm13, [r11 + 4*2]
    movss [rax + 4*2], xmm12
    movss xmm12, [r10 + 4*3]
    movss xmm13, [r11 + 4*3]
    movss [rax + 4*3], xmm12
    movss xmm12, [r10 + 4*4]
    movss xmm13, [r11 + 4*4]
    movss [rax + 4*4], xmm12
    movss xmm12, [r10 + 4*5]
    movss xmm13, [r11 + 4*5]
    movss [rax + 4*5], xmm12
    movss xmm12, [r10 + 4*6]
    movss xmm13, [r11 + 4*6]
    movss [rax + 4*6], xmm12
    movss xmm12, [r10 + 4*7]
    movss xmm13, [r11 + 4*7]
    movss [rax + 4*7], xmm12
    add r10, 32
    add r11, 32
    add rax, 32
.endif
.endm

# FP units, one per op: the xmm units of asm/x86_64/validation.S.
.macro VFP_fma_scalar s
    VFP_fma_xmm \s
.endm
.macro VFP_addmul_scalar s
    VFP_addmul_xmm \s
.endm

# @kernel scalar_dp_v_load_fma kind=validation mix=load op=fma isa=scalar precision=dp width=8 loads=16 stores=0 fma=12
VKERNEL scalar_dp_v_load_fma, scalar, dp, load, fma, sd, END

# @kernel scalar_dp_v_load_addmul kind=validation mix=load op=addmul isa=scalar precision=dp width=8 loads=16 stores=0 add=6 mul=6
VKERNEL scalar_dp_v_load_addmul, scalar, dp, load, addmul, sd, END_SSE

# @kernel scalar_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=scalar precision=dp width=8 loads=16 stores=8 fma=12
VKERNEL scalar_dp_v_2ld1st_fma, scalar, dp, ldldst, fma, sd, END

# @kernel scalar_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=scalar precision=dp width=8 loads=16 stores=8 add=6 mul=6
VKERNEL scalar_dp_v_2ld1st_addmul, scalar, dp, ldldst, addmul, sd, END_SSE

# @kernel scalar_sp_v_load_fma kind=validation mix=load op=fma isa=scalar precision=sp width=4 loads=16 stores=0 fma=12
VKERNEL scalar_sp_v_load_fma, scalar, sp, load, fma, ss, END

# @kernel scalar_sp_v_load_addmul kind=validation mix=load op=addmul isa=scalar precision=sp width=4 loads=16 stores=0 add=6 mul=6
VKERNEL scalar_sp_v_load_addmul, scalar, sp, load, addmul, ss, END_SSE

# @kernel scalar_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=scalar precision=sp width=4 loads=16 stores=8 fma=12
VKERNEL scalar_sp_v_2ld1st_fma, scalar, sp, ldldst, fma, ss, END

# @kernel scalar_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=scalar precision=sp width=4 loads=16 stores=8 add=6 mul=6
VKERNEL scalar_sp_v_2ld1st_addmul, scalar, sp, ldldst, addmul, ss, END_SSE

# The prefetching twins (asm/x86_64/validation.S, VPF): the same units, each memory unit asking
# for its lines 4 KiB ahead. The validator runs them at levels off the core near and above
# the ridge, keeping the faster form where both may run (validate/sweep.rs, BOTH_FORMS).

# @kernel scalar_dp_v_load_fma_pf kind=validation mix=load op=fma isa=scalar precision=dp width=8 loads=16 stores=0 fma=12 prefetch=4096
VKERNEL scalar_dp_v_load_fma_pf, scalar, dp, load, fma, sd, END, 4096

# @kernel scalar_dp_v_load_addmul_pf kind=validation mix=load op=addmul isa=scalar precision=dp width=8 loads=16 stores=0 add=6 mul=6 prefetch=4096
VKERNEL scalar_dp_v_load_addmul_pf, scalar, dp, load, addmul, sd, END_SSE, 4096

# @kernel scalar_dp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=scalar precision=dp width=8 loads=16 stores=8 fma=12 prefetch=4096
VKERNEL scalar_dp_v_2ld1st_fma_pf, scalar, dp, ldldst, fma, sd, END, 4096

# @kernel scalar_dp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=scalar precision=dp width=8 loads=16 stores=8 add=6 mul=6 prefetch=4096
VKERNEL scalar_dp_v_2ld1st_addmul_pf, scalar, dp, ldldst, addmul, sd, END_SSE, 4096

# @kernel scalar_sp_v_load_fma_pf kind=validation mix=load op=fma isa=scalar precision=sp width=4 loads=16 stores=0 fma=12 prefetch=4096
VKERNEL scalar_sp_v_load_fma_pf, scalar, sp, load, fma, ss, END, 4096

# @kernel scalar_sp_v_load_addmul_pf kind=validation mix=load op=addmul isa=scalar precision=sp width=4 loads=16 stores=0 add=6 mul=6 prefetch=4096
VKERNEL scalar_sp_v_load_addmul_pf, scalar, sp, load, addmul, ss, END_SSE, 4096

# @kernel scalar_sp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=scalar precision=sp width=4 loads=16 stores=8 fma=12 prefetch=4096
VKERNEL scalar_sp_v_2ld1st_fma_pf, scalar, sp, ldldst, fma, ss, END, 4096

# @kernel scalar_sp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=scalar precision=sp width=4 loads=16 stores=8 add=6 mul=6 prefetch=4096
VKERNEL scalar_sp_v_2ld1st_addmul_pf, scalar, sp, ldldst, addmul, ss, END_SSE, 4096
