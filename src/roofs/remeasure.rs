//! Which roofs look disturbed after a first measurement, and are measured
//! again, seconds later, keeping the faster per cycle: on a shared host a
//! kernel can run slow for longer than its attempts.

use super::plan::RoofTask;
use crate::measure::guard::SHARED_BELOW;
use crate::results::{Flag, Roof};

/// Per-thread rate of an all-core roof of a per-core resource, as a fraction
/// of the 1-thread roof, below which a core counts as shared: the guard's
/// threshold.
pub const SCALING_FLOOR: f64 = SHARED_BELOW;

/// Rounds of measuring disturbed roofs again at most.
pub const ROUNDS: usize = 3;

/// The rounds take at most this share of the first measurement's time
/// (docs/methodology.md: as long again took half the default plan's time
/// on a shared 2-core guest).
pub const ROUNDS_SHARE: f64 = 0.4;

/// Those rounds take this many times the plan's samples: with several
/// threads every core must be left alone at the same moment, which a shared
/// host does less often than it leaves one.
pub const ROUND_SAMPLES: usize = 4;

/// Per-core roofs below this % of their theoretical limit are measured
/// again: undisturbed, a core's own caches and FP pipes reach nearly all of
/// theirs. The value kept is still only what was measured.
pub const BELOW_LIMIT_PERCENT: f64 = 90.0;

/// Per-core roofs at or above this % of their theoretical limit are not
/// measured again for noisy samples alone: noise only slows, so there is
/// nothing left to find.
pub const AT_LIMIT_PERCENT: f64 = 97.0;

/// Per-thread value of a multi-thread roof over the 1-thread value of the
/// same roof; `None` for 1-thread roofs or without a 1-thread roof.
pub fn scaling(roofs: &[Roof], r: &Roof) -> Option<f64> {
    if r.threads < 2 {
        return None;
    }
    let one = roofs
        .iter()
        .find(|o| o.threads == 1 && o.same_roof_any_threads(r))?;
    let x = r.value() / (r.threads as f64 * one.value());
    x.is_finite().then_some(x)
}

