//! Comparing machines and predicting: roofs matched across results files,
//! ratios, ridge points, the quadrant split of seed 001 and T = W / min(P, AI × B).

use crate::isa::Isa;
use crate::kernels::{Kind, Mix, Op, Precision};
use crate::results::{Document, Roof};
use serde::{Deserialize, Serialize};

/// Ordering of roof keys: threads, ISA, kind, level rank, mix, op, precision.
type SortKey = (
    usize,
    Option<Isa>,
    u8,
    u32,
    Option<Mix>,
    Option<Op>,
    Option<Precision>,
);

/// What identifies a roof across files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RoofKey {
    /// Threads.
    pub threads: usize,
    /// ISA (None: each file's widest, see [`match_roofs`]).
    pub isa: Option<Isa>,
    /// Bandwidth before compute.
    pub kind_order: u8,
    /// Level (bandwidth roofs), in hierarchy order.
    pub level: Option<String>,
    /// Mix.
    pub mix: Option<Mix>,
    /// Op.
    pub op: Option<Op>,
    /// Precision.
    pub precision: Option<Precision>,
}

fn level_rank(l: &str) -> u32 {
    // DRAM (and anything unnamed) last.
    l.strip_prefix('L')
        .and_then(|n| n.parse().ok())
        .unwrap_or(99)
}

impl RoofKey {
    /// The key of a roof.
    pub fn of(r: &Roof) -> Self {
        RoofKey {
            threads: r.threads,
            isa: Some(r.isa),
            kind_order: if r.kind == Kind::Bandwidth { 0 } else { 1 },
            level: r.level.clone(),
            mix: r.mix,
            op: r.op,
            precision: r.precision,
        }
    }
    /// Order: threads, ISA, bandwidth by level then compute.
    fn sort_key(&self) -> SortKey {
        (
            self.threads,
            self.isa,
            self.kind_order,
            self.level.as_deref().map_or(0, level_rank),
            self.mix,
            self.op,
            self.precision,
        )
    }
    /// "L1 2ld1st" or "fma dp".
    pub fn label(&self) -> String {
        match (&self.level, self.mix, self.op) {
            (Some(l), Some(m), _) => format!("{l} {m}"),
            (_, _, Some(o)) => format!("{o} {}", self.precision.map_or("", Precision::name)),
            _ => "?".into(),
        }
    }
    /// "GB/s" or "GFLOP/s".
    pub fn unit(&self) -> &'static str {
        if self.kind_order == 0 {
            "GB/s"
        } else {
            "GFLOP/s"
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
}

/// A roof across files; a file without it has None.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Which roof.
    pub key: RoofKey,
    /// One cell per file, in the files' order.
    pub cells: Vec<Option<Cell>>,
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
/// precision and threads; roofs missing from a file are kept as None. With
/// `best_isa`, each file contributes only its widest ISA's roofs and the ISA
/// is left out of the match (machines with different ISAs line up).
pub fn match_roofs(docs: &[&Document], best_isa: bool) -> Vec<Row> {
    let key_of = |r: &Roof| {
        let mut k = RoofKey::of(r);
        if best_isa {
            k.isa = None;
        }
        k
    };
    let roofs: Vec<Vec<&Roof>> = docs
        .iter()
        .map(|d| {
            let widest = d.roofs.iter().map(|r| r.isa).max();
            d.roofs
                .iter()
                .filter(|r| !best_isa || Some(r.isa) == widest)
                .collect()
        })
        .collect();
    let mut keys: Vec<RoofKey> = roofs
        .iter()
        .flat_map(|rs| rs.iter().map(|r| key_of(r)))
        .collect();
    keys.sort_by_key(|k| k.sort_key());
    keys.dedup();
    keys.into_iter()
        .map(|key| {
            let vals: Vec<Option<&Roof>> = roofs
                .iter()
                .map(|rs| rs.iter().copied().find(|r| key_of(r) == key))
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
                    })
                })
                .collect();
            Row { key, cells }
        })
        .collect()
}

/// A machine's summary for one thread count: its default selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineRoofs {
    /// ISA used (the widest measured).
    pub isa: Isa,
    /// Threads.
    pub threads: usize,
    /// (level, GB/s) of the default mix (2ld1st, else load), hierarchy order.
    pub levels: Vec<(String, f64)>,
    /// Highest FP roof, GFLOP/s, and its op.
    pub peak: Option<(Op, f64)>,
    /// FMA roof, GFLOP/s.
    pub fma: Option<f64>,
    /// ADD/MUL (addmul, else add) roof, GFLOP/s.
    pub addmul: Option<f64>,
}

