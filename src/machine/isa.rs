//! Run-time ISA detection: which kernel families this CPU can run.

pub use crate::arch::Isa;
use serde::{Deserialize, Serialize};

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
