# The two-op mixes of the FP kernels, shared by every ISA.
#
# One op runs in 12 accumulator chains, the other is independent: it reads the constants
# and writes a scratch register that nothing reads. Two chained ops would get 6 chains
# each in 16 registers, no more than pipes x latency of the slowest CPU in
# configs/limits.yaml (2 x 4 for FMA, 2 x 3 for ADD), which leaves the pipes idle part of
# the time; 12 chains cover 2 x 5 with room (docs/evidence.md, "FP kernels").
# Arguments: the two instructions, the register prefix (xmm, ymm, zmm), the two constants
# and the scratch register. The chains are registers 0 to 11 of that prefix.

# fma_add: FMAs in the chains, ADDs independent.
.macro FMA_ADD_12 fma, add, r, k0, k1, scratch
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    \fma \r\()\i, \k0, \k1
    \add \scratch, \k0, \k1
.endr
.endm

# addmul: ADDs in the chains, MULs independent.
.macro ADD_MUL_12 add, mul, r, k0, k1, scratch
.irp i,0,1,2,3,4,5,6,7,8,9,10,11
    \add \r\()\i, \r\()\i, \k1
    \mul \scratch, \k0, \k1
.endr
.endm
