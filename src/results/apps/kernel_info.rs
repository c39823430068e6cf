//! What an apps file says of a GPU kernel's point (`profile --gpu`).

use crate::gpu::model::Params;
use serde::{Deserialize, Serialize};

/// A kernel's launches together (or, with no `kernel`, all of a program's
/// GPU work), as Nsight Compute measured them on one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelInfo {
    /// The name of the program's own point.
    pub program: String,
    /// The kernel, demangled with its arguments' types; absent for the
    /// program's GPU work as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// The GPU it ran on, as the driver names it.
    pub gpu: String,
    /// Its launches.
    pub launches: usize,
    /// Its share of the program's GPU time.
    pub share: f64,
    /// Bytes through the L2 cache (its requests from the SMs).
    pub l2_bytes: f64,
    /// Bytes read from device memory.
    pub dram_read: f64,
    /// Bytes written to device memory.
    pub dram_write: f64,
    /// Konstantinidis's parameters: what `predict` needs of it.
    pub model: Params,
}
