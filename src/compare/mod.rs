//! Comparing machines and predicting: roofs matched across results files,
//! ratios, ridge points, the quadrant split of Konstantinidis ("GPU
//! performance estimation using micro-benchmarks and black-box profiling")
//! and predicted times, T = W / min(P, AI × B).

pub mod predict;
pub mod profiles;
pub mod quadrant;
pub use quadrant::{AiLine, quadrant_ais};

pub use predict::roofs_for;

use crate::error::{Error, Result};
use crate::kernels::{Kind, Mix, Op, Precision};
use crate::machine::Level;
use crate::machine::isa::Isa;
use crate::results::apps::AppPoint;
use crate::results::view::View;
use crate::results::{Document, Roof};
use crate::roofline;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The threads of a roof across files: one, a count, or all a machine has
/// (each file's most), so that machines of different sizes line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Threads {
    /// One thread.
    One,
    /// This many, neither one nor the file's most.
    Count(usize),
    /// The file's most: its all-core roofs.
    All,
}

impl Threads {
    /// The class of `threads` in a file whose most is `most`.
    pub fn of(threads: usize, most: usize) -> Threads {
        match threads {
            1 => Threads::One,
            t if t == most => Threads::All,
            t => Threads::Count(t),
        }
    }
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Threads::One => write!(f, "1"),
            Threads::Count(n) => write!(f, "{n}"),
            Threads::All => write!(f, "all"),
        }
    }
}

/// What identifies a roof across files; orders as the tables list roofs:
/// threads, ISA, bandwidth by level before compute, mix, op, precision.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RoofKey {
    /// Threads.
    pub threads: Threads,
    /// ISA (None: each file's widest, see [`match_roofs`]).
    pub isa: Option<Isa>,
    /// Bandwidth (0) before compute (1).
    pub kind_order: u8,
    /// Level (bandwidth roofs).
    pub level: Option<Level>,
    /// Mix.
    pub mix: Option<Mix>,
    /// Op.
    pub op: Option<Op>,
    /// Precision.
    pub precision: Option<Precision>,
}

impl RoofKey {
    /// The key of a roof of a file whose most threads are `most`.
    pub fn of(r: &Roof, most: usize) -> Self {
        RoofKey {
            threads: Threads::of(r.threads, most),
            isa: Some(r.isa),
            kind_order: if r.kind == Kind::Bandwidth { 0 } else { 1 },
            level: r.level,
            mix: r.mix,
            op: r.op,
            precision: r.precision,
        }
    }
    /// "L1 2ld1st" or "fma dp".
    pub fn label(&self) -> String {
        match (self.level, self.mix, self.op) {
            (Some(l), Some(m), _) => format!("{l} {m}"),
            (_, _, Some(o)) => format!("{o} {}", self.precision.map_or("", Precision::name)),
            _ => "?".into(),
        }
    }
    /// "GB/s", "GFLOP/s", or "GOP/s" for integer arithmetic.
    pub fn unit(&self) -> &'static str {
        match (
            self.kind_order,
            self.precision.is_some_and(|p| p.is_integer()),
        ) {
            (0, _) => "GB/s",
            (_, true) => "GOP/s",
            _ => "GFLOP/s",
        }
    }
}

/// One file's value of a roof.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// GB/s or GFLOP/s.
    pub value: f64,
    /// Per cycle.
    pub per_cycle: f64,
    /// value / the first file's value (None when the first file lacks it).
    pub ratio: Option<f64>,
    /// ISA of the roof.
    pub isa: Isa,
    /// Its threads.
    pub threads: usize,
}

impl Cell {
    /// Its value per thread (per core, one thread a core).
    pub fn per_thread(&self) -> f64 {
        self.value / self.threads.max(1) as f64
    }
}

/// A roof across files; a file without it has None.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Which roof.
    pub key: RoofKey,
    /// One cell per file, in the files' order.
    pub cells: Vec<Option<Cell>>,
}

impl Row {
    /// The ISA column: the matched ISA, or each file's (widest) ISA.
    pub fn isa_text(&self) -> String {
        match self.key.isa {
            Some(i) => i.to_string(),
            None => {
                let mut v: Vec<String> = self
                    .cells
                    .iter()
                    .flatten()
                    .map(|c| c.isa.to_string())
                    .collect();
                v.dedup();
                v.join("/")
            }
        }
    }
}

