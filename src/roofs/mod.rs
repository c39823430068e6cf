//! The roofs of `carmbench run`: one task per roof ([`plan`]), measured size
//! by size on benches of pinned threads and turned into roofs
//! ([`assemble`]), then those that look disturbed measured again
//! ([`remeasure`]).

pub mod assemble;
pub mod cost;
pub mod effective;
pub mod gpu;
pub mod plan;
pub mod plateau;
pub mod remeasure;

use crate::config::limits::Uarch;
use crate::config::plan::RoofFrom;
use crate::error::{Error, Result};
use crate::kernels::{self, Kernel, Kind, Mix, Op, Role, Shape};
use crate::machine::Level;
use crate::machine::isa::Isa;
use crate::measure::bench::{Bench, Measurement, Rig, Settings, measure_steady};
use crate::measure::guard::{CoreGuard, Probe, Sharing, WAIT_BUDGET};
use crate::measure::{campaign, interrupt, keep_faster};
use crate::results::{Curve, CurvePoint, Flag, Roof};
use crate::units::human_bytes;
use indicatif::ProgressBar;
use plan::RoofTask;
use remeasure::{ROUND_SAMPLES, ROUNDS, ROUNDS_SHARE, poorly_scaling, suspect};
use std::time::Duration;

/// What measuring the roofs gave.
#[derive(Debug)]
pub struct MeasuredRoofs {
    /// One roof per task measured, in the order of the tasks.
    pub roofs: Vec<Roof>,
    /// The memory curves: every size of the bandwidth tasks.
    pub curves: Vec<Curve>,
    /// What the core guard saw of multi-thread roofs sharing cores, when
    /// there were any.
    pub sharing: Option<Sharing>,
}

/// What every measurement of a campaign shares.
struct Ctx<'a> {
    settings: Settings,
    uarch: Option<&'a Uarch>,
    bar: &'a ProgressBar,
    until: Option<Duration>,
}

/// Measure every task, then up to [`ROUNDS`] rounds of the ones that look
/// disturbed ([`suspect`]) with [`ROUND_SAMPLES`] times the samples, within
/// [`ROUNDS_SHARE`] of the time the first measurement of all took, keeping the faster
/// per cycle of each; flag the all-core roofs that still scale badly.
/// Stops early, keeping what it has, on Ctrl-C.
pub fn measure_all(
    rig: &mut impl Rig,
    todo: &[RoofTask],
    settings: Settings,
    uarch: Option<&Uarch>,
    bar: &ProgressBar,
) -> Result<MeasuredRoofs> {
    let started = rig.now();
    let mut guard = None;
    let first = Ctx {
        settings,
        uarch,
        bar,
        until: None,
    };
    let (mut roofs, mut points): (Vec<Roof>, Vec<Vec<CurvePoint>>) =
        measure_tasks(rig, todo, &first, &[], &mut guard)?
            .into_iter()
            .unzip();
    let deadline = rig.now() + (rig.now() - started).mul_f64(ROUNDS_SHARE);
    let rounds = Ctx {
        settings: Settings::new(settings.min_sample, settings.samples * ROUND_SAMPLES),
        until: Some(deadline),
        ..first
    };
    for _ in 0..ROUNDS {
        if interrupt::requested() || rig.now() >= deadline {
            break;
        }
        // Measured again over the roof's own sizes only: the sizes between
        // levels are for the curve.
        let again: Vec<RoofTask> = suspect(todo, &roofs)
            .into_iter()
            .map(|i| RoofTask {
                between: Vec::new(),
                between_levels: Vec::new(),
                ..todo[i].clone()
            })
            .collect();
        if again.is_empty() {
            break;
        }
        bar.inc_length(again.iter().map(|t| t.sizes.len() as u64).sum());
        for (new, curve) in measure_tasks(rig, &again, &rounds, &roofs, &mut guard)? {
            let Some(i) = roofs.iter().position(|r| r.same_roof(&new)) else {
                continue;
            };
            let spent = roofs[i].seconds.unwrap_or(0.0) + new.seconds.unwrap_or(0.0);
            keep_faster(&mut roofs[i], new);
            roofs[i].seconds = Some(spent);
            for p in curve {
                if let Some(old) = points[i]
                    .iter_mut()
                    .find(|o| o.bytes_per_thread == p.bytes_per_thread)
                {
                    keep_faster(old, p);
                }
            }
        }
    }
    for i in poorly_scaling(todo, &roofs) {
        roofs[i].flags.push(Flag::SharedCore);
    }
    let curves = assemble::curves(&roofs, points);
    Ok(MeasuredRoofs {
        roofs,
        curves,
        sharing: guard.map(|g| g.seen),
    })
}

