//! Where an application point sits under a machine's roofs, and what
//! bounds it by the evidence its run has: the thread count whose roofs it
//! is read against, the CARM's roof right above it (its intensity by the
//! bytes its core requested), its dot per memory level when its caches
//! were simulated (W over the bytes that level moved, against that level's
//! roof in the same bytes), and from them its bound. Profile, report,
//! predict and the chart all place points through [`place`].

use super::Document;
use super::apps::{AppPoint, Of};
use super::view::View;
use crate::machine::Level;

/// Where a point sits under a machine's roofs.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Thread count of the roofs used.
    pub threads: usize,
    /// The point's own thread count (per node), when the results lack
    /// roofs of it.
    pub unmeasured: Option<usize>,
    /// The nodes whose roofs add up to those it is placed under (an MPI
    /// job over several nodes; else 1).
    pub nodes: usize,
    /// The CARM's roof right above the point
    /// ([`crate::roofline::tightest_roof`]): its label and GFLOP/s at the
    /// point's intensity; `None` when the point sits above the roofline.
    pub roof: Option<(String, f64)>,
    /// Each level's dot, L1's first, when its caches were simulated.
    pub dots: Vec<Dot>,
    /// What bounds it by the evidence the run has; `None` above the
    /// roofline.
    pub bound: Option<Bound>,
}

/// What bounds a point, and how near it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The roof's label.
    pub label: String,
    /// That roof's height where the point sits (its intensity at the
    /// bounding level, for a level), in the point's unit per second × 1e-9.
    pub at: f64,
    /// The point's rate over `at`.
    pub share: f64,
    /// Which kind of roof it is, and how it is known.
    pub by: BoundBy,
}

/// How a bound is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundBy {
    /// A compute roof: the CARM's roof above the point is a peak, or every
    /// level's dot sits under the peak rather than under its bandwidth.
    Peak,
    /// With simulated caches: the level whose dot, under that level's
    /// bandwidth, is nearest its roof.
    Level(Level),
    /// Without simulated caches, the CARM's memory roof above the point:
    /// which level its bytes come from is not known.
    UnknownLevel,
}

impl Bound {
    /// Whether a memory level's roof bounds it (known or not).
    pub fn is_memory(&self) -> bool {
        self.by != BoundBy::Peak
    }
}

impl Placement {
    /// " (its 8 threads were not measured: roofs of 2)" when the roofs are
    /// of another thread count than the point's; else nothing.
    pub fn note(&self) -> String {
        let mut s = self.unmeasured.map_or(String::new(), |n| {
            format!(
                " (its {n} thread(s) were not measured: roofs of {} thread(s))",
                self.threads
            )
        });
        if self.nodes > 1 {
            s += &format!(
                " (over {} nodes: each roof {} times one node's)",
                self.nodes, self.nodes
            );
        }
        s
    }
}

/// The thread count whose roofs a point of `threads` is placed under: its
/// own, else the most measured below it, else the fewest measured.
pub fn roof_threads(doc: &Document, threads: usize) -> Option<usize> {
    let counts = doc.thread_counts();
    counts
        .iter()
        .rev()
        .find(|&&t| t <= threads)
        .or(counts.first())
        .copied()
}

/// The threads whose roofs `p` is read against: one for a function or a
/// loop (its time is CPU time, per core), else its own.
pub fn threads_of(p: &AppPoint) -> usize {
    match p.of {
        Of::Function(_) | Of::Loop(..) => 1,
        _ => p.threads.unwrap_or(1),
    }
}

/// Place `p` under the default view of `doc` for its threads
/// ([`threads_of`]; see [`roof_threads`] when `doc` has none of that count:
/// the placement says so).
///
/// An MPI job over several nodes is placed under as many times one node's
/// roofs of its threads per node: `doc` measured one node.
pub fn place(doc: &Document, p: &AppPoint) -> Option<Placement> {
    let nodes = p.mpi().map_or(1, |m| m.nodes.max(1));
    let threads = threads_of(p).div_ceil(nodes);
    let t = roof_threads(doc, threads)?;
    let scale = nodes as f64;
    let v = View::of_precision(doc, t, p.precision)?;
    let levels = level_roofs(&v, scale);
    let peaks: Vec<(String, f64)> = (v.default_compute().iter())
        .map(|r| (peak_label(r), scale * r.value()))
        .collect();
    let roof = crate::roofline::tightest_roof(p.ai(), p.gflop_per_s(), &levels, &peaks);
    let top = (peaks.iter()).max_by(|a, b| a.1.total_cmp(&b.1)).cloned();
    let dots = dots_under(p, &v, scale, top.as_ref().map(|t| t.1));
    let bound = bound_of(p, roof.as_ref(), &dots, &levels, top);
    Some(Placement {
        threads: t,
        nodes,
        unmeasured: (t != threads).then_some(threads),
        roof,
        dots,
        bound,
    })
}

