//! The PMU's event tables per CPU family (`configs/events.yaml`) and the
//! arithmetic from their counts to W (flops) and Q (bytes requested by the
//! core); counting a command with perf_event is `launch::perf`'s.

use crate::machine::cpuid::CpuId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The embedded event table.
pub const EVENTS_YAML: &str = include_str!("../../../configs/events.yaml");

/// What an event counts (see the file's header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// Floating-point operations (FMA = 2).
    Flops,
    /// Floating-point operations of scalable (SVE) instructions, counted per
    /// 128 bits of vector (Arm's FP_SCALE_OPS_SPEC): × the vector length / 16 bytes.
    ScalableFlops,
    /// FP instructions of one width (FMA counted twice).
    FpInstr,
    /// FP operations of one width, for the access-width estimate only.
    FpWidth,
    /// Memory load instructions.
    Loads,
    /// Memory store instructions.
    Stores,
}

/// One raw event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// Name in the Linux pmu-events JSON.
    pub name: String,
    /// Event select (12 bits on AMD).
    pub event: u32,
    /// Unit mask.
    pub umask: u32,
    /// What it counts.
    pub counts: EventKind,
    /// Bytes per operand (FP events).
    #[serde(default)]
    pub width: Option<u32>,
    /// Elements per instruction (fp_instr events).
    #[serde(default)]
    pub lanes: Option<u32>,
}

impl Event {
    /// perf_event raw config for this event on `vendor` (Arm: the event
    /// number itself).
    pub fn config(&self, vendor: &str) -> u64 {
        let ev = u64::from(self.event);
        if vendor == "ARM" {
            return ev;
        }
        let base = (ev & 0xFF) | (u64::from(self.umask) << 8);
        if vendor == "AuthenticAMD" {
            base | ((ev >> 8) & 0xF) << 32
        } else {
            base
        }
    }
}

/// A CPU family's events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// Short name.
    pub name: String,
    /// The CPUs of `configs/cpus.yaml` whose events these are.
    pub cpus: Vec<String>,
    /// Where the encodings come from.
    pub source: String,
    /// The events.
    pub events: Vec<Event>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventsFile {
    families: Vec<Family>,
}

impl Family {
    /// The CPUID vendor of its CPUs, which sets how raw events are encoded.
    pub fn vendor(&self) -> &'static str {
        self.cpus
            .first()
            .and_then(|c| crate::config::cpus::named(c))
            .map_or("", |c| c.vendor.as_str())
    }
}

/// Every family in the table.
pub fn families() -> Vec<Family> {
    let f: EventsFile =
        serde_yaml::from_str(EVENTS_YAML).expect("embedded configs/events.yaml is valid");
    f.families
}

/// The family of a CPU, if the table has it.
pub fn family_of(id: &CpuId) -> Option<Family> {
    families()
        .into_iter()
        .find(|f| f.cpus.iter().any(|c| crate::config::cpus::is(c, id)))
}

/// W, Q and AI derived from counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Floating-point operations.
    pub flops: f64,
    /// Load instructions.
    pub loads: u64,
    /// Store instructions.
    pub stores: u64,
    /// Bytes per access assumed.
    pub access_bytes: f64,
    /// Bytes requested: (loads + stores) × access_bytes.
    pub bytes: f64,
    /// The approximation made, in words.
    pub note: String,
}

/// Access width assumed when nothing tells it.
pub const DEFAULT_ACCESS_BYTES: f64 = 8.0;

