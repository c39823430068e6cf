//! Validation: variable-intensity kernels run against every roof.
//! (This file is long because its tests run whole sweeps through the
//! scripted bench; the code above them is under 520 lines.)
//!
//! On a buffer sized for a level, a validation kernel's expected
//! performance is min(FP roof, AI × that level's bandwidth roof); the
//! deviation of the measured value from that tells whether the roofs
//! describe the machine. The sweeps are planned here ([`plan_sweeps`]), run
//! one bench per thread count and level ([`sweep`]), evaluated
//! ([`evaluate`], [`fit`]) and judged ([`verdict`]).

pub mod evaluate;
pub mod fit;
pub mod gpu;
pub mod shapes;
pub mod sweep;
pub mod verdict;

use crate::config::plan::Plan;
use crate::error::{Error, Result};
use crate::kernels::{self, Kind, Mix, Op, Precision, Role, Shape};
use crate::machine::isa::Isa;
use crate::machine::sizing::{self, range_of};
use crate::machine::{Level, Machine, Scope};
use crate::measure::bench::{Rig, Settings, measure_steady};
use crate::measure::guard::Sharing;
use crate::measure::pool::Cores;
use crate::measure::{campaign, interrupt};
use crate::results::{CoIssue, Document, Roof, SweepSummary};
use fit::Fit;
use indicatif::ProgressBar;
use std::time::Duration;
use sweep::{Sweep, Sweeper};
use verdict::{Context, Verdict};

/// What to validate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Access mixes (default: load, whose accesses overlap FP work on every
    /// core measured, and 2ld1st, the mix of the chart).
    pub mixes: Vec<Mix>,
    /// FP ops (default: fma).
    pub ops: Vec<Op>,
    /// A level fails when its median |deviation| exceeds this (fraction).
    pub threshold: f64,
}

/// The mixes validation kernels exist for.
pub const MIXES: [Mix; 2] = [Mix::Load, Mix::TwoLdOneSt];
/// The ops validation kernels exist for.
pub const OPS: [Op; 2] = [Op::Fma, Op::AddMul];

impl Default for Options {
    fn default() -> Self {
        Options {
            mixes: MIXES.to_vec(),
            ops: vec![Op::Fma],
            threshold: 0.10,
        }
    }
}

impl Options {
    /// Options from the command line's names (the defaults where none are
    /// given) and a threshold in percent; an input error for a mix or op
    /// without validation kernels.
    pub fn from_flags(
        mixes: Option<&[Mix]>,
        ops: Option<&[Op]>,
        threshold_percent: f64,
    ) -> Result<Options> {
        let d = Options::default();
        let mixes = mixes.map_or(d.mixes, <[Mix]>::to_vec);
        let ops = ops.map_or(d.ops, <[Op]>::to_vec);
        if let Some(m) = mixes.iter().find(|m| !MIXES.contains(m)) {
            return Err(Error::input(format!(
                "validation kernels exist for the load and 2ld1st mixes, not '{m}'"
            )));
        }
        if let Some(op) = ops.iter().find(|o| !OPS.contains(o)) {
            return Err(Error::input(format!(
                "validation kernels exist for the fma and addmul ops, not '{op}'"
            )));
        }
        if !(threshold_percent.is_finite() && threshold_percent > 0.0) {
            return Err(Error::input(
                "--threshold takes a positive percentage, e.g. --threshold 10",
            ));
        }
        Ok(Options {
            mixes,
            ops,
            threshold: threshold_percent / 100.0,
        })
    }

    /// What `carmbench run --validate` validates: the default mixes and ops
    /// that the plan measures. An error, raised before anything runs, when
    /// the plan measures none of them.
    pub fn for_plan(plan: &Plan) -> Result<Options> {
        let d = Options::default();
        let mixes: Vec<Mix> = d
            .mixes
            .into_iter()
            .filter(|m| plan.mixes.contains(m))
            .collect();
        let ops: Vec<Op> = d.ops.into_iter().filter(|o| plan.ops.contains(o)).collect();
        if mixes.is_empty() || ops.is_empty() {
            return Err(Error::input(
                "--validate needs the load or 2ld1st roofs and the fma roof; add them (--mixes load,2ld1st --ops fma) or leave --validate out",
            ));
        }
        Ok(Options { mixes, ops, ..d })
    }
}

