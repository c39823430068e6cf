//! Whether each thread of a bench has a physical core to itself right now.
//!
//! A cloud host can put two of a guest's vCPUs on the two SMT siblings of
//! one physical core for a while, or run them on one hardware thread in
//! turn, and tenants on the siblings compete for the core's pipes. A
//! multi-thread measurement taken then measures one core, not `threads` of
//! them. The guard runs the FMA kernel briefly on every thread and compares
//! its rate per cycle with `threads` times the 1-thread FMA roof.
//!
//! A tenant on an SMT sibling that takes the core's load path does not show
//! in an FMA probe, so the guard can also probe with the L1 load roof's
//! kernel, for measurements that need the core's load path (its own
//! caches). How often and how long such spells last on a shared host is in
//! docs/evidence.md ("Shared cores").

use std::time::Duration;

use super::bench::{Bench, Measurement};
use super::keep_faster;
use crate::kernels::{Kernel, Shape};

/// A probe below this fraction of `threads` x the 1-thread rate found the
/// threads sharing cores: two threads on one core give one half, a tenant
/// on a sibling less, while undisturbed probes sit well above it. The same
/// fraction as a `shared_core` roof's scaling.
pub const SHARED_BELOW: f64 = 0.85;

/// Length of the probe's one run.
const PROBE: Duration = Duration::from_millis(1);

/// Pause between probes while the threads share a core.
const PAUSE: Duration = Duration::from_millis(10);

/// Time, in all, one command's guard spends waiting for cores and measuring
/// again: enough to outlast the usual spells, bounded so that a host that
/// shares cores for minutes does not double the run.
pub const WAIT_BUDGET: Duration = Duration::from_secs(2);

/// Longest single wait for the threads to get their cores back.
pub const WAIT_AT_MOST: Duration = Duration::from_millis(500);

/// What a guard saw.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sharing {
    /// Probes run.
    pub probes: usize,
    /// Of those, probes that ran the L1 load kernel beside the FMA one.
    pub load_probes: usize,
    /// Probes that found the threads sharing cores.
    pub shared: usize,
    /// Seconds spent waiting for the cores to be left alone.
    pub waited: f64,
    /// Measurements kept although the probe after them found shared cores
    /// that waiting did not outlast.
    pub kept_shared: usize,
}

impl std::ops::Add for Sharing {
    type Output = Sharing;
    fn add(self, o: Sharing) -> Sharing {
        Sharing {
            probes: self.probes + o.probes,
            load_probes: self.load_probes + o.load_probes,
            shared: self.shared + o.shared,
            waited: self.waited + o.waited,
            kept_shared: self.kept_shared + o.kept_shared,
        }
    }
}

impl std::ops::Sub for Sharing {
    type Output = Sharing;
    fn sub(self, o: Sharing) -> Sharing {
        Sharing {
            probes: self.probes - o.probes,
            load_probes: self.load_probes - o.load_probes,
            shared: self.shared - o.shared,
            waited: self.waited - o.waited,
            kept_shared: self.kept_shared - o.kept_shared,
        }
    }
}

/// One kernel a guard probes with: its 1-thread roof's kernel and size.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    /// The kernel.
    pub kernel: &'static Kernel,
    /// Buffer per thread (bandwidth kernels; 0 for compute).
    pub bytes: u64,
    /// Its 1-thread roof, per cycle.
    pub one_thread: f64,
    /// Passes of a run lasting [`PROBE`] (0 until the first probe).
    passes: u64,
    /// The fastest core clock its probes read, GHz: one clock probe that
    /// other work disturbs reads low and would put the kernel's rate per
    /// cycle above its roof, hiding a shared core; so, as for a
    /// measurement, the clock is the fastest read so far.
    ghz: f64,
}

impl Probe {
    /// A probe of `kernel` over `bytes` per thread against `one_thread`
    /// per cycle.
    pub fn new(kernel: &'static Kernel, bytes: u64, one_thread: f64) -> Self {
        Probe {
            kernel,
            bytes,
            one_thread,
            passes: 0,
            ghz: 0.0,
        }
    }

    /// Whether every thread of `bench` ran it at its 1-thread rate (see
    /// [`is_alone`]), from one run of [`PROBE`].
    fn alone(&mut self, bench: &dyn Bench) -> Result<bool, String> {
        let (rate, ghz) = bench.quick_rate(self.kernel, self.bytes, PROBE, &mut self.passes)?;
        self.ghz = self.ghz.max(ghz);
        Ok(is_alone(
            rate / 1e9 / self.ghz,
            bench.threads(),
            self.one_thread,
        ))
    }
}

