//! Whether each thread of a pool has a physical core to itself right now.
//!
//! A cloud host can put two of a guest's vCPUs on the two SMT siblings of
//! one physical core for a while, and tenants on the siblings compete for
//! the core's pipes. Seen on this project's 2-vCPU Zen 3 guest, 2-thread
//! AVX2 FMA in runs of about 30 ms, one after the other for 25 s: 31 flop/cycle
//! most of the time (2 cores' worth), and spells of exactly 15.6-16.0 (one
//! core's worth) lasting one to nine runs, about 8% of the runs in all. A
//! multi-thread measurement taken in such a spell measures one core, not
//! `threads` of them. In a busier hour the host also ran the two vCPUs on
//! one hardware thread in turn: 1 ms 2-thread FMA runs lasted twice each
//! thread's own time (0.57 ms each, 1.20 ms from first start to last end),
//! which a probe sees the same way. The guard runs the FMA kernel briefly on every thread
//! of the pool and compares its rate per cycle with `threads` times the
//! 1-thread FMA roof.
//!
//! A tenant on an SMT sibling that takes the core's load path does not show
//! in an FMA probe: the same guest, 1-thread AVX2 L1 loads in 1 ms runs for
//! 10 s, read 40-52 B/cycle (65-80% of the 64 of the 1-thread roof) in half
//! of the runs, in spells of up to 0.86 s, while FMA ran at full rate. So
//! the guard can also probe with the L1 load roof's kernel, for measurements
//! that need the core's load path (L1 and L2).

use std::time::{Duration, Instant};

use super::runner::{Measurement, Pool};
use crate::isa::Isa;
use crate::kernels::{self, Kernel, Kind, Mix, Op, Shape};
use crate::results::Roof;

/// A probe below this fraction of `threads` x the 1-thread rate found the
/// threads sharing cores: two threads on one core give one half, a tenant
/// on a sibling less. The same fraction as a `shared_core` roof's scaling;
/// 2-thread probes here that were not at one core's worth mostly sat at
/// 28-33 flop/cycle of 32 (87-103%).
pub const SHARED_BELOW: f64 = 0.85;

/// Length of the probe's one sample.
const PROBE: Duration = Duration::from_millis(1);

/// Pause between probes while the threads share a core.
const PAUSE: Duration = Duration::from_millis(10);

/// Time, in all, one command's guard spends waiting for cores and measuring
/// again (spells seen here lasted 30-300 ms; in a bad minute more than half
/// the probes found shared cores, and measuring each point again took
/// validation from 13 to 21 s).
pub const WAIT_BUDGET: Duration = Duration::from_secs(2);

/// Longest single wait for the threads to get their cores back.
pub const WAIT_AT_MOST: Duration = Duration::from_millis(500);

/// What a guard saw during one sweep.
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
    /// Points kept although the probe after them found shared cores that
    /// waiting did not outlast.
    pub points: usize,
}

impl std::ops::Add for Sharing {
    type Output = Sharing;
    fn add(self, o: Sharing) -> Sharing {
        Sharing {
            probes: self.probes + o.probes,
            load_probes: self.load_probes + o.load_probes,
            shared: self.shared + o.shared,
            waited: self.waited + o.waited,
            points: self.points + o.points,
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
            points: self.points - o.points,
        }
    }
}

