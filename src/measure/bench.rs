//! The measuring surface every policy is written against: a [`Bench`] (a
//! set of pinned threads that measures kernels) opened by a [`Rig`], with
//! the real pool of threads behind both ([`super::pool`]) and a scripted
//! fake for tests. On top of it, [`measure_steady`]: measured again until
//! its value can be trusted.

use super::clock;
use super::stats::Summary;
use super::{PerCycle, keep_faster};
use crate::kernels::{Kernel, Shape};
use std::time::Duration;

/// How long and how often to sample.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// A sample lasts at least this long.
    pub min_sample: Duration,
    /// Samples kept.
    pub samples: usize,
    /// Attempts of [`measure_steady`] at most.
    pub attempts: usize,
    /// The buffer is beyond the caches (DRAM): a pass longer than a sample
    /// needs no whole pass first to warm them, one part finds its length.
    pub from_memory: bool,
}

/// Attempts per measurement at most, by default.
pub const ATTEMPTS: usize = 3;

impl Settings {
    /// Samples of at least `min_sample` each, up to [`ATTEMPTS`] attempts.
    pub fn new(min_sample: Duration, samples: usize) -> Self {
        Settings {
            min_sample,
            samples,
            attempts: ATTEMPTS,
            from_memory: false,
        }
    }

    /// These settings for a buffer at `level`.
    pub fn at(self, level: Option<crate::machine::Level>) -> Self {
        Settings {
            from_memory: level.is_some_and(|l| l.is_memory()),
            ..self
        }
    }
}

/// Result of one measurement.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Seconds per sample, from the first thread's start to the last
    /// thread's end.
    pub seconds: Vec<f64>,
    /// Rate per sample: bytes/s (bandwidth) or flops/s (compute), all threads.
    pub rates: Summary,
    /// Bytes each thread's buffer actually spans (bandwidth kernels).
    pub bytes_per_thread: u64,
    /// Inner iterations per run: a pass, or one part of it (see `parts`).
    pub iters: u64,
    /// Passes per sample.
    pub passes: u64,
    /// Parts a pass over the buffer is split into, one part per sample in
    /// turn (1: every sample walks the whole buffer).
    pub parts: u64,
    /// Core clock probed before each sample and after the last, GHz (each
    /// the median over the threads), in time order.
    pub clock_probes: Vec<f64>,
    /// Share of the measurement's time the host took from one of its CPUs
    /// (see [`super::steal`]).
    pub steal: f64,
}

/// Clock drift above which a measurement counts as disturbed.
pub const DRIFT_LIMIT: f64 = 0.05;

impl Measurement {
    /// The measured rate: the fastest sample (bytes/s or flops/s).
    ///
    /// Other work on the machine (an interrupt, a host running another
    /// guest on this vCPU or on its SMT sibling, a neighbour on the shared
    /// L3 or memory) only ever slows a sample down, never speeds it up, so
    /// the fastest of several samples is the estimate of what the kernel
    /// does on the core alone (Chen & Revels, "Robust benchmarking in noisy
    /// environments", arXiv:1608.04295, 2016, show timing noise is
    /// non-negative and recommend the minimum time). The median, quartiles
    /// and CV stay in [`Measurement::rates`] to show the spread.
    pub fn value(&self) -> f64 {
        self.rates.max
    }
    /// The core clock while the samples ran, GHz: see [`clock::estimate`].
    pub fn clock_ghz(&self) -> f64 {
        clock::estimate(&self.clock_probes)
    }
    /// The rate per cycle of the clock (bytes or flops per cycle): how two
    /// measurements of one kernel are compared when the clock moved between
    /// them.
    pub fn per_cycle(&self) -> f64 {
        self.value() / 1e9 / self.clock_ghz()
    }
    /// Relative change of the clock between the first and the second half
    /// of the probes (each half estimated as in [`clock::estimate`]).
    pub fn clock_drift(&self) -> f64 {
        let (a, b) = self.clock_probes.split_at(self.clock_probes.len() / 2);
        if a.is_empty() {
            return 0.0;
        }
        let (a, b) = (clock::estimate(a), clock::estimate(b));
        (b - a).abs() / a
    }
    /// Core-clock cycles one inner iteration of the fastest sample took, per
    /// thread: what a kernel without flops or bytes to count (a validation
    /// kernel's memory units alone) is measured in.
    pub fn cycles_per_iter(&self) -> f64 {
        let fastest = self.seconds.iter().copied().fold(f64::INFINITY, f64::min);
        fastest * self.clock_ghz() * 1e9 / (self.iters as f64 * self.passes as f64)
    }
    /// Whether the host took more than [`super::steal::LIMIT`] of its time.
    pub fn stolen(&self) -> bool {
        self.steal > super::steal::LIMIT
    }
}

impl PerCycle for Measurement {
    fn per_cycle(&self) -> f64 {
        Measurement::per_cycle(self)
    }
}

/// Pinned threads, one per core, each with its own buffer, that measure
/// kernels together.
pub trait Bench {
    /// Threads.
    fn threads(&self) -> usize;

    /// Measure `kernel` with `bytes` of working set per thread (bandwidth
    /// and validation kernels) and `shape` (validation kernels): calibrated
    /// passes, the core clock probed before each sample and after the last.
    fn measure(
        &self,
        kernel: &'static Kernel,
        bytes: u64,
        shape: Shape,
        s: &Settings,
    ) -> Result<Measurement, String>;

