// FP kernels, SVE at the CPU's vector length (width=vl: counts per vector), double (dp) and
// single (sp) precision. The bodies are asm/aarch64/flops.S's; see common.S for the ABI.

// @kernel sve_dp_add kind=compute op=add isa=sve precision=dp width=vl add=16
FKERNEL sve_dp_add, SVE, add, d, st1d {z0.d}, p7, [x2]

// @kernel sve_dp_mul kind=compute op=mul isa=sve precision=dp width=vl mul=16
FKERNEL sve_dp_mul, SVE, mul, d, st1d {z0.d}, p7, [x2]

// @kernel sve_dp_addmul kind=compute op=addmul isa=sve precision=dp width=vl add=16 mul=16
FKERNEL sve_dp_addmul, SVE, addmul, d, st1d {z0.d}, p7, [x2]

// @kernel sve_dp_fma kind=compute op=fma isa=sve precision=dp width=vl fma=16
FKERNEL sve_dp_fma, SVE, fma, d, st1d {z0.d}, p7, [x2]

// @kernel sve_dp_fma_add kind=compute op=fma_add isa=sve precision=dp width=vl fma=16 add=16
FKERNEL sve_dp_fma_add, SVE, fma_add, d, st1d {z0.d}, p7, [x2]

// @kernel sve_dp_div kind=compute op=div isa=sve precision=dp width=vl div=8
FKERNEL sve_dp_div, SVE, div, d, st1d {z0.d}, p7, [x2]

// @kernel sve_sp_add kind=compute op=add isa=sve precision=sp width=vl add=16
FKERNEL sve_sp_add, SVE, add, s, st1d {z0.d}, p7, [x2]

// @kernel sve_sp_mul kind=compute op=mul isa=sve precision=sp width=vl mul=16
FKERNEL sve_sp_mul, SVE, mul, s, st1d {z0.d}, p7, [x2]

// @kernel sve_sp_addmul kind=compute op=addmul isa=sve precision=sp width=vl add=16 mul=16
FKERNEL sve_sp_addmul, SVE, addmul, s, st1d {z0.d}, p7, [x2]

// @kernel sve_sp_fma kind=compute op=fma isa=sve precision=sp width=vl fma=16
FKERNEL sve_sp_fma, SVE, fma, s, st1d {z0.d}, p7, [x2]

// @kernel sve_sp_fma_add kind=compute op=fma_add isa=sve precision=sp width=vl fma=16 add=16
FKERNEL sve_sp_fma_add, SVE, fma_add, s, st1d {z0.d}, p7, [x2]

// @kernel sve_sp_div kind=compute op=div isa=sve precision=sp width=vl div=8
FKERNEL sve_sp_div, SVE, div, s, st1d {z0.d}, p7, [x2]
