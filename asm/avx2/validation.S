# Validation kernels, see asm/validation.S for the layout.

# @kernel avx2_dp_v_load_fma kind=validation mix=load op=fma isa=avx2 precision=dp width=32 loads=16 stores=0 fma=12
VBEGIN avx2_dp_v_load_fma
    mov rax, 0x3FF0000000000000
    vmovq xmm15, rax
    vbroadcastsd ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231pd ymm0, ymm14, ymm15
    vfmadd231pd ymm1, ymm14, ymm15
    vfmadd231pd ymm2, ymm14, ymm15
    vfmadd231pd ymm3, ymm14, ymm15
    vfmadd231pd ymm4, ymm14, ymm15
    vfmadd231pd ymm5, ymm14, ymm15
    vfmadd231pd ymm6, ymm14, ymm15
    vfmadd231pd ymm7, ymm14, ymm15
    vfmadd231pd ymm8, ymm14, ymm15
    vfmadd231pd ymm9, ymm14, ymm15
    vfmadd231pd ymm10, ymm14, ymm15
    vfmadd231pd ymm11, ymm14, ymm15
    VNEXT
    END avx2_dp_v_load_fma

# @kernel avx2_dp_v_load_addmul kind=validation mix=load op=addmul isa=avx2 precision=dp width=32 loads=16 stores=0 add=6 mul=6
VBEGIN avx2_dp_v_load_addmul
    mov rax, 0x3FF0000000000000
    vmovq xmm15, rax
    vbroadcastsd ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddpd ymm0, ymm0, ymm15
    vmulpd ymm6, ymm6, ymm15
    vaddpd ymm1, ymm1, ymm15
    vmulpd ymm7, ymm7, ymm15
    vaddpd ymm2, ymm2, ymm15
    vmulpd ymm8, ymm8, ymm15
    vaddpd ymm3, ymm3, ymm15
    vmulpd ymm9, ymm9, ymm15
    vaddpd ymm4, ymm4, ymm15
    vmulpd ymm10, ymm10, ymm15
    vaddpd ymm5, ymm5, ymm15
    vmulpd ymm11, ymm11, ymm15
    VNEXT
    END avx2_dp_v_load_addmul

# @kernel avx2_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx2 precision=dp width=32 loads=16 stores=8 fma=12
VBEGIN avx2_dp_v_2ld1st_fma
    mov rax, 0x3FF0000000000000
    vmovq xmm15, rax
    vbroadcastsd ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231pd ymm0, ymm14, ymm15
    vfmadd231pd ymm1, ymm14, ymm15
    vfmadd231pd ymm2, ymm14, ymm15
    vfmadd231pd ymm3, ymm14, ymm15
    vfmadd231pd ymm4, ymm14, ymm15
    vfmadd231pd ymm5, ymm14, ymm15
    vfmadd231pd ymm6, ymm14, ymm15
    vfmadd231pd ymm7, ymm14, ymm15
    vfmadd231pd ymm8, ymm14, ymm15
    vfmadd231pd ymm9, ymm14, ymm15
    vfmadd231pd ymm10, ymm14, ymm15
    vfmadd231pd ymm11, ymm14, ymm15
    VNEXT
    END avx2_dp_v_2ld1st_fma

# @kernel avx2_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx2 precision=dp width=32 loads=16 stores=8 add=6 mul=6
VBEGIN avx2_dp_v_2ld1st_addmul
    mov rax, 0x3FF0000000000000
    vmovq xmm15, rax
    vbroadcastsd ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddpd ymm0, ymm0, ymm15
    vmulpd ymm6, ymm6, ymm15
    vaddpd ymm1, ymm1, ymm15
    vmulpd ymm7, ymm7, ymm15
    vaddpd ymm2, ymm2, ymm15
    vmulpd ymm8, ymm8, ymm15
    vaddpd ymm3, ymm3, ymm15
    vmulpd ymm9, ymm9, ymm15
    vaddpd ymm4, ymm4, ymm15
    vmulpd ymm10, ymm10, ymm15
    vaddpd ymm5, ymm5, ymm15
    vmulpd ymm11, ymm11, ymm15
    VNEXT
    END avx2_dp_v_2ld1st_addmul

