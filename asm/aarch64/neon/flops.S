// FP kernels, 128-bit Advanced SIMD (NEON), double (dp) and single (sp) precision.
// The bodies are asm/aarch64/flops.S's; see common.S for the ABI.

// @kernel neon_dp_add kind=compute op=add isa=neon precision=dp width=16 add=16
FKERNEL neon_dp_add, NEON, add, 2d, str q0, [x2]

// @kernel neon_dp_mul kind=compute op=mul isa=neon precision=dp width=16 mul=16
FKERNEL neon_dp_mul, NEON, mul, 2d, str q0, [x2]

// @kernel neon_dp_addmul kind=compute op=addmul isa=neon precision=dp width=16 add=16 mul=16
FKERNEL neon_dp_addmul, NEON, addmul, 2d, str q0, [x2]

// @kernel neon_dp_fma kind=compute op=fma isa=neon precision=dp width=16 fma=16
FKERNEL neon_dp_fma, NEON, fma, 2d, str q0, [x2]

// @kernel neon_dp_fma_add kind=compute op=fma_add isa=neon precision=dp width=16 fma=16 add=16
FKERNEL neon_dp_fma_add, NEON, fma_add, 2d, str q0, [x2]

// @kernel neon_dp_div kind=compute op=div isa=neon precision=dp width=16 div=8
FKERNEL neon_dp_div, NEON, div, 2d, str q0, [x2]

// @kernel neon_sp_add kind=compute op=add isa=neon precision=sp width=16 add=16
FKERNEL neon_sp_add, NEON, add, 4s, str q0, [x2]

// @kernel neon_sp_mul kind=compute op=mul isa=neon precision=sp width=16 mul=16
FKERNEL neon_sp_mul, NEON, mul, 4s, str q0, [x2]

// @kernel neon_sp_addmul kind=compute op=addmul isa=neon precision=sp width=16 add=16 mul=16
FKERNEL neon_sp_addmul, NEON, addmul, 4s, str q0, [x2]

// @kernel neon_sp_fma kind=compute op=fma isa=neon precision=sp width=16 fma=16
FKERNEL neon_sp_fma, NEON, fma, 4s, str q0, [x2]

// @kernel neon_sp_fma_add kind=compute op=fma_add isa=neon precision=sp width=16 fma=16 add=16
FKERNEL neon_sp_fma_add, NEON, fma_add, 4s, str q0, [x2]

// @kernel neon_sp_div kind=compute op=div isa=neon precision=sp width=16 div=8
FKERNEL neon_sp_div, NEON, div, 4s, str q0, [x2]