/// One sweep's summary.
#[derive(Debug, Clone)]
pub struct LevelResult {
    /// Threads.
    pub threads: usize,
    /// ISA.
    pub isa: Isa,
    /// Precision.
    pub precision: Precision,
    /// Op.
    pub op: Op,
    /// Mix.
    pub mix: Mix,
    /// Level.
    pub level: Level,
    /// Whom the level serves.
    pub scope: Scope,
    /// Ridge AI with the FP roof.
    pub ridge: f64,
    /// Fit of the points.
    pub fit: Fit,
    /// Levels off the core: the bandwidth measured around the sweep
    /// relative to the roof, minus 1 (what the points are compared with).
    pub moved: Option<f64>,
    /// Change of that bandwidth from just before to just after the sweep.
    pub moved_during: Option<f64>,
    /// Largest share of a point's time the host took from the CPUs.
    pub steal: f64,
    /// What the probes between points saw of threads sharing a core.
    pub sharing: Sharing,
    /// Points kept while the threads shared a core.
    pub kept_shared: usize,
    /// Median |deviation| of the points not kept while the threads shared
    /// a core, when some were kept so and some were not.
    pub unshared_median: Option<f64>,
}

/// Bandwidth moves during a sweep above which the verdict says so.
pub const MOVED_LIMIT: f64 = 0.10;

impl LevelResult {
    /// Its verdict at `threshold`, among the results of the same
    /// validation (`all`: a storing mix is judged beside the load mix).
    pub fn verdict(&self, all: &[LevelResult], threshold: f64) -> Verdict {
        let ctx = Context {
            shared_level: !self.scope.own_core(),
            stores: self.mix != Mix::Load,
            threads: self.threads,
            steal: self.steal,
            shared_points: (self.kept_shared, self.fit.n),
            rest_held: self.unshared_median.is_none_or(|m| m <= threshold),
            load_mix_held: all.iter().any(|l| {
                l.mix == Mix::Load
                    && (l.threads, l.isa, l.precision, l.op, l.level)
                        == (self.threads, self.isa, self.precision, self.op, self.level)
                    && l.fit.median_abs_deviation <= threshold
            }),
        };
        verdict::verdict(&self.fit, threshold, ctx)
    }

    /// What the results keep of it: its table row and verdict at
    /// `threshold` among `all`.
    pub fn summary(&self, all: &[LevelResult], threshold: f64) -> SweepSummary {
        let f = &self.fit;
        SweepSummary {
            level: self.level,
            isa: self.isa,
            precision: self.precision,
            threads: self.threads,
            mix: self.mix,
            op: self.op,
            ridge: self.ridge,
            points: f.n,
            sloped: f.sloped,
            flat: f.flat,
            median_abs_deviation: f.median_abs_deviation,
            worst_ai: f.worst.0,
            worst_deviation: f.worst.1,
            overlap: f.overlap.is_finite().then_some(f.overlap),
            moved: self.moved,
            moved_during: self.moved_during,
            threshold,
            verdict: self.verdict(all, threshold),
        }
    }
}

/// Find a usable roof; an input error naming it and the fix when missing.
fn find_roof<'a>(
    doc: &'a Document,
    pred: impl Fn(&Roof) -> bool,
    what: String,
    fix: &str,
) -> Result<&'a Roof> {
    doc.roofs
        .iter()
        .find(|r| pred(r) && r.usable())
        .ok_or_else(|| Error::input(format!("the results have no {what} roof; {fix}")))
}

/// The ISA validated: the widest with compute roofs in the results.
fn isa_of(doc: &Document) -> Result<Isa> {
    doc.roofs
        .iter()
        .filter(|r| r.kind == Kind::Compute)
        .map(|r| r.isa)
        .max()
        .ok_or_else(|| {
            Error::input(
                "the results have no compute roof to validate against; run `carmbench run` with --ops fma",
            )
        })
}

