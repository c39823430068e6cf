//! Theoretical per-core limits per microarchitecture (`configs/limits.yaml`)
//! and the % of the limit each roof reaches.
//! (This file is long because its tests check each µarch's limits; the
//! code above them is under 240 lines.)

use crate::kernels::{Decl, Kind, Mix, Precision};
use crate::machine::Level;
use crate::machine::cpuid::{self, CpuId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The embedded limits file.
pub const LIMITS_YAML: &str = include_str!("../../configs/limits.yaml");

/// The clock probe's own noise, relative: a roof may read this much above
/// its limit with nothing wrong.
pub const CLOCK_NOISE: f64 = 0.01;

/// Whether a roof at `percent` of its limit, its samples spread by `cv`,
/// passes it by more than it can by chance: the larger of its CV and the
/// clock probe's noise. Above that the kernel does less than it declares,
/// the clock reads low, or the limit is wrong: a measuring error until
/// shown otherwise.
pub fn above(percent: f64, cv: f64) -> bool {
    percent > 100.0 * (1.0 + cv.max(CLOCK_NOISE))
}

/// One microarchitecture's limits (see the file's header).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Uarch {
    /// Short name.
    pub name: String,
    /// Human name.
    pub description: String,
    /// Where the figures come from.
    pub source: String,
    /// Width of the FP datapath, bits.
    pub fp_datapath_bits: u32,
    /// FP instructions per cycle by op.
    pub instructions_per_cycle: BTreeMap<String, f64>,
    /// Loads per cycle (absent where the guide does not give it).
    #[serde(default)]
    pub loads_per_cycle: Option<f64>,
    /// Widest load at full rate, bits.
    #[serde(default)]
    pub load_bits: Option<u32>,
    /// Stores per cycle.
    #[serde(default)]
    pub stores_per_cycle: Option<f64>,
    /// Widest store at full rate, bits.
    #[serde(default)]
    pub store_bits: Option<u32>,
    /// L2 → L1 bytes per cycle.
    #[serde(default)]
    pub l2_bytes_per_cycle: Option<f64>,
    /// L3 → L2 bytes per cycle.
    #[serde(default)]
    pub l3_bytes_per_cycle: Option<f64>,
    /// Rates that differ for narrower operations, narrowest first: each
    /// holds for widths up to its `up_to_bits` (and above the entry before);
    /// the rates above hold for the rest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_width: Vec<WidthRates>,
    /// What was measured where a rate falls short of the documented one,
    /// keyed as `instructions_per_cycle`; the roof carries it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub notes: BTreeMap<String, String>,
}

/// Issue rates of one range of widths, where they differ from the widest's
/// (Golden Cove: three loads and three FP instructions a cycle up to 256
/// bits, two at 512).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WidthRates {
    /// The widest operation these rates hold for, bits.
    pub up_to_bits: u32,
    /// FP instructions per cycle by op, where they differ.
    #[serde(default)]
    pub instructions_per_cycle: BTreeMap<String, f64>,
    /// Loads per cycle, where it differs.
    #[serde(default)]
    pub loads_per_cycle: Option<f64>,
    /// Stores per cycle, where it differs.
    #[serde(default)]
    pub stores_per_cycle: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    microarchitectures: Vec<Uarch>,
    #[serde(default)]
    gpus: Vec<GpuLimits>,
}

/// What an SM of one compute capability does per clock, by the vendor's
/// documents (`configs/limits.yaml`, `gpus`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GpuLimits {
    /// The compute capability, as "9.0".
    pub capability: String,
    /// The GPUs it covers, in words.
    pub description: String,
    /// Where the figures come from.
    pub source: String,
    /// Lanes an SM runs per clock, by type (an FMA lane does 2 flops, an
    /// add or a multiply 1; fp16 and bf16 count halves, two to a register).
    pub lanes: BTreeMap<String, f64>,
    /// Integer lanes per clock by instruction, where they differ from
    /// `lanes` (`add_int32`, `mad_int32`).
    #[serde(default)]
    pub int32: BTreeMap<String, f64>,
    /// Dense tensor-core operations an SM does per clock, by input type.
    #[serde(default)]
    pub tensor_ops: BTreeMap<String, f64>,
    /// Bytes an SM's shared memory and L1 move per clock.
    pub shared_bytes: f64,
    /// What was measured where a rate falls short of (or passes) the
    /// documented one, keyed `op_type` (`fma_fp16`); the roof carries it.
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
}

