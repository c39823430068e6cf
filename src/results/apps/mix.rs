//! What an application's flops and bytes were made of, when counted
//! instruction by instruction (emulation).

use serde::{Deserialize, Serialize};

/// What an application's flops and bytes were made of.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionMix {
    /// Double-precision flops.
    pub dp_flops: f64,
    /// Single-precision flops.
    pub sp_flops: f64,
    /// Flops done by FMA instructions (both precisions).
    pub fma_flops: f64,
    /// Flops of other FP instructions.
    pub other_flops: f64,
    /// FP arithmetic instructions on one element.
    pub fp_scalar: f64,
    /// On 128-bit vectors.
    pub fp_128: f64,
    /// On 256-bit vectors.
    pub fp_256: f64,
    /// On 512-bit vectors.
    pub fp_512: f64,
    /// x87 arithmetic instructions, a flop each: in the point's W (under
    /// emulation; the PMUs' FP events leave them out), not in this mix's
    /// flops above, which no x87 instruction widens or fuses.
    pub x87: f64,
    /// Bytes loaded.
    pub bytes_loaded: f64,
    /// Bytes stored.
    pub bytes_stored: f64,
    /// Memory reads.
    pub loads: f64,
    /// Memory writes.
    pub stores: f64,
    /// Instructions executed.
    pub instructions: f64,
    /// Ops of vector instructions on 8-bit integers (one per lane; a dot
    /// product's multiply and add each).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub int8_ops: f64,
    /// On 16-bit integers.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub int16_ops: f64,
    /// On 32-bit integers.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub int32_ops: f64,
    /// On 64-bit lanes (and the bitwise ops without a lane size).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub int64_ops: f64,
    /// Integer ops of the general registers on 8, 16, 32 and 64-bit
    /// operands.
    #[serde(default, skip_serializing_if = "all_zero")]
    pub scalar_int_ops: [f64; 4],
    /// Integer compares and tests (beside the ops, not among them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub int_compares: f64,
    /// BF16 flops.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bf16_flops: f64,
    /// Half-precision flops.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fp16_flops: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn all_zero(x: &[f64; 4]) -> bool {
    x.iter().all(|v| *v == 0.0)
}