/// Derive W and Q from event counts (by event name). `access_bytes`
/// overrides the width estimate.
pub fn derive(f: &Family, counts: &BTreeMap<String, u64>, access_bytes: Option<f64>) -> Estimate {
    let mut flops = 0.0;
    let (mut loads, mut stores) = (0u64, 0u64);
    let (mut wsum, mut wn) = (0.0, 0.0);
    for e in &f.events {
        let n = counts.get(&e.name).copied().unwrap_or(0);
        match e.counts {
            EventKind::Flops => flops += n as f64,
            EventKind::ScalableFlops => {
                flops += n as f64 * f64::from(crate::arch::sve_bytes()) / 16.0;
            }
            EventKind::FpInstr => {
                flops += n as f64 * f64::from(e.lanes.unwrap_or(1));
                wsum += n as f64 * f64::from(e.width.unwrap_or(8));
                wn += n as f64;
            }
            EventKind::FpWidth => {
                wsum += n as f64 * f64::from(e.width.unwrap_or(8));
                wn += n as f64;
            }
            EventKind::Loads => loads += n,
            EventKind::Stores => stores += n,
        }
    }
    let (w, note) = match access_bytes {
        Some(b) => (
            b,
            format!("bytes = (loads + stores) x {b} B, the access width given with --access-bytes"),
        ),
        None if wn > 0.0 => {
            let w = wsum / wn;
            (
                w,
                format!(
                    "bytes = (loads + stores) x {w:.1} B, the mean width of the FP instructions: the PMU counts memory instructions, not bytes (give --access-bytes to set it)"
                ),
            )
        }
        None => (
            DEFAULT_ACCESS_BYTES,
            format!(
                "bytes = (loads + stores) x {DEFAULT_ACCESS_BYTES} B: the PMU counts memory instructions, not bytes, and no FP width was counted (give --access-bytes to set it)"
            ),
        ),
    };
    Estimate {
        flops,
        loads,
        stores,
        access_bytes: w,
        bytes: (loads + stores) as f64 * w,
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fam(n: &str) -> Family {
        families().into_iter().find(|f| f.name == n).unwrap()
    }

    #[test]
    fn table_covers_the_families() {
        let names: Vec<_> = families().into_iter().map(|f| f.name).collect();
        for n in "zen3 zen4 zen5 skylake_sp icelake_sp sapphire_rapids".split(' ') {
            assert!(names.iter().any(|x| x == n), "{n}");
        }
        for f in families() {
            for kind in [EventKind::Loads, EventKind::Stores] {
                assert!(f.events.iter().any(|e| e.counts == kind), "{}", f.name);
            }
            // Flops too, unless the perf tables give the family none.
            assert!(
                f.events.iter().any(|e| matches!(
                    e.counts,
                    EventKind::Flops | EventKind::ScalableFlops | EventKind::FpInstr
                )) || f.source.contains("no FP operation event"),
                "{}",
                f.name
            );
        }
        for (vendor, f, m, name) in [
            ("AuthenticAMD", 0x1A, 2, "zen5"),
            ("AuthenticAMD", 0x19, 0x61, "zen4"),
            ("AuthenticAMD", 0x19, 0x21, "zen3"),
            ("GenuineIntel", 6, 0x55, "skylake_sp"),
        ] {
            assert_eq!(family_of(&id(vendor, f, m)).unwrap().name, name);
        }
        assert!(family_of(&id("GenuineIntel", 6, 0x9A)).is_none());
    }

    fn id(v: &str, f: u32, m: u32) -> CpuId {
        CpuId {
            vendor: v.into(),
            family: f,
            model: m,
        }
    }

    #[test]
    fn raw_configs_follow_the_x86_layout() {
        let z = fam("zen5");
        let ld = z
            .events
            .iter()
            .find(|e| e.counts == EventKind::Loads)
            .unwrap();
        assert_eq!(ld.config("AuthenticAMD"), 0x0129);
        let high = Event {
            name: "x".into(),
            event: 0x1C4,
            umask: 0x03,
            counts: EventKind::Loads,
            width: None,
            lanes: None,
        };
        assert_eq!(high.config("AuthenticAMD"), (1 << 32) | 0x03C4);
        let i = fam("icelake_sp");
        let st = i
            .events
            .iter()
            .find(|e| e.counts == EventKind::Stores)
            .unwrap();
        assert_eq!(st.config("GenuineIntel"), 0x82D0);
        // Arm: the event number itself, 16 bits.
        let v1 = family_of(&id("ARM", 0x41, 0xd40)).unwrap();
        let scale = v1
            .events
            .iter()
            .find(|e| e.name == "FP_SCALE_OPS_SPEC")
            .unwrap();
        assert_eq!(scale.config("ARM"), 0x80C0);
        assert_eq!(
            family_of(&id("ARM", 0x41, 0xd0c)).unwrap().name,
            "neoverse_n1"
        );
    }

    #[test]
    fn arm_flops_count_fixed_and_scalable_operations() {
        let f = family_of(&id("ARM", 0x41, 0xd4f)).unwrap();
        let c: BTreeMap<String, u64> = [
            ("FP_FIXED_OPS_SPEC", 1_000u64),
            ("FP_SCALE_OPS_SPEC", 500),
            ("LD_SPEC", 10),
            ("ST_SPEC", 5),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let d = derive(&f, &c, Some(16.0));
        // SVE operations scale with this CPU's vector length (none on x86-64).
        let vl = f64::from(crate::arch::sve_bytes());
        assert_eq!(d.flops, 1_000.0 + 500.0 * vl / 16.0);
        assert_eq!(d.bytes, 15.0 * 16.0);
    }

    #[test]
    fn w_q_ai_from_amd_counts() {
        let z = fam("zen4");
        let c: BTreeMap<String, u64> = [
            ("fp_ret_sse_avx_ops.all", 1_600_000u64),
            ("fp_ops_retired_by_width.pack_512_uops_retired", 100_000),
            ("fp_ops_retired_by_width.pack_256_uops_retired", 100_000),
            ("ls_dispatch.ld_dispatch", 200_000),
            ("ls_dispatch.store_dispatch", 100_000),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let d = derive(&z, &c, None);
        assert_eq!(d.flops, 1.6e6);
        assert_eq!(d.access_bytes, 48.0);
        assert_eq!(d.bytes, 300_000.0 * 48.0);
        assert!((d.flops / d.bytes - 1.6e6 / 14.4e6).abs() < 1e-15);
        assert!(d.note.contains("mean width"));
        let forced = derive(&z, &c, Some(64.0));
        assert_eq!(forced.bytes, 300_000.0 * 64.0);
        let z3 = derive(&fam("zen3"), &c, None);
        assert_eq!((z3.flops, z3.access_bytes), (1.6e6, DEFAULT_ACCESS_BYTES));
    }

    #[test]
    fn w_q_ai_from_intel_counts() {
        for name in ["skylake_sp", "icelake_sp", "sapphire_rapids"] {
            let f = fam(name);
            let c: BTreeMap<String, u64> = [
                ("FP_ARITH_INST_RETIRED.512B_PACKED_DOUBLE", 1000u64),
                ("FP_ARITH_INST_RETIRED.SCALAR_DOUBLE", 500),
                ("FP_ARITH_INST_RETIRED.256B_PACKED_SINGLE", 250),
                ("MEM_INST_RETIRED.ALL_LOADS", 800),
                ("MEM_INST_RETIRED.ALL_STORES", 200),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            let d = derive(&f, &c, None);
            assert_eq!(d.flops, 1000.0 * 8.0 + 500.0 + 250.0 * 8.0, "{name}");
            let w = (1000.0 * 64.0 + 500.0 * 8.0 + 250.0 * 32.0) / 1750.0;
            assert!((d.access_bytes - w).abs() < 1e-12);
            assert!((d.bytes - 1000.0 * w).abs() < 1e-9);
        }
    }
}