/// The bound of `p` from the evidence: with simulated caches, the level
/// whose dot under its bandwidth is nearest its roof, else the peak (every
/// dot sits under it); without, the CARM's roof above the point, a memory
/// one's level unknown.
fn bound_of(
    p: &AppPoint,
    carm: Option<&(String, f64)>,
    dots: &[Dot],
    levels: &[(String, f64)],
    top: Option<(String, f64)>,
) -> Option<Bound> {
    let perf = p.gflop_per_s();
    let of = |label: String, at: f64, by| Bound {
        label,
        at,
        share: perf / at,
        by,
    };
    let with_roof: Vec<&Dot> = (dots.iter())
        .filter(|d| d.bytes > 0.0 && d.roof.is_some_and(|r| r > 0.0))
        .collect();
    if !with_roof.is_empty() && carm.is_some() {
        let nearest = (with_roof.iter())
            .filter(|d| !d.under_peak)
            .max_by(|a, b| a.share(perf).total_cmp(&b.share(perf)));
        return match (nearest, top) {
            (Some(d), _) => Some(of(
                d.label
                    .clone()
                    .unwrap_or_else(|| format!("{} roof", d.level)),
                d.roof.unwrap_or(f64::NAN),
                BoundBy::Level(d.level),
            )),
            (None, Some((label, at))) => Some(of(label, at, BoundBy::Peak)),
            (None, None) => None,
        };
    }
    let (label, at) = carm?.clone();
    let memory = levels.iter().any(|l| l.0 == label);
    Some(of(
        label,
        at,
        match memory {
            true => BoundBy::UnknownLevel,
            false => BoundBy::Peak,
        },
    ))
}

/// The memory roofs of `v`, each (label, GB/s × `scale`), fastest first.
pub fn level_roofs(v: &View, scale: f64) -> Vec<(String, f64)> {
    (v.bandwidth.iter())
        .map(|r| (format!("{} roof", r.label()), scale * r.value()))
        .collect()
}

/// A compute roof's label ("fma dp peak"; the general registers' integer
/// roofs beside a vector ISA's name their ISA).
pub fn peak_label(r: &super::Roof) -> String {
    match r.precision {
        Some(crate::kernels::Precision::Int) => format!("{} {} peak", r.label(), r.isa),
        _ => format!("{} peak", r.label()),
    }
}

/// One level's dot of a point whose caches were simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    /// The level (L1: the bytes the core requested, the CARM point).
    pub level: Level,
    /// Bytes the level moved.
    pub bytes: f64,
    /// Work over those bytes.
    pub ai: f64,
    /// The bytes the level moves per byte its roof's kernel requests there
    /// (write-allocations and write-backs, under the simulation's rules):
    /// its roof counts the same bytes as the dot once scaled by it.
    pub scale: f64,
    /// The level's roof at the dot (its bandwidth × `scale` × `ai`, at
    /// most the peak), in the point's unit per second × 1e-9; None without
    /// that roof or without roofs.
    pub roof: Option<f64>,
    /// The level roof's label.
    pub label: Option<String>,
    /// The peak, not the level's bandwidth, is its roof there.
    pub under_peak: bool,
}

impl Dot {
    /// A rate `perf` over this dot's roof.
    pub fn share(&self, perf: f64) -> f64 {
        self.roof.map_or(f64::NAN, |r| perf / r)
    }

    /// Its intensity in the bytes of its level's roof (`ai` × `scale`):
    /// where it is drawn against that roof's line.
    pub fn drawn_ai(&self) -> f64 {
        self.ai * self.scale
    }
}

/// The dots of `p`, L1's first, without roofs: each level's bytes and
/// intensity, the scale to the roofs of `mix` (none without simulated
/// traffic).
pub fn level_dots(p: &AppPoint, mix: Option<crate::kernels::Mix>) -> Vec<Dot> {
    let Some(t) = &p.traffic else {
        return Vec::new();
    };
    let mut levels = vec![(Level::L1, p.bytes)];
    levels.extend(t.levels().iter().map(|(l, rw)| (*l, rw.total())));
    (levels.into_iter())
        .map(|(level, bytes)| Dot {
            level,
            bytes,
            ai: p.flops / bytes,
            scale: t.roof_scale(mix, level),
            roof: None,
            label: None,
            under_peak: false,
        })
        .collect()
}

/// The dots of `p` against the roofs of `v` (each level's bandwidth roof of
/// the view's mix, × `scale` nodes), capped by the peak `top`.
fn dots_under(p: &AppPoint, v: &View, scale: f64, top: Option<f64>) -> Vec<Dot> {
    let mix = v.bandwidth.first().and_then(|r| r.mix);
    (level_dots(p, mix).into_iter())
        .map(|d| {
            let roof = v.bandwidth.iter().find(|r| r.level == Some(d.level));
            let slope = roof.map(|r| scale * r.value() * d.scale * d.ai);
            let under_peak = slope.zip(top).is_some_and(|(s, k)| s >= k);
            Dot {
                roof: slope.map(|s| top.map_or(s, |k| s.min(k))),
                label: roof.map(|r| format!("{} roof", r.label())),
                under_peak,
                ..d
            }
        })
        .collect()
}

/// Where code without arithmetic (a copy) sits: its bandwidth, Q over T,
/// against the level roof nearest it.
#[derive(Debug, Clone, PartialEq)]
pub struct ByBandwidth {
    /// Its bytes per second, × 1e-9.
    pub gb_per_s: f64,
    /// The level whose roof is nearest (by ratio).
    pub level: Level,
    /// Its bandwidth over that roof.
    pub share: f64,
}

/// `p`'s bandwidth against the bandwidth roofs of `doc` for `threads`, when
/// it moved bytes in a known time.
pub fn by_bandwidth(doc: &Document, p: &AppPoint, threads: usize) -> Option<ByBandwidth> {
    if !(p.bytes > 0.0 && p.seconds > 0.0) {
        return None;
    }
    let v = View::of(doc, roof_threads(doc, threads)?)?;
    let gb_per_s = p.bytes / p.seconds / 1e9;
    let off = |r: f64| (gb_per_s / r).ln().abs();
    let nearest = (v.bandwidth.iter())
        .filter(|r| r.value() > 0.0 && r.level.is_some())
        .min_by(|a, b| off(a.value()).total_cmp(&off(b.value())))?;
    Some(ByBandwidth {
        gb_per_s,
        level: nearest.level?,
        share: gb_per_s / nearest.value(),
    })
}
