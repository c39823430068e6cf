//! A sweep's points against their roofs, and its summary.

use super::LevelResult;
use super::fit::fit;
use super::sweep::{Sweep, SweepData};
use crate::machine::isa::Isa;
use crate::measure::stats::median;
use crate::results::{CoIssue, ValidationPoint};
use crate::roofline;

/// Points and summary of one sweep. The roofs and the sweep run minutes
/// apart on a shared machine: what is the core's own (FP, its own caches)
/// is compared per cycle at the point's clock; levels off the core, which
/// do not follow it, against their roof's kernel measured around the sweep
/// (the roof's own value when Ctrl-C came first). A point's expected value
/// is min(P, AI × B), or, where the core overlaps the kernel's memory and
/// FP units only in part (`coissue`), what that overlap leaves of it
/// ([`roofline::attainable_overlapping`]).
pub fn evaluate(
    sweep: &Sweep,
    isa: Isa,
    data: &SweepData,
    coissue: Option<&CoIssue>,
) -> (LevelResult, Vec<ValidationPoint>) {
    let own_core = sweep.scope.own_core();
    let now = match (data.before, data.after) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        (a, b) => a.or(b),
    };
    let mut pts = Vec::new();
    let mut ridges = Vec::new();
    for &(s, ref m) in &data.points {
        let ai = sweep.kernel.decl.intensity(s);
        let clock = m.clock_ghz();
        let measured = m.value() / 1e9;
        let band = if own_core {
            sweep.bw_per_cycle * clock
        } else {
            now.unwrap_or(sweep.bw_gb_per_s)
        };
        let peak = sweep.fp_per_cycle * clock;
        ridges.push(roofline::ridge(peak, band));
        let exp = match coissue {
            Some(c) => roofline::attainable_overlapping(
                ai,
                peak,
                band,
                c.overlap(),
                c.issue_ns_per_byte(sweep.kernel.decl.bytes_per_iter(), clock),
            ),
            None => roofline::attainable(ai, peak, band),
        };
        pts.push(ValidationPoint {
            level: sweep.level,
            isa,
            precision: sweep.precision,
            threads: sweep.threads,
            mix: sweep.mix,
            op: sweep.op,
            kernel: sweep.kernel_for(s).decl.name.to_string(),
            j: s.j,
            k: s.k,
            bytes_per_thread: m.bytes_per_thread,
            ai,
            gflop_per_s: measured,
            expected_gflop_per_s: exp,
            clock_ghz: clock,
            deviation: roofline::deviation(measured, exp),
            overlap: roofline::overlap(measured, ai, peak, band),
            reference_gb_per_s: now.filter(|_| !own_core),
        });
    }
    let ridge = median(&ridges);
    let fit = fit(
        &pts.iter().map(|v| (v.ai, v.deviation)).collect::<Vec<_>>(),
        ridge,
        &pts.iter().filter_map(|v| v.overlap).collect::<Vec<_>>(),
    );
    let kept: Vec<bool> = data.kept_shared.clone();
    let rest: Vec<f64> = pts
        .iter()
        .zip(&kept)
        .filter(|(_, k)| !**k)
        .map(|(p, _)| p.deviation.abs())
        .collect();
    (
        LevelResult {
            threads: sweep.threads,
            isa,
            precision: sweep.precision,
            op: sweep.op,
            mix: sweep.mix,
            level: sweep.level,
            scope: sweep.scope,
            ridge,
            fit,
            moved: now.map(|n| n / sweep.bw_gb_per_s - 1.0),
            moved_during: data.before.zip(data.after).map(|(a, b)| b / a - 1.0),
            steal: data.points.iter().map(|(_, m)| m.steal).fold(0.0, f64::max),
            sharing: data.sharing,
            kept_shared: kept.iter().filter(|k| **k).count(),
            unshared_median: (rest.len() < pts.len() && !rest.is_empty()).then(|| median(&rest)),
        },
        pts,
    )
}