    /// A quick look: one run of `kernel` over `bytes` per thread lasting at
    /// least `min`, after one clock probe; the run's rate (bytes or flops
    /// per second, all threads) and the clock (GHz). `passes` carries the
    /// run's length from one look to the next (0 at first: calibrated here).
    fn quick_rate(
        &self,
        kernel: &'static Kernel,
        bytes: u64,
        min: Duration,
        passes: &mut u64,
    ) -> Result<(f64, f64), String>;

    /// Time since the rig started.
    fn now(&self) -> Duration;

    /// Wait, leaving the cores to others.
    fn pause(&self, d: Duration);
}

/// What opens benches: the machine's cores, or a script in tests.
pub trait Rig {
    /// Open a bench of `threads` threads (the first cores) with `alloc`
    /// bytes of buffer per thread, run `f` on it and close it; an error
    /// when the buffers cannot be had.
    fn with_bench<R>(
        &mut self,
        threads: usize,
        alloc: usize,
        f: impl FnOnce(&dyn Bench) -> R,
    ) -> Result<R, String>;

    /// Time since the rig started.
    fn now(&self) -> Duration;
}

/// [`Bench::measure`], measured again until its value can be trusted, up to
/// `s.attempts` times; of the attempts, the one with the highest
/// [`Measurement::value`] per cycle is kept (interference only ever slows a
/// kernel down). A value is trusted when the attempt was steady (CV of the
/// samples within `cv_limit`, clock drift within [`DRIFT_LIMIT`], the host's
/// steal within [`super::steal::LIMIT`]), or when two attempts without
/// steal agree per cycle within `cv_limit`: both then found the kernel on
/// the core alone. Two attempts slowed alike by a host time-sharing the
/// CPUs agree too, which is why only attempts without steal count. Stops
/// retrying once Ctrl-C was pressed.
pub fn measure_steady(
    bench: &dyn Bench,
    kernel: &'static Kernel,
    bytes: u64,
    s: &Settings,
    shape: Shape,
    cv_limit: f64,
) -> Result<Measurement, String> {
    let mut best: Option<Measurement> = None;
    for _ in 0..s.attempts.max(1) {
        let m = bench.measure(kernel, bytes, shape, s)?;
        let steady = m.rates.cv <= cv_limit && m.clock_drift() <= DRIFT_LIMIT && !m.stolen();
        let agrees = best.as_ref().is_some_and(|b| {
            let (x, y) = (m.per_cycle(), b.per_cycle());
            !m.stolen() && !b.stolen() && (x - y).abs() <= cv_limit * x.max(y)
        });
        match best.as_mut() {
            Some(b) => {
                keep_faster(b, m);
            }
            None => best = Some(m),
        }
        if steady || agrees || super::interrupt::requested() {
            break;
        }
    }
    Ok(best.expect("at least one attempt"))
}

#[cfg(test)]
mod tests {
    use super::super::fake::{FakeRig, Outcome};
    use super::*;
    use crate::kernels::{Mix, Role, find};
    use crate::machine::isa::Isa;

    fn settings() -> Settings {
        Settings::new(Duration::from_millis(2), 5)
    }

    fn load() -> &'static Kernel {
        find(Isa::Scalar, Role::Bandwidth(Mix::Load)).unwrap()
    }

    /// The attempts `measure_steady` made and the value per cycle it kept,
    /// with the attempts' outcomes scripted in turn.
    fn steady(outcomes: Vec<Outcome>) -> (usize, f64) {
        let mut rig = FakeRig::scripted(outcomes);
        let kept = rig
            .with_bench(1, 1 << 20, |b| {
                measure_steady(b, load(), 16 << 10, &settings(), Shape::ONE, 0.03)
            })
            .unwrap()
            .unwrap();
        // Rounded: the fake's rates go through GHz and back.
        (rig.measured().len(), (kept.per_cycle() * 1e9).round() / 1e9)
    }

    #[test]
    fn a_steady_first_attempt_is_enough() {
        assert_eq!(steady(vec![Outcome::steady(10.0)]), (1, 10.0));
    }

    #[test]
    fn noisy_attempts_go_on_until_two_agree_and_the_fastest_is_kept() {
        // Noisy 8.0, noisy 10.0 (disagree by 20%), noisy 10.2 (agrees with
        // 10.0 within 3%): three attempts, the fastest kept.
        let noisy = |v| Outcome {
            cv: 0.2,
            ..Outcome::steady(v)
        };
        assert_eq!(
            steady(vec![noisy(8.0), noisy(10.0), noisy(10.2)]),
            (3, 10.2)
        );
        // Two noisy attempts that agree at once: two attempts.
        assert_eq!(steady(vec![noisy(10.0), noisy(9.9)]).0, 2);
    }

    #[test]
    fn attempts_with_steal_never_count_as_agreeing_or_steady() {
        let stolen = |v| Outcome {
            steal: 0.4,
            ..Outcome::steady(v)
        };
        // Two stolen attempts at the same (halved) rate do not agree: a
        // third is made, and its undisturbed value kept.
        assert_eq!(
            steady(vec![stolen(5.0), stolen(5.0), Outcome::steady(10.0)]),
            (3, 10.0)
        );
        // At most `attempts` (3), keeping the fastest.
        assert_eq!(
            steady(vec![stolen(5.0), stolen(6.0), stolen(4.0), stolen(9.0)]),
            (3, 6.0)
        );
    }

    #[test]
    fn a_drifting_clock_is_not_steady() {
        let drifting = Outcome {
            clock_drift: 0.1,
            ..Outcome::steady(10.0)
        };
        assert_eq!(steady(vec![drifting.clone(), Outcome::steady(11.0)]).0, 2);
        // The per-cycle value uses the fastest clock probe.
        let (_, v) = steady(vec![drifting]);
        assert!((v - 10.0).abs() < 1e-9, "{v}");
    }
}