/// Measure tasks, one bench per run of tasks sharing a thread count and
/// level. Multi-thread tasks are guarded ([`CoreGuard`]) once a 1-thread
/// FMA roof is known (among `known` and the roofs measured here).
fn measure_tasks(
    rig: &mut impl Rig,
    todo: &[RoofTask],
    ctx: &Ctx,
    known: &[Roof],
    guard: &mut Option<CoreGuard>,
) -> Result<Vec<(Roof, Vec<CurvePoint>)>> {
    let mut out: Vec<(Roof, Vec<CurvePoint>)> = Vec::new();
    for chunk in todo.chunk_by(|a, b| a.threads == b.threads) {
        let several = chunk[0].threads > 1;
        if several && guard.is_none() {
            let so_far: Vec<Roof> = known
                .iter()
                .cloned()
                .chain(out.iter().map(|o| o.0.clone()))
                .collect();
            *guard = core_guard(&so_far, None);
        }
        let guard_alloc = guard
            .as_ref()
            .filter(|_| several)
            .map_or(0, CoreGuard::alloc);
        let roofs = campaign::in_benches(rig, chunk, guard_alloc, ctx.until, |bench, group| {
            measure_group(bench, group, ctx, guard.as_mut().filter(|_| several))
        })?;
        out.extend(roofs);
    }
    Ok(out)
}

/// Measure the tasks of one bench, size by size, each size guarded when a
/// guard is given.
fn measure_group(
    bench: &dyn Bench,
    group: &[RoofTask],
    ctx: &Ctx,
    mut guard: Option<&mut CoreGuard>,
) -> Result<Vec<(Roof, Vec<CurvePoint>)>> {
    if let Some(g) = guard.as_deref_mut() {
        // Roofs of a core's own caches need its load path: a tenant on an
        // SMT sibling can take it and leave FMA alone.
        g.guard_loads(
            group
                .iter()
                .any(|t| t.level.is_some() && t.scope.own_core()),
        );
        g.wait_alone(bench).map_err(Error::Io)?;
    }
    let mut roofs = Vec::new();
    for task in group {
        if ctx.until.is_some_and(|u| bench.now() >= u) {
            break;
        }
        let began = bench.now();
        let mut measure_size = |kernel: &'static Kernel, bytes: u64| {
            measure_size(bench, task, ctx, guard.as_deref_mut(), kernel, bytes)
        };
        let mut ms = Vec::new();
        for &bytes in task.sizes.iter().chain(&task.between) {
            if interrupt::requested() {
                return Ok(roofs);
            }
            ms.push(measure_size(task.kernel, bytes)?);
        }
        let between = ms.split_off(task.sizes.len());
        let more = refinement(task, &ms);
        ctx.bar.inc_length(more.len() as u64);
        for bytes in more {
            if interrupt::requested() {
                return Ok(roofs);
            }
            ms.push(measure_size(task.kernel, bytes)?);
        }
        ms.sort_by_key(|m| m.bytes_per_thread);
        let mut roof = assemble::roof_of(task, &ms, ctx.uarch);
        if let Some((paced, bytes)) = task.paced_at() {
            if interrupt::requested() {
                return Ok(roofs);
            }
            ctx.bar.inc_length(1);
            roof = assemble::with_paced(roof, task, &measure_size(paced, bytes)?);
        }
        roof.seconds = Some((bench.now() - began).as_secs_f64());
        roofs.push((roof, assemble::curve_points(task, &ms, &between)));
    }
    Ok(roofs)
}