/// The buffer a level's sweep runs on: a size the roof came from, so that
/// points and roof agree: the middle of its plateau (the low end for
/// memory, already several times every cache: each pass of a larger buffer
/// only costs time). Results without a plateau: the middle of the level's
/// range, safe from both of its edges (the low end for memory).
fn sweep_bytes(bw: &Roof, range: &crate::machine::sizing::BufferRange) -> u64 {
    let from: Vec<u64> = match bw.plateau {
        Some([lo, hi]) => {
            let mut v: Vec<u64> = bw
                .sizes
                .iter()
                .map(|s| s.bytes_per_thread)
                .filter(|b| (lo..=hi).contains(b))
                .collect();
            v.sort_unstable();
            v
        }
        None => sizing::sizes_in_range(range, 3),
    };
    match from.as_slice() {
        [] => sizing::sizes_in_range(range, 3)[0],
        v if range.level.is_memory() => v[0],
        v => v[v.len() / 2],
    }
}

/// The sweeps of `doc` on `machine`: per thread count, precision, op, mix
/// and level of the results. Every roof they need must exist before
/// anything runs.
pub fn plan_sweeps(doc: &Document, machine: &Machine, o: &Options) -> Result<Vec<Sweep>> {
    if doc.machine.topology.cpu_model != machine.cpu_model
        || doc.machine.topology.cores != machine.cores
    {
        return Err(Error::input(format!(
            "these results were measured on {} ({} cores), not on this machine ({}, {} cores); validate on the machine that measured them",
            doc.cpu_name(),
            doc.machine.topology.cores,
            machine.cpu_model.as_deref().unwrap_or("unknown CPU"),
            machine.cores
        )));
    }
    let isa = isa_of(doc)?;
    if doc.plan.levels.is_empty() {
        return Err(Error::input("the results hold no memory level to validate"));
    }
    let mut sweeps = Vec::new();
    for &t in &doc.plan.threads {
        let ranges = sizing::ranges(machine, t);
        // The FP precisions: the narrow types have no validation kernels.
        for p in doc
            .plan
            .precision
            .iter()
            .copied()
            .filter(|p| Precision::FP.contains(p))
        {
            for &op in &o.ops {
                let fp = find_roof(
                    doc,
                    |r| {
                        r.kind == Kind::Compute
                            && r.op == Some(op)
                            && r.isa == isa
                            && r.precision == Some(p)
                            && r.threads == t
                    },
                    format!("{op} {p} {isa} {t}-thread"),
                    "run `carmbench run` with that op, precision and thread count",
                )?;
                for &mix in &o.mixes {
                    for &level in &doc.plan.levels {
                        let at = (t, isa, p, op, mix, level);
                        sweeps.push(sweep(doc, machine, fp, at, &ranges)?);
                    }
                }
            }
        }
    }
    // One bench per thread count and level, shared by every sweep there.
    sweeps.sort_by_key(|s| (s.threads, s.level));
    Ok(sweeps)
}

