//! The results document: one versioned file (YAML by default, JSON on
//! request) holding the machine, the plan, every roof with its statistics.
//! Everything downstream reads it; nothing re-measures to plot.

use crate::config::plan::Plan;

use crate::kernels::{Kind, Mix, Op, Precision};
use crate::machine::Machine;
use crate::machine::cpuid::CpuId;
use crate::machine::isa::{Isa, IsaReport};
use crate::machine::level::Level;
use crate::machine::sizing::ThreadRanges;
use crate::measure::PerCycle;
use crate::measure::clock::ClockReport;
use serde::{Deserialize, Serialize};
use std::path::Path;
pub use sweep::{SweepKey, SweepSummary};

pub mod advice;
pub mod apps;
pub mod check;
pub mod cores;
mod entry;
mod file;
pub mod flag;
pub mod gpu;
pub mod placement;
pub mod sweep;
pub mod verdict;
pub mod view;

pub use cores::{CoresFoundBy, EffectiveCores};
pub use file::{DocFormat, load, load_roofs, parse, save, up_to_roofs_end};
pub use flag::Flag;

/// Version of the document layout.
pub const SCHEMA: u32 = 1;

/// The machine the results were measured on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MachineInfo {
    /// Topology from hwloc.
    pub topology: Machine,
    /// CPUID identity.
    pub cpuid: CpuId,
    /// Known microarchitecture, if any (its limits give the % of theoretical).
    pub microarchitecture: Option<String>,
    /// ISA found at run time.
    pub isa: IsaReport,
    /// Clock at the start of the run.
    pub clock: ClockReport,
    /// The cores' worth its threads get, where fewer than its threads (a VM
    /// given part of its vCPUs' time, a CPU quota).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_cores: Option<EffectiveCores>,
}

/// The rate at one buffer size.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SizePoint {
    /// Bytes each thread's streams span.
    pub bytes_per_thread: u64,
    /// Rate at this size (GB/s): its fastest sample, as for the roof
    /// (absent from files of earlier versions, which kept only the median).
    #[serde(default)]
    pub value: f64,
    /// Median rate of the samples at this size (GB/s).
    pub median: f64,
    /// Coefficient of variation at this size.
    pub cv: f64,
}

/// One roof.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Roof {
    /// Bandwidth or compute.
    pub kind: Kind,
    /// Memory level (bandwidth roofs).
    pub level: Option<Level>,
    /// Access mix (bandwidth roofs).
    pub mix: Option<Mix>,
    /// FP op (compute roofs).
    pub op: Option<Op>,
    /// ISA family of the kernel.
    pub isa: Isa,
    /// Precision (compute roofs).
    pub precision: Option<Precision>,
    /// Threads (one per core).
    pub threads: usize,
    /// Bandwidth, GB/s (10^9 bytes requested by the cores per second): at
    /// each size the fastest sample (other work only slows samples down),
    /// and the median of the sizes' values.
    pub gb_per_s: Option<f64>,
    /// Compute rate, GFLOP/s: the fastest sample, as for bandwidth.
    pub gflop_per_s: Option<f64>,
    /// Bytes or flops per core-clock cycle, all threads together.
    pub per_cycle: f64,
    /// Median of the samples, in the roof's unit (GB/s or GFLOP/s), at the
    /// size whose value is the roof's: with q1, q3 and cv, the spread.
    pub median: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Coefficient of variation of the samples.
    pub cv: f64,
    /// Core clock during the roof, GHz (the fastest of the probes run
    /// between the samples).
    pub clock_ghz: f64,
    /// Largest relative clock change between the first and second half of
    /// a sample set's probes.
    pub clock_drift: f64,
    /// Theoretical limit per cycle for these threads (None: unknown).
    pub theoretical_per_cycle: Option<f64>,
    /// per_cycle as % of the theoretical limit.
    pub percent_of_theoretical: Option<f64>,
    /// Kernel that measured it.
    pub kernel: String,
    /// Rates at each buffer size of the level's range (bandwidth roofs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<SizePoint>,
    /// The sizes the roof comes from, first and last, bytes per thread
    /// (with `roof_from: plateau`; see `roofs::plateau`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plateau: Option<[u64; 2]>,
    /// The first size past the plateau when every larger size of the range
    /// fell below it: where the level's effective capacity ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee_bytes: Option<u64>,
    /// Warnings (see [`Flag`]).
    pub flags: Vec<Flag>,
    /// What was measured on this microarchitecture where its rate falls
    /// short of the documented limit (`configs/limits.yaml`, `notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// DRAM roofs: what the paced form of the kernel (the same accesses with
    /// vector work beside them) delivered, GB/s, when clearly more than the
    /// roof, which stays the bare stream's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paced_gb_per_s: Option<f64>,
    /// Seconds spent measuring it, every round, the core guard's probes
    /// included (its bench's buffers made apart): what `roofs::cost`
    /// predicts per task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

