//! The CPUs carmbench knows, by CPUID (`configs/cpus.yaml`): the one table
//! the theoretical limits ([`super::limits`]) and the PMU events
//! (`profile::measured::events`) point into by name.

use crate::machine::cpuid::{CpuId, CpuMatch};
use serde::Deserialize;
use std::sync::OnceLock;

/// The embedded table.
pub const CPUS_YAML: &str = include_str!("../../configs/cpus.yaml");

/// A CPU: its name and the CPUIDs it covers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    /// Short name, as limits and events name it.
    pub name: String,
    /// Human name.
    pub description: String,
    /// CPUID vendor string (AArch64: the implementer's name).
    pub vendor: String,
    /// CPUID family (base + extended; AArch64: the implementer's code).
    pub family: u32,
    /// Exact models (with `model_ranges` both empty: any).
    #[serde(default)]
    pub models: Vec<u32>,
    /// Inclusive model ranges.
    #[serde(default)]
    pub model_ranges: Vec<[u32; 2]>,
    /// The name each model is sold under, where the models of one core
    /// family are different products (Sapphire and Emerald Rapids).
    #[serde(default)]
    pub sold_as: std::collections::BTreeMap<u32, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CpusFile {
    cpus: Vec<Cpu>,
}

/// Every CPU in the table.
pub fn all() -> &'static [Cpu] {
    static CPUS: OnceLock<Vec<Cpu>> = OnceLock::new();
    CPUS.get_or_init(|| {
        let f: CpusFile =
            serde_yaml::from_str(CPUS_YAML).expect("embedded configs/cpus.yaml is valid");
        f.cpus
    })
}

/// The CPU of that name.
pub fn named(name: &str) -> Option<&'static Cpu> {
    all().iter().find(|c| c.name == name)
}

impl Cpu {
    /// Whether a CPUID is this CPU.
    pub fn matches(&self, id: &CpuId) -> bool {
        CpuMatch {
            vendor: &self.vendor,
            family: self.family,
            models: &self.models,
            ranges: &self.model_ranges,
        }
        .matches(id)
    }
}

/// The name `id` is sold under, where the table gives one.
pub fn sold_as(id: &CpuId) -> Option<&'static str> {
    let c = all().iter().find(|c| c.matches(id))?;
    c.sold_as.get(&id.model).map(String::as_str)
}

/// Whether the CPU named `name` covers `id` (an unknown name covers none).
pub fn is(name: &str, id: &CpuId) -> bool {
    named(name).is_some_and(|c| c.matches(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_cpuid_is_two_cpus_and_every_name_limits_and_events_use_is_here() {
        // Every model of the families listed, each in at most one CPU.
        for c in all() {
            for model in 0..=0xFFF {
                let id = CpuId {
                    vendor: c.vendor.clone(),
                    family: c.family,
                    model,
                };
                let of: Vec<&str> = all()
                    .iter()
                    .filter(|x| x.matches(&id))
                    .map(|x| x.name.as_str())
                    .collect();
                assert!(of.len() <= 1, "model {model:#x} is {of:?}");
            }
        }
        for u in super::super::limits::all() {
            assert!(named(&u.name).is_some(), "limits name {}", u.name);
        }
        for f in crate::profile::measured::events::families() {
            for c in &f.cpus {
                assert!(named(c).is_some(), "events of {} name {c}", f.name);
            }
        }
        // Zen 3's Trento (family 19h model 30h) is Zen 3 for limits and events alike.
        let trento = CpuId {
            vendor: "AuthenticAMD".into(),
            family: 0x19,
            model: 0x30,
        };
        assert!(is("zen3", &trento));
        assert_eq!(super::super::limits::of(&trento).unwrap().name, "zen3");
        assert_eq!(
            crate::profile::measured::events::family_of(&trento)
                .unwrap()
                .name,
            "zen3"
        );
    }
}