/// The sweep of one thread count, ISA, precision, op, mix and level
/// against the FP roof `fp` and the level's bandwidth roof.
fn sweep(
    doc: &Document,
    machine: &Machine,
    fp: &Roof,
    (t, isa, p, op, mix, level): (usize, Isa, Precision, Op, Mix, Level),
    ranges: &[sizing::BufferRange],
) -> Result<Sweep> {
    let role = |prefetching| Role::Validation {
        mix,
        op,
        precision: p,
        prefetching,
    };
    let k = kernels::find(isa, role(false)).expect("validation kernels cover every mix, op, ISA");
    let bw = find_roof(
        doc,
        |r| {
            r.kind == Kind::Bandwidth
                && r.level == Some(level)
                && r.mix == Some(mix)
                && r.isa == isa
                && r.threads == t
        },
        format!("{level} {mix} {isa} {t}-thread"),
        "run `carmbench run` with that level (--levels) and mix (--mixes)",
    )?;
    let range = range_of(ranges, level).ok_or_else(|| {
        Error::input(format!(
            "this machine has no level {level}, which the results hold"
        ))
    })?;
    let scope = machine.scope(level);
    let ridge = crate::roofline::ridge(fp.value(), bw.value());
    let off_core = !scope.own_core();
    Ok(Sweep {
        threads: t,
        precision: p,
        op,
        mix,
        level,
        scope,
        kernel: k,
        bytes: sweep_bytes(bw, range),
        fp_per_cycle: fp.per_cycle,
        bw_per_cycle: bw.per_cycle,
        bw_gb_per_s: bw.value(),
        reference: off_core
            .then(|| kernels::find(isa, Role::Bandwidth(mix)))
            .flatten(),
        prefetching: off_core.then(|| kernels::find(isa, role(true))).flatten(),
        ridge,
        shapes: shapes::shapes(&k.decl, &shapes::targets(&[ridge])),
    })
}

/// Run the sweep on this machine against `doc`'s roofs; the points replace
/// any earlier points of the same sweeps in `doc.validation`.
pub fn validate_doc(
    doc: &mut Document,
    machine: &Machine,
    o: &Options,
) -> Result<Vec<LevelResult>> {
    let sweeps = plan_sweeps(doc, machine, o)?;
    interrupt::install();
    let bar = campaign::progress(
        sweeps.iter().map(Sweep::steps).sum::<usize>() as u64,
        "validating ",
    );
    let mut rig = Cores::new(&machine.core_first_pu);
    let out = run_sweeps(&mut rig, doc, &sweeps, &bar)?;
    bar.finish_and_clear();
    doc.replace_sweeps(out.iter().map(|r| r.summary(&out, o.threshold)).collect());
    Ok(out)
}

/// Run `sweeps` on `rig` against `doc`'s roofs, their points replacing any
/// earlier points of the same sweeps. Two attempts per point, not three:
/// on a noisy host every point would use all three, and the points that
/// stay low get a second look anyway. Four samples at most, not the plan's
/// seven: a point's deviation is the fastest sample, and a fifth sample
/// moved no level's median deviation beyond its noise (docs/evidence.md).
pub fn run_sweeps(
    rig: &mut impl Rig,
    doc: &mut Document,
    sweeps: &[Sweep],
    bar: &ProgressBar,
) -> Result<Vec<LevelResult>> {
    let isa = isa_of(doc)?;
    let settings = Settings {
        attempts: 2,
        ..Settings::new(
            Duration::from_secs_f64(doc.plan.min_sample_ms / 1e3),
            doc.plan.samples.clamp(3, 4),
        )
    };
    // The guard probes FMA after every point, and L1 loads too at the
    // core's own levels (a tenant on an SMT sibling can take either), with
    // any threads.
    let coissue = measure_coissue(rig, doc, sweeps, &settings)?;
    for c in &coissue {
        doc.coissue
            .retain(|o| !o.of(c.isa, c.precision, c.mix, c.op));
        doc.coissue.push(c.clone());
    }
    let coissue_of = |s: &Sweep| coissue.iter().find(|c| c.of(isa, s.precision, s.mix, s.op));
    let mut guard = crate::roofs::core_guard(&doc.roofs, Some(isa));
    let guard_alloc = guard.as_ref().map_or(0, |g| g.alloc());
    let done = campaign::in_benches(rig, sweeps, guard_alloc, None, |bench, group| {
        if let Some(g) = guard.as_mut() {
            g.guard_loads(group[0].scope.own_core());
        }
        let started = bench.now();
        let mut sw = Sweeper {
            bench,
            settings: &settings,
            bar,
            guard: guard.as_mut(),
        };
        let mut data = Vec::new();
        for s in group {
            if let Some(d) = sw.run(s)? {
                data.push((s, d));
            }
        }
        // Second looks take at most half as long as the sweeps did.
        let until = bench.now() + (bench.now() - started) / 2;
        for (s, d) in &mut data {
            let (_, pts) = evaluate::evaluate(s, isa, d, coissue_of(s));
            let deviations: Vec<f64> = pts.iter().map(|p| p.deviation).collect();
            sw.second_look(s, d, &deviations, until)?;
        }
        Ok(data
            .iter()
            .map(|(s, d)| evaluate::evaluate(s, isa, d, coissue_of(s)))
            .collect::<Vec<_>>())
    })?;
    let mut out = Vec::new();
    for (r, pts) in done {
        doc.replace_points(pts);
        out.push(r);
    }
    // Report in the order of the sweeps: threads, precision, op, mix, level.
    out.sort_by_key(|r| (r.threads, r.precision, r.op, r.mix, r.level));
    Ok(out)
}

