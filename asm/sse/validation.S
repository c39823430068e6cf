# Validation kernels, see asm/validation.S for the layout.

# @kernel sse_dp_v_load_fma kind=validation mix=load op=fma isa=sse precision=dp width=16 loads=16 stores=0 fma=12
VBEGIN sse_dp_v_load_fma
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    unpcklpd xmm15, xmm15
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231pd xmm0, xmm14, xmm15
    vfmadd231pd xmm1, xmm14, xmm15
    vfmadd231pd xmm2, xmm14, xmm15
    vfmadd231pd xmm3, xmm14, xmm15
    vfmadd231pd xmm4, xmm14, xmm15
    vfmadd231pd xmm5, xmm14, xmm15
    vfmadd231pd xmm6, xmm14, xmm15
    vfmadd231pd xmm7, xmm14, xmm15
    vfmadd231pd xmm8, xmm14, xmm15
    vfmadd231pd xmm9, xmm14, xmm15
    vfmadd231pd xmm10, xmm14, xmm15
    vfmadd231pd xmm11, xmm14, xmm15
    VNEXT
    END sse_dp_v_load_fma

# @kernel sse_dp_v_load_addmul kind=validation mix=load op=addmul isa=sse precision=dp width=16 loads=16 stores=0 add=6 mul=6
VBEGIN sse_dp_v_load_addmul
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    unpcklpd xmm15, xmm15
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addpd xmm0, xmm15
    mulpd xmm6, xmm15
    addpd xmm1, xmm15
    mulpd xmm7, xmm15
    addpd xmm2, xmm15
    mulpd xmm8, xmm15
    addpd xmm3, xmm15
    mulpd xmm9, xmm15
    addpd xmm4, xmm15
    mulpd xmm10, xmm15
    addpd xmm5, xmm15
    mulpd xmm11, xmm15
    VNEXT
    END_SSE sse_dp_v_load_addmul

# @kernel sse_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=sse precision=dp width=16 loads=16 stores=8 fma=12
VBEGIN sse_dp_v_2ld1st_fma
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    unpcklpd xmm15, xmm15
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231pd xmm0, xmm14, xmm15
    vfmadd231pd xmm1, xmm14, xmm15
    vfmadd231pd xmm2, xmm14, xmm15
    vfmadd231pd xmm3, xmm14, xmm15
    vfmadd231pd xmm4, xmm14, xmm15
    vfmadd231pd xmm5, xmm14, xmm15
    vfmadd231pd xmm6, xmm14, xmm15
    vfmadd231pd xmm7, xmm14, xmm15
    vfmadd231pd xmm8, xmm14, xmm15
    vfmadd231pd xmm9, xmm14, xmm15
    vfmadd231pd xmm10, xmm14, xmm15
    vfmadd231pd xmm11, xmm14, xmm15
    VNEXT
    END sse_dp_v_2ld1st_fma

# @kernel sse_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=sse precision=dp width=16 loads=16 stores=8 add=6 mul=6
VBEGIN sse_dp_v_2ld1st_addmul
    mov rax, 0x3FF0000000000000
    movq xmm15, rax
    unpcklpd xmm15, xmm15
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addpd xmm0, xmm15
    mulpd xmm6, xmm15
    addpd xmm1, xmm15
    mulpd xmm7, xmm15
    addpd xmm2, xmm15
    mulpd xmm8, xmm15
    addpd xmm3, xmm15
    mulpd xmm9, xmm15
    addpd xmm4, xmm15
    mulpd xmm10, xmm15
    addpd xmm5, xmm15
    mulpd xmm11, xmm15
    VNEXT
    END_SSE sse_dp_v_2ld1st_addmul

# @kernel sse_sp_v_load_fma kind=validation mix=load op=fma isa=sse precision=sp width=16 loads=16 stores=0 fma=12
VBEGIN sse_sp_v_load_fma
    mov eax, 0x3F800000
    movd xmm15, eax
    shufps xmm15, xmm15, 0
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ps xmm0, xmm14, xmm15
    vfmadd231ps xmm1, xmm14, xmm15
    vfmadd231ps xmm2, xmm14, xmm15
    vfmadd231ps xmm3, xmm14, xmm15
    vfmadd231ps xmm4, xmm14, xmm15
    vfmadd231ps xmm5, xmm14, xmm15
    vfmadd231ps xmm6, xmm14, xmm15
    vfmadd231ps xmm7, xmm14, xmm15
    vfmadd231ps xmm8, xmm14, xmm15
    vfmadd231ps xmm9, xmm14, xmm15
    vfmadd231ps xmm10, xmm14, xmm15
    vfmadd231ps xmm11, xmm14, xmm15
    VNEXT
    END sse_sp_v_load_fma

# @kernel sse_sp_v_load_addmul kind=validation mix=load op=addmul isa=sse precision=sp width=16 loads=16 stores=0 add=6 mul=6
VBEGIN sse_sp_v_load_addmul
    mov eax, 0x3F800000
    movd xmm15, eax
    shufps xmm15, xmm15, 0
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addps xmm0, xmm15
    mulps xmm6, xmm15
    addps xmm1, xmm15
    mulps xmm7, xmm15
    addps xmm2, xmm15
    mulps xmm8, xmm15
    addps xmm3, xmm15
    mulps xmm9, xmm15
    addps xmm4, xmm15
    mulps xmm10, xmm15
    addps xmm5, xmm15
    mulps xmm11, xmm15
    VNEXT
    END_SSE sse_sp_v_load_addmul

# @kernel sse_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=sse precision=sp width=16 loads=16 stores=8 fma=12
VBEGIN sse_sp_v_2ld1st_fma
    mov eax, 0x3F800000
    movd xmm15, eax
    shufps xmm15, xmm15, 0
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    vfmadd231ps xmm0, xmm14, xmm15
    vfmadd231ps xmm1, xmm14, xmm15
    vfmadd231ps xmm2, xmm14, xmm15
    vfmadd231ps xmm3, xmm14, xmm15
    vfmadd231ps xmm4, xmm14, xmm15
    vfmadd231ps xmm5, xmm14, xmm15
    vfmadd231ps xmm6, xmm14, xmm15
    vfmadd231ps xmm7, xmm14, xmm15
    vfmadd231ps xmm8, xmm14, xmm15
    vfmadd231ps xmm9, xmm14, xmm15
    vfmadd231ps xmm10, xmm14, xmm15
    vfmadd231ps xmm11, xmm14, xmm15
    VNEXT
    END sse_sp_v_2ld1st_fma

# @kernel sse_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=sse precision=sp width=16 loads=16 stores=8 add=6 mul=6
VBEGIN sse_sp_v_2ld1st_addmul
    mov eax, 0x3F800000
    movd xmm15, eax
    shufps xmm15, xmm15, 0
    movapd xmm14, xmm15
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    movapd xmm\i, xmm15
.endr
    VSPLIT
    VOUTER
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
    VMID
    addps xmm0, xmm15
    mulps xmm6, xmm15
    addps xmm1, xmm15
    mulps xmm7, xmm15
    addps xmm2, xmm15
    mulps xmm8, xmm15
    addps xmm3, xmm15
    mulps xmm9, xmm15
    addps xmm4, xmm15
    mulps xmm10, xmm15
    addps xmm5, xmm15
    mulps xmm11, xmm15
    VNEXT
    END_SSE sse_sp_v_2ld1st_addmul
