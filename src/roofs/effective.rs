//! How many cores' worth a machine gives its threads, where its all-thread
//! roofs of per-core resources fall short: a VM whose host gives its 16
//! vCPUs about 8 cores' time when all run (any two run together at full
//! speed, so no pair is SMT siblings), a container under a CPU quota. A
//! quota is read ([`crate::machine::cgroup`]); otherwise one compute kernel
//! is measured at 1, 2, 4, ... all threads and the most it reaches over its
//! 1-thread rate is the cores' worth. The limits (and the % of them) of
//! roofs with more threads count that many cores; the roofs stay as
//! measured.

use super::plan::RoofTask;
use super::remeasure::scaling;
use crate::error::{Error, Result};
use crate::kernels::{Kind, Shape};
use crate::measure::bench::{Rig, Settings, measure_steady};
use crate::results::{CoresFoundBy, EffectiveCores, Flag, Roof};

/// Median per-thread share of the all-thread compute roofs (of their
/// 1-thread roofs) below which the cores' worth is measured: a machine
/// that gives every thread its core reaches 0.9 and more.
pub const SHORT: f64 = 0.75;

/// The cores' worth the machine gives the most threads of `todo`, when a
/// quota or the roofs say it is fewer than them.
pub fn find(
    rig: &mut impl Rig,
    todo: &[RoofTask],
    roofs: &[Roof],
    quota: Option<f64>,
    settings: Settings,
) -> Result<Option<EffectiveCores>> {
    let most = todo.iter().map(|t| t.threads).max().unwrap_or(1);
    if most < 2 {
        return Ok(None);
    }
    if let Some(q) = quota.filter(|q| *q < most as f64 - 0.05) {
        return Ok(Some(EffectiveCores {
            threads: most,
            cores: q.max(0.01),
            found_by: CoresFoundBy::Quota,
        }));
    }
    // The all-thread compute roofs of per-core resources, by their share.
    let mut shares: Vec<(f64, &RoofTask)> = (todo.iter().zip(roofs))
        .filter(|(t, r)| t.threads == most && t.one_per_thread && r.kind == Kind::Compute)
        .filter_map(|(t, r)| Some((scaling(roofs, r)?, t)))
        .collect();
    shares.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some(&(median, task)) = shares.get(shares.len() / 2) else {
        return Ok(None);
    };
    if median >= SHORT {
        return Ok(None);
    }
    let mut counts: Vec<usize> = (0..).map(|k| 1 << k).take_while(|t| *t < most).collect();
    counts.push(most);
    let mut rates = Vec::new();
    for t in counts {
        let m = rig
            .with_bench(t, 0, |b| {
                measure_steady(
                    b,
                    task.kernel,
                    0,
                    &settings,
                    Shape::ONE,
                    task.scope.cv_limit(),
                )
            })
            .and_then(|m| m)
            .map_err(Error::Io)?;
        rates.push((t, m.value() / 1e9));
    }
    let one = rates[0].1;
    let best = rates.iter().map(|(_, r)| r / one).fold(1.0, f64::max);
    Ok(Some(EffectiveCores {
        threads: most,
        cores: best.min(most as f64),
        found_by: CoresFoundBy::Scaling {
            kernel: task.kernel.decl.name.to_string(),
            rates,
        },
    }))
}