/// Indices of the roofs (measured in the order of `todo`) of resources each
/// thread has to itself whose per-thread value is below [`SCALING_FLOOR`]
/// of 1 thread: other work shared a core.
pub fn poorly_scaling(todo: &[RoofTask], roofs: &[Roof]) -> Vec<usize> {
    todo.iter()
        .zip(roofs)
        .enumerate()
        .filter(|(_, (t, r))| {
            t.one_per_thread && scaling(roofs, r).is_some_and(|x| x < SCALING_FLOOR)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Indices of the 1-thread roofs of resources each thread has to itself
/// that an all-core roof beats per thread by more than the CV limit: one
/// thread alone cannot be slower than each of several, so the 1-thread
/// roof was slowed by other work for all its attempts.
pub fn slow_alone(todo: &[RoofTask], roofs: &[Roof]) -> Vec<usize> {
    let pairs: Vec<(&RoofTask, &Roof)> = todo.iter().zip(roofs).collect();
    let mut out: Vec<usize> = pairs
        .iter()
        .filter(|(t, r)| {
            t.one_per_thread && scaling(roofs, r).is_some_and(|x| x > 1.0 + t.scope.cv_limit())
        })
        .filter_map(|(_, r)| {
            pairs
                .iter()
                .position(|(_, o)| o.threads == 1 && o.same_roof_any_threads(r))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Indices of the roofs that look disturbed, in the order to measure them
/// again (the core's own resources first: they have a limit to reach and a
/// round can end at its deadline): noisy samples, clock drift, steal or
/// sizes that disagree (unless a per-core roof is already at its limit), a
/// resource that scales badly with the threads or whose 1-thread roof is
/// beaten per thread by its all-core roof, or a per-core roof far below its
/// theoretical limit.
pub fn suspect(todo: &[RoofTask], roofs: &[Roof]) -> Vec<usize> {
    let mut out: Vec<usize> = todo
        .iter()
        .zip(roofs)
        .enumerate()
        .filter(|(_, (t, r))| {
            let pct = r.percent_of_theoretical.filter(|_| t.scope.own_core());
            let noisy = [
                Flag::HighCv,
                Flag::ClockDrift,
                Flag::SizesDisagree,
                Flag::Steal,
            ]
            .into_iter()
            .any(|f| r.has(f));
            (noisy && !pct.is_some_and(|p| p >= AT_LIMIT_PERCENT))
                || pct.is_some_and(|p| p < BELOW_LIMIT_PERCENT)
        })
        .map(|(i, _)| i)
        .collect();
    out.extend(poorly_scaling(todo, roofs));
    out.extend(slow_alone(todo, roofs));
    out.sort_unstable();
    out.dedup();
    out.sort_by_key(|&i| !todo[i].scope.own_core());
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::plan::tests::tasks_with;
    use super::*;
    use crate::machine::{Level, Machine, Source};

    fn machine() -> Machine {
        Machine::load(&Source::Synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:1".into(),
        ))
        .unwrap()
    }

    /// One roof per task, `10 × threads` GB/s each, flags and limits unset.
    pub fn roofs_for(todo: &[RoofTask]) -> Vec<Roof> {
        let base = crate::fixture().roofs[0].clone();
        todo.iter()
            .map(|t| Roof {
                kernel: t.kernel.decl.name.to_string(),
                level: t.level,
                threads: t.threads,
                gb_per_s: Some(10.0 * t.threads as f64),
                gflop_per_s: None,
                flags: Vec::new(),
                percent_of_theoretical: None,
                ..base.clone()
            })
            .collect()
    }

    fn label(todo: &[RoofTask], v: Vec<usize>) -> Vec<(usize, Option<Level>)> {
        v.into_iter()
            .map(|i| (todo[i].threads, todo[i].level))
            .collect()
    }

    #[test]
    fn only_per_core_roofs_that_scale_badly_or_too_well_are_measured_again() {
        let todo = tasks_with(
            &machine(),
            "isa: [scalar]\nmixes: [load]\nops: [fma]\nlevels: [L1, L3]\nthreads: [1, 2]",
        );
        let mut roofs = roofs_for(&todo);
        assert!(poorly_scaling(&todo, &roofs).is_empty());
        // Every 2-thread roof at the rate of 1 thread: L1 and FP are
        // reported, L3 (one instance for both cores) is not.
        for r in roofs.iter_mut().filter(|r| r.threads == 2) {
            r.gb_per_s = Some(10.0);
        }
        assert_eq!(
            label(&todo, poorly_scaling(&todo, &roofs)),
            [(2, Some(Level::L1)), (2, None)]
        );
        assert!(slow_alone(&todo, &roofs).is_empty());
        // Every 1-thread roof at 2/3 of each of two threads: the per-core
        // ones (L1, FP) were slowed alone and are measured again, L3 not.
        for r in roofs.iter_mut() {
            r.gb_per_s = Some(if r.threads == 1 { 10.0 } else { 30.0 });
        }
        assert_eq!(
            label(&todo, slow_alone(&todo, &roofs)),
            [(1, Some(Level::L1)), (1, None)]
        );
        // Within the CV limit (2% above one thread) is no sign of it.
        for r in roofs.iter_mut().filter(|r| r.threads == 2) {
            r.gb_per_s = Some(20.4);
        }
        assert!(slow_alone(&todo, &roofs).is_empty());
    }

    #[test]
    fn disturbed_roofs_are_suspect_per_core_ones_first() {
        let todo = tasks_with(
            &machine(),
            "isa: [scalar]\nmixes: [load]\nops: [fma]\nlevels: [L1, L3]\nthreads: [1, 2]",
        );
        let mut roofs = roofs_for(&todo);
        for r in roofs.iter_mut() {
            r.percent_of_theoretical = Some(98.0);
        }
        assert!(suspect(&todo, &roofs).is_empty());
        // Far below its limit: the per-core 1-thread L1 roof is suspect, the
        // L3 roof (shared, often far below its limit) is not.
        for r in roofs.iter_mut().filter(|r| r.threads == 1) {
            r.percent_of_theoretical = Some(70.0);
        }
        assert_eq!(
            label(&todo, suspect(&todo, &roofs)),
            [(1, Some(Level::L1)), (1, None)]
        );
        for r in roofs.iter_mut() {
            r.percent_of_theoretical = None;
        }
        // Noisy but at its limit: nothing left to find.
        roofs[0].flags.push(Flag::HighCv);
        roofs[0].percent_of_theoretical = Some(99.0);
        assert!(todo[0].scope.own_core() && suspect(&todo, &roofs).is_empty());
        roofs[0].flags.clear();
        roofs[0].percent_of_theoretical = None;
        // Time the host took from the CPUs: suspect too, shared level or not.
        let l3 = todo
            .iter()
            .position(|t| t.level == Some(Level::L3))
            .unwrap();
        roofs[l3].flags.push(Flag::Steal);
        assert_eq!(suspect(&todo, &roofs), [l3]);
        // A noisy L3 roof and a badly scaling 2-thread L1 roof: the L1 roof,
        // the core's own, is measured first.
        roofs[l3].flags = vec![Flag::HighCv];
        let i2 = todo
            .iter()
            .position(|t| t.threads == 2 && t.level == Some(Level::L1))
            .unwrap();
        roofs[i2].gb_per_s = Some(10.0);
        assert_eq!(suspect(&todo, &roofs), [i2, l3]);
    }

    #[test]
    fn scaling_compares_each_thread_with_one_thread_alone() {
        let todo = tasks_with(
            &machine(),
            "isa: [scalar]\nmixes: []\nops: [fma]\nthreads: [1, 2]",
        );
        let mut roofs = roofs_for(&todo);
        assert_eq!(scaling(&roofs, &roofs[0]), None);
        assert_eq!(scaling(&roofs, &roofs[1]), Some(1.0));
        roofs[1].gb_per_s = Some(10.0);
        assert_eq!(scaling(&roofs, &roofs[1]), Some(0.5));
        assert_eq!(poorly_scaling(&todo, &roofs), [1]);
    }
}
