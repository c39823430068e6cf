//! What is wrong with a point's measurement rather than its code: too
//! short a run, no symbols, a native run that shared its cores or mostly
//! waited, counts of other code than the native run executed.

use super::{Advice, Code, MIN_SHARE, advice};
use crate::results::apps::{AppPoint, NativeTime, Of, RanOnly, is_unnamed};

/// CPU seconds under which a run's time rests on fewer than a hundred
/// native samples (1 kHz): its T, and so its rate, is uncertain.
pub const SHORT_SECONDS: f64 = 0.1;

/// Native samples under which a function's time is uncertain (Poisson: 14 %
/// at 50).
pub const FEW_SAMPLES: u64 = 50;

/// A host's steal over this share of the machine's time slowed the run.
pub const MUCH_STEAL: f64 = 0.05;

/// A run whose threads ran (or waited for a CPU) under this share of its
/// wall time mostly waited.
const BUSY: f64 = 0.5;

/// An emulated run under this many times the native run's time is too fast
/// for the work to be the same: QEMU runs code several times slower
/// (integer code 3-8x, FP code 35-90x and more, docs/profile.md).
pub const TOO_FAST: f64 = 2.0;

/// Whether an emulated run `ratio` times as long as a native run of
/// `seconds` that used the CPUs as `cpu` says is too fast for the same
/// work: the native run long enough to tell and busy most of its time (a
/// sleeper is not slowed by emulation either).
pub fn too_fast(seconds: f64, cpu: &NativeTime, ratio: f64) -> bool {
    let busy = (cpu.cpu_seconds + cpu.waited_seconds) / seconds.max(1e-9);
    ratio < TOO_FAST && cpu.cpu_seconds >= SHORT_SECONDS && busy >= BUSY
}

/// The run's own quality: too short for its samples (a region's time is
/// its own, not sampled; a function's rests on its samples); code without
/// symbols; a native run that shared its cores or mostly waited.
pub fn of_run(p: &AppPoint) -> Vec<Advice> {
    let mut out = Vec::new();
    let cpu = match &p.native {
        Some(n) => n.cpu_seconds,
        None => p.seconds * p.threads.unwrap_or(1) as f64,
    };
    match p.function() {
        Some(f) if f.samples < FEW_SAMPLES => out.push(advice(
            Code::ShortRun,
            f.samples as f64 / FEW_SAMPLES as f64,
            None,
            None,
        )),
        Some(_) => {}
        None if matches!(p.of, Of::Region | Of::Phase(_)) => {}
        None if p.seconds > 0.0 && cpu < SHORT_SECONDS => {
            out.push(advice(Code::ShortRun, cpu / SHORT_SECONDS, None, None));
        }
        None => {}
    }
    if p.function().is_some() && is_unnamed(&p.name) {
        out.push(advice(Code::NoSymbols, 1.0, None, None));
    }
    out.extend(shared_cores(p));
    out.extend(mostly_waited(p));
    out.extend(emulated_too_fast(p));
    out
}

/// Its work was counted in an emulated run too short for the same work
/// (`share` the emulated run's time over the native one's).
fn emulated_too_fast(p: &AppPoint) -> Option<Advice> {
    let n = p.native.as_ref()?;
    let ratio = n.emulated_seconds? / p.seconds.max(1e-9);
    too_fast(p.seconds, n, ratio).then(|| advice(Code::EmulatedTooFast, ratio, None, None))
}

/// Its threads waited for a CPU other work held, or the host took the
/// machine's: the rate it would have alone is higher.
fn shared_cores(p: &AppPoint) -> Option<Advice> {
    let n = p.native.as_ref()?;
    let ready = n.cpu_seconds + n.waited_seconds;
    if ready <= 0.0 || p.seconds <= 0.0 {
        return None;
    }
    let share = n.waited_seconds / ready;
    if share < MIN_SHARE && n.steal < MUCH_STEAL {
        return None;
    }
    let mut a = advice(
        Code::SharedCores,
        share,
        Some(ready / n.cpu_seconds.max(1e-9)),
        None,
    );
    a.evidence.cpu_share = Some(n.cpu_seconds / wall_threads(p));
    a.evidence.steal = Some(n.steal);
    Some(a)
}