impl Roof {
    /// The same measurement (kernel, level, threads), of any value.
    pub fn same_roof(&self, o: &Roof) -> bool {
        self.same_roof_any_threads(o) && self.threads == o.threads
    }
    /// The same kernel and level, at any thread count.
    pub fn same_roof_any_threads(&self, o: &Roof) -> bool {
        self.kernel == o.kernel && self.level == o.level
    }
    /// The roof's value in its unit (GB/s or GFLOP/s).
    pub fn value(&self) -> f64 {
        self.gb_per_s.or(self.gflop_per_s).unwrap_or(self.median)
    }
    /// Whether its value and value per cycle are positive numbers.
    pub fn usable(&self) -> bool {
        self.value().is_finite() && self.value() > 0.0 && self.per_cycle.is_finite()
    }
    /// Whether it carries `flag`.
    pub fn has(&self, flag: Flag) -> bool {
        self.flags.contains(&flag)
    }
    /// Its unit: "GB/s", "GFLOP/s", or "GOP/s" for integer arithmetic.
    pub fn unit(&self) -> &'static str {
        match (self.kind, self.precision.is_some_and(|p| p.is_integer())) {
            (Kind::Bandwidth, _) => "GB/s",
            (_, true) => "GOP/s",
            _ => "GFLOP/s",
        }
    }
    /// Its unit per cycle: "B/cycle", "flop/cycle" or "op/cycle".
    pub fn unit_per_cycle(&self) -> &'static str {
        match (self.kind, self.precision.is_some_and(|p| p.is_integer())) {
            (Kind::Bandwidth, _) => "B/cycle",
            (_, true) => "op/cycle",
            _ => "flop/cycle",
        }
    }
    /// "L1 2ld1st" or "fma dp".
    pub fn label(&self) -> String {
        match self.kind {
            Kind::Bandwidth => format!(
                "{} {}",
                self.level.map_or("?".to_string(), Level::name),
                self.mix.map_or("?", Mix::name)
            ),
            Kind::Compute | Kind::Validation => format!(
                "{} {}",
                self.op.map_or("?", Op::name),
                self.precision.map_or("?", Precision::name)
            ),
        }
    }
}

impl PerCycle for Roof {
    fn per_cycle(&self) -> f64 {
        self.per_cycle
    }
}

/// The whole document.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Document {
    /// Layout version: [`SCHEMA`].
    pub schema: u32,
    /// Tool and version that wrote it.
    pub tool: String,
    /// Seconds since the Unix epoch when the run started.
    pub created_unix: u64,
    /// True when the run was stopped before the plan was done.
    pub interrupted: bool,
    /// The machine.
    pub machine: MachineInfo,
    /// The plan as run.
    pub plan: Plan,
    /// Per-thread buffer ranges used, per thread count.
    pub buffer_ranges: Vec<ThreadRanges>,
    /// Every roof measured.
    pub roofs: Vec<Roof>,
    /// Validation points (variable-intensity kernels against the roofs).
    #[serde(default)]
    pub validation: Vec<ValidationPoint>,
    /// Bandwidth against working set, per ISA, mix and thread count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<Curve>,
    /// How far memory and FP work overlap in the core, per validated
    /// kernel (measured by `validate`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coissue: Vec<CoIssue>,
    /// Each validation sweep's summary and verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<SweepSummary>,
    /// Each GPU's roofs (`run --gpu`); none in a CPU-only document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<gpu::GpuResults>,
}