impl Sharing {
    /// What the probes found, when they found shared cores: `what` is what
    /// each probe followed.
    pub fn note(&self, what: &str) -> Option<String> {
        (self.shared > 0).then(|| {
            format!(
                "threads sharing a core: at {} of {} probes ({} on every thread, after each {what}) the threads ran under {:.0}% of their 1-thread rate, one physical core's worth or a tenant's share; the {what} before each such probe was measured again once they had their cores back (waited {:.2} s in all), {} kept without",
                self.shared,
                self.probes,
                if self.load_probes > 0 {
                    "FMA, and L1 loads where the level is L1 or L2,"
                } else {
                    "FMA"
                },
                SHARED_BELOW * 100.0,
                self.waited,
                self.points
            )
        })
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
    /// The fastest core clock its probes read, GHz: one clock probe a
    /// short run of other work disturbs reads low, and would take the
    /// kernel's rate per cycle over its roof (seen: FMA at 32 flop/cycle on
    /// one Zen 3 core), so the clock is the fastest read so far, as a
    /// measurement's is the fastest of its probes.
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

    /// Whether every thread of `pool` ran it at its 1-thread rate (see
    /// [`is_alone`]), from one run of [`PROBE`] (see [`Pool::glance`]).
    fn alone(&mut self, pool: &Pool) -> Result<bool, String> {
        let (rate, ghz) = pool.glance(self.kernel, self.bytes, PROBE, &mut self.passes)?;
        self.ghz = self.ghz.max(ghz);
        Ok(is_alone(
            rate / 1e9 / self.ghz,
            pool.threads(),
            self.one_thread,
        ))
    }
}

/// Probes a pool for shared cores and waits them out, within a budget of
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
    /// A guard probing with `kernel` (FMA), whose 1-thread roof is
    /// `one_thread` flop/cycle, spending `budget` at most in all on waiting
    /// and measuring again.
    pub fn new(kernel: &'static Kernel, one_thread: f64, budget: Duration) -> Self {
        CoreGuard {
            fma: Probe::new(kernel, 0, one_thread),
            load: None,
            loads: false,
            budget,
            seen: Sharing::default(),
        }
    }

    /// The guard with an L1 load probe, run beside the FMA one while
    /// [`CoreGuard::guard_loads`] is on.
    pub fn with_load_probe(self, load: Probe) -> Self {
        CoreGuard {
            load: Some(load),
            ..self
        }
    }

    /// Whether the measurements guarded from now on need the core's load
    /// path (L1, L2): the load probe runs beside the FMA one.
    pub fn guard_loads(&mut self, on: bool) {
        self.loads = on;
    }

    /// Bytes per thread the probes need in a pool's buffer.
    pub fn alloc(&self) -> usize {
        self.load.map_or(0, |p| {
            super::runner::alloc_for(p.kernel, p.bytes, Shape::ONE)
        })
    }

    /// One probe: whether `pool`'s threads each had a core to themselves.
    pub fn alone(&mut self, pool: &Pool) -> Result<bool, String> {
        // The load probe only when FMA found the cores alone: one shared
        // resource is answer enough.
        let mut alone = self.fma.alone(pool)?;
        if let Some(p) = self.load.as_mut().filter(|_| self.loads && alone) {
            alone = p.alone(pool)?;
            self.seen.load_probes += 1;
        }
        self.seen.probes += 1;
        self.seen.shared += usize::from(!alone);
        Ok(alone)
    }

    /// Probe; when the threads share cores, [`CoreGuard::wait`].
    pub fn wait_alone(&mut self, pool: &Pool) -> Result<bool, String> {
        Ok(self.alone(pool)? || self.wait(pool)?)
    }

    /// After a probe found the threads sharing cores: pause and probe again
    /// until they are alone, for [`WAIT_AT_MOST`] and the budget left at
    /// most. Whether they were alone at the last probe.
    pub fn wait(&mut self, pool: &Pool) -> Result<bool, String> {
        let start = Instant::now();
        let limit = WAIT_AT_MOST.min(self.budget);
        let mut alone = false;
        while start.elapsed() + PAUSE <= limit && !super::interrupt::requested() {
            std::thread::sleep(PAUSE);
            if self.alone(pool)? {
                alone = true;
                break;
            }
        }
        let spent = start.elapsed();
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
        pool: &Pool,
        mut measure: impl FnMut() -> Result<Measurement, String>,
    ) -> Result<(Measurement, bool), String> {
        let m = measure()?;
        if self.alone(pool)? {
            return Ok((m, false));
        }
        if !self.wait(pool)? {
            self.seen.points += 1;
            return Ok((m, true));
        }
        let start = Instant::now();
        let again = measure()?;
        self.budget = self.budget.saturating_sub(start.elapsed());
        Ok((
            if again.per_cycle() > m.per_cycle() {
                again
            } else {
                m
            },
            false,
        ))
    }
}

