//! Run-time ISA detection: which kernel families this CPU can run.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Instruction-set families carmbench has kernels for, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Isa {
    /// Scalar SSE2 (8-byte accesses, one lane).
    Scalar,
    /// 128-bit SSE2.
    Sse,
    /// 256-bit AVX2 (with FMA3 for FMA kernels).
    Avx2,
    /// 512-bit AVX-512F.
    Avx512,
}

impl Isa {
    /// All families, narrowest first.
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::Sse, Isa::Avx2, Isa::Avx512];

    /// Name used on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Sse => "sse",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// Vector width in bytes of one access.
    pub fn width_bytes(self) -> u32 {
        match self {
            Isa::Scalar => 8,
            Isa::Sse => 16,
            Isa::Avx2 => 32,
            Isa::Avx512 => 64,
        }
    }

    /// CPU features (as `is_x86_feature_detected!` names) the family needs.
    pub fn required_features(self) -> &'static [&'static str] {
        match self {
            Isa::Scalar | Isa::Sse => &["sse2"],
            Isa::Avx2 => &["avx2"],
            Isa::Avx512 => &["avx512f"],
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Isa {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Isa::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown ISA '{s}'; known: {}",
                    Isa::ALL.map(|i| i.name()).join(", ")
                )
            })
    }
}

/// Whether this CPU has a named feature (the names of `is_x86_feature_detected!`).
pub fn has_feature(name: &str) -> bool {
    match name {
        "sse2" => std::arch::is_x86_feature_detected!("sse2"),
        "avx" => std::arch::is_x86_feature_detected!("avx"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "fma" => std::arch::is_x86_feature_detected!("fma"),
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
        "avx512dq" => std::arch::is_x86_feature_detected!("avx512dq"),
        "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
        _ => false,
    }
}

/// Features reported by `carmbench topology`.
pub const REPORTED_FEATURES: [&str; 8] = [
    "sse2", "avx", "avx2", "fma", "avx512f", "avx512vl", "avx512dq", "avx512bw",
];

/// The ISA report of this CPU.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IsaReport {
    /// Features found at run time.
    pub features: Vec<String>,
    /// Families carmbench benchmarks here.
    pub benchmarked: Vec<Isa>,
    /// Families skipped because the CPU lacks them.
    pub skipped: Vec<Isa>,
}

/// Detect this CPU's ISA.
pub fn detect() -> IsaReport {
    let features = REPORTED_FEATURES
        .iter()
        .filter(|f| has_feature(f))
        .map(|f| f.to_string())
        .collect();
    let (benchmarked, skipped) = Isa::ALL.into_iter().partition(|i| supported(*i));
    IsaReport {
        features,
        benchmarked,
        skipped,
    }
}

/// Whether this CPU runs the family.
pub fn supported(isa: Isa) -> bool {
    isa.required_features().iter().all(|f| has_feature(f))
}