/// Overlaps below this are partial: a finding, and an expected value that
/// bends below the roofs.
pub const FULL_OVERLAP: f64 = 0.9;

impl CoIssue {
    /// What a Zen 5 core does with 8 zmm stores beside 16 zmm FMAs: 8 + 8
    /// cycles take 15.2 (the tests' example).
    #[cfg(test)]
    pub(crate) fn zen5_stores_beside_fmas(isa: Isa) -> CoIssue {
        CoIssue {
            isa,
            precision: Precision::Dp,
            mix: Mix::TwoLdOneSt,
            op: Op::Fma,
            j: 8,
            k: 16,
            memory_cycles: 8.0,
            fp_cycles: 8.0,
            both_cycles: 15.2,
        }
    }

    /// Whether the core runs the two units side by side only in part.
    pub fn partial(&self) -> bool {
        self.overlap() < FULL_OVERLAP
    }

    /// How much of the shorter unit's time hides under the longer's: 1
    /// when both together take as long as the longer alone, 0 when they
    /// take the sum of both.
    pub fn overlap(&self) -> f64 {
        let (long, short) = (
            self.memory_cycles.max(self.fp_cycles),
            self.memory_cycles.min(self.fp_cycles),
        );
        if short <= 0.0 {
            return 1.0;
        }
        (1.0 - (self.both_cycles - long) / short).clamp(0.0, 1.0)
    }

    /// One thread's own time to issue a byte of the memory units, ns, at
    /// `clock_ghz`; `unit_bytes` are the bytes of one memory unit.
    pub fn issue_ns_per_byte(&self, unit_bytes: u64, clock_ghz: f64) -> f64 {
        self.memory_cycles / (f64::from(self.j) * unit_bytes as f64) / clock_ghz
    }

    /// Whether it describes the sweep of `isa`, `precision`, `mix`, `op`.
    pub fn of(&self, isa: Isa, precision: Precision, mix: Mix, op: Op) -> bool {
        (self.isa, self.precision, self.mix, self.op) == (isa, precision, mix, op)
    }
}

/// Bandwidth against working set for one ISA, mix and thread count: every
/// size measured, the levels' ranges and the sizes between them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Curve {
    /// ISA of the kernel.
    pub isa: Isa,
    /// Access mix.
    pub mix: Mix,
    /// Threads.
    pub threads: usize,
    /// The sizes, ascending.
    pub points: Vec<CurvePoint>,
}

/// One size of a curve.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CurvePoint {
    /// Bytes each thread's streams span.
    pub bytes_per_thread: u64,
    /// Bandwidth (its fastest sample), GB/s, all threads.
    pub gb_per_s: f64,
    /// Bytes per cycle, all threads.
    pub per_cycle: f64,
    /// The level whose share holds this size.
    pub level: Level,
}

impl PerCycle for CurvePoint {
    fn per_cycle(&self) -> f64 {
        self.per_cycle
    }
}

/// How far a validation kernel's memory and FP units overlap in the core:
/// each alone and both together, in an L1 buffer, cycles per iteration.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CoIssue {
    /// ISA.
    pub isa: Isa,
    /// Precision.
    pub precision: Precision,
    /// Access mix of the memory unit.
    pub mix: Mix,
    /// FP op of the FP unit.
    pub op: Op,
    /// Memory units and FP units per iteration of the measurement.
    pub j: u32,
    /// FP units per iteration.
    pub k: u32,
    /// Cycles per iteration of the memory units alone.
    pub memory_cycles: f64,
    /// Of the FP units alone.
    pub fp_cycles: f64,
    /// Of both together.
    pub both_cycles: f64,
}