/// It neither ran nor waited for a CPU most of its wall time (over its
/// threads): it slept, read, or waited on locks or other processes.
fn mostly_waited(p: &AppPoint) -> Option<Advice> {
    let n = p.native.as_ref()?;
    let busy = (n.cpu_seconds + n.waited_seconds) / wall_threads(p);
    if !(p.seconds > 0.0 && busy < BUSY) {
        return None;
    }
    let mut a = advice(Code::MostlyWaited, 1.0 - busy, None, None);
    a.evidence.cpu_share = Some(n.cpu_seconds / wall_threads(p));
    Some(a)
}

/// Idle time (neither on a CPU nor waiting for one) under this share of a
/// run's wall time is within the wait's measuring error: the looks miss
/// each thread's last stretch, which on a loaded machine is mostly wait.
const IDLE_UNSURE: f64 = 0.25;

/// The share of its wall time (over its threads) the run was on a CPU or
/// ready for one: what faster arithmetic can shorten (the wait for a CPU
/// shrinks with the time asked of it); 1 without a native record, or when
/// it was idle under [`IDLE_UNSURE`] of its time.
pub fn busy_share(p: &AppPoint) -> f64 {
    match &p.native {
        Some(n) if p.seconds > 0.0 => {
            let busy = ((n.cpu_seconds + n.waited_seconds) / wall_threads(p)).clamp(0.0, 1.0);
            if busy > 1.0 - IDLE_UNSURE { 1.0 } else { busy }
        }
        _ => 1.0,
    }
}

/// Whether a rate `over` times a roof may come from a time resting on a
/// few native samples (a function's): with `n` samples counted, the true
/// count is below the 95 % upper bound of a Poisson count of `n`
/// (Wilson and Hilferty's approximation), and the rate as many times
/// lower.
pub fn samples_explain(p: &AppPoint, over: f64) -> bool {
    let Some(f) = p.function() else {
        return false;
    };
    let n = f.samples as f64 + 1.0;
    let upper = n * (1.0 - 1.0 / (9.0 * n) + 1.645 / (3.0 * n.sqrt())).powi(3);
    f.samples < FEW_SAMPLES && over <= upper / (f.samples as f64).max(1.0)
}

/// The point's wall time over its threads, seconds.
fn wall_threads(p: &AppPoint) -> f64 {
    (p.seconds * p.threads.unwrap_or(1) as f64).max(1e-9)
}

/// Each program's share of its native time in functions whose counts are
/// other code's (counted as another function, or run natively only),
/// gathered once from a file's points: a program reads its own.
#[derive(Debug, Clone, Default)]
pub struct Others(std::collections::HashMap<String, f64>);

impl Others {
    /// The shares of the programs of `all`.
    pub fn of(all: &[AppPoint]) -> Others {
        let mut shares = std::collections::HashMap::new();
        let other = (all.iter().filter_map(AppPoint::function))
            .filter(|f| !f.module.is_empty())
            .filter(|f| f.counted_as.is_some() || f.ran_only == Some(RanOnly::Natively));
        for f in other {
            *shares.entry(f.program.clone()).or_insert(0.0) += f.share;
        }
        Others(shares)
    }
}

/// Counts of other code than the native run executed: a function counted
/// as the one that ran in its place under emulation, or run in one of the
/// runs only; a program, the share of its native time in such functions
/// (`others`).
pub fn other_path(p: &AppPoint, others: &Others) -> Option<Advice> {
    let mut a = advice(Code::OtherPath, 1.0, None, None);
    if let Some(f) = p.function() {
        a.evidence.ran_instead = f.counted_as.clone();
        a.evidence.ran_only = f.ran_only;
        return (f.counted_as.is_some() || f.ran_only.is_some()).then_some(a);
    }
    if !matches!(p.of, Of::Program { .. }) {
        return None;
    }
    a.share = others.0.get(&p.name).copied().unwrap_or(0.0);
    (a.share >= MIN_SHARE).then_some(a)
}