/// One size of `task` measured with `kernel` (the task's, or its paced
/// form), guarded when a guard is given.
fn measure_size(
    bench: &dyn Bench,
    task: &RoofTask,
    ctx: &Ctx,
    guard: Option<&mut CoreGuard>,
    kernel: &'static Kernel,
    bytes: u64,
) -> Result<Measurement> {
    ctx.bar.set_message(format!(
        "{} {} {} threads{}",
        kernel.decl.name,
        task.level.map_or(String::new(), Level::name),
        task.threads,
        if bytes > 0 {
            format!(" {}", human_bytes(bytes))
        } else {
            String::new()
        }
    ));
    let measure = |b: &dyn Bench| {
        let cv = task.scope.cv_limit();
        let settings = ctx.settings.at(task.level);
        measure_steady(b, kernel, bytes, &settings, Shape::ONE, cv)
            .map_err(|e| format!("{}: {e}", kernel.decl.name))
    };
    let m = match guard {
        Some(g) => g.measure(bench, measure).map(|(m, _)| m),
        None => measure(bench),
    }
    .map_err(Error::Io)?;
    ctx.bar.inc(1);
    Ok(m)
}

/// The sizes a cache level's roof asks for beyond its range's, when its
/// plateau is short ([`plateau::refine`]); none for memory, whose rate does
/// not change with the size, for compute roofs and with `roof_from: median`.
fn refinement(task: &RoofTask, ms: &[Measurement]) -> Vec<u64> {
    if task.roof_from != RoofFrom::Plateau || task.level.is_none_or(|l| l.is_memory()) {
        return Vec::new();
    }
    let per_cycle: Vec<f64> = ms.iter().map(Measurement::per_cycle).collect();
    let sizes: Vec<u64> = ms.iter().map(|m| m.bytes_per_thread).collect();
    plateau::plateau(&per_cycle, task.scope.cv_limit()).map_or(Vec::new(), |p| {
        plan::spans(task.kernel, &plateau::refine(&sizes, &p), &sizes)
    })
}

/// The core guard of a set of roofs: probing with the FMA kernel of `isa`
/// (or of the first ISA with one) and the first precision with a 1-thread
/// FMA roof, against that roof, and with the load kernel of that ISA
/// against its 1-thread L1 load roof, on the middle of that roof's sizes,
/// while told to; none without such an FMA roof.
pub fn core_guard(roofs: &[Roof], isa: Option<Isa>) -> Option<CoreGuard> {
    let fma = roofs.iter().find(|r| {
        r.kind == Kind::Compute
            && r.op == Some(Op::Fma)
            && r.threads == 1
            && isa.is_none_or(|i| r.isa == i)
    })?;
    let k = kernels::find(fma.isa, Role::Compute(Op::Fma, fma.precision?))?;
    let load = roofs
        .iter()
        .find(|r| {
            r.kind == Kind::Bandwidth
                && r.level == Some(Level::L1)
                && r.mix == Some(Mix::Load)
                && r.threads == 1
                && r.isa == fma.isa
        })
        .and_then(|r| {
            let mut sizes: Vec<u64> = r.sizes.iter().map(|s| s.bytes_per_thread).collect();
            sizes.sort_unstable();
            Some(Probe::new(
                kernels::find(r.isa, Role::Bandwidth(Mix::Load))?,
                *sizes.get(sizes.len() / 2)?,
                r.per_cycle,
            ))
        });
    Some(CoreGuard::new(
        Probe::new(k, 0, fma.per_cycle),
        load,
        WAIT_BUDGET,
    ))
}

#[cfg(test)]
mod tests {
    use super::plan::tests::tasks_with;
    use super::*;
    use crate::kernels::Mix;
    use crate::machine::{Machine, Source};
    use crate::measure::fake::{Call, FakeRig, Outcome};
    use std::cell::Cell;
    use std::rc::Rc;