/// A validation kernel's point: intensity known by construction, measured
/// against min(FP roof, AI × level bandwidth).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ValidationPoint {
    /// Memory level the buffer was sized for.
    pub level: Level,
    /// ISA of the kernel.
    pub isa: Isa,
    /// Precision of the kernel.
    pub precision: Precision,
    /// Threads.
    pub threads: usize,
    /// Memory access mix of the kernel (and of the bandwidth roof compared).
    pub mix: Mix,
    /// FP op of the kernel (and of the FP roof compared).
    pub op: Op,
    /// Kernel name.
    pub kernel: String,
    /// Memory units (j) and FP units (k) per iteration.
    pub j: u32,
    /// FP units per iteration.
    pub k: u32,
    /// Bytes each thread's buffer spans.
    pub bytes_per_thread: u64,
    /// Arithmetic intensity, flop per byte requested.
    pub ai: f64,
    /// Measured GFLOP/s.
    pub gflop_per_s: f64,
    /// min(FP roof, AI × bandwidth roof), GFLOP/s. The FP, L1 and L2 roofs
    /// are taken per cycle at the point's clock (a clock change between the
    /// run and the sweep is no deviation); L3, L4 and DRAM, which do not
    /// follow the core clock, at `reference_gb_per_s`.
    pub expected_gflop_per_s: f64,
    /// Core clock while the point was measured, GHz.
    #[serde(default)]
    pub clock_ghz: f64,
    /// (measured − expected) / expected.
    pub deviation: f64,
    /// Near the ridge (within a factor 2 of its AI): how much the memory and
    /// FP work overlapped, 1 at min(P, AI × B), 0 when they took the time of
    /// both in turn (1/P + 1/(AI × B) per flop). Absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<f64>,
    /// L3, L4 and DRAM: the bandwidth roof's kernel measured again just
    /// before and after the sweep (mean, GB/s), which the expected value
    /// uses: other cores and tenants share these levels, and their bandwidth
    /// moves between the run and the sweep. Absent for L1, L2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_gb_per_s: Option<f64>,
}

impl ValidationPoint {
    /// The sweep it belongs to.
    pub fn sweep(&self) -> SweepKey {
        (
            self.level,
            self.isa,
            self.precision,
            self.threads,
            self.mix,
            self.op,
        )
    }

    /// Whether it belongs to the sweep `other` belongs to.
    pub fn same_sweep(&self, other: &ValidationPoint) -> bool {
        self.sweep() == other.sweep()
    }
}

impl Document {
    /// A document for a run of `plan` on this machine, before any roof: its
    /// CPU, ISA and clock read now, the buffer ranges of the plan's thread
    /// counts and of 1 and all cores.
    pub fn for_run(machine: Machine, plan: Plan, microarchitecture: Option<String>) -> Document {
        let mut counts = plan.threads.clone();
        counts.extend(crate::machine::sizing::shown_thread_counts(&machine));
        counts.sort_unstable();
        counts.dedup();
        Document {
            schema: SCHEMA,
            tool: format!("carmbench {}", env!("CARGO_PKG_VERSION")),
            created_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            interrupted: false,
            buffer_ranges: crate::machine::sizing::thread_ranges(&machine, &counts),
            machine: MachineInfo {
                topology: machine,
                cpuid: crate::machine::cpuid::cpuid(),
                microarchitecture,
                isa: crate::machine::isa::detect(),
                clock: ClockReport::measure(),
                effective_cores: None,
            },
            plan,
            roofs: Vec::new(),
            validation: Vec::new(),
            curves: Vec::new(),
            coissue: Vec::new(),
            sweeps: Vec::new(),
            gpus: Vec::new(),
        }
    }

    /// Put the points of fresh sweeps in, in place of any earlier points of
    /// the same sweeps.
    pub fn replace_points(&mut self, fresh: Vec<ValidationPoint>) {
        self.validation
            .retain(|old| !fresh.iter().any(|p| p.same_sweep(old)));
        self.validation.extend(fresh);
    }