/// The default roofs of `doc` for `threads` (DP, widest ISA).
pub fn machine_roofs(doc: &Document, threads: usize) -> Option<MachineRoofs> {
    let rs: Vec<&Roof> = doc
        .roofs
        .iter()
        .filter(|r| r.threads == threads && r.value().is_finite() && r.value() > 0.0)
        .collect();
    let isa = rs.iter().map(|r| r.isa).max()?;
    let rs: Vec<&Roof> = rs.into_iter().filter(|r| r.isa == isa).collect();
    let mix = [Mix::TwoLdOneSt, Mix::Load]
        .into_iter()
        .find(|m| rs.iter().any(|r| r.mix == Some(*m)));
    let mut levels: Vec<(String, f64)> = rs
        .iter()
        .filter(|r| r.kind == Kind::Bandwidth && r.mix == mix)
        .map(|r| (r.level.clone().unwrap_or_default(), r.value()))
        .collect();
    levels.sort_by_key(|l| level_rank(&l.0));
    let fp = |op: Op| {
        rs.iter()
            .find(|r| r.op == Some(op) && r.precision.is_none_or(|p| p == Precision::Dp))
            .map(|r| r.value())
    };
    let peak = rs
        .iter()
        .filter(|r| r.kind == Kind::Compute && r.precision.is_none_or(|p| p == Precision::Dp))
        .max_by(|a, b| a.value().total_cmp(&b.value()))
        .and_then(|r| r.op.map(|o| (o, r.value())));
    Some(MachineRoofs {
        isa,
        threads,
        levels,
        peak,
        fma: fp(Op::Fma),
        addmul: fp(Op::AddMul).or(fp(Op::Add)),
    })
}

/// Ridge AI of each level: peak / bandwidth.
pub fn ridges(m: &MachineRoofs) -> Vec<(String, f64)> {
    match m.peak {
        Some((_, p)) => m.levels.iter().map(|(l, b)| (l.clone(), p / b)).collect(),
        None => Vec::new(),
    }
}

/// Where an application of intensity `ai` falls on a machine level of
/// bandwidth `gb_per_s` and peak `gflop_per_s` (the quadrant split): the
/// line y = ai·x through the origin separates points above it (memory
/// bound there: ai·B < P) from points below (compute bound).
pub fn memory_bound(ai: f64, gb_per_s: f64, gflop_per_s: f64) -> bool {
    ai * gb_per_s < gflop_per_s
}

/// Peak for a mix of FMA and other FP work (seed 001 adjusts the peak by
/// instruction mix): the time of `fma_flops` at the FMA roof plus the rest
/// at the ADD/MUL roof, so the attainable peak lies between the two.
pub fn mixed_peak(flops: f64, fma_flops: f64, fma_roof: f64, other_roof: f64) -> f64 {
    let fma = fma_flops.clamp(0.0, flops);
    flops / (fma / fma_roof + (flops - fma) / other_roof)
}

/// A predicted run on one machine level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Level whose bandwidth is used.
    pub level: String,
    /// Attainable GFLOP/s: min(P, AI × B).
    pub gflop_per_s: f64,
    /// Predicted seconds: W / attainable.
    pub seconds: f64,
    /// "memory (L3)" or "compute (fma peak)".
    pub bound: String,
}

/// T = W / min(P, AI × B) for flops `w`, bytes `q`, peak `p` (GFLOP/s) and
/// bandwidth `b` (GB/s).
pub fn predict(w: f64, q: f64, p: f64, b: f64) -> (f64, bool) {
    let ai = w / q;
    let attainable = (ai * b).min(p);
    (w / (attainable * 1e9), ai * b < p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prediction_formula() {
        // 1 GFLOP over 10 GB on 50 GB/s and 100 GFLOP/s: AI 0.1 -> 5 GFLOP/s -> 0.2 s, memory bound.
        let (t, mem) = predict(1e9, 1e10, 100.0, 50.0);
        assert!((t - 0.2).abs() < 1e-12 && mem);
        // AI 10: capped by the peak: 1 GFLOP at 100 GFLOP/s = 0.01 s.
        let (t, mem) = predict(1e9, 1e8, 100.0, 50.0);
        assert!((t - 0.01).abs() < 1e-12 && !mem);
    }

    #[test]
    fn mixed_peak_lies_between_the_roofs() {
        assert_eq!(mixed_peak(100.0, 100.0, 32.0, 16.0), 32.0);
        assert_eq!(mixed_peak(100.0, 0.0, 32.0, 16.0), 16.0);
        // Half the flops in FMAs: 50/32 + 50/16 = 4.6875 -> 21.33.
        assert!((mixed_peak(100.0, 50.0, 32.0, 16.0) - 100.0 / 4.6875).abs() < 1e-12);
    }

    #[test]
    fn quadrant_split() {
        // P = 100, B = 50: the line y = 2x passes through the point (50, 100).
        assert!(memory_bound(1.0, 50.0, 100.0));
        assert!(!memory_bound(2.0, 50.0, 100.0));
        assert!(!memory_bound(4.0, 50.0, 100.0));
    }
}