/// Probes a bench for shared cores and waits them out, within a budget of
/// time, waiting and measuring again, for all its uses.
#[derive(Debug)]
pub struct CoreGuard {
    /// The FMA probe, run every time.
    fma: Probe,
    /// The L1 load probe, run beside it while `loads` is on.
    load: Option<Probe>,
    /// Whether the measurements guarded now need the core's load path.
    loads: bool,
    /// Time left for waiting and measuring again.
    budget: Duration,
    /// What it saw so far.
    pub seen: Sharing,
}

impl CoreGuard {
    /// A guard probing with `fma` (and `load`, while
    /// [`CoreGuard::guard_loads`] is on), spending `budget` at most in all
    /// on waiting and measuring again.
    pub fn new(fma: Probe, load: Option<Probe>, budget: Duration) -> Self {
        CoreGuard {
            fma,
            load,
            loads: false,
            budget,
            seen: Sharing::default(),
        }
    }

    /// Whether the measurements guarded from now on need the core's load
    /// path (the core's own caches): the load probe runs beside the FMA one.
    pub fn guard_loads(&mut self, on: bool) {
        self.loads = on;
    }

    /// Bytes per thread the probes need in a bench's buffer.
    pub fn alloc(&self) -> usize {
        self.load.map_or(0, |p| {
            super::streams::alloc_for(p.kernel, p.bytes, Shape::ONE)
        })
    }

    /// Time left for waiting and measuring again.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// One probe: whether `bench`'s threads each had a core to themselves.
    pub fn alone(&mut self, bench: &dyn Bench) -> Result<bool, String> {
        // The load probe only when FMA found the cores alone: one shared
        // resource is answer enough.
        let mut alone = self.fma.alone(bench)?;
        if let Some(p) = self.load.as_mut().filter(|_| self.loads && alone) {
            alone = p.alone(bench)?;
            self.seen.load_probes += 1;
        }
        self.seen.probes += 1;
        self.seen.shared += usize::from(!alone);
        Ok(alone)
    }

    /// Probe; when the threads share cores, [`CoreGuard::wait`].
    pub fn wait_alone(&mut self, bench: &dyn Bench) -> Result<bool, String> {
        Ok(self.alone(bench)? || self.wait(bench)?)
    }

    /// After a probe found the threads sharing cores: pause and probe again
    /// until they are alone, for [`WAIT_AT_MOST`] and the budget left at
    /// most. Whether they were alone at the last probe.
    pub fn wait(&mut self, bench: &dyn Bench) -> Result<bool, String> {
        let start = bench.now();
        let limit = WAIT_AT_MOST.min(self.budget);
        let mut alone = false;
        while bench.now() - start + PAUSE <= limit && !super::interrupt::requested() {
            bench.pause(PAUSE);
            if self.alone(bench)? {
                alone = true;
                break;
            }
        }
        let spent = bench.now() - start;
        self.seen.waited += spent.as_secs_f64();
        self.budget = self.budget.saturating_sub(spent);
        Ok(alone)
    }

    /// `measure`, then a probe: when that found the threads sharing cores,
    /// wait for them to be alone and `measure` again, keeping the faster per
    /// cycle. Also whether the measurement kept was followed by shared cores
    /// that waiting did not outlast.
    pub fn measure(
        &mut self,
        bench: &dyn Bench,
        mut measure: impl FnMut(&dyn Bench) -> Result<Measurement, String>,
    ) -> Result<(Measurement, bool), String> {
        let mut m = measure(bench)?;
        if self.alone(bench)? {
            return Ok((m, false));
        }
        if !self.wait(bench)? {
            self.seen.kept_shared += 1;
            return Ok((m, true));
        }
        let start = bench.now();
        let again = measure(bench)?;
        self.budget = self.budget.saturating_sub(bench.now() - start);
        keep_faster(&mut m, again);
        Ok((m, false))
    }
}

/// Whether a probe of `threads` threads at `per_cycle` in all ran at
/// [`SHARED_BELOW`] of `threads` x `one_thread` or more.
pub fn is_alone(per_cycle: f64, threads: usize, one_thread: f64) -> bool {
    per_cycle >= SHARED_BELOW * threads as f64 * one_thread
}

#[cfg(test)]
mod tests {
    use super::super::bench::Rig;
    use super::super::fake::{FakeRig, Outcome};
    use super::*;
    use crate::kernels::{Mix, Op, Precision, Role, find};
    use crate::machine::isa::Isa;

