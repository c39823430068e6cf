//! Run-time ISA detection: which kernel families this CPU can run.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Instruction-set families carmbench has kernels for, narrowest first on
/// each architecture (x86-64: scalar to AVX-512; AArch64: scalar, NEON, SVE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Isa {
    /// Scalar FP (8-byte accesses, one lane): SSE2 on x86-64.
    Scalar,
    /// 128-bit SSE2.
    Sse,
    /// 256-bit AVX2 (with FMA3 for FMA kernels).
    Avx2,
    /// 512-bit AVX-512F.
    Avx512,
    /// 128-bit AArch64 Advanced SIMD.
    Neon,
    /// AArch64 SVE, at the vector length of the CPU (128 to 2048 bits).
    Sve,
}

impl Isa {
    /// All families.
    pub const ALL: [Isa; 6] = [
        Isa::Scalar,
        Isa::Sse,
        Isa::Avx2,
        Isa::Avx512,
        Isa::Neon,
        Isa::Sve,
    ];

    /// The families with kernels on this architecture, narrowest first.
    pub fn native() -> &'static [Isa] {
        crate::arch::ISAS
    }

    /// Name used on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Sse => "sse",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
            Isa::Sve => "sve",
        }
    }

    /// Vector width in bytes of one access (SVE: this CPU's vector length,
    /// 0 without SVE).
    pub fn width_bytes(self) -> u32 {
        match self {
            Isa::Scalar => 8,
            Isa::Sse | Isa::Neon => 16,
            Isa::Avx2 => 32,
            Isa::Avx512 => 64,
            Isa::Sve => crate::arch::sve_bytes(),
        }
    }

    /// CPU features the family needs on this architecture.
    pub fn required_features(self) -> &'static [&'static str] {
        crate::arch::required_features(self)
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

/// Whether this CPU has a named feature (`crate::arch::FEATURES`).
pub fn has_feature(name: &str) -> bool {
    crate::arch::has_feature(name)
}

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
    let features = crate::arch::FEATURES
        .iter()
        .filter(|f| has_feature(f))
        .map(|f| f.to_string())
        .collect();
    let (benchmarked, skipped) = Isa::native().iter().partition(|i| supported(**i));
    IsaReport {
        features,
        benchmarked,
        skipped,
    }
}

impl IsaReport {
    /// The fixed-rate counter of the CPU it describes, by name: the TSC of
    /// an x86-64 CPU, the generic timer of an AArch64 one.
    pub fn counter_name(&self) -> &'static str {
        let arm = |i: &Isa| matches!(i, Isa::Neon | Isa::Sve);
        if self.benchmarked.iter().chain(&self.skipped).any(arm) {
            "timer"
        } else {
            "TSC"
        }
    }
}

/// Whether this CPU runs the family.
pub fn supported(isa: Isa) -> bool {
    isa.required_features().iter().all(|f| has_feature(f))
}
