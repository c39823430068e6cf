//! A sweep's points against their roofs, and its summary.

use super::LevelResult;
use super::fit::fit;
use super::sweep::{Sweep, SweepData};
use crate::machine::isa::Isa;
use crate::measure::stats::median;
use crate::results::{CoIssue, ValidationPoint};
use crate::roofline;

/// One measured point of `sweep` against its expected value, and the
/// ridge of the roofs it was read against (`now`: the level's bandwidth
/// measured around the sweep, for levels off the core).
fn point(
    sweep: &Sweep,
    isa: Isa,
    p: &super::sweep::Point,
    now: Option<f64>,
    coissue: Option<&CoIssue>,
) -> (ValidationPoint, f64) {
    let own_core = sweep.scope.own_core();
    let (s, m) = (p.shape, &p.m);
    let ai = sweep.kernel.decl.intensity(s);
    let clock = m.clock_ghz();
    let measured = m.value() / 1e9;
    let band = if own_core {
        sweep.bw_per_cycle * clock
    } else {
        now.unwrap_or(sweep.bw_gb_per_s)
    };
    let peak = sweep.fp_per_cycle * clock;
    let exp = match coissue {
        Some(c) => roofline::attainable_overlapping(
            ai,
            peak,
            band,
            c.overlap(),
            // Measured on one thread; each thread issues its own bytes.
            c.issue_ns_per_byte(sweep.kernel.decl.bytes_per_iter(), clock) / sweep.threads as f64,
        ),
        None => roofline::attainable(ai, peak, band),
    };
    let v = ValidationPoint {
        level: sweep.level,
        isa,
        precision: sweep.precision,
        threads: sweep.threads,
        mix: sweep.mix,
        op: sweep.op,
        kernel: p.kernel.decl.name.to_string(),
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
    };
    (v, roofline::ridge(peak, band))
}

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
    let now = match (data.before, data.after) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        (a, b) => a.or(b),
    };
    let (pts, ridges): (Vec<ValidationPoint>, Vec<f64>) = (data.points.iter())
        .map(|p| point(sweep, isa, p, now, coissue))
        .unzip();
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
            steal: data.points.iter().map(|p| p.m.steal).fold(0.0, f64::max),
            sharing: data.sharing,
            kept_shared: kept.iter().filter(|k| **k).count(),
            unshared_median: (rest.len() < pts.len() && !rest.is_empty()).then(|| median(&rest)),
        },
        pts,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Mix, Op, Precision, Shape};
    use crate::machine::Level;
    use crate::measure::fake::{CLOCK, Outcome};
    use crate::validate::sweep::Point;
    use crate::validate::{Options, plan_sweeps};

    #[test]
    fn each_thread_issues_its_own_bytes_below_the_l1() {
        // The Zen 5 fixture's L2 load sweep with 2 threads, and a core that
        // never overlaps loads and FMAs, measured on one thread: its memory
        // units at the 1-thread L1 rate.
        let mut doc = crate::fixture();
        doc.plan.threads = vec![2];
        doc.plan.levels = vec![Level::L2];
        let o = Options {
            mixes: vec![Mix::Load],
            ..Options::default()
        };
        let sw = plan_sweeps(&doc, &doc.machine.topology, &o).unwrap();
        let s = &sw[0];
        assert_eq!((s.threads, s.level), (2, Level::L2));
        let unit = s.kernel.decl.bytes_per_iter() as f64;
        let l1 = doc
            .roofs
            .iter()
            .find(|r| r.level == Some(Level::L1) && r.mix == Some(Mix::Load) && r.threads == 1)
            .unwrap()
            .per_cycle;
        let co = CoIssue {
            isa: Isa::Avx512,
            precision: Precision::Dp,
            mix: Mix::Load,
            op: Op::Fma,
            j: 10,
            k: 10,
            memory_cycles: 10.0 * unit / l1,
            fp_cycles: 10.0 * unit / l1,
            both_cycles: 20.0 * unit / l1,
        };
        // A point at the L2 ridge, measured at 60 % of min(P, AI x B).
        let shape = Shape { j: 1, k: 1 };
        let ai = s.kernel.decl.intensity(shape);
        let (p, b) = (s.fp_per_cycle * CLOCK, s.bw_per_cycle * CLOCK);
        let m = Outcome::steady(0.6 * roofline::attainable(ai, p, b) / CLOCK).measurement(s.bytes);
        let data = SweepData {
            points: vec![Point {
                shape,
                kernel: s.kernel,
                m,
            }],
            before: None,
            after: None,
            kept_shared: vec![false],
            sharing: Default::default(),
        };
        let (_, pts) = evaluate(s, Isa::Avx512, &data, Some(&co));
        // Per flop: memory 1/(AI B), FP 1/P, and the issue at the 1-thread
        // L1 rate on each of the 2 threads at once: half its time in all.
        let issue = 1.0 / (l1 * CLOCK) / 2.0 / ai;
        let (mem, fp) = (1.0 / (ai * b), 1.0 / p);
        let core = fp.max(issue) + fp.min(issue);
        let want = 1.0 / core.max(mem);
        let got = pts[0].expected_gflop_per_s;
        assert!((got - want).abs() < 1e-9 * want, "{got} against {want}");
    }
}
