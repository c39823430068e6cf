# Validation kernels, see asm/validation.S for the layout.

# @kernel scalar_dp_v_load_fma kind=validation mix=load op=fma isa=scalar precision=dp width=8 loads=16 stores=0 fma=12
VBEGIN scalar_dp_v_load_fma
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231sd xmm0, xmm14, xmm15
    vfmadd231sd xmm1, xmm14, xmm15
    vfmadd231sd xmm2, xmm14, xmm15
    vfmadd231sd xmm3, xmm14, xmm15
    vfmadd231sd xmm4, xmm14, xmm15
    vfmadd231sd xmm5, xmm14, xmm15
    vfmadd231sd xmm6, xmm14, xmm15
    vfmadd231sd xmm7, xmm14, xmm15
    vfmadd231sd xmm8, xmm14, xmm15
    vfmadd231sd xmm9, xmm14, xmm15
    vfmadd231sd xmm10, xmm14, xmm15
    vfmadd231sd xmm11, xmm14, xmm15
    VNEXT
    END scalar_dp_v_load_fma

# @kernel scalar_dp_v_load_addmul kind=validation mix=load op=addmul isa=scalar precision=dp width=8 loads=16 stores=0 add=6 mul=6
VBEGIN scalar_dp_v_load_addmul
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addsd xmm0, xmm15
    mulsd xmm6, xmm15
    addsd xmm1, xmm15
    mulsd xmm7, xmm15
    addsd xmm2, xmm15
    mulsd xmm8, xmm15
    addsd xmm3, xmm15
    mulsd xmm9, xmm15
    addsd xmm4, xmm15
    mulsd xmm10, xmm15
    addsd xmm5, xmm15
    mulsd xmm11, xmm15
    VNEXT
    END_SSE scalar_dp_v_load_addmul

# @kernel scalar_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=scalar precision=dp width=8 loads=16 stores=8 fma=12
VBEGIN scalar_dp_v_2ld1st_fma
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231sd xmm0, xmm14, xmm15
    vfmadd231sd xmm1, xmm14, xmm15
    vfmadd231sd xmm2, xmm14, xmm15
    vfmadd231sd xmm3, xmm14, xmm15
    vfmadd231sd xmm4, xmm14, xmm15
    vfmadd231sd xmm5, xmm14, xmm15
    vfmadd231sd xmm6, xmm14, xmm15
    vfmadd231sd xmm7, xmm14, xmm15
    vfmadd231sd xmm8, xmm14, xmm15
    vfmadd231sd xmm9, xmm14, xmm15
    vfmadd231sd xmm10, xmm14, xmm15
    vfmadd231sd xmm11, xmm14, xmm15
    VNEXT
    END scalar_dp_v_2ld1st_fma

# @kernel scalar_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=scalar precision=dp width=8 loads=16 stores=8 add=6 mul=6
VBEGIN scalar_dp_v_2ld1st_addmul
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addsd xmm0, xmm15
    mulsd xmm6, xmm15
    addsd xmm1, xmm15
    mulsd xmm7, xmm15
    addsd xmm2, xmm15
    mulsd xmm8, xmm15
    addsd xmm3, xmm15
    mulsd xmm9, xmm15
    addsd xmm4, xmm15
    mulsd xmm10, xmm15
    addsd xmm5, xmm15
    mulsd xmm11, xmm15
    VNEXT
    END_SSE scalar_dp_v_2ld1st_addmul

# @kernel scalar_sp_v_load_fma kind=validation mix=load op=fma isa=scalar precision=sp width=4 loads=16 stores=0 fma=12
VBEGIN scalar_sp_v_load_fma
    mov eax, 0x3F800000
    movd xmm15, eax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ss xmm0, xmm14, xmm15
    vfmadd231ss xmm1, xmm14, xmm15
    vfmadd231ss xmm2, xmm14, xmm15
    vfmadd231ss xmm3, xmm14, xmm15
    vfmadd231ss xmm4, xmm14, xmm15
    vfmadd231ss xmm5, xmm14, xmm15
    vfmadd231ss xmm6, xmm14, xmm15
    vfmadd231ss xmm7, xmm14, xmm15
    vfmadd231ss xmm8, xmm14, xmm15
    vfmadd231ss xmm9, xmm14, xmm15
    vfmadd231ss xmm10, xmm14, xmm15
    vfmadd231ss xmm11, xmm14, xmm15
    VNEXT
    END scalar_sp_v_load_fma

# @kernel scalar_sp_v_load_addmul kind=validation mix=load op=addmul isa=scalar precision=sp width=4 loads=16 stores=0 add=6 mul=6
VBEGIN scalar_sp_v_load_addmul
    mov eax, 0x3F800000
    movd xmm15, eax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addss xmm0, xmm15
    mulss xmm6, xmm15
    addss xmm1, xmm15
    mulss xmm7, xmm15
    addss xmm2, xmm15
    mulss xmm8, xmm15
    addss xmm3, xmm15
    mulss xmm9, xmm15
    addss xmm4, xmm15
    mulss xmm10, xmm15
    addss xmm5, xmm15
    mulss xmm11, xmm15
    VNEXT
    END_SSE scalar_sp_v_load_addmul

# @kernel scalar_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=scalar precision=sp width=4 loads=16 stores=8 fma=12
VBEGIN scalar_sp_v_2ld1st_fma
    mov eax, 0x3F800000
    movd xmm15, eax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ss xmm0, xmm14, xmm15
    vfmadd231ss xmm1, xmm14, xmm15
    vfmadd231ss xmm2, xmm14, xmm15
    vfmadd231ss xmm3, xmm14, xmm15
    vfmadd231ss xmm4, xmm14, xmm15
    vfmadd231ss xmm5, xmm14, xmm15
    vfmadd231ss xmm6, xmm14, xmm15
    vfmadd231ss xmm7, xmm14, xmm15
    vfmadd231ss xmm8, xmm14, xmm15
    vfmadd231ss xmm9, xmm14, xmm15
    vfmadd231ss xmm10, xmm14, xmm15
    vfmadd231ss xmm11, xmm14, xmm15
    VNEXT
    END scalar_sp_v_2ld1st_fma

# @kernel scalar_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=scalar precision=sp width=4 loads=16 stores=8 add=6 mul=6
VBEGIN scalar_sp_v_2ld1st_addmul
    mov eax, 0x3F800000
    movd xmm15, eax
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addss xmm0, xmm15
    mulss xmm6, xmm15
    addss xmm1, xmm15
    mulss xmm7, xmm15
    addss xmm2, xmm15
    mulss xmm8, xmm15
    addss xmm3, xmm15
    mulss xmm9, xmm15
    addss xmm4, xmm15
    mulss xmm10, xmm15
    addss xmm5, xmm15
    mulss xmm11, xmm15
    VNEXT
    END_SSE scalar_sp_v_2ld1st_addmul
