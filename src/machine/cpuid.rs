//! Which CPU this is, by CPUID: what the tables of limits
//! (`configs/limits.yaml`) and PMU events (`configs/events.yaml`) are keyed by.

use serde::{Deserialize, Serialize};

/// CPUID identity of a CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuId {
    /// Vendor string, e.g. "AuthenticAMD".
    pub vendor: String,
    /// Family (base + extended).
    pub family: u32,
    /// Model (with extended model).
    pub model: u32,
}

/// Read this CPU's CPUID identity.
pub fn cpuid() -> CpuId {
    use core::arch::x86_64::__cpuid;
    // CPUID leaves 0 and 1 exist on every x86-64 CPU.
    let l0 = __cpuid(0);
    let mut v = Vec::with_capacity(12);
    for r in [l0.ebx, l0.edx, l0.ecx] {
        v.extend_from_slice(&r.to_le_bytes());
    }
    let l1 = __cpuid(1);
    let base_family = (l1.eax >> 8) & 0xF;
    let ext_family = (l1.eax >> 20) & 0xFF;
    let base_model = (l1.eax >> 4) & 0xF;
    let ext_model = (l1.eax >> 16) & 0xF;
    let family = if base_family == 0xF {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if base_family == 0xF || base_family == 6 {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    CpuId {
        vendor: String::from_utf8_lossy(&v).into_owned(),
        family,
        model,
    }
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