/// A file's machine for a comparison's header: its CPU as sold, and the
/// threads its all-core roofs ("all") were measured with.
pub fn about(doc: &Document) -> String {
    let most = doc.thread_counts().last().copied().unwrap_or(1);
    format!("{}; all = {most} thread(s)", doc.cpu_title())
}

/// Whether some ISA has roofs in every file (if not, matching by ISA would
/// leave every row with one file only).
pub fn share_an_isa(docs: &[&Document]) -> bool {
    let Some((first, rest)) = docs.split_first() else {
        return true;
    };
    first
        .roofs
        .iter()
        .map(|r| r.isa)
        .any(|isa| rest.iter().all(|d| d.roofs.iter().any(|r| r.isa == isa)))
}

/// Every roof present in any file, matched by kind, level, mix, op, ISA,
/// precision and threads (one, each file's most as "all", or a count
/// between); roofs missing from a file are kept as None. With `best_isa`,
/// each file contributes only its widest ISA's roofs and the ISA is left out
/// of the match (machines with different ISAs line up).
pub fn match_roofs(docs: &[&Document], best_isa: bool) -> Vec<Row> {
    let key_of = |r: &Roof, most: usize| {
        let mut k = RoofKey::of(r, most);
        if best_isa {
            k.isa = None;
        }
        k
    };
    let roofs: Vec<Vec<(&Roof, RoofKey)>> = docs
        .iter()
        .map(|d| {
            let widest = d.roofs.iter().map(|r| r.isa).max();
            let most = d.thread_counts().last().copied().unwrap_or(1);
            (d.roofs.iter())
                .filter(|r| !best_isa || Some(r.isa) == widest)
                .map(|r| (r, key_of(r, most)))
                .collect()
        })
        .collect();
    let mut keys: Vec<RoofKey> = (roofs.iter())
        .flat_map(|rs| rs.iter().map(|(_, k)| k.clone()))
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|key| {
            let vals: Vec<Option<&Roof>> = roofs
                .iter()
                .map(|rs| rs.iter().find(|(_, k)| *k == key).map(|(r, _)| *r))
                .collect();
            let first = vals.first().copied().flatten().map(Roof::value);
            let cells = vals
                .iter()
                .map(|r| {
                    r.map(|r| Cell {
                        value: r.value(),
                        per_cycle: r.per_cycle,
                        ratio: first.filter(|f| *f > 0.0).map(|f| r.value() / f),
                        isa: r.isa,
                        threads: r.threads,
                    })
                })
                .collect();
            Row { key, cells }
        })
        .collect()
}

/// A machine's summary for one thread count: its default view
/// ([`View`]) reduced to what comparing and predicting use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineRoofs {
    /// ISA used (the widest measured).
    pub isa: Isa,
    /// Threads.
    pub threads: usize,
    /// (level, GB/s) of the default mix, hierarchy order.
    pub levels: Vec<(Level, f64)>,
    /// Highest FP roof, GFLOP/s, and its op.
    pub peak: Option<(Op, f64)>,
    /// FMA roof, GFLOP/s.
    pub fma: Option<f64>,
    /// ADD/MUL (addmul, else add) roof, GFLOP/s.
    pub addmul: Option<f64>,
}

/// The default roofs of `doc` for `threads`.
pub fn machine_roofs(doc: &Document, threads: usize) -> Option<MachineRoofs> {
    machine_roofs_of(doc, threads, None)
}

/// [`machine_roofs`] with the compute roofs of `precision` (the default's
/// when `None`); `None` when the results lack them.
pub fn machine_roofs_of(
    doc: &Document,
    threads: usize,
    precision: Option<crate::kernels::Precision>,
) -> Option<MachineRoofs> {
    let v = View::of_precision(doc, threads, precision)?;
    let mut levels: Vec<(Level, f64)> = v
        .bandwidth
        .iter()
        .filter_map(|r| Some((r.level?, r.value())))
        .collect();
    levels.sort_by_key(|l| l.0);
    let value = |op| v.op(op).map(Roof::value);
    Some(MachineRoofs {
        isa: v.isa,
        threads,
        levels,
        peak: v.compute.first().and_then(|r| Some((r.op?, r.value()))),
        fma: value(Op::Fma),
        addmul: value(Op::AddMul).or(value(Op::Add)),
    })
}

