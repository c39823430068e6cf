//! Which CPU this is (CPUID on x86-64; MIDR_EL1 on AArch64, its implementer
//! as the family and its part number as the model): what the tables of
//! limits (`configs/limits.yaml`) and PMU events (`configs/events.yaml`) are
//! keyed by.

pub use crate::arch::CpuId;

/// This CPU's identity (CPUID on x86-64, MIDR_EL1 on AArch64).
pub fn cpuid() -> CpuId {
    crate::arch::cpu_id()
}

/// A table entry's CPU match: vendor, family and, when listed, models.
#[derive(Debug, Clone, Copy)]
pub struct CpuMatch<'a> {
    /// CPUID vendor string.
    pub vendor: &'a str,
    /// CPUID family.
    pub family: u32,
    /// Exact models (with `ranges` both empty: any model).
    pub models: &'a [u32],
    /// Inclusive model ranges.
    pub ranges: &'a [[u32; 2]],
}

impl CpuMatch<'_> {
    /// Whether a CPU matches: same vendor and family, and a listed model
    /// when models or model ranges are given.
    pub fn matches(&self, id: &CpuId) -> bool {
        if self.vendor != id.vendor || self.family != id.family {
            return false;
        }
        if self.models.is_empty() && self.ranges.is_empty() {
            return true;
        }
        self.models.contains(&id.model)
            || self
                .ranges
                .iter()
                .any(|[lo, hi]| (*lo..=*hi).contains(&id.model))
    }
}
