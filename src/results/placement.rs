//! Where an application point sits under a machine's roofs: the thread
//! count whose roofs it is read against, the roof right above it, and,
//! when its caches were simulated, a dot per memory level (W over the bytes
//! at that level, against that level's roof). Profile, report, predict and
//! the chart all place points through here.

use super::Document;
use super::apps::AppPoint;
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
    /// The roof right above the point ([`crate::roofline::tightest_roof`]):
    /// its label and GFLOP/s at the point's intensity; `None` when the
    /// point sits above every roof.
    pub roof: Option<(String, f64)>,
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

/// Place `p` under the default view of `doc` for `threads` (see
/// [`roof_threads`] when `doc` has none of that count: the placement says so).
///
/// An MPI job over several nodes is placed under as many times one node's
/// roofs of its threads per node: `doc` measured one node.
pub fn placement(doc: &Document, p: &AppPoint, threads: usize) -> Option<Placement> {
    let nodes = p.mpi().map_or(1, |m| m.nodes.max(1));
    let threads = threads.div_ceil(nodes);
    let t = roof_threads(doc, threads)?;
    let scale = nodes as f64;
    let v = View::of_precision(doc, t, p.precision)?;
    let levels = level_roofs(&v, scale);
    let peaks: Vec<(String, f64)> = (v.default_compute().iter())
        .map(|r| (peak_label(r), scale * r.value()))
        .collect();
    Some(Placement {
        threads: t,
        nodes,
        unmeasured: (t != threads).then_some(threads),
        roof: crate::roofline::tightest_roof(p.ai(), p.gflop_per_s(), &levels, &peaks),
    })
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
    /// Bytes there.
    pub bytes: f64,
    /// Work over those bytes.
    pub ai: f64,
    /// The level's roof at that AI (its bandwidth × AI, at most the peak),
    /// in the point's unit per second × 1e-9; None without that roof or
    /// without roofs.
    pub roof: Option<f64>,
}

/// The dots of `p`, L1's first, against the roofs of `doc` when given (its
/// own precision's peak, each level's bandwidth roof of the default mix);
/// none without simulated traffic.
pub fn dots(p: &AppPoint, doc: Option<&Document>) -> Vec<Dot> {
    let Some(t) = &p.traffic else {
        return Vec::new();
    };
    let view = doc.and_then(|d| {
        let threads = roof_threads(d, p.threads.unwrap_or(1)).unwrap_or(1);
        View::of_precision(d, threads, p.precision)
    });
    let peak = view
        .as_ref()
        .and_then(|v| v.default_compute().first().map(|r| r.value()));
    let bw = |l: Level| {
        view.as_ref()
            .and_then(|v| v.bandwidth.iter().find(|r| r.level == Some(l)))
            .map(|r| r.value())
    };
    let mut levels = vec![(Level::L1, p.bytes)];
    levels.extend(t.levels().iter().map(|(l, rw)| (*l, rw.total())));
    levels
        .into_iter()
        .map(|(level, bytes)| {
            let ai = p.flops / bytes;
            let roof = bw(level).map(|b| peak.map_or(ai * b, |k| (ai * b).min(k)));
            Dot {
                level,
                bytes,
                ai,
                roof,
            }
        })
        .collect()
}

/// The dot of `dots` nearest its roof, with the point's share of that
/// roof: the level that bounds the code.
pub fn bounding(p: &AppPoint, dots: &[Dot]) -> Option<(Level, f64)> {
    let perf = p.gflop_per_s();
    dots.iter()
        .filter(|d| d.bytes > 0.0)
        .filter_map(|d| Some((d.level, perf / d.roof.filter(|r| *r > 0.0)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
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