    fn machine() -> Machine {
        Machine::load(&Source::Synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:1".into(),
        ))
        .unwrap()
    }

    fn settings() -> Settings {
        Settings::new(Duration::from_millis(1), 3)
    }

    /// One size per level, without the curve's sizes between levels.
    fn todo() -> Vec<RoofTask> {
        tasks_with(
            &machine(),
            "isa: [scalar]\nmixes: [load]\nops: [fma]\nlevels: [L1, L3]\nthreads: [1, 2]\nsizes_per_level: 1",
        )
        .into_iter()
        .map(|t| RoofTask {
            between: Vec::new(),
            between_levels: Vec::new(),
            ..t
        })
        .collect()
    }

    /// Runs `measure_all` on a fake whose outcome for each call `outcome`
    /// gives; the roofs and the calls.
    fn run(outcome: impl FnMut(&Call) -> Outcome + 'static) -> (Vec<Roof>, Vec<Call>) {
        let mut rig = FakeRig::new(outcome);
        let todo = todo();
        let m = measure_all(&mut rig, &todo, settings(), None, &ProgressBar::hidden()).unwrap();
        (m.roofs, rig.measured())
    }

    fn is_l3(c: &Call) -> bool {
        c.bytes >= 1 << 20
    }

    #[test]
    fn dram_roofs_measure_their_paced_form_once_and_record_it() {
        let todo = tasks_with(
            &machine(),
            "isa: [avx2]\nmixes: [load, store]\nops: []\nlevels: [L3, DRAM]\nthreads: [1]\nsizes_per_level: 3",
        );
        // Only DRAM's load mix has a paced form among these.
        let with: Vec<&RoofTask> = todo.iter().filter(|t| t.paced.is_some()).collect();
        assert_eq!(with.len(), 1);
        assert_eq!(
            (with[0].level, with[0].kernel.decl.mix),
            (Some(Level::Dram), Some(Mix::Load))
        );
        // The paced form 25 % faster than the plain one.
        let mut rig = FakeRig::new(|c| {
            let paced = kernels::named(c.kernel).unwrap().decl.pace > 0;
            Outcome::steady(if paced { 10.0 } else { 8.0 })
        });
        let m = measure_all(&mut rig, &todo, settings(), None, &ProgressBar::hidden()).unwrap();
        let calls = rig.measured();
        let paced_calls: Vec<&Call> = calls
            .iter()
            .filter(|c| c.kernel.ends_with("_paced"))
            .collect();
        assert_eq!(paced_calls.len(), 1, "{calls:?}");
        // Once, at the middle of the roof's sizes.
        assert_eq!(paced_calls[0].bytes, with[0].sizes[with[0].sizes.len() / 2]);
        // Every roof is its bare kernel's; the DRAM load roof records the
        // paced rate beside it.
        for r in &m.roofs {
            let paced = r.level == Some(Level::Dram) && r.mix == Some(Mix::Load);
            assert!(!r.kernel.ends_with("_paced"), "{r:?}");
            assert!((r.per_cycle - 8.0).abs() < 1e-9);
            match (paced, r.paced_gb_per_s) {
                (true, Some(p)) => assert!((p - 10.0 * r.clock_ghz).abs() < 1e-9, "{r:?}"),
                (false, None) => {}
                _ => panic!("paced rate of {r:?}"),
            }
        }
        // The curve is the bare form's.
        assert!(
            m.curves
                .iter()
                .flat_map(|c| &c.points)
                .all(|p| (p.per_cycle - 8.0).abs() < 1e-9)
        );
    }

    #[test]
    fn the_curves_hold_every_size_of_each_mix_and_thread_count() {
        let todo = tasks_with(
            &machine(),
            "isa: [scalar]\nmixes: [load, store]\nops: [fma]\nthreads: [1, 2]\nsizes_per_level: 3",
        );
        let mut rig =
            FakeRig::new(|c| Outcome::steady(c.threads as f64 * (1e9 / c.bytes.max(1) as f64)));
        let m = measure_all(&mut rig, &todo, settings(), None, &ProgressBar::hidden()).unwrap();
        // load and store, 1 and 2 threads.
        assert_eq!(m.curves.len(), 4);
        let sizes = |threads: usize| -> usize {
            todo.iter()
                .filter(|t| t.threads == threads && t.kernel.decl.mix == Some(Mix::Load))
                .map(|t| t.sizes.len() + t.between.len())
                .sum()
        };
        for c in &m.curves {
            assert_eq!(c.points.len(), sizes(c.threads), "{c:?}");
            assert!(
                c.points
                    .windows(2)
                    .all(|w| w[0].bytes_per_thread < w[1].bytes_per_thread)
            );
            // Levels in hierarchy order along the curve.
            assert!(c.points.windows(2).all(|w| w[0].level <= w[1].level));
            assert_eq!(c.points.first().unwrap().level, Level::L1);
            assert_eq!(c.points.last().unwrap().level, Level::Dram);
        }
        // Every level's sizes, and some between each level and the next.
        assert!(sizes(1) >= 4 * 3 + 3, "{}", sizes(1));
    }

    #[test]
    fn a_plateau_narrower_than_a_step_is_measured_between_and_gives_the_roof() {
        // L2 loads as on Zen 5: 47 B/cycle to 450 KiB, 61 to 700, 57 beyond.
        let todo: Vec<RoofTask> = tasks_with(
            &machine(),
            "isa: [scalar]\nmixes: [load]\nops: []\nlevels: [L2]\nthreads: [1]",
        )
        .into_iter()
        .map(|t| RoofTask {
            between: Vec::new(),
            between_levels: Vec::new(),
            ..t
        })
        .collect();
        let rate = |b: u64| match b >> 10 {
            0..=450 => 47.0,
            451..=700 => 61.0,
            _ => 57.0,
        };
        let mut rig = FakeRig::new(move |c| Outcome::steady(rate(c.bytes)));
        let m = measure_all(&mut rig, &todo, settings(), None, &ProgressBar::hidden()).unwrap();
        let r = &m.roofs[0];
        // The range's 6 sizes (one of them, 506 KiB, in the window), then
        // one between each pair around the short plateau: 411 and 623 KiB.
        let asked: Vec<u64> = rig.measured().iter().map(|c| c.bytes >> 10).collect();
        assert_eq!(asked.len(), 8, "{asked:?}");
        assert_eq!(&asked[6..], [411, 623]);
        assert!((r.per_cycle - 61.0).abs() < 1e-9, "{}", r.per_cycle);
        assert_eq!(r.plateau, Some([506 << 10, 623 << 10]));
        assert_eq!(r.sizes.len(), 8);
        assert!(
            m.curves[0]
                .points
                .iter()
                .any(|p| p.bytes_per_thread == 623 << 10)
        );
        // With `roof_from: median`, no sizes beyond the range's (its sizes
        // disagree, so it is measured again: at them too).
        let median: Vec<RoofTask> = todo
            .iter()
            .map(|t| RoofTask {
                roof_from: RoofFrom::Median,
                ..t.clone()
            })
            .collect();
        let mut rig = FakeRig::new(move |c| Outcome::steady(rate(c.bytes)));
        measure_all(&mut rig, &median, settings(), None, &ProgressBar::hidden()).unwrap();
        let calls = rig.measured();
        assert!(calls.iter().all(|c| todo[0].sizes.contains(&c.bytes)));
        assert_eq!(calls.len() % 6, 0);
    }

    #[test]
    fn steady_roofs_are_measured_once() {
        let (roofs, calls) = run(|c| Outcome::steady(4.0 * c.threads as f64));
        assert_eq!(roofs.len(), todo().len());
        assert_eq!(calls.len(), todo().len());
        assert!(roofs.iter().all(|r| r.flags.is_empty()), "{roofs:?}");
    }

    #[test]
    fn a_disturbed_roof_is_measured_again_and_the_faster_kept() {
        // The 1-thread L3 roof's first three attempts are noisy, slow and
        // disagree (a host busy for longer than the attempts); later ones
        // are steady.
        let seen = Rc::new(Cell::new(0));
        let n = Rc::clone(&seen);
        let (roofs, calls) = run(move |c| {
            if is_l3(c) && c.threads == 1 && n.get() < 3 {
                n.set(n.get() + 1);
                Outcome {
                    cv: 0.3,
                    ..Outcome::steady(n.get() as f64)
                }
            } else {
                Outcome::steady(4.0 * c.threads as f64)
            }
        });
        let l3 = roofs
            .iter()
            .find(|r| r.level == Some(Level::L3) && r.threads == 1)
            .unwrap();
        assert!((l3.per_cycle - 4.0).abs() < 1e-9, "{l3:?}");
        assert!(l3.flags.is_empty(), "the round's flags are kept");
        // Three attempts in the first pass, one in the round.
        let l3_calls = calls.iter().filter(|c| is_l3(c) && c.threads == 1).count();
        assert_eq!(l3_calls, 4);
        // The others were steady: measured once.
        assert_eq!(calls.len(), todo().len() + 3);
    }

    #[test]
    fn rounds_take_the_core_own_roofs_first_and_stop_at_the_deadline() {
        // Every roof always noisy: rounds until the deadline.
        let (_, calls) = run(|c| Outcome {
            cv: 0.3,
            per_cycle: 4.0 * c.threads as f64 + if is_l3(c) { 0.0 } else { 0.5 },
            ..Outcome::steady(0.0)
        });
        let n = todo().len();
        // The first pass: each roof twice (two noisy attempts that agree).
        let first_pass = 2 * n;
        let first_end = calls[first_pass].at;
        let deadline = first_end + first_end.mul_f64(ROUNDS_SHARE);
        assert!(calls.len() > first_pass, "rounds ran");
        // No measurement started after the deadline: a round's last task may
        // finish past it, none begins.
        assert!(
            calls
                .iter()
                .all(|c| c.at < deadline + Duration::from_millis(60))
        );
        let round: Vec<&Call> = calls[first_pass..].iter().collect();
        // In a round, the 2-thread L1 roof (the core's own) comes before
        // the 1-thread L3 roof (shared), though planned after it.
        let pos = |pred: &dyn Fn(&Call) -> bool| round.iter().position(|c| pred(c));
        let l1_two = pos(&|c| !is_l3(c) && c.bytes > 0 && c.threads == 2).unwrap();
        let l3_one = pos(&|c| is_l3(c) && c.threads == 1);
        assert!(l3_one.is_none_or(|p| l1_two < p), "{l1_two} vs {l3_one:?}");
    }

    #[test]
    fn an_all_core_roof_at_one_core_worth_is_flagged_shared_core() {
        let (roofs, _) = run(|c| Outcome::steady(4.0 + if is_l3(c) { 4.0 } else { 0.0 }));
        let flagged: Vec<(usize, Option<Level>)> = roofs
            .iter()
            .filter(|r| r.has(Flag::SharedCore))
            .map(|r| (r.threads, r.level))
            .collect();
        assert_eq!(flagged, [(2, Some(Level::L1)), (2, None)]);
    }

    #[test]
    fn the_guard_probes_with_the_one_thread_fma_and_l1_load_roofs() {
        let doc = crate::fixture();
        let g = core_guard(&doc.roofs, Some(Isa::Avx512)).unwrap();
        let l1 = doc
            .roofs
            .iter()
            .find(|r| r.level == Some(Level::L1) && r.mix == Some(Mix::Load) && r.threads == 1)
            .unwrap();
        let mut sizes: Vec<u64> = l1.sizes.iter().map(|s| s.bytes_per_thread).collect();
        sizes.sort_unstable();
        assert!(
            g.alloc() as u64 >= sizes[sizes.len() / 2],
            "the load probe's buffer"
        );
        // Without a 1-thread L1 load roof, no load probe; without a 1-thread
        // FMA roof, no guard.
        let no_l1: Vec<Roof> = doc
            .roofs
            .iter()
            .filter(|r| !(r.level == Some(Level::L1) && r.threads == 1))
            .cloned()
            .collect();
        assert_eq!(core_guard(&no_l1, Some(Isa::Avx512)).unwrap().alloc(), 0);
        let no_fma: Vec<Roof> = doc
            .roofs
            .iter()
            .filter(|r| r.op != Some(Op::Fma))
            .cloned()
            .collect();
        assert!(core_guard(&no_fma, None).is_none());
    }
}
