//! The real core clock, measured with a chain of dependent scalar adds.
//!
//! A scalar integer add has a latency of one cycle on every x86-64 and Arm
//! core we know, so a chain of N dependent adds takes N cycles whatever the
//! turbo state; dividing by the wall time gives the core clock. Vector adds
//! must not be used for this: `vpaddq zmm` has two-cycle latency on Zen 5,
//! which halves the measured clock (a known error of another roofline tool).
//! The TSC runs at a fixed rate unrelated to the core clock (often the
//! nominal clock, while cores run faster or slower); it is reported beside,
//! for reference.

use super::stats::{Summary, summarize};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Busy time before the first run.
pub const WARMUP: Duration = Duration::from_millis(20);

/// Dependent adds per loop iteration of the probe.
pub const ADDS_PER_ITER: u64 = 128;

pub use crate::arch::add_chain;

/// A clock measurement: GHz over several short runs.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct ClockMeasurement {
    /// Core clock in GHz (median, quartiles, spread of the runs).
    pub ghz: Summary,
    /// Length of one run, milliseconds.
    pub run_ms: f64,
}

/// The core clock from probes spread over a measurement: the fastest. A
/// probe is a dependent-add chain timed on the wall clock, so anything that
/// takes the core from it (an interrupt, the host running another guest on
/// this vCPU) makes it read low, never high, the same way as a sample of a
/// kernel (see `Measurement::value`): the fastest probe is the clock of the
/// core alone, as the fastest sample is the kernel on the core alone. A
/// median would let a few disturbed probes lower the clock and raise every
/// per-cycle figure (docs/evidence.md, "The clock"). Spreading the probes
/// between the samples keeps one disturbed moment from reaching all of them.
pub fn estimate(probes: &[f64]) -> f64 {
    summarize(probes).max
}

impl ClockMeasurement {
    /// The core clock, GHz: the fastest run, as [`estimate`] takes it.
    pub fn core_ghz(&self) -> f64 {
        self.ghz.max
    }
}

/// Measure the core clock: `runs` runs of about `run` each; see
/// [`ClockMeasurement::core_ghz`]. Runs on the calling thread's current CPU.
pub fn measure(runs: usize, run: Duration) -> ClockMeasurement {
    // Warm up so the core leaves any idle state before the first run.
    let warm = Instant::now();
    while warm.elapsed() < WARMUP {
        add_chain(1000);
    }
    let iters = calibrate(run);
    let samples: Vec<f64> = (0..runs.max(1)).map(|_| probe(iters)).collect();
    ClockMeasurement {
        ghz: summarize(&samples),
        run_ms: run.as_secs_f64() * 1e3,
    }
}

/// Iterations of [`add_chain`] that last about `run` on this core.
pub fn calibrate(run: Duration) -> u64 {
    let mut iters = 1000u64;
    loop {
        let t = Instant::now();
        add_chain(iters);
        let dt = t.elapsed();
        if dt >= run / 4 || iters > (1 << 40) {
            let scale = run.as_secs_f64() / dt.as_secs_f64().max(1e-9);
            return ((iters as f64 * scale) as u64).max(1);
        }
        iters *= 4;
    }
}

/// One clock probe of `iters` iterations of [`add_chain`]: GHz.
pub fn probe(iters: u64) -> f64 {
    let t = Instant::now();
    add_chain(iters);
    let s = t.elapsed().as_secs_f64();
    (iters * ADDS_PER_ITER) as f64 / s / 1e9
}

/// The fixed-rate counter's rate in GHz (the TSC on x86-64, the generic
/// timer on AArch64), measured against the monotonic clock over `span`
/// where it must be.
pub fn tsc_ghz(span: Duration) -> f64 {
    crate::arch::counter_ghz(span)
}

/// Clock facts of the live machine.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ClockReport {
    /// Core clock from the dependent-add chain.
    pub measured: ClockMeasurement,
    /// TSC rate measured against the monotonic clock, GHz.
    pub tsc_ghz: f64,
    /// "cpu MHz" of /proc/cpuinfo, GHz.
    pub cpuinfo_ghz: Option<f64>,
}

impl ClockReport {
    /// Measure the clock of the calling thread's CPU the way every command
    /// does: 11 runs of 2 ms, the TSC over 10 ms, and what /proc/cpuinfo says.
    pub fn measure() -> ClockReport {
        ClockReport {
            measured: measure(11, Duration::from_millis(2)),
            tsc_ghz: tsc_ghz(Duration::from_millis(10)),
            cpuinfo_ghz: cpuinfo_ghz(),
        }
    }
}

/// "cpu MHz" of the first CPU in /proc/cpuinfo, in GHz (often the TSC or
/// nominal rate, not the running clock).
pub fn cpuinfo_ghz() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu MHz"))?;
    let mhz: f64 = line.split(':').nth(1)?.trim().parse().ok()?;
    Some(mhz / 1e3)
}