/// The GPU limits of capability `cap` ("9.0"), if documented.
pub fn gpu(cap: &str) -> Option<GpuLimits> {
    let f: LimitsFile =
        serde_yaml::from_str(LIMITS_YAML).expect("embedded configs/limits.yaml is valid");
    f.gpus.into_iter().find(|g| g.capability == cap)
}

/// All known microarchitectures.
pub fn all() -> Vec<Uarch> {
    let f: LimitsFile =
        serde_yaml::from_str(LIMITS_YAML).expect("embedded configs/limits.yaml is valid");
    f.microarchitectures
}

impl Uarch {
    /// Whether a CPU is of this microarchitecture.
    pub fn matches(&self, id: &CpuId) -> bool {
        super::cpus::is(&self.name, id)
    }

    /// The rates for operations of `bits`, where they differ.
    fn at_width(&self, bits: u32) -> Option<&WidthRates> {
        self.by_width.iter().find(|w| bits <= w.up_to_bits)
    }

    /// FP instructions of `op` per cycle at `bits`.
    pub fn instructions_at(&self, op: &str, bits: u32) -> Option<f64> {
        self.at_width(bits)
            .and_then(|w| w.instructions_per_cycle.get(op))
            .or_else(|| self.instructions_per_cycle.get(op))
            .copied()
    }

    /// Loads and stores per cycle at `bits`.
    pub fn accesses_at(&self, bits: u32) -> (Option<f64>, Option<f64>) {
        let w = self.at_width(bits);
        (
            w.and_then(|w| w.loads_per_cycle).or(self.loads_per_cycle),
            w.and_then(|w| w.stores_per_cycle).or(self.stores_per_cycle),
        )
    }

    /// Per-core limit for a kernel at a level: flops or bytes per cycle.
    /// None when the limit is not documented (DRAM, DIV, mixes with stores
    /// beyond L1, non-temporal stores).
    pub fn per_cycle(&self, d: &Decl, level: Option<Level>) -> Option<f64> {
        let bits = d.width() * 8;
        match d.kind {
            Kind::Validation => None,
            Kind::Compute => {
                let ipc = self.instructions_at(&op_key(d)?, bits)?;
                let slots = (f64::from(bits) / f64::from(self.fp_datapath_bits)).max(1.0);
                let flops_per_instr = d.flops_per_iter() as f64 / f64::from(d.fp_instructions());
                Some(ipc / slots * flops_per_instr)
            }
            Kind::Bandwidth => {
                let w = f64::from(d.width());
                let rate = |n: f64, widest: u32| n / (f64::from(bits) / f64::from(widest)).max(1.0);
                let (loads, stores) = self.accesses_at(bits);
                let load_rate = rate(loads?, self.load_bits?);
                let store_rate = rate(stores?, self.store_bits?);
                match (level?, d.mix?) {
                    (Level::L1, Mix::NtStore) => None,
                    (Level::L1, _) => {
                        // Cycles per iteration: loads and stores issue in parallel.
                        let cycles =
                            (f64::from(d.loads) / load_rate).max(f64::from(d.stores) / store_rate);
                        Some(d.bytes_per_iter() as f64 / cycles)
                    }
                    (Level::L2, Mix::Load) => {
                        self.l2_bytes_per_cycle.map(|l2| l2.min(load_rate * w))
                    }
                    (Level::L3, Mix::Load) => {
                        self.l3_bytes_per_cycle.map(|l3| l3.min(load_rate * w))
                    }
                    _ => None,
                }
            }
        }
    }
}

impl Uarch {
    /// The note on a compute kernel's limit, if the file has one.
    pub fn note(&self, d: &Decl) -> Option<&str> {
        self.notes.get(&op_key(d)?).map(String::as_str)
    }
}

/// The key of a compute kernel's rate: double and single by op ("fma"); the
/// narrow types by op and precision ("dot_int8"), their own pipes' rates;
/// integer ALU work of the general registers apart from the vector one's
/// ("add_int_scalar": other units).
fn op_key(d: &Decl) -> Option<String> {
    let scalar = d.isa == crate::machine::isa::Isa::Scalar;
    match d.precision? {
        Precision::Int if scalar => Some(format!("{}_int_scalar", d.op?.name())),
        p if p.own_ops().is_some() => Some(format!("{}_{}", d.op?.name(), p.name())),
        _ => Some(d.op?.name().to_string()),
    }
}

