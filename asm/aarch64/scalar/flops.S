// FP kernels, scalar (one lane of d or s registers), double (dp) and single (sp) precision.
// The bodies are asm/aarch64/flops.S's; see common.S for the ABI.

// @kernel scalar_dp_add kind=compute op=add isa=scalar precision=dp width=8 add=16
FKERNEL scalar_dp_add, SCALAR, add, d, str d0, [x2]

// @kernel scalar_dp_mul kind=compute op=mul isa=scalar precision=dp width=8 mul=16
FKERNEL scalar_dp_mul, SCALAR, mul, d, str d0, [x2]

// @kernel scalar_dp_addmul kind=compute op=addmul isa=scalar precision=dp width=8 add=16 mul=16
FKERNEL scalar_dp_addmul, SCALAR, addmul, d, str d0, [x2]

// @kernel scalar_dp_fma kind=compute op=fma isa=scalar precision=dp width=8 fma=16
FKERNEL scalar_dp_fma, SCALAR, fma, d, str d0, [x2]

// @kernel scalar_dp_fma_add kind=compute op=fma_add isa=scalar precision=dp width=8 fma=16 add=16
FKERNEL scalar_dp_fma_add, SCALAR, fma_add, d, str d0, [x2]

// @kernel scalar_dp_div kind=compute op=div isa=scalar precision=dp width=8 div=8
FKERNEL scalar_dp_div, SCALAR, div, d, str d0, [x2]

// @kernel scalar_sp_add kind=compute op=add isa=scalar precision=sp width=4 add=16
FKERNEL scalar_sp_add, SCALAR, add, s, str s0, [x2]

// @kernel scalar_sp_mul kind=compute op=mul isa=scalar precision=sp width=4 mul=16
FKERNEL scalar_sp_mul, SCALAR, mul, s, str s0, [x2]

// @kernel scalar_sp_addmul kind=compute op=addmul isa=scalar precision=sp width=4 add=16 mul=16
FKERNEL scalar_sp_addmul, SCALAR, addmul, s, str s0, [x2]

// @kernel scalar_sp_fma kind=compute op=fma isa=scalar precision=sp width=4 fma=16
FKERNEL scalar_sp_fma, SCALAR, fma, s, str s0, [x2]

// @kernel scalar_sp_fma_add kind=compute op=fma_add isa=scalar precision=sp width=4 fma=16 add=16
FKERNEL scalar_sp_fma_add, SCALAR, fma_add, s, str s0, [x2]

// @kernel scalar_sp_div kind=compute op=div isa=scalar precision=sp width=4 div=8
FKERNEL scalar_sp_div, SCALAR, div, s, str s0, [x2]
