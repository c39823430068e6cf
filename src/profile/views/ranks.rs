//! The views of an MPI job's ranks: a point per rank (its work in the MPI
//! runtime apart), what the program's point says of the job, and how a
//! region or a function spread over the ranks.

use crate::kernels::Precision;
use crate::profile::ground::symbols::{Function, Symbols};
use crate::profile::ground::warnings::Warning;
use crate::profile::measured::Ranks;
use crate::profile::measured::work::{Basis, Work};
use crate::profile::views::functions::FunctionPoint;
use crate::profile::views::point::{Own, Shown};
use crate::results::apps::{AppPoint, MpiInfo, Of, Range, RankInfo, RuntimeWork, Spread};
use std::collections::BTreeMap;

/// A region's seconds and W over the ranks (`(rank, seconds, work)`), W in
/// the units of `precision`.
pub fn region_spread(
    parts: &[(u32, f64, Work)],
    own: &Own,
    precision: Option<Precision>,
) -> Option<Spread> {
    let basis = Basis {
        precision,
        ..own.basis
    };
    let seconds: Vec<(u32, f64)> = parts.iter().map(|p| (p.0, p.1)).collect();
    let work: Vec<(u32, f64)> = parts
        .iter()
        .map(|p| (p.0, basis.derive(&p.2).flops))
        .collect();
    Some(Spread {
        seconds: Range::of(&seconds)?,
        work: Range::of(&work),
    })
}

/// Share of a rank's work above which its work in the MPI runtime is said.
const RUNTIME_SHARE: f64 = 0.1;

/// A warning when a rank did much work in the MPI runtime, beside its own
/// (its point's W and Q, which leave the runtime's out).
pub fn in_runtime(p: &AppPoint) -> Option<Warning> {
    let r = p.rank()?;
    let w = r.runtime?;
    let share = |x: f64, own: f64| if x + own > 0.0 { x / (x + own) } else { 0.0 };
    let (w_share, q_share) = (share(w.flops, p.flops), share(w.bytes, p.bytes));
    (w_share.max(q_share) > RUNTIME_SHARE).then_some(Warning::RankInRuntime {
        rank: r.rank,
        w_share,
        q_share,
    })
}

/// What the program's point says of an MPI job.
pub fn mpi_info(r: &Ranks) -> MpiInfo {
    MpiInfo {
        launcher: r.launcher.name().into(),
        ranks: r.each.len(),
        slowest: r.slowest(),
        nodes: r.nodes(),
        failed: r.failed.clone(),
    }
}

/// The point of each rank of an MPI job, under the program's arithmetic.
pub fn rank_points(
    shown: &Shown,
    r: &Ranks,
    typed: &Own,
    emulated_cpu: Option<&crate::results::apps::EmulatedCpu>,
) -> Vec<AppPoint> {
    (r.each.iter())
        .map(|k| {
            let what = format!("rank {} of {}, on {}", k.rank, r.each.len(), k.host);
            let name = format!("{}/rank{}", shown.name, k.rank);
            let of = Of::Rank(RankInfo {
                program: shown.name.clone(),
                rank: k.rank,
                host: k.host.clone(),
                runtime: None,
            });
            let mut p = typed.point(of, name, &k.total, k.seconds, Some(what));
            p.threads = shown.threads.map(|t| t / r.each.len().max(1)).or(k.threads);
            p.emulated_cpu = emulated_cpu.cloned();
            // The runtime's work in the unit of the rank's own arithmetic.
            let basis = Basis {
                precision: p.precision,
                ..typed.basis
            };
            if let Of::Rank(info) = &mut p.of {
                info.runtime = k.runtime.as_ref().map(|w| {
                    let d = basis.derive(w);
                    RuntimeWork {
                        flops: d.flops,
                        bytes: d.bytes,
                    }
                });
            }
            p
        })
        .collect()
}

/// Each function point's time over the ranks, from each rank's samples;
/// the rest's is what the functions `shown` leave.
pub fn spread_functions(
    r: &Ranks,
    fps: &[FunctionPoint],
    shown: &[Function],
    points: &mut [AppPoint],
    symbols: &mut Symbols,
) {
    let per_rank = function_seconds(r, symbols);
    for (fp, point) in fps.iter().zip(points.iter_mut()) {
        let rest = (fp.members > 1).then_some(shown);
        point.spread = function_spread(&per_rank, &fp.function, rest);
    }
}

/// Each rank's CPU seconds per function, and in all, from its own samples
/// at the job's seconds per sample: so that a function's seconds in the
/// ranks add up to its point's.
fn function_seconds(
    ranks: &Ranks,
    symbols: &mut Symbols,
) -> Vec<(u32, BTreeMap<Function, f64>, f64)> {
    let all = ranks.each.iter().filter_map(|r| r.samples.as_ref());
    let (samples, cpu) = all.fold((0u64, 0.0), |(n, c), s| (n + s.total, c + s.cpu_seconds));
    let per_sample = cpu / samples.max(1) as f64;
    (ranks.each.iter())
        .filter_map(|r| {
            let s = r.samples.as_ref()?;
            let costs = crate::profile::views::functions::costs(&[], s, symbols);
            let secs = (costs.into_iter())
                .map(|(f, c)| (f, c.samples as f64 * per_sample))
                .collect();
            Some((r.rank, secs, s.total as f64 * per_sample))
        })
        .collect()
}

/// How one function (or, with `rest_of`, every function but those shown)
/// spread over the ranks' CPU seconds `per_rank`.
fn function_spread(
    per_rank: &[(u32, BTreeMap<Function, f64>, f64)],
    function: &Function,
    rest_of: Option<&[Function]>,
) -> Option<Spread> {
    let per: Vec<(u32, f64)> = (per_rank.iter())
        .map(|(rank, secs, cpu)| {
            let s = match rest_of {
                None => secs.get(function).copied().unwrap_or(0.0),
                Some(shown) => cpu - shown.iter().filter_map(|f| secs.get(f)).sum::<f64>(),
            };
            (*rank, s.max(0.0))
        })
        .collect();
    Some(Spread {
        seconds: Range::of(&per)?,
        work: None,
    })
}