    fn fma() -> &'static Kernel {
        find(Isa::Avx2, Role::Compute(Op::Fma, Precision::Dp)).unwrap()
    }
    fn load() -> &'static Kernel {
        find(Isa::Avx2, Role::Bandwidth(Mix::Load)).unwrap()
    }

    /// A guard against 16 flop/cycle FMA and 64 B/cycle L1 loads per thread.
    fn guard(budget: Duration) -> CoreGuard {
        CoreGuard::new(
            Probe::new(fma(), 0, 16.0),
            Some(Probe::new(load(), 16 << 10, 64.0)),
            budget,
        )
    }

    #[test]
    fn two_threads_on_one_core_are_told_apart_from_two_cores() {
        // 16 flop/cycle per core.
        assert!(is_alone(31.0, 2, 16.0));
        assert!(is_alone(27.5, 2, 16.0));
        // One core's worth, and a tenant on a sibling taking a fifth.
        assert!(!is_alone(15.9, 2, 16.0));
        assert!(!is_alone(25.6, 2, 16.0));
        // One thread is alone unless something takes a sixth of its core.
        assert!(is_alone(14.0, 1, 16.0));
        assert!(!is_alone(13.3, 1, 16.0));
    }

    #[test]
    fn the_guard_waits_until_the_cores_are_back_and_measures_again() {
        // Two threads share one core for the first 100 ms (FMA at one core's
        // worth), then have two.
        let mut rig = FakeRig::scripted(vec![Outcome::steady(20.0), Outcome::steady(30.0)])
            .with_quick(|c| {
                if c.at < Duration::from_millis(100) {
                    16.0
                } else {
                    32.0
                }
            });
        let mut g = guard(WAIT_BUDGET);
        let (m, kept_shared) = rig
            .with_bench(2, 0, |b| {
                g.measure(b, |b| b.measure(fma(), 0, Shape::ONE, &settings()))
            })
            .unwrap()
            .unwrap();
        assert!(!kept_shared);
        // Measured twice, the faster kept.
        assert_eq!(rig.measured().len(), 2);
        assert!((m.per_cycle() - 30.0).abs() < 1e-9);
        // The second measurement began once a probe found the cores alone.
        assert!(rig.measured()[1].at >= Duration::from_millis(100));
        assert!(g.seen.shared >= 2 && g.seen.waited >= 0.07, "{:?}", g.seen);
        assert!(g.budget() < WAIT_BUDGET);
    }

    #[test]
    fn waiting_stops_at_its_limit_and_the_budget_runs_out() {
        // The cores never come back.
        let mut rig = FakeRig::scripted(vec![Outcome::steady(16.0)]).with_quick(|_| 16.0);
        let mut g = guard(Duration::from_millis(700));
        rig.with_bench(2, 0, |b| {
            // The first wait lasts WAIT_AT_MOST, not the whole budget.
            let t0 = b.now();
            let (_, kept_shared) = g
                .measure(b, |b| b.measure(fma(), 0, Shape::ONE, &settings()))
                .unwrap();
            assert!(kept_shared, "kept although shared");
            let waited = b.now() - t0;
            assert!(
                waited >= WAIT_AT_MOST - PAUSE * 2 && waited <= WAIT_AT_MOST + PROBE * 60,
                "{waited:?}"
            );
            // The next wait gets only what is left of 700 ms.
            assert!(g.budget() <= Duration::from_millis(210));
            let t1 = b.now();
            assert!(!g.wait_alone(b).unwrap());
            assert!(
                b.now() - t1 <= Duration::from_millis(260),
                "{:?}",
                b.now() - t1
            );
            // Spent: nothing more to wait.
            let t2 = b.now();
            assert!(!g.wait_alone(b).unwrap());
            assert!(b.now() - t2 <= PROBE * 2);
        })
        .unwrap();
        assert_eq!(rig.measured().len(), 1, "never measured again");
        assert_eq!(g.seen.kept_shared, 1);
        assert_eq!(g.seen.shared, g.seen.probes);
    }

    #[test]
    fn the_load_probe_runs_only_while_loads_are_guarded_and_fma_held() {
        // FMA always alone; L1 loads at half rate (a tenant on the sibling).
        let mut rig = FakeRig::scripted(vec![Outcome::steady(10.0)]).with_quick(|c| {
            if c.kernel.contains("load") {
                64.0
            } else {
                32.0
            }
        });
        let mut g = guard(Duration::ZERO);
        rig.with_bench(2, 0, |b| {
            assert!(g.alone(b).unwrap(), "FMA alone, loads not guarded");
            g.guard_loads(true);
            assert!(!g.alone(b).unwrap(), "the load path is shared");
        })
        .unwrap();
        let kernels: Vec<_> = rig.quick_calls().iter().map(|c| c.kernel).collect();
        assert_eq!(
            kernels,
            [fma().decl.name, fma().decl.name, load().decl.name]
        );
        assert_eq!(
            (g.seen.probes, g.seen.load_probes, g.seen.shared),
            (2, 1, 1)
        );
        assert!(g.alloc() as u64 >= 16 << 10);
        assert_eq!(
            CoreGuard::new(Probe::new(fma(), 0, 16.0), None, WAIT_BUDGET).alloc(),
            0
        );
    }

    fn settings() -> super::super::bench::Settings {
        super::super::bench::Settings::new(Duration::from_millis(2), 5)
    }
}
