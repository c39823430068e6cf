# Validation kernels, see asm/validation.S for the layout.

# @kernel avx512_dp_v_load_fma kind=validation mix=load op=fma isa=avx512 precision=dp width=64 loads=16 stores=0 fma=16
VBEGIN avx512_dp_v_load_fma
    mov rax, 0x3FF0000000000000
    vpbroadcastq zmm31, rax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231pd zmm0, zmm30, zmm31
    vfmadd231pd zmm1, zmm30, zmm31
    vfmadd231pd zmm2, zmm30, zmm31
    vfmadd231pd zmm3, zmm30, zmm31
    vfmadd231pd zmm4, zmm30, zmm31
    vfmadd231pd zmm5, zmm30, zmm31
    vfmadd231pd zmm6, zmm30, zmm31
    vfmadd231pd zmm7, zmm30, zmm31
    vfmadd231pd zmm8, zmm30, zmm31
    vfmadd231pd zmm9, zmm30, zmm31
    vfmadd231pd zmm10, zmm30, zmm31
    vfmadd231pd zmm11, zmm30, zmm31
    vfmadd231pd zmm12, zmm30, zmm31
    vfmadd231pd zmm13, zmm30, zmm31
    vfmadd231pd zmm14, zmm30, zmm31
    vfmadd231pd zmm15, zmm30, zmm31
    VNEXT
    END avx512_dp_v_load_fma

# @kernel avx512_dp_v_load_addmul kind=validation mix=load op=addmul isa=avx512 precision=dp width=64 loads=16 stores=0 add=8 mul=8
VBEGIN avx512_dp_v_load_addmul
    mov rax, 0x3FF0000000000000
    vpbroadcastq zmm31, rax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddpd zmm0, zmm0, zmm31
    vmulpd zmm8, zmm8, zmm31
    vaddpd zmm1, zmm1, zmm31
    vmulpd zmm9, zmm9, zmm31
    vaddpd zmm2, zmm2, zmm31
    vmulpd zmm10, zmm10, zmm31
    vaddpd zmm3, zmm3, zmm31
    vmulpd zmm11, zmm11, zmm31
    vaddpd zmm4, zmm4, zmm31
    vmulpd zmm12, zmm12, zmm31
    vaddpd zmm5, zmm5, zmm31
    vmulpd zmm13, zmm13, zmm31
    vaddpd zmm6, zmm6, zmm31
    vmulpd zmm14, zmm14, zmm31
    vaddpd zmm7, zmm7, zmm31
    vmulpd zmm15, zmm15, zmm31
    VNEXT
    END avx512_dp_v_load_addmul

# @kernel avx512_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx512 precision=dp width=64 loads=16 stores=8 fma=16
VBEGIN avx512_dp_v_2ld1st_fma
    mov rax, 0x3FF0000000000000
    vpbroadcastq zmm31, rax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231pd zmm0, zmm30, zmm31
    vfmadd231pd zmm1, zmm30, zmm31
    vfmadd231pd zmm2, zmm30, zmm31
    vfmadd231pd zmm3, zmm30, zmm31
    vfmadd231pd zmm4, zmm30, zmm31
    vfmadd231pd zmm5, zmm30, zmm31
    vfmadd231pd zmm6, zmm30, zmm31
    vfmadd231pd zmm7, zmm30, zmm31
    vfmadd231pd zmm8, zmm30, zmm31
    vfmadd231pd zmm9, zmm30, zmm31
    vfmadd231pd zmm10, zmm30, zmm31
    vfmadd231pd zmm11, zmm30, zmm31
    vfmadd231pd zmm12, zmm30, zmm31
    vfmadd231pd zmm13, zmm30, zmm31
    vfmadd231pd zmm14, zmm30, zmm31
    vfmadd231pd zmm15, zmm30, zmm31
    VNEXT
    END avx512_dp_v_2ld1st_fma

# @kernel avx512_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx512 precision=dp width=64 loads=16 stores=8 add=8 mul=8
VBEGIN avx512_dp_v_2ld1st_addmul
    mov rax, 0x3FF0000000000000
    vpbroadcastq zmm31, rax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddpd zmm0, zmm0, zmm31
    vmulpd zmm8, zmm8, zmm31
    vaddpd zmm1, zmm1, zmm31
    vmulpd zmm9, zmm9, zmm31
    vaddpd zmm2, zmm2, zmm31
    vmulpd zmm10, zmm10, zmm31
    vaddpd zmm3, zmm3, zmm31
    vmulpd zmm11, zmm11, zmm31
    vaddpd zmm4, zmm4, zmm31
    vmulpd zmm12, zmm12, zmm31
    vaddpd zmm5, zmm5, zmm31
    vmulpd zmm13, zmm13, zmm31
    vaddpd zmm6, zmm6, zmm31
    vmulpd zmm14, zmm14, zmm31
    vaddpd zmm7, zmm7, zmm31
    vmulpd zmm15, zmm15, zmm31
    VNEXT
    END avx512_dp_v_2ld1st_addmul