/// The limits of roofs with more threads than `e`'s cores count its cores
/// when the cores' worth was measured, their % of them follows, and the
/// shared-core flag the machine explains goes. A quota's limits stay the
/// hardware's: a quota bounds CPU time over its period, not speed, and a
/// sample far shorter than the period runs each thread at a whole core's
/// speed until the quota is spent (then it waits, and reads slow).
pub fn apply(roofs: &mut [Roof], e: &EffectiveCores) {
    for r in roofs.iter_mut().filter(|r| r.threads as f64 > e.cores) {
        r.flags.retain(|f| *f != Flag::SharedCore);
        let Some(t) = r
            .theoretical_per_cycle
            .filter(|_| e.found_by != CoresFoundBy::Quota)
        else {
            continue;
        };
        let limit = t / r.threads as f64 * e.cores;
        let percent = 100.0 * r.per_cycle / limit;
        r.theoretical_per_cycle = Some(limit);
        r.percent_of_theoretical = Some(percent);
        if crate::config::limits::above(percent, r.cv) && !r.flags.contains(&Flag::AboveTheoretical)
        {
            r.flags.push(Flag::AboveTheoretical);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::CpuId;
    use crate::kernels::Op;
    use crate::machine::{Machine, Source};
    use crate::measure::fake::{FakeRig, Outcome};
    use crate::roofs::measure_all;
    use crate::roofs::plan::tests::tasks_with;
    use indicatif::ProgressBar;
    use std::time::Duration;

    /// A 16-core machine's roofs, measured on a fake that gives `threads`
    /// threads `gives(threads)` cores' worth, with Emerald Rapids' limits.
    fn measured(gives: fn(usize) -> f64) -> (FakeRig, Vec<RoofTask>, Vec<Roof>) {
        let m = Machine::load(&Source::Synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:16 l2:1(size=2MiB) l1d:1(size=48KiB) pu:1".into(),
        ))
        .unwrap();
        let plan = "isa: [scalar]\nmixes: [load]\nops: [fma, add]\nlevels: [L1]\nthreads: [1, 16]\nsizes_per_level: 1";
        let todo = tasks_with(&m, plan);
        let mut rig = FakeRig::new(move |c| Outcome::steady(4.0 * gives(c.threads)));
        let emr = CpuId {
            vendor: "GenuineIntel".into(),
            family: 6,
            model: 0xCF,
        };
        let uarch = crate::config::limits::of(&emr);
        let bar = ProgressBar::hidden();
        let roofs = measure_all(&mut rig, &todo, settings(), uarch.as_ref(), &bar).unwrap();
        (rig, todo, roofs.roofs)
    }

    fn settings() -> Settings {
        Settings::new(Duration::from_millis(1), 3)
    }

    #[test]
    fn a_machine_that_gives_16_threads_8_cores_is_said_to_and_its_limits_follow() {
        let (mut rig, todo, mut roofs) = measured(|t| t.min(8) as f64);
        let e = find(&mut rig, &todo, &roofs, None, settings())
            .unwrap()
            .unwrap();
        assert_eq!((e.threads, e.cores), (16, 8.0));
        let CoresFoundBy::Scaling { rates, .. } = &e.found_by else {
            panic!("{e:?}")
        };
        let counts: Vec<usize> = rates.iter().map(|r| r.0).collect();
        assert_eq!(counts, [1, 2, 4, 8, 16]);
        assert!(
            e.sentence().starts_with("16 threads get 8.0 cores' worth"),
            "{}",
            e.sentence()
        );
        // The 16-thread FMA roof stays as measured, its limit that of 8
        // cores: the same % as one thread of its core.
        let before: Vec<f64> = roofs.iter().map(Roof::value).collect();
        apply(&mut roofs, &e);
        assert_eq!(before, roofs.iter().map(Roof::value).collect::<Vec<_>>());
        let fma = |t: usize| {
            let r = roofs
                .iter()
                .find(|r| r.threads == t && r.op == Some(Op::Fma))
                .unwrap();
            (
                r.percent_of_theoretical.unwrap(),
                r.flags.contains(&Flag::SharedCore),
            )
        };
        assert!(
            (fma(16).0 - fma(1).0).abs() < 1e-9,
            "{:?} {:?}",
            fma(16),
            fma(1)
        );
        assert!(!fma(16).1);
    }

    #[test]
    fn a_quota_is_taken_as_it_is_and_a_machine_that_gives_every_core_is_left_alone() {
        let (mut rig, todo, roofs) = measured(|t| t as f64);
        assert_eq!(
            find(&mut rig, &todo, &roofs, None, settings()).unwrap(),
            None
        );
        let sweeps = rig.measured().len();
        let q = find(&mut rig, &todo, &roofs, Some(2.5), settings())
            .unwrap()
            .unwrap();
        assert_eq!((q.cores, &q.found_by), (2.5, &CoresFoundBy::Quota));
        // A quota leaves every limit the hardware's, 1-thread roofs' too
        // under a quota below one core: samples far shorter than its
        // period run at a whole core's speed.
        let half = EffectiveCores {
            cores: 0.5,
            ..q.clone()
        };
        let mut under = roofs.clone();
        for r in under.iter_mut().filter(|r| r.threads == 16) {
            r.flags.push(Flag::SharedCore);
        }
        apply(&mut under, &half);
        for (a, b) in under.iter().zip(&roofs) {
            assert_eq!(a.theoretical_per_cycle, b.theoretical_per_cycle);
            assert_eq!(a.percent_of_theoretical, b.percent_of_theoretical);
            assert!(!a.flags.contains(&Flag::SharedCore), "{:?}", a.flags);
        }
        assert!(
            half.sentence().contains("the limits are the hardware's"),
            "{}",
            half.sentence()
        );
        // A quota is read, not measured; one of the threads or more is none.
        assert_eq!(rig.measured().len(), sweeps);
        assert_eq!(
            find(&mut rig, &todo, &roofs, Some(16.0), settings()).unwrap(),
            None
        );
    }
}
