// Validation kernels, sve: the memory and FP units of asm/aarch64/validation.S and flops.S.
// The prefetching twins (prefetch=4096) run at levels off the core near and above the
// ridge, the faster form kept where both may run (validate/sweep.rs, BOTH_FORMS).

// @kernel sve_dp_v_load_fma kind=validation mix=load op=fma isa=sve precision=dp width=vl loads=8 stores=0 fma=16
VKERNEL sve_dp_v_load_fma, sve, load, SVE, fma, d

// @kernel sve_dp_v_load_addmul kind=validation mix=load op=addmul isa=sve precision=dp width=vl loads=8 stores=0 add=16 mul=16
VKERNEL sve_dp_v_load_addmul, sve, load, SVE, addmul, d

// @kernel sve_dp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=sve precision=dp width=vl loads=16 stores=8 fma=16
VKERNEL sve_dp_v_2ld1st_fma, sve, ldldst, SVE, fma, d

// @kernel sve_dp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=sve precision=dp width=vl loads=16 stores=8 add=16 mul=16
VKERNEL sve_dp_v_2ld1st_addmul, sve, ldldst, SVE, addmul, d

// @kernel sve_sp_v_load_fma kind=validation mix=load op=fma isa=sve precision=sp width=vl loads=8 stores=0 fma=16
VKERNEL sve_sp_v_load_fma, sve, load, SVE, fma, s

// @kernel sve_sp_v_load_addmul kind=validation mix=load op=addmul isa=sve precision=sp width=vl loads=8 stores=0 add=16 mul=16
VKERNEL sve_sp_v_load_addmul, sve, load, SVE, addmul, s

// @kernel sve_sp_v_2ld1st_fma kind=validation mix=2ld1st op=fma isa=sve precision=sp width=vl loads=16 stores=8 fma=16
VKERNEL sve_sp_v_2ld1st_fma, sve, ldldst, SVE, fma, s

// @kernel sve_sp_v_2ld1st_addmul kind=validation mix=2ld1st op=addmul isa=sve precision=sp width=vl loads=16 stores=8 add=16 mul=16
VKERNEL sve_sp_v_2ld1st_addmul, sve, ldldst, SVE, addmul, s

// @kernel sve_dp_v_load_fma_pf kind=validation mix=load op=fma isa=sve precision=dp width=vl loads=8 stores=0 fma=16 prefetch=4096
VKERNEL sve_dp_v_load_fma_pf, sve, load, SVE, fma, d, 4096

// @kernel sve_dp_v_load_addmul_pf kind=validation mix=load op=addmul isa=sve precision=dp width=vl loads=8 stores=0 add=16 mul=16 prefetch=4096
VKERNEL sve_dp_v_load_addmul_pf, sve, load, SVE, addmul, d, 4096

// @kernel sve_dp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=sve precision=dp width=vl loads=16 stores=8 fma=16 prefetch=4096
VKERNEL sve_dp_v_2ld1st_fma_pf, sve, ldldst, SVE, fma, d, 4096

// @kernel sve_dp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=sve precision=dp width=vl loads=16 stores=8 add=16 mul=16 prefetch=4096
VKERNEL sve_dp_v_2ld1st_addmul_pf, sve, ldldst, SVE, addmul, d, 4096

// @kernel sve_sp_v_load_fma_pf kind=validation mix=load op=fma isa=sve precision=sp width=vl loads=8 stores=0 fma=16 prefetch=4096
VKERNEL sve_sp_v_load_fma_pf, sve, load, SVE, fma, s, 4096

// @kernel sve_sp_v_load_addmul_pf kind=validation mix=load op=addmul isa=sve precision=sp width=vl loads=8 stores=0 add=16 mul=16 prefetch=4096
VKERNEL sve_sp_v_load_addmul_pf, sve, load, SVE, addmul, s, 4096

// @kernel sve_sp_v_2ld1st_fma_pf kind=validation mix=2ld1st op=fma isa=sve precision=sp width=vl loads=16 stores=8 fma=16 prefetch=4096
VKERNEL sve_sp_v_2ld1st_fma_pf, sve, ldldst, SVE, fma, s, 4096

// @kernel sve_sp_v_2ld1st_addmul_pf kind=validation mix=2ld1st op=addmul isa=sve precision=sp width=vl loads=16 stores=8 add=16 mul=16 prefetch=4096
VKERNEL sve_sp_v_2ld1st_addmul_pf, sve, ldldst, SVE, addmul, s, 4096