    /// Keep `fresh` sweep summaries, replacing those of the same sweeps.
    pub fn replace_sweeps(&mut self, fresh: Vec<SweepSummary>) {
        self.sweeps
            .retain(|old| !fresh.iter().any(|s| s.sweep() == old.sweep()));
        self.sweeps.extend(fresh);
    }

    /// The thread counts its roofs were measured with, ascending.
    pub fn thread_counts(&self) -> Vec<usize> {
        let mut t: Vec<usize> = self.roofs.iter().map(|r| r.threads).collect();
        t.sort_unstable();
        t.dedup();
        t
    }

    /// "AMD EPYC (zen5)": the CPU model and its microarchitecture when known,
    /// as charts title it.
    pub fn cpu_title(&self) -> String {
        let worth = (self.machine.effective_cores.as_ref())
            .map(|e| format!("{} threads get {:.1} cores' worth", e.threads, e.cores));
        let about: Vec<String> = self.family().into_iter().chain(worth).collect();
        match about.is_empty() {
            true => self.cpu_name(),
            false => format!("{} ({})", self.cpu_name(), about.join("; ")),
        }
    }

    /// "Emerald Rapids, sapphire_rapids cores": the name the CPU is sold
    /// under with its core family, or the core family alone.
    pub fn family(&self) -> Option<String> {
        let arch = self.machine.microarchitecture.as_deref();
        match (crate::config::cpus::sold_as(&self.machine.cpuid), arch) {
            (Some(s), Some(a)) => Some(format!("{s}, {a} cores")),
            (Some(s), None) => Some(s.to_string()),
            (None, a) => a.map(String::from),
        }
    }

    /// The CPU model, or "unknown CPU".
    pub fn cpu_name(&self) -> String {
        self.machine
            .topology
            .cpu_model
            .clone()
            .unwrap_or_else(|| "unknown CPU".into())
    }
}

/// A results file's name for tables and legends: its folder and file name.
pub fn short_name(p: &Path) -> String {
    let file = p
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match p.parent().and_then(|d| d.file_name()) {
        Some(dir) => format!("{}/{file}", dir.to_string_lossy()),
        None => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_verdicts_round_trip_an_unknown_overlap_too() {
        use crate::results::verdict::{Cause, Verdict};
        let mut d = crate::fixture();
        let s = SweepSummary {
            level: Level::L2,
            isa: Isa::Avx512,
            precision: Precision::Dp,
            threads: 2,
            mix: Mix::TwoLdOneSt,
            op: Op::Fma,
            ridge: 0.5,
            points: 13,
            sloped: 6,
            flat: 7,
            median_abs_deviation: 0.2,
            worst_ai: 0.5,
            worst_deviation: -0.4,
            overlap: None,
            moved: Some(0.02),
            moved_during: None,
            threshold: 0.1,
            verdict: Verdict::Fails(Cause::PartialOverlap { overlap: f64::NAN }),
        };
        d.replace_sweeps(vec![s.clone()]);
        for text in [
            serde_yaml::to_string(&d).unwrap(),
            serde_json::to_string(&d).unwrap(),
        ] {
            let back = parse(&text, "again").unwrap();
            let Verdict::Fails(Cause::PartialOverlap { overlap }) = back.sweeps[0].verdict else {
                panic!("{:?}", back.sweeps[0].verdict);
            };
            assert!(overlap.is_nan());
            assert_eq!(back.sweeps[0].moved, Some(0.02));
            assert!(
                back.sweeps[0]
                    .verdict
                    .to_string()
                    .starts_with("FAILED: points near the ridge")
            );
        }
        // A second validation replaces the sweep's summary.
        d.replace_sweeps(vec![SweepSummary {
            verdict: Verdict::Holds,
            ..s
        }]);
        assert_eq!(d.sweeps.len(), 1);
        assert_eq!(d.sweeps[0].verdict, Verdict::Holds);
    }
}
