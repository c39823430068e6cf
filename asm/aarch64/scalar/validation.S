// Validation kernels, scalar: the memory and FP units of asm/aarch64/validation.S and flops.S.
// The prefetching twins (prefetch=4096) run at levels off the core near and above the
// ridge, the faster form kept where both may run (validate/sweep.rs, BOTH_FORMS).

// @kernel scalar_dp_v_load_fma kind=validation mix=load op=fma isa=scalar precision=dp width=8 loads=16 stores=0 fma=16
VKERNEL scalar_dp_v_load_fma, scalar, load, SCALAR, fma, d

// @kernel scalar_dp_v_load_addmul kind=validation mix=load op=addmul isa=scalar precision=dp width=8 loads=16 stores=0 add=16 mul=16
VKERNEL scalar_dp_v_load_addmul, scalar, load, SCALAR, addmul, d

// @kernel scalar_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=scalar precision=dp width=8 loads=16 stores=8 fma=16
VKERNEL scalar_dp_v_2ld1st_fma, scalar, ldldst, SCALAR, fma, d

// @kernel scalar_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=scalar precision=dp width=8 loads=16 stores=8 add=16 mul=16
VKERNEL scalar_dp_v_2ld1st_addmul, scalar, ldldst, SCALAR, addmul, d

// @kernel scalar_sp_v_load_fma kind=validation mix=load op=fma isa=scalar precision=sp width=4 loads=16 stores=0 fma=16
VKERNEL scalar_sp_v_load_fma, scalar, load, SCALAR, fma, s

// @kernel scalar_sp_v_load_addmul kind=validation mix=load op=addmul isa=scalar precision=sp width=4 loads=16 stores=0 add=16 mul=16
VKERNEL scalar_sp_v_load_addmul, scalar, load, SCALAR, addmul, s

// @kernel scalar_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=scalar precision=sp width=4 loads=16 stores=8 fma=16
VKERNEL scalar_sp_v_2ld1st_fma, scalar, ldldst, SCALAR, fma, s

// @kernel scalar_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=scalar precision=sp width=4 loads=16 stores=8 add=16 mul=16
VKERNEL scalar_sp_v_2ld1st_addmul, scalar, ldldst, SCALAR, addmul, s

// @kernel scalar_dp_v_load_fma_pf kind=validation mix=load op=fma isa=scalar precision=dp width=8 loads=16 stores=0 fma=16 prefetch=4096
VKERNEL scalar_dp_v_load_fma_pf, scalar, load, SCALAR, fma, d, 4096

// @kernel scalar_dp_v_load_addmul_pf kind=validation mix=load op=addmul isa=scalar precision=dp width=8 loads=16 stores=0 add=16 mul=16 prefetch=4096
VKERNEL scalar_dp_v_load_addmul_pf, scalar, load, SCALAR, addmul, d, 4096

// @kernel scalar_dp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=scalar precision=dp width=8 loads=16 stores=8 fma=16 prefetch=4096
VKERNEL scalar_dp_v_2ld1st_fma_pf, scalar, ldldst, SCALAR, fma, d, 4096

// @kernel scalar_dp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=scalar precision=dp width=8 loads=16 stores=8 add=16 mul=16 prefetch=4096
VKERNEL scalar_dp_v_2ld1st_addmul_pf, scalar, ldldst, SCALAR, addmul, d, 4096

// @kernel scalar_sp_v_load_fma_pf kind=validation mix=load op=fma isa=scalar precision=sp width=4 loads=16 stores=0 fma=16 prefetch=4096
VKERNEL scalar_sp_v_load_fma_pf, scalar, load, SCALAR, fma, s, 4096

// @kernel scalar_sp_v_load_addmul_pf kind=validation mix=load op=addmul isa=scalar precision=sp width=4 loads=16 stores=0 add=16 mul=16 prefetch=4096
VKERNEL scalar_sp_v_load_addmul_pf, scalar, load, SCALAR, addmul, s, 4096

// @kernel scalar_sp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=scalar precision=sp width=4 loads=16 stores=8 fma=16 prefetch=4096
VKERNEL scalar_sp_v_2ld1st_fma_pf, scalar, ldldst, SCALAR, fma, s, 4096

// @kernel scalar_sp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=scalar precision=sp width=4 loads=16 stores=8 add=16 mul=16 prefetch=4096
VKERNEL scalar_sp_v_2ld1st_addmul_pf, scalar, ldldst, SCALAR, addmul, s, 4096