/// The microarchitecture of this CPU, if known.
pub fn detect() -> Option<Uarch> {
    of(&cpuid::cpuid())
}

/// The microarchitecture of a CPUID, if known.
pub fn of(id: &CpuId) -> Option<Uarch> {
    all().into_iter().find(|u| u.matches(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Op, Precision, Role, find};
    use crate::machine::isa::Isa;

    fn named(n: &str) -> Uarch {
        all().into_iter().find(|u| u.name == n).unwrap()
    }

    #[test]
    fn every_listed_family_loads() {
        let names: Vec<_> = all().into_iter().map(|u| u.name).collect();
        for n in [
            "zen2",
            "zen3",
            "zen4",
            "zen5",
            "skylake_sp",
            "icelake_sp",
            "sapphire_rapids",
            "golden_cove_client",
            "haswell_broadwell",
            "neoverse_n1",
            "neoverse_n2",
            "neoverse_v1",
            "neoverse_v2",
        ] {
            assert!(names.iter().any(|x| x == n), "{n} in configs/limits.yaml");
        }
    }

    /// An AArch64 kernel's declaration (the x86-64 build has no such kernel).
    fn arm(kind: Kind, width: u32, fmas: u32, loads: u32) -> Decl {
        Decl {
            name: "arm",
            file: "asm/aarch64",
            kind,
            mix: (kind == Kind::Bandwidth).then_some(Mix::Load),
            op: (kind == Kind::Compute).then_some(Op::Fma),
            isa: if width == 16 { Isa::Neon } else { Isa::Sve },
            precision: (kind == Kind::Compute).then_some(Precision::Dp),
            declared_width: width,
            loads,
            stores: 0,
            adds: 0,
            muls: 0,
            fmas,
            divs: 0,
            dots: 0,
            madds: 0,
            mmlas: 0,
            alus: 0,
            needs: None,
            prefetch: 0,
            pace: 0,
        }
    }

    #[test]
    fn neoverse_limits_follow_the_arm_guides() {
        let id = |part| CpuId {
            vendor: "ARM".into(),
            family: 0x41,
            model: part,
        };
        let found = |part| {
            all()
                .into_iter()
                .find(|u| u.matches(&id(part)))
                .map(|u| u.name)
        };
        assert_eq!(found(0xd0c).as_deref(), Some("neoverse_n1"));
        assert_eq!(found(0xd40).as_deref(), Some("neoverse_v1"));
        assert_eq!(found(0xd49).as_deref(), Some("neoverse_n2"));
        assert_eq!(found(0xd4f).as_deref(), Some("neoverse_v2"));
        assert_eq!(found(0xd0b), None, "Cortex-A76: not listed");
        let fma = |w| arm(Kind::Compute, w, 16, 0);
        // V1: 4 NEON FMA pipes, 2 lanes, 2 flops; 256-bit SVE takes two pipes.
        assert_eq!(named("neoverse_v1").per_cycle(&fma(16), None), Some(16.0));
        assert_eq!(named("neoverse_v1").per_cycle(&fma(32), None), Some(16.0));
        assert_eq!(named("neoverse_v2").per_cycle(&fma(16), None), Some(16.0));
        assert_eq!(named("neoverse_n1").per_cycle(&fma(16), None), Some(8.0));
        // N1 reads 2 x 16 bytes a cycle; V1's load figures are left out.
        let load = arm(Kind::Bandwidth, 16, 0, 16);
        assert_eq!(
            named("neoverse_n1").per_cycle(&load, Some(Level::L1)),
            Some(32.0)
        );
        assert_eq!(named("neoverse_v1").per_cycle(&load, Some(Level::L1)), None);
    }

    /// Limits per the vendors' guides: (table entry, kernel, level, flops or bytes per cycle).
    #[test]
    fn limits_match_the_guides() {
        let fp = |op, isa, p| find(isa, Role::Compute(op, p)).unwrap().decl;
        let bw = |m, isa| find(isa, Role::Bandwidth(m)).unwrap().decl;
        let (l1, l2, l3) = (Some(Level::L1), Some(Level::L2), Some(Level::L3));
        let (dp, sp) = (Precision::Dp, Precision::Sp);
        let cases = [
            ("zen5", fp(Op::Fma, Isa::Avx512, dp), None, Some(32.0)),
            ("zen5", fp(Op::FmaAdd, Isa::Avx512, dp), None, Some(48.0)),
            ("zen5", fp(Op::Add, Isa::Avx512, dp), None, Some(16.0)),
            ("zen5", fp(Op::AddMul, Isa::Avx512, dp), None, Some(32.0)),
            ("zen5", fp(Op::Div, Isa::Avx512, dp), None, None),
            ("zen5", fp(Op::Fma, Isa::Avx512, sp), None, Some(64.0)),
            ("zen5", bw(Mix::Load, Isa::Avx512), l1, Some(128.0)),
            ("zen5", bw(Mix::Store, Isa::Avx512), l1, Some(64.0)),
            ("zen5", bw(Mix::TwoLdOneSt, Isa::Avx512), l1, Some(192.0)),
            ("zen5", bw(Mix::Load, Isa::Avx2), l1, Some(64.0)),
            // Two stores a cycle up to 256 bits, one at 512.
            ("zen5", bw(Mix::Store, Isa::Avx2), l1, Some(64.0)),
            ("zen5", bw(Mix::Store, Isa::Sse), l1, Some(32.0)),
            ("zen5", bw(Mix::Store, Isa::Scalar), l1, Some(16.0)),
            ("zen5", bw(Mix::TwoLdOneSt, Isa::Avx2), l1, Some(96.0)),
            ("zen5", bw(Mix::Load, Isa::Avx512), l2, Some(64.0)),
            ("zen5", bw(Mix::Load, Isa::Avx512), l3, Some(32.0)),
            ("zen5", bw(Mix::Load, Isa::Avx512), Some(Level::Dram), None),
            ("zen3", fp(Op::Fma, Isa::Avx2, dp), None, Some(16.0)),
            ("zen3", fp(Op::FmaAdd, Isa::Avx2, dp), None, Some(24.0)),
            ("zen3", fp(Op::AddMul, Isa::Avx2, dp), None, Some(16.0)),
            ("zen3", fp(Op::Add, Isa::Sse, dp), None, Some(4.0)),
            ("zen3", fp(Op::Fma, Isa::Scalar, dp), None, Some(4.0)),
            ("zen3", bw(Mix::Load, Isa::Avx2), l1, Some(64.0)),
            ("zen3", bw(Mix::Store, Isa::Avx2), l1, Some(32.0)),
            ("zen3", bw(Mix::TwoLdOneSt, Isa::Avx2), l1, Some(96.0)),
            ("zen3", bw(Mix::Load, Isa::Sse), l1, Some(32.0)),
            ("zen3", bw(Mix::Load, Isa::Avx2), l2, Some(32.0)),
            ("zen3", bw(Mix::Load, Isa::Sse), l2, Some(32.0)),
            ("zen3", bw(Mix::Load, Isa::Scalar), l2, Some(16.0)),
            ("zen3", bw(Mix::Load, Isa::Avx2), l3, Some(32.0)),
        ];
        for (uarch, decl, level, want) in cases {
            assert_eq!(
                named(uarch).per_cycle(&decl, level),
                want,
                "{uarch} {} at {level:?}",
                decl.name
            );
        }
    }

    /// Every roof of the full runs in the data files (a Zen 5, an Emerald
    /// Rapids Xeon, and that Xeon's every ISA at L1 and compute) within its
    /// limit, the limit chosen by the roof's width, but for its CV and the
    /// clock probe's noise.
    #[test]
    fn no_roof_of_the_data_files_is_above_its_limit() {
        for (name, text) in [
            (
                "emr-xeon-2core",
                include_str!("../../tests/fixtures/emr-xeon-2core.yaml"),
            ),
            (
                "emr-xeon-isa-all-l1",
                include_str!("../../tests/fixtures/emr-xeon-isa-all-l1.yaml"),
            ),
            (
                "zen5-epyc-2core",
                include_str!("../../tests/fixtures/zen5-epyc-2core.yaml"),
            ),
        ] {
            let doc = crate::results::parse(text, name).unwrap();
            let u = of(&doc.machine.cpuid).unwrap_or_else(|| panic!("{name}: a known CPU"));
            let mut checked = 0;
            for r in &doc.roofs {
                let d = &crate::kernels::named(&r.kernel).unwrap().decl;
                let Some(limit) = u.per_cycle(d, r.level) else {
                    continue;
                };
                let pct = 100.0 * r.per_cycle / (limit * r.threads as f64);
                assert!(
                    !above(pct, r.cv),
                    "{name}: {} at {:?}, {} thread(s): {:.1} % of {limit}",
                    r.kernel,
                    r.level,
                    r.threads,
                    pct
                );
                checked += 1;
            }
            assert!(checked >= 10, "{name}: {checked} roofs with a limit");
        }
    }

    #[test]
    fn golden_cove_issues_more_narrow_operations_than_wide_ones() {
        let spr = named("sapphire_rapids");
        let fp = |op, isa| find(isa, Role::Compute(op, Precision::Dp)).unwrap().decl;
        let bw = |m, isa| find(isa, Role::Bandwidth(m)).unwrap().decl;
        let l1 = Some(Level::L1);
        // Three FP ports up to 256 bits when ADDs and FMAs mix, two at 512.
        assert_eq!(spr.per_cycle(&fp(Op::FmaAdd, Isa::Avx2), None), Some(18.0));
        assert_eq!(
            spr.per_cycle(&fp(Op::FmaAdd, Isa::Avx512), None),
            Some(24.0)
        );
        assert_eq!(spr.per_cycle(&fp(Op::Fma, Isa::Avx2), None), Some(16.0));
        assert_eq!(spr.per_cycle(&fp(Op::AddMul, Isa::Scalar), None), Some(3.0));
        // Three loads up to 256 bits, two at 512; two stores of 32 bytes.
        assert_eq!(spr.per_cycle(&bw(Mix::Load, Isa::Scalar), l1), Some(24.0));
        assert_eq!(spr.per_cycle(&bw(Mix::Load, Isa::Avx2), l1), Some(96.0));
        assert_eq!(spr.per_cycle(&bw(Mix::Load, Isa::Avx512), l1), Some(128.0));
        assert_eq!(
            spr.per_cycle(&bw(Mix::TwoLdOneSt, Isa::Avx512), l1),
            Some(192.0)
        );
        assert_eq!(
            spr.per_cycle(&bw(Mix::TwoLdOneSt, Isa::Scalar), l1),
            Some(36.0)
        );
        // The client cores: no 512-bit operations, the same narrow rates.
        let adl = named("golden_cove_client");
        assert_eq!(adl.per_cycle(&fp(Op::FmaAdd, Isa::Avx2), None), Some(18.0));
        assert_eq!(adl.per_cycle(&bw(Mix::Load, Isa::Avx2), l1), Some(96.0));
        assert!(adl.matches(&CpuId {
            vendor: "GenuineIntel".into(),
            family: 6,
            model: 0x97
        }));
    }

    #[test]
    fn arm_narrow_types_follow_the_guides() {
        // An SDOT, SMMLA, BFDOT or BFMMLA kernel of 16 instructions.
        let narrow = |op, precision, width| {
            let mut d = arm(Kind::Compute, width, 0, 0);
            d.op = Some(op);
            d.precision = Some(precision);
            match op {
                Op::Mmla => d.mmlas = 16,
                _ => d.dots = 16,
            }
            d
        };
        let v2 = named("neoverse_v2");
        // SDOT .16b: 16 products and 16 adds, 4 a cycle.
        let sdot = narrow(Op::Dot, Precision::Int8, 16);
        assert_eq!(v2.per_cycle(&sdot, None), Some(128.0));
        // SMMLA: a 2x8 by 8x2 block, 64 ops, 4 a cycle.
        let smmla = narrow(Op::Mmla, Precision::Int8, 16);
        assert_eq!(v2.per_cycle(&smmla, None), Some(256.0));
        // BFMMLA: 2x4 by 4x2, 32 flops; V1's 256-bit SVE form takes two pipes.
        let bfmmla = |w| narrow(Op::Mmla, Precision::Bf16, w);
        assert_eq!(
            named("neoverse_v1").per_cycle(&bfmmla(16), None),
            Some(128.0)
        );
        assert_eq!(
            named("neoverse_v1").per_cycle(&bfmmla(32), None),
            Some(128.0)
        );
        assert_eq!(
            named("neoverse_n2").per_cycle(&bfmmla(16), None),
            Some(64.0)
        );
        // N1 has no documented BF16 rate here.
        assert_eq!(named("neoverse_n1").per_cycle(&bfmmla(16), None), None);
    }

    #[test]
    fn madd_pairs_and_the_bf16_note() {
        let madd = |isa| {
            find(isa, Role::Compute(Op::Madd, Precision::Int16))
                .unwrap()
                .decl
        };
        // Two VPMADDWD + VPADDD pairs a cycle: 2 x 16 lanes x 2 ops at 256
        // bits; Zen 4 splits 512-bit ones in two.
        let z4 = named("zen4");
        assert_eq!(z4.per_cycle(&madd(Isa::Avx2), None), Some(64.0));
        assert_eq!(z4.per_cycle(&madd(Isa::Avx512), None), Some(64.0));
        assert!(z4.note(&madd(Isa::Avx2)).unwrap().contains("1.62"));
        // Golden Cove: three instructions a cycle up to 256 bits, two at 512.
        let spr = named("sapphire_rapids");
        assert_eq!(spr.per_cycle(&madd(Isa::Avx2), None), Some(48.0));
        assert_eq!(spr.per_cycle(&madd(Isa::Avx512), None), Some(64.0));
        // VDPBF16PS: one every two cycles, 64 flops each; the note says what
        // was measured.
        let bf16 = find(Isa::Avx512, Role::Compute(Op::Dot, Precision::Bf16))
            .unwrap()
            .decl;
        assert_eq!(spr.per_cycle(&bf16, None), Some(32.0));
        assert!(spr.note(&bf16).unwrap().contains("0.45"));
        assert_eq!(named("zen5").note(&bf16), None);
        assert_eq!(named("zen5").per_cycle(&bf16, None), Some(128.0));
    }

    #[test]
    fn narrower_datapath_halves_wide_ops() {
        let z4 = named("zen4");
        let fma = find(Isa::Avx512, Role::Compute(Op::Fma, Precision::Dp))
            .unwrap()
            .decl;
        assert_eq!(z4.per_cycle(&fma, None), Some(16.0));
        let fma2 = find(Isa::Avx2, Role::Compute(Op::Fma, Precision::Dp))
            .unwrap()
            .decl;
        assert_eq!(z4.per_cycle(&fma2, None), Some(16.0));
        let hsw = named("haswell_broadwell");
        let add = find(Isa::Avx2, Role::Compute(Op::Add, Precision::Dp))
            .unwrap()
            .decl;
        assert_eq!(hsw.per_cycle(&add, None), Some(4.0));
    }

    #[test]
    fn matching_by_cpuid() {
        let z5 = named("zen5");
        assert!(z5.matches(&CpuId {
            vendor: "AuthenticAMD".into(),
            family: 0x1A,
            model: 2
        }));
        assert!(!z5.matches(&CpuId {
            vendor: "GenuineIntel".into(),
            family: 0x1A,
            model: 2
        }));
        let z4 = named("zen4");
        assert!(z4.matches(&CpuId {
            vendor: "AuthenticAMD".into(),
            family: 0x19,
            model: 0x11
        }));
        assert!(
            !z4.matches(&CpuId {
                vendor: "AuthenticAMD".into(),
                family: 0x19,
                model: 0x21
            }),
            "Zen 3"
        );
        let z3 = named("zen3");
        for (family, model, zen3) in [
            (0x19, 0x01, true),  // EPYC 7003 Milan
            (0x19, 0x21, true),  // Ryzen 5000 Vermeer
            (0x19, 0x50, true),  // Ryzen 5000G Cezanne
            (0x19, 0x11, false), // Zen 4 Genoa
            (0x17, 0x31, false), // Zen 2 Rome
        ] {
            let id = CpuId {
                vendor: "AuthenticAMD".into(),
                family,
                model,
            };
            assert_eq!(z3.matches(&id), zen3, "family {family:#x} model {model:#x}");
        }
        assert!(named("zen2").matches(&CpuId {
            vendor: "AuthenticAMD".into(),
            family: 0x17,
            model: 0x31
        }));
        // Every CPUID matches at most one entry.
        for family in [0x17, 0x19, 0x1A] {
            for model in 0..=0xFF {
                let id = CpuId {
                    vendor: "AuthenticAMD".into(),
                    family,
                    model,
                };
                let n = all().iter().filter(|u| u.matches(&id)).count();
                assert!(
                    n <= 1,
                    "family {family:#x} model {model:#x} matches {n} entries"
                );
            }
        }
        let spr = named("sapphire_rapids");
        assert!(spr.matches(&CpuId {
            vendor: "GenuineIntel".into(),
            family: 6,
            model: 0x8F
        }));
    }
}