/// A level's ridge: the AI where its roof meets the top FP roof.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ridge {
    /// The level.
    pub level: Level,
    /// Ridge AI, flop/byte.
    pub ai: f64,
}

/// Ridge AI of each level: peak / bandwidth.
pub fn ridges(m: &MachineRoofs) -> Vec<Ridge> {
    match m.peak {
        Some((_, p)) => m
            .levels
            .iter()
            .map(|&(level, b)| Ridge {
                level,
                ai: roofline::ridge(p, b),
            })
            .collect(),
        None => Vec::new(),
    }
}

/// The ridges of one file for one thread count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileRidges {
    /// The file.
    pub file: String,
    /// Its ISA.
    pub isa: Isa,
    /// Per level.
    pub ridges: Vec<Ridge>,
}

/// The ridges of every file at one thread count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RidgeTable {
    /// Threads.
    pub threads: usize,
    /// One entry per file with roofs at this thread count.
    pub files: Vec<FileRidges>,
}

/// Ridge AI per level for each file and thread count.
pub fn ridge_table(names: &[String], docs: &[&Document]) -> Vec<RidgeTable> {
    let mut threads: Vec<usize> = docs.iter().flat_map(|d| d.thread_counts()).collect();
    threads.sort_unstable();
    threads.dedup();
    threads
        .into_iter()
        .map(|t| RidgeTable {
            threads: t,
            files: names
                .iter()
                .zip(docs)
                .filter_map(|(n, d)| {
                    machine_roofs(d, t).map(|m| FileRidges {
                        file: n.clone(),
                        isa: m.isa,
                        ridges: ridges(&m),
                    })
                })
                .collect(),
        })
        .collect()
}

/// What bounds a predicted run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Bound {
    /// A level's bandwidth.
    Memory {
        /// The level.
        level: Level,
        /// Its bandwidth, GB/s.
        gb_per_s: f64,
    },
    /// The FP peak.
    Compute {
        /// Which peak: an op's, or the mix of FMA and ADD/MUL.
        peak: String,
        /// GFLOP/s.
        gflop_per_s: f64,
    },
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Memory { level, gb_per_s } => write!(f, "memory ({level}, {gb_per_s:.1} GB/s)"),
            Bound::Compute { peak, gflop_per_s } => {
                write!(f, "compute ({peak}, {gflop_per_s:.1} GFLOP/s)")
            }
        }
    }
}

/// A predicted run on one machine level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Level whose bandwidth is used.
    pub level: Level,
    /// Attainable GFLOP/s: min(P, AI × B).
    pub gflop_per_s: f64,
    /// Predicted seconds: W / attainable.
    pub seconds: f64,
    /// What bounds it.
    pub bound: Bound,
}

