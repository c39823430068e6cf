# Validation kernels, sse: see asm/x86_64/validation.S for the layout and VKERNEL.
# The units below are written once and shared: every kernel is one line built from
# them, next to its declaration.

# Constants and accumulators, per precision.
.macro VINIT_sse_dp
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    unpcklpd xmm15, xmm15
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
.endm
.macro VINIT_sse_sp
    mov eax, 0x3F800000
    movd xmm15, eax
    shufps xmm15, xmm15, 0
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
.endm

# Memory units, one per mix (their counts are the loads= and stores= of the declarations);
# s is the instruction suffix of the precision.
.macro VMEM_load_sse s, pf=0
    VPF t0, r10, \pf, 0, 64, 128, 192
    movapd xmm12, [r10 + 16*0]
    movapd xmm13, [r10 + 16*1]
    movapd xmm12, [r10 + 16*2]
    movapd xmm13, [r10 + 16*3]
    movapd xmm12, [r10 + 16*4]
    movapd xmm13, [r10 + 16*5]
    movapd xmm12, [r10 + 16*6]
    movapd xmm13, [r10 + 16*7]
    movapd xmm12, [r10 + 16*8]
    movapd xmm13, [r10 + 16*9]
    movapd xmm12, [r10 + 16*10]
    movapd xmm13, [r10 + 16*11]
    movapd xmm12, [r10 + 16*12]
    movapd xmm13, [r10 + 16*13]
    movapd xmm12, [r10 + 16*14]
    movapd xmm13, [r10 + 16*15]
    add r10, 256
.endm
.macro VMEM_ldldst_sse s, pf=0
    VPF t0, r10, \pf, 0, 64
    VPF t0, r11, \pf, 0, 64
    VPF w, rax, \pf, 0, 64
    movapd xmm12, [r10 + 16*0]
    movapd xmm13, [r11 + 16*0]
    movapd [rax + 16*0], xmm12
    movapd xmm12, [r10 + 16*1]
    movapd xmm13, [r11 + 16*1]
    movapd [rax + 16*1], xmm12
    movapd xmm12, [r10 + 16*2]
    movapd xmm13, [r11 + 16*2]
    movapd [rax + 16*2], xmm12
    movapd xmm12, [r10 + 16*3]
    movapd xmm13, [r11 + 16*3]
    movapd [rax + 16*3], xmm12
    movapd xmm12, [r10 + 16*4]
    movapd xmm13, [r11 + 16*4]
    movapd [rax + 16*4], xmm12
    movapd xmm12, [r10 + 16*5]
    movapd xmm13, [r11 + 16*5]
    movapd [rax + 16*5], xmm12
    movapd xmm12, [r10 + 16*6]
    movapd xmm13, [r11 + 16*6]
    movapd [rax + 16*6], xmm12
    movapd xmm12, [r10 + 16*7]
    movapd xmm13, [r11 + 16*7]
    movapd [rax + 16*7], xmm12
    add r10, 128
    add r11, 128
    add rax, 128
.endm

# FP units, one per op: the xmm units of asm/x86_64/validation.S.
.macro VFP_fma_sse s
    VFP_fma_xmm \s
.endm
.macro VFP_addmul_sse s
    VFP_addmul_xmm \s
.endm

# @kernel sse_dp_v_load_fma kind=validation mix=load op=fma isa=sse precision=dp width=16 loads=16 stores=0 fma=12
VKERNEL sse_dp_v_load_fma, sse, dp, load, fma, pd, END

# @kernel sse_dp_v_load_addmul kind=validation mix=load op=addmul isa=sse precision=dp width=16 loads=16 stores=0 add=6 mul=6
VKERNEL sse_dp_v_load_addmul, sse, dp, load, addmul, pd, END_SSE

# @kernel sse_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=sse precision=dp width=16 loads=16 stores=8 fma=12
VKERNEL sse_dp_v_2ld1st_fma, sse, dp, ldldst, fma, pd, END

# @kernel sse_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=sse precision=dp width=16 loads=16 stores=8 add=6 mul=6
VKERNEL sse_dp_v_2ld1st_addmul, sse, dp, ldldst, addmul, pd, END_SSE

# @kernel sse_sp_v_load_fma kind=validation mix=load op=fma isa=sse precision=sp width=16 loads=16 stores=0 fma=12
VKERNEL sse_sp_v_load_fma, sse, sp, load, fma, ps, END

# @kernel sse_sp_v_load_addmul kind=validation mix=load op=addmul isa=sse precision=sp width=16 loads=16 stores=0 add=6 mul=6
VKERNEL sse_sp_v_load_addmul, sse, sp, load, addmul, ps, END_SSE

# @kernel sse_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=sse precision=sp width=16 loads=16 stores=8 fma=12
VKERNEL sse_sp_v_2ld1st_fma, sse, sp, ldldst, fma, ps, END

# @kernel sse_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=sse precision=sp width=16 loads=16 stores=8 add=6 mul=6
VKERNEL sse_sp_v_2ld1st_addmul, sse, sp, ldldst, addmul, ps, END_SSE

# The prefetching twins (asm/x86_64/validation.S, VPF): the same units, each memory unit asking
# for its lines 4 KiB ahead. The validator runs them at levels off the core near and above
# the ridge, keeping the faster form where both may run (validate/sweep.rs, BOTH_FORMS).

# @kernel sse_dp_v_load_fma_pf kind=validation mix=load op=fma isa=sse precision=dp width=16 loads=16 stores=0 fma=12 prefetch=4096
VKERNEL sse_dp_v_load_fma_pf, sse, dp, load, fma, pd, END, 4096

# @kernel sse_dp_v_load_addmul_pf kind=validation mix=load op=addmul isa=sse precision=dp width=16 loads=16 stores=0 add=6 mul=6 prefetch=4096
VKERNEL sse_dp_v_load_addmul_pf, sse, dp, load, addmul, pd, END_SSE, 4096

# @kernel sse_dp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=sse precision=dp width=16 loads=16 stores=8 fma=12 prefetch=4096
VKERNEL sse_dp_v_2ld1st_fma_pf, sse, dp, ldldst, fma, pd, END, 4096

# @kernel sse_dp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=sse precision=dp width=16 loads=16 stores=8 add=6 mul=6 prefetch=4096
VKERNEL sse_dp_v_2ld1st_addmul_pf, sse, dp, ldldst, addmul, pd, END_SSE, 4096

# @kernel sse_sp_v_load_fma_pf kind=validation mix=load op=fma isa=sse precision=sp width=16 loads=16 stores=0 fma=12 prefetch=4096
VKERNEL sse_sp_v_load_fma_pf, sse, sp, load, fma, ps, END, 4096

# @kernel sse_sp_v_load_addmul_pf kind=validation mix=load op=addmul isa=sse precision=sp width=16 loads=16 stores=0 add=6 mul=6 prefetch=4096
VKERNEL sse_sp_v_load_addmul_pf, sse, sp, load, addmul, ps, END_SSE, 4096

# @kernel sse_sp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=sse precision=sp width=16 loads=16 stores=8 fma=12 prefetch=4096
VKERNEL sse_sp_v_2ld1st_fma_pf, sse, sp, ldldst, fma, ps, END, 4096

# @kernel sse_sp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=sse precision=sp width=16 loads=16 stores=8 add=6 mul=6 prefetch=4096
VKERNEL sse_sp_v_2ld1st_addmul_pf, sse, sp, ldldst, addmul, ps, END_SSE, 4096
