//! What an apps file says of a loop's point (`profile --loops`).

use serde::{Deserialize, Serialize};

/// A loop's place and how it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopInfo {
    /// The function it is in.
    pub function: String,
    /// Its header's offset in the module's file.
    pub header: u64,
    /// Its header's source line ("file.c:12"), when the file has line
    /// tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// 1 for an outermost loop, 2 for one nested in it, ...
    pub depth: usize,
    /// The loop it nests in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Runs of its header.
    pub iterations: u64,
    /// Times it was entered.
    pub entries: u64,
    /// A cycle with two ways in (no single header).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub irreducible: bool,
    /// W of its whole body, the loops nested in it included (the point's
    /// own W leaves out those shown apart), in the unit of the arithmetic
    /// most of that work is (`total_precision`; none: flops).
    pub total_flops: f64,
    /// Q of its whole body, likewise.
    pub total_bytes: f64,
    /// The arithmetic `total_flops` counts (none: double and single
    /// precision flops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_precision: Option<crate::kernels::Precision>,
}

impl LoopInfo {
    /// Runs of the header per entry.
    pub fn trip_count(&self) -> f64 {
        self.iterations as f64 / self.entries.max(1) as f64
    }
}