# @kernel avx512_sp_v_load_fma kind=validation mix=load op=fma isa=avx512 precision=sp width=64 loads=16 stores=0 fma=16
VBEGIN avx512_sp_v_load_fma
    mov eax, 0x3F800000
    vpbroadcastd zmm31, eax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ps zmm0, zmm30, zmm31
    vfmadd231ps zmm1, zmm30, zmm31
    vfmadd231ps zmm2, zmm30, zmm31
    vfmadd231ps zmm3, zmm30, zmm31
    vfmadd231ps zmm4, zmm30, zmm31
    vfmadd231ps zmm5, zmm30, zmm31
    vfmadd231ps zmm6, zmm30, zmm31
    vfmadd231ps zmm7, zmm30, zmm31
    vfmadd231ps zmm8, zmm30, zmm31
    vfmadd231ps zmm9, zmm30, zmm31
    vfmadd231ps zmm10, zmm30, zmm31
    vfmadd231ps zmm11, zmm30, zmm31
    vfmadd231ps zmm12, zmm30, zmm31
    vfmadd231ps zmm13, zmm30, zmm31
    vfmadd231ps zmm14, zmm30, zmm31
    vfmadd231ps zmm15, zmm30, zmm31
    VNEXT
    END avx512_sp_v_load_fma

# @kernel avx512_sp_v_load_addmul kind=validation mix=load op=addmul isa=avx512 precision=sp width=64 loads=16 stores=0 add=8 mul=8
VBEGIN avx512_sp_v_load_addmul
    mov eax, 0x3F800000
    vpbroadcastd zmm31, eax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddps zmm0, zmm0, zmm31
    vmulps zmm8, zmm8, zmm31
    vaddps zmm1, zmm1, zmm31
    vmulps zmm9, zmm9, zmm31
    vaddps zmm2, zmm2, zmm31
    vmulps zmm10, zmm10, zmm31
    vaddps zmm3, zmm3, zmm31
    vmulps zmm11, zmm11, zmm31
    vaddps zmm4, zmm4, zmm31
    vmulps zmm12, zmm12, zmm31
    vaddps zmm5, zmm5, zmm31
    vmulps zmm13, zmm13, zmm31
    vaddps zmm6, zmm6, zmm31
    vmulps zmm14, zmm14, zmm31
    vaddps zmm7, zmm7, zmm31
    vmulps zmm15, zmm15, zmm31
    VNEXT
    END avx512_sp_v_load_addmul

# @kernel avx512_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=avx512 precision=sp width=64 loads=16 stores=8 fma=16
VBEGIN avx512_sp_v_2ld1st_fma
    mov eax, 0x3F800000
    vpbroadcastd zmm31, eax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ps zmm0, zmm30, zmm31
    vfmadd231ps zmm1, zmm30, zmm31
    vfmadd231ps zmm2, zmm30, zmm31
    vfmadd231ps zmm3, zmm30, zmm31
    vfmadd231ps zmm4, zmm30, zmm31
    vfmadd231ps zmm5, zmm30, zmm31
    vfmadd231ps zmm6, zmm30, zmm31
    vfmadd231ps zmm7, zmm30, zmm31
    vfmadd231ps zmm8, zmm30, zmm31
    vfmadd231ps zmm9, zmm30, zmm31
    vfmadd231ps zmm10, zmm30, zmm31
    vfmadd231ps zmm11, zmm30, zmm31
    vfmadd231ps zmm12, zmm30, zmm31
    vfmadd231ps zmm13, zmm30, zmm31
    vfmadd231ps zmm14, zmm30, zmm31
    vfmadd231ps zmm15, zmm30, zmm31
    VNEXT
    END avx512_sp_v_2ld1st_fma

# @kernel avx512_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=avx512 precision=sp width=64 loads=16 stores=8 add=8 mul=8
VBEGIN avx512_sp_v_2ld1st_addmul
    mov eax, 0x3F800000
    vpbroadcastd zmm31, eax
    vmovapd zmm30, zmm31
.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovapd zmm\i, zmm31
.endr
    VSPLIT
    VOUTER
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
    VMID
    vaddps zmm0, zmm0, zmm31
    vmulps zmm8, zmm8, zmm31
    vaddps zmm1, zmm1, zmm31
    vmulps zmm9, zmm9, zmm31
    vaddps zmm2, zmm2, zmm31
    vmulps zmm10, zmm10, zmm31
    vaddps zmm3, zmm3, zmm31
    vmulps zmm11, zmm11, zmm31
    vaddps zmm4, zmm4, zmm31
    vmulps zmm12, zmm12, zmm31
    vaddps zmm5, zmm5, zmm31
    vmulps zmm13, zmm13, zmm31
    vaddps zmm6, zmm6, zmm31
    vmulps zmm14, zmm14, zmm31
    vaddps zmm7, zmm7, zmm31
    vmulps zmm15, zmm15, zmm31
    VNEXT
    END avx512_sp_v_2ld1st_addmul