/// The guard of a set of roofs: probing with the FMA kernel of `isa` (or of
/// the first ISA with one) and the first precision with a 1-thread FMA roof,
/// against that roof, and with the L1 load probe of that ISA
/// ([`load_probe`]) while told to; none without such an FMA roof.
pub fn guard_for(roofs: &[Roof], isa: Option<Isa>, budget: Duration) -> Option<CoreGuard> {
    let roof = roofs.iter().find(|r| {
        r.kind == Kind::Compute
            && r.op == Some(Op::Fma)
            && r.threads == 1
            && isa.is_none_or(|i| r.isa == i)
    })?;
    let k = kernels::compute(Op::Fma, roof.isa, roof.precision?)?;
    let guard = CoreGuard::new(k, roof.per_cycle, budget);
    Some(match load_probe(roofs, roof.isa) {
        Some(p) => guard.with_load_probe(p),
        None => guard,
    })
}

/// The L1 load probe of a set of roofs: the load kernel of `isa` against
/// its 1-thread L1 load roof, on the middle of that roof's sizes; none
/// without that roof (or its sizes).
pub fn load_probe(roofs: &[Roof], isa: Isa) -> Option<Probe> {
    let roof = roofs.iter().find(|r| {
        r.kind == Kind::Bandwidth
            && r.level.as_deref() == Some("L1")
            && r.mix == Some(Mix::Load)
            && r.threads == 1
            && r.isa == isa
    })?;
    let mut sizes: Vec<u64> = roof.sizes.iter().map(|s| s.bytes_per_thread).collect();
    sizes.sort();
    Some(Probe::new(
        kernels::bandwidth(Mix::Load, isa)?,
        *sizes.get(sizes.len() / 2)?,
        roof.per_cycle,
    ))
}

/// Whether a probe of `threads` threads at `per_cycle` flop/cycle in all ran
/// at [`SHARED_BELOW`] of `threads` x `one_thread` or more.
pub fn is_alone(per_cycle: f64, threads: usize, one_thread: f64) -> bool {
    per_cycle >= SHARED_BELOW * threads as f64 * one_thread
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_probe_is_the_one_thread_l1_load_roof() {
        let doc = crate::results::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/zen5-avx512.yaml"
        )))
        .unwrap();
        let roof = doc
            .roofs
            .iter()
            .find(|r| {
                r.level.as_deref() == Some("L1")
                    && r.mix == Some(Mix::Load)
                    && r.threads == 1
                    && r.isa == Isa::Avx512
            })
            .unwrap();
        let p = load_probe(&doc.roofs, Isa::Avx512).unwrap();
        assert_eq!(p.kernel.decl.name, roof.kernel);
        let mut sizes: Vec<u64> = roof.sizes.iter().map(|s| s.bytes_per_thread).collect();
        sizes.sort();
        assert!(sizes.len() >= 2, "the fixture's L1 roof has its sizes");
        assert_eq!(
            (p.bytes, p.one_thread),
            (sizes[sizes.len() / 2], roof.per_cycle)
        );
        let fma = kernels::compute(Op::Fma, Isa::Avx512, crate::kernels::Precision::Dp).unwrap();
        let g = CoreGuard::new(fma, 64.0, WAIT_BUDGET);
        assert_eq!(g.alloc(), 0, "an FMA-only guard needs no buffer");
        assert!(g.with_load_probe(p).alloc() as u64 >= p.bytes);
        // The guard of the roofs has it.
        let g = guard_for(&doc.roofs, Some(Isa::Avx512), WAIT_BUDGET).unwrap();
        assert!(g.alloc() as u64 >= p.bytes);
        // Without a 1-thread L1 load roof, no load probe.
        let others: Vec<Roof> = doc
            .roofs
            .iter()
            .filter(|r| !(r.level.as_deref() == Some("L1") && r.threads == 1))
            .cloned()
            .collect();
        assert!(load_probe(&others, Isa::Avx512).is_none());
        assert_eq!(
            guard_for(&others, Some(Isa::Avx512), WAIT_BUDGET)
                .unwrap()
                .alloc(),
            0
        );
    }

    #[test]
    fn two_threads_on_one_core_are_told_apart_from_two_cores() {
        // Zen 3 AVX2 FMA: 16 flop/cycle per core.
        assert!(is_alone(31.0, 2, 16.0));
        assert!(is_alone(27.5, 2, 16.0));
        // One core's worth, and a tenant on a sibling taking a fifth.
        assert!(!is_alone(15.9, 2, 16.0));
        assert!(!is_alone(25.6, 2, 16.0));
        // One thread is alone unless something takes a sixth of its core.
        assert!(is_alone(14.0, 1, 16.0));
        assert!(!is_alone(13.3, 1, 16.0));
    }
}