/// Predictions of one app on one machine, per level (or the level asked).
/// When the app's counts separate FMA flops, the peak is the mix of the
/// FMA and ADD/MUL roofs ([`roofline::mixed_peak`]).
pub fn predict(app: &AppPoint, m: &MachineRoofs, level: Option<Level>) -> Result<Vec<Prediction>> {
    let (peak, peak_name) = match (app.fma_flops, m.fma, m.addmul) {
        (Some(f), Some(fma), Some(other)) => (
            roofline::mixed_peak(app.flops, f, fma, other),
            "FMA/ADD-MUL mix peak".to_string(),
        ),
        _ => {
            let (op, p) = m
                .peak
                .ok_or_else(|| Error::input("the results have no FP roof to predict with"))?;
            (p, format!("{op} peak"))
        }
    };
    let levels: Vec<&(Level, f64)> = m
        .levels
        .iter()
        .filter(|(l, _)| level.is_none_or(|x| x == *l))
        .collect();
    if levels.is_empty() {
        return Err(Error::input(format!(
            "the results have no level '{}'; they have {}",
            level.map_or("?".into(), |l| l.name()),
            m.levels
                .iter()
                .map(|l| l.0.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(levels
        .into_iter()
        .map(|&(l, b)| {
            let (t, mem) = roofline::predict(app.flops, app.bytes, peak, b);
            Prediction {
                level: l,
                gflop_per_s: app.flops / t / 1e9,
                seconds: t,
                bound: if mem {
                    Bound::Memory {
                        level: l,
                        gb_per_s: b,
                    }
                } else {
                    Bound::Compute {
                        peak: peak_name.clone(),
                        gflop_per_s: peak,
                    }
                },
            }
        })
        .collect())
}

/// A machine level on the quadrant chart: at (bandwidth, peak). An
/// application of intensity AI is the line y = AI·x; a point above it is a
/// machine level where that application is memory bound.
#[derive(Debug, Clone, PartialEq)]
pub struct QuadrantPoint {
    /// The machine (results file), and the GPU's number for a GPU.
    pub machine: String,
    /// The level.
    pub level: QuadrantLevel,
    /// Its bandwidth, GB/s.
    pub gb_per_s: f64,
    /// The machine's peak, GFLOP/s.
    pub gflop_per_s: f64,
}

/// A CPU's memory level or a GPU's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QuadrantLevel {
    /// A CPU's cache or DRAM.
    Cpu(Level),
    /// A GPU's shared memory, L1, L2 or device memory.
    Gpu(crate::gpu::GpuLevel),
}

impl fmt::Display for QuadrantLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuadrantLevel::Cpu(l) => f.write_str(&l.name()),
            QuadrantLevel::Gpu(l) => f.write_str(l.name()),
        }
    }
}

impl QuadrantPoint {
    /// Whether an application of intensity `ai` is memory bound here.
    pub fn memory_bound(&self, ai: f64) -> bool {
        roofline::memory_bound(ai, self.gb_per_s, self.gflop_per_s)
    }
}

/// The quadrant chart's points of a file: each level of its default view
/// at (bandwidth, peak) for `threads`, then each GPU's levels at (load
/// roof, FMA roof of the CPU view's precision, FP64 without one).
pub fn quadrant_points(name: &str, doc: &Document, threads: usize) -> Vec<QuadrantPoint> {
    let mut out = Vec::new();
    let view = machine_roofs(doc, threads);
    if let Some((m, (_, p))) = view.as_ref().and_then(|m| Some((m, m.peak?))) {
        out.extend(m.levels.iter().map(|&(level, b)| QuadrantPoint {
            machine: name.to_string(),
            level: QuadrantLevel::Cpu(level),
            gb_per_s: b,
            gflop_per_s: p,
        }));
    }
    let single = View::of_precision(doc, threads, None)
        .and_then(|v| v.compute.first().and_then(|r| r.precision))
        .is_some_and(|p| p == Precision::Sp);
    let ty = if single {
        crate::gpu::GpuType::Fp32
    } else {
        crate::gpu::GpuType::Fp64
    };
    for g in &doc.gpus {
        let fma = g
            .roofs
            .iter()
            .find(|r| r.op == Some(crate::gpu::GpuOp::Fma) && r.ty == Some(ty));
        let Some(peak) = fma.map(|r| r.value) else {
            continue;
        };
        for r in g
            .roofs
            .iter()
            .filter(|r| r.mix == Some(crate::gpu::GpuMix::Load))
        {
            out.push(QuadrantPoint {
                machine: format!("{name} GPU {}", g.device.index),
                level: QuadrantLevel::Gpu(r.level.expect("load roofs have a level")),
                gb_per_s: r.value,
                gflop_per_s: peak,
            });
        }
    }
    out
}

/// The results files at `paths`, each with roofs (of `threads`, when
/// given), and their short names; a file without them is refused, naming
/// what it has.
pub fn load(
    paths: &[std::path::PathBuf],
    threads: Option<usize>,
) -> Result<(Vec<String>, Vec<Document>)> {
    let docs: Vec<Document> = paths
        .iter()
        .map(|p| crate::results::load(p))
        .collect::<Result<_>>()?;
    let names: Vec<String> = paths
        .iter()
        .map(|p| crate::results::short_name(p))
        .collect();
    for (n, d) in names.iter().zip(&docs) {
        if d.roofs.is_empty() && d.gpus.is_empty() {
            return Err(Error::input(format!(
                "{n} holds no roofs; re-run `carmbench run`"
            )));
        }
        let cpu = !d.roofs.is_empty();
        if let Some(t) = threads.filter(|t| cpu && !d.thread_counts().contains(t)) {
            let has: Vec<String> = d.thread_counts().iter().map(|t| t.to_string()).collect();
            return Err(Error::input(format!(
                "{n} has no roofs with {t} thread(s) (it has {}); give --threads with a count every file has",
                has.join(", ")
            )));
        }
    }
    Ok((names, docs))
}