# @kernel avx2_sp_v_load_fma kind=validation mix=load op=fma isa=avx2 precision=sp width=32 loads=16 stores=0 fma=12
VBEGIN avx2_sp_v_load_fma
    mov eax, 0x3F800000
    vmovd xmm15, eax
    vbroadcastss ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ps ymm0, ymm14, ymm15
    vfmadd231ps ymm1, ymm14, ymm15
    vfmadd231ps ymm2, ymm14, ymm15
    vfmadd231ps ymm3, ymm14, ymm15
    vfmadd231ps ymm4, ymm14, ymm15
    vfmadd231ps ymm5, ymm14, ymm15
    vfmadd231ps ymm6, ymm14, ymm15
    vfmadd231ps ymm7, ymm14, ymm15
    vfmadd231ps ymm8, ymm14, ymm15
    vfmadd231ps ymm9, ymm14, ymm15
    vfmadd231ps ymm10, ymm14, ymm15
    vfmadd231ps ymm11, ymm14, ymm15
    VNEXT
    END avx2_sp_v_load_fma

# @kernel avx2_sp_v_load_addmul kind=validation mix=load op=addmul isa=avx2 precision=sp width=32 loads=16 stores=0 add=6 mul=6
VBEGIN avx2_sp_v_load_addmul
    mov eax, 0x3F800000
    vmovd xmm15, eax
    vbroadcastss ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddps ymm0, ymm0, ymm15
    vmulps ymm6, ymm6, ymm15
    vaddps ymm1, ymm1, ymm15
    vmulps ymm7, ymm7, ymm15
    vaddps ymm2, ymm2, ymm15
    vmulps ymm8, ymm8, ymm15
    vaddps ymm3, ymm3, ymm15
    vmulps ymm9, ymm9, ymm15
    vaddps ymm4, ymm4, ymm15
    vmulps ymm10, ymm10, ymm15
    vaddps ymm5, ymm5, ymm15
    vmulps ymm11, ymm11, ymm15
    VNEXT
    END avx2_sp_v_load_addmul

# @kernel avx2_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx2 precision=sp width=32 loads=16 stores=8 fma=12
VBEGIN avx2_sp_v_2ld1st_fma
    mov eax, 0x3F800000
    vmovd xmm15, eax
    vbroadcastss ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ps ymm0, ymm14, ymm15
    vfmadd231ps ymm1, ymm14, ymm15
    vfmadd231ps ymm2, ymm14, ymm15
    vfmadd231ps ymm3, ymm14, ymm15
    vfmadd231ps ymm4, ymm14, ymm15
    vfmadd231ps ymm5, ymm14, ymm15
    vfmadd231ps ymm6, ymm14, ymm15
    vfmadd231ps ymm7, ymm14, ymm15
    vfmadd231ps ymm8, ymm14, ymm15
    vfmadd231ps ymm9, ymm14, ymm15
    vfmadd231ps ymm10, ymm14, ymm15
    vfmadd231ps ymm11, ymm14, ymm15
    VNEXT
    END avx2_sp_v_2ld1st_fma

# @kernel avx2_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx2 precision=sp width=32 loads=16 stores=8 add=6 mul=6
VBEGIN avx2_sp_v_2ld1st_addmul
    mov eax, 0x3F800000
    vmovd xmm15, eax
    vbroadcastss ymm15, xmm15
    vmovapd ymm14, ymm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    vmovapd ymm\i, ymm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddps ymm0, ymm0, ymm15
    vmulps ymm6, ymm6, ymm15
    vaddps ymm1, ymm1, ymm15
    vmulps ymm7, ymm7, ymm15
    vaddps ymm2, ymm2, ymm15
    vmulps ymm8, ymm8, ymm15
    vaddps ymm3, ymm3, ymm15
    vmulps ymm9, ymm9, ymm15
    vaddps ymm4, ymm4, ymm15
    vmulps ymm10, ymm10, ymm15
    vaddps ymm5, ymm5, ymm15
    vmulps ymm11, ymm11, ymm15
    VNEXT
    END avx2_sp_v_2ld1st_addmul
