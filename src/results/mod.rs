//! The results document: one versioned file (YAML by default, JSON on
//! request) holding the machine, the plan, every roof with its statistics.
//! Everything downstream reads it; nothing re-measures to plot.

use crate::commands::topology::{ClockReport, ThreadRanges};
use crate::config::limits::CpuId;
use crate::config::plan::Plan;
use crate::error::{Error, Result};
use crate::isa::{Isa, IsaReport};
use crate::kernels::{Kind, Mix, Op, Precision};
use crate::output::Format;
use crate::topology::Machine;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub mod apps;

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
    /// Memory level (bandwidth roofs): L1, L2, L3, DRAM.
    pub level: Option<String>,
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
    /// Rates at each buffer size (bandwidth roofs); the roof is their median.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<SizePoint>,
    /// Warnings: clock_drift, high_cv, sizes_disagree (the sizes of a level
    /// differ by more than the CV limit), not_isolated, above_theoretical,
    /// shared_core (a per-core resource whose all-core roof is below 85% of
    /// threads × its 1-thread roof: other work shared a core).
    pub flags: Vec<String>,
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
    /// "L1 2ld1st" or "fma dp".
    pub fn label(&self) -> String {
        match self.kind {
            Kind::Bandwidth => format!(
                "{} {}",
                self.level.as_deref().unwrap_or("?"),
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
}

/// A validation kernel's point: intensity known by construction, measured
/// against min(FP roof, AI × level bandwidth).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ValidationPoint {
    /// Memory level the buffer was sized for.
    pub level: String,
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

/// Write `text` to `path` through a temporary file in the same directory and
/// a rename, so an existing file is replaced whole or not at all.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::Io(format!("cannot write {}: {e}", path.display()))
        })
}

/// Save a document.
pub fn save(doc: &Document, path: &Path, format: Format) -> Result<()> {
    write_atomic(path, &crate::output::to_string(doc, format)?)
}

/// Load a results document (YAML or JSON), checking its schema version.
pub fn load(path: &Path) -> Result<Document> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::input(format!(
            "cannot read results file '{}': {e}",
            path.display()
        ))
    })?;
    if text.trim().is_empty() {
        return Err(Error::input(format!(
            "results file '{}' is empty; give a file written by `carmbench run`",
            path.display()
        )));
    }
    let v: serde_yaml::Value =
        crate::config::parse_yaml(&text, &format!("results file '{}'", path.display()))?;
    match v.get("schema").and_then(|s| s.as_u64()) {
        Some(s) if s == u64::from(SCHEMA) => {}
        Some(s) => {
            return Err(Error::input(format!(
                "results file '{}' has schema {s}, this carmbench reads schema {SCHEMA}; re-run `carmbench run` or use the matching carmbench version",
                path.display()
            )));
        }
        None => {
            return Err(Error::input(format!(
                "'{}' is not a carmbench results file (no 'schema' key)",
                path.display()
            )));
        }
    }
    crate::config::parse_yaml(&text, &format!("results file '{}'", path.display()))
}