/// How far each validated kernel's memory and FP units overlap in one core:
/// with one thread on the buffer of its L1 sweep of the fewest threads, at
/// the L1 ridge (memory and FP units alone about as long), its memory units
/// alone and both together are measured, its FP units alone taken from that
/// sweep's FP roof per thread. Kernels without an L1 sweep are left out
/// (their sweeps expect full overlap).
pub fn measure_coissue(
    rig: &mut impl Rig,
    doc: &Document,
    sweeps: &[Sweep],
    settings: &Settings,
) -> Result<Vec<CoIssue>> {
    let isa = isa_of(doc)?;
    let mut todo: Vec<(Sweep, Shape)> = Vec::new();
    // One per kernel, from its L1 sweep of the fewest threads: measured on
    // one thread, against that sweep's roofs per thread.
    let mut l1: Vec<&Sweep> = sweeps.iter().filter(|s| s.level == Level::L1).collect();
    l1.sort_by_key(|s| s.threads);
    for s in l1 {
        if todo
            .iter()
            .any(|(t, _)| (t.precision, t.op, t.mix) == (s.precision, s.op, s.mix))
        {
            continue;
        }
        let ridge = s.fp_per_cycle / s.bw_per_cycle;
        let shape = shapes::shape_for(&s.kernel.decl, ridge);
        todo.push((s.clone(), shape));
    }
    if todo.is_empty() {
        return Ok(Vec::new());
    }
    let alloc = todo
        .iter()
        .map(|(s, sh)| crate::measure::streams::alloc_for(s.kernel, s.bytes, *sh))
        .max()
        .unwrap_or(0);
    rig.with_bench(1, alloc, |bench| {
        todo.iter()
            .map(|(s, shape)| {
                let cv = s.scope.cv_limit();
                let run = |sh: Shape| {
                    measure_steady(bench, s.kernel, s.bytes, settings, sh, cv)
                        .map(|m| m.cycles_per_iter())
                        .map_err(|e| Error::Io(format!("{}: {e}", s.kernel.decl.name)))
                };
                let memory_cycles = run(Shape { j: shape.j, k: 0 })?;
                let both_cycles = run(*shape)?;
                Ok(CoIssue {
                    isa,
                    precision: s.precision,
                    mix: s.mix,
                    op: s.op,
                    j: shape.j,
                    k: shape.k,
                    memory_cycles,
                    fp_cycles: s.kernel.decl.shaped_flops(*shape) as f64
                        / (s.fp_per_cycle / s.threads as f64),
                    both_cycles,
                })
            })
            .collect::<Result<Vec<_>>>()
    })
    .map_err(Error::Io)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::fake::{Call, FakeRig, Outcome};
    use crate::results::ValidationPoint;

    /// The Zen 5 fixture, with its L1 and FMA roofs only, 1 thread.
    fn fixture() -> Document {
        let mut d = crate::fixture();
        d.plan.threads = vec![1];
        d.plan.levels = vec![Level::L1];
        d
    }

    fn machine_of(doc: &Document) -> Machine {
        doc.machine.topology.clone()
    }

    /// What the roofs predict for a call at the fake's clock: per cycle.
    fn expected(doc: &Document, c: &Call) -> f64 {
        let k = kernels::named(c.kernel).unwrap();
        let fma = doc
            .roofs
            .iter()
            .find(|r| r.op == Some(Op::Fma) && r.threads == 1 && r.isa == Isa::Avx512)
            .unwrap();
        let l1 = doc
            .roofs
            .iter()
            .find(|r| {
                r.level == Some(Level::L1) && r.mix == Some(k.decl.mix.unwrap()) && r.threads == 1
            })
            .unwrap();
        (k.decl.intensity(c.shape) * l1.per_cycle).min(fma.per_cycle)
    }

    fn sweeps(doc: &Document, o: &Options) -> Vec<Sweep> {
        plan_sweeps(doc, &machine_of(doc), o).unwrap()
    }

    /// The fixture and its one sweep: the load mix at L1, 1 thread.
    fn load_sweep() -> (Document, Vec<Sweep>) {
        let doc = fixture();
        let o = Options {
            mixes: vec![Mix::Load],
            ..Options::default()
        };
        let sw = sweeps(&doc, &o);
        assert_eq!(sw.len(), 1);
        (doc, sw)
    }

    #[test]
    fn points_on_the_roofs_hold_and_replace_earlier_points() {
        let mut doc = fixture();
        let stale = ValidationPoint {
            level: Level::L1,
            isa: Isa::Avx512,
            precision: Precision::Dp,
            threads: 1,
            mix: Mix::Load,
            op: Op::Fma,
            kernel: "earlier".into(),
            j: 1,
            k: 1,
            bytes_per_thread: 1,
            ai: 1.0,
            gflop_per_s: 1.0,
            expected_gflop_per_s: 1.0,
            clock_ghz: 3.0,
            deviation: 0.0,
            overlap: None,
            reference_gb_per_s: None,
        };
        let other = ValidationPoint {
            threads: 7,
            ..stale.clone()
        };
        doc.validation = vec![stale, other.clone()];
        let o = Options {
            mixes: vec![Mix::Load],
            ..Options::default()
        };
        let d0 = doc.clone();
        let mut rig = FakeRig::new(move |c| Outcome::steady(expected(&d0, c)));
        let sw = sweeps(&doc, &o);
        let res = run_sweeps(&mut rig, &mut doc, &sw, &ProgressBar::hidden()).unwrap();
        assert_eq!(res.len(), 1);
        assert!(res[0].fit.median_abs_deviation < 1e-9, "{:?}", res[0].fit);
        assert_eq!(res[0].verdict(&res, 0.1), Verdict::Holds);
        // The sweep's points replaced the stale one; the other sweep's kept.
        assert_eq!(doc.validation.len(), sw[0].shapes.len() + 1);
        assert!(doc.validation.contains(&other));
        assert!(
            doc.validation
                .iter()
                .all(|p| p.gflop_per_s > 1.0 || *p == other)
        );
        // The co-issue of the load mix (memory units alone, then with FP
        // units), then the points; no second look: every point held.
        assert_eq!(rig.measured().len(), 2 + sw[0].shapes.len());
        assert_eq!(rig.measured()[0].shape.k, 0);
        assert_eq!(doc.coissue.len(), 1);
        assert_eq!(doc.coissue[0].overlap(), 1.0);
    }

    #[test]
    fn points_that_look_slowed_get_a_second_look_and_the_faster_is_kept() {
        let (mut doc, sw) = load_sweep();
        let n = sw[0].shapes.len();
        // After the co-issue's two measurements, the first two points ran at
        // 80% (a slow moment), then all at the roof.
        let d0 = doc.clone();
        let mut seen = 0;
        let mut rig = FakeRig::new(move |c| {
            seen += 1;
            let e = expected(&d0, c);
            Outcome::steady(if (3..=4).contains(&seen) { 0.8 * e } else { e })
        });
        let res = run_sweeps(&mut rig, &mut doc, &sw, &ProgressBar::hidden()).unwrap();
        let calls = &rig.measured()[2..];
        // Measured again once each, at the end of the sweep.
        assert_eq!(calls.len(), n + 2);
        assert_eq!(calls[n].shape, calls[0].shape);
        assert_eq!(calls[n + 1].shape, calls[1].shape);
        assert!(res[0].fit.median_abs_deviation < 1e-9);
        assert!(doc.validation.iter().all(|p| p.deviation.abs() < 1e-9));
    }

    #[test]
    fn a_core_that_serializes_memory_and_fp_work_is_expected_to() {
        // A core whose memory units take their L1 roof's time and whose FP
        // units their FP roof's, but one after the other: every point runs
        // at the sum of both. Measured by the co-issue and expected so, the
        // sweep holds; min(P, AI x B) would put the points near the ridge
        // at half their value. With 2 threads alone too: the co-issue is
        // measured on one, each thread issuing its own bytes.
        for threads in [1, 2] {
            serialized_core(threads);
        }
    }

    fn serialized_core(threads: usize) {
        let mut doc = fixture();
        doc.plan.threads = vec![threads];
        let o = Options {
            mixes: vec![Mix::Load],
            ..Options::default()
        };
        let sw = sweeps(&doc, &o);
        assert_eq!(sw.len(), 1);
        let s = sw[0].clone();
        let unit_bytes = s.kernel.decl.bytes_per_iter() as f64;
        let t = threads as f64;
        let mut rig = FakeRig::new(move |c| {
            let k = kernels::named(c.kernel).unwrap();
            let flops = k.decl.shaped_flops(c.shape) as f64;
            // Each thread's cycles, at its share of the roofs.
            let cycles = f64::from(c.shape.j) * unit_bytes / (s.bw_per_cycle / t)
                + flops / (s.fp_per_cycle / t);
            Outcome {
                cycles: Some(cycles),
                ..Outcome::steady(c.threads as f64 * flops / cycles)
            }
        });
        let res = run_sweeps(&mut rig, &mut doc, &sw, &ProgressBar::hidden()).unwrap();
        assert_eq!(rig.measured()[0].threads, 1, "the co-issue on one thread");
        let c = doc.coissue[0].clone();
        assert!(c.overlap() < 1e-6, "{c:?}");
        assert!(res[0].fit.median_abs_deviation < 1e-6, "{:?}", res[0].fit);
        assert_eq!(res[0].verdict(&res, 0.05), Verdict::Holds);
        let ridge = s.fp_per_cycle / s.bw_per_cycle;
        let near = doc
            .validation
            .iter()
            .find(|p| (p.ai / ridge - 1.0).abs() < 0.1)
            .expect("a point at the ridge");
        let plain = crate::roofline::attainable(
            near.ai,
            s.fp_per_cycle * near.clock_ghz,
            s.bw_per_cycle * near.clock_ghz,
        );
        assert!(
            (near.expected_gflop_per_s / plain - 0.5).abs() < 0.05,
            "{} against {plain}",
            near.expected_gflop_per_s
        );
    }

    #[test]
    fn the_second_looks_stop_at_half_the_sweeps_time() {
        let (mut doc, sw) = load_sweep();
        let n = sw[0].shapes.len();
        // Every point always at half its expected value, the second looks
        // taking 5 times as long as the sweep's points.
        let d0 = doc.clone();
        let mut seen = 0;
        let mut rig = FakeRig::new(move |c| {
            seen += 1;
            Outcome {
                takes: Duration::from_millis(if seen > n + 2 { 100 } else { 20 }),
                ..Outcome::steady(0.5 * expected(&d0, c))
            }
        });
        let res = run_sweeps(&mut rig, &mut doc, &sw, &ProgressBar::hidden()).unwrap();
        let looks = rig.measured().len() - n - 2;
        // n points of 20 ms: second looks may start within about 10 n ms,
        // so at most about n / 10 + 1 of 100 ms each.
        assert!(looks >= 1 && looks <= n / 10 + 2, "{looks} of {n}");
        assert!(matches!(res[0].verdict(&res, 0.1), Verdict::Fails(_)));
    }
}
