// Validation kernels, neon: the memory and FP units of asm/aarch64/validation.S and flops.S.
// The prefetching twins (prefetch=4096) run at levels off the core near and above the
// ridge, the faster form kept where both may run (validate/sweep.rs, BOTH_FORMS).

// @kernel neon_dp_v_load_fma kind=validation mix=load op=fma isa=neon precision=dp width=16 loads=16 stores=0 fma=16
VKERNEL neon_dp_v_load_fma, neon, load, NEON, fma, 2d

// @kernel neon_dp_v_load_addmul kind=validation mix=load op=addmul isa=neon precision=dp width=16 loads=16 stores=0 add=16 mul=16
VKERNEL neon_dp_v_load_addmul, neon, load, NEON, addmul, 2d

// @kernel neon_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=neon precision=dp width=16 loads=16 stores=8 fma=16
VKERNEL neon_dp_v_2ld1st_fma, neon, ldldst, NEON, fma, 2d

// @kernel neon_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=neon precision=dp width=16 loads=16 stores=8 add=16 mul=16
VKERNEL neon_dp_v_2ld1st_addmul, neon, ldldst, NEON, addmul, 2d

// @kernel neon_sp_v_load_fma kind=validation mix=load op=fma isa=neon precision=sp width=16 loads=16 stores=0 fma=16
VKERNEL neon_sp_v_load_fma, neon, load, NEON, fma, 4s

// @kernel neon_sp_v_load_addmul kind=validation mix=load op=addmul isa=neon precision=sp width=16 loads=16 stores=0 add=16 mul=16
VKERNEL neon_sp_v_load_addmul, neon, load, NEON, addmul, 4s

// @kernel neon_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=neon precision=sp width=16 loads=16 stores=8 fma=16
VKERNEL neon_sp_v_2ld1st_fma, neon, ldldst, NEON, fma, 4s

// @kernel neon_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=neon precision=sp width=16 loads=16 stores=8 add=16 mul=16
VKERNEL neon_sp_v_2ld1st_addmul, neon, ldldst, NEON, addmul, 4s

// @kernel neon_dp_v_load_fma_pf kind=validation mix=load op=fma isa=neon precision=dp width=16 loads=16 stores=0 fma=16 prefetch=4096
VKERNEL neon_dp_v_load_fma_pf, neon, load, NEON, fma, 2d, 4096

// @kernel neon_dp_v_load_addmul_pf kind=validation mix=load op=addmul isa=neon precision=dp width=16 loads=16 stores=0 add=16 mul=16 prefetch=4096
VKERNEL neon_dp_v_load_addmul_pf, neon, load, NEON, addmul, 2d, 4096

// @kernel neon_dp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=neon precision=dp width=16 loads=16 stores=8 fma=16 prefetch=4096
VKERNEL neon_dp_v_2ld1st_fma_pf, neon, ldldst, NEON, fma, 2d, 4096

// @kernel neon_dp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=neon precision=dp width=16 loads=16 stores=8 add=16 mul=16 prefetch=4096
VKERNEL neon_dp_v_2ld1st_addmul_pf, neon, ldldst, NEON, addmul, 2d, 4096

// @kernel neon_sp_v_load_fma_pf kind=validation mix=load op=fma isa=neon precision=sp width=16 loads=16 stores=0 fma=16 prefetch=4096
VKERNEL neon_sp_v_load_fma_pf, neon, load, NEON, fma, 4s, 4096

// @kernel neon_sp_v_load_addmul_pf kind=validation mix=load op=addmul isa=neon precision=sp width=16 loads=16 stores=0 add=16 mul=16 prefetch=4096
VKERNEL neon_sp_v_load_addmul_pf, neon, load, NEON, addmul, 4s, 4096

// @kernel neon_sp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=neon precision=sp width=16 loads=16 stores=8 fma=16 prefetch=4096
VKERNEL neon_sp_v_2ld1st_fma_pf, neon, ldldst, NEON, fma, 4s, 4096

// @kernel neon_sp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=neon precision=sp width=16 loads=16 stores=8 add=16 mul=16 prefetch=4096
VKERNEL neon_sp_v_2ld1st_addmul_pf, neon, ldldst, NEON, addmul, 4s, 4096
