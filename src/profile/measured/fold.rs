//! The ranks of one launch folded into one measure. A process tree's one
//! rank is its measure as it is; an MPI job's ranks are joined: work
//! summed, time the slowest rank's (the job ends when its last rank does),
//! threads summed; regions, blocks and samples summed over the ranks, and
//! each rank's own part kept for its point and for the spread of each
//! function and region.

use crate::profile::ground::runtime::in_runtime;
use crate::profile::ground::warnings::Warning;
use crate::profile::measured::Launcher;
use crate::profile::measured::samples::Samples;
use crate::profile::measured::work::Work;
use crate::profile::measured::{Block, Measured, RankPart, Ranks};
use crate::results::apps::FailedRank;

/// Fold the ranks `parts` of a launch by `launcher` (`None`: one process
/// tree, whose one part is the measure), and those that `failed`.
pub fn fold(launcher: Option<Launcher>, parts: Vec<Part>, failed: Vec<FailedRank>) -> Measured {
    match launcher {
        Some(l) => join(l, parts, failed),
        None => (parts.into_iter().next()).map_or_else(Measured::default, |p| p.measured),
    }
}

/// The work of `blocks` in an MPI runtime's code.
pub fn runtime_work(blocks: &[Block]) -> Work {
    let mut w = Work::default();
    for b in blocks.iter().filter(|b| in_runtime(&b.module)) {
        w += &b.work;
    }
    w
}

/// The work the processes' sites did in an MPI runtime's code, from the
/// plugin's counts as they are (no blocks built for it).
pub fn runtime_counted(processes: &[carmbench_counts::Output]) -> Work {
    let mut c = carmbench_counts::Counts::default();
    for p in processes {
        for s in &p.sites {
            let module = p.modules.get(s.module as usize);
            if module.is_some_and(|m| in_runtime(m)) {
                c += &s.counts;
            }
        }
    }
    Work::Counted(c)
}

/// One rank's measure, before the join.
#[derive(Debug, Clone)]
pub struct Part {
    /// Its rank.
    pub rank: u32,
    /// The node it ran on.
    pub host: String,
    /// Its measure.
    pub measured: Measured,
    /// Its work in the MPI runtime's code, when known.
    pub runtime: Option<Work>,
}

/// Join the ranks' measures, by rank.
fn join(launcher: Launcher, parts: Vec<Part>, failed: Vec<FailedRank>) -> Measured {
    let mut m = Measured::default();
    let mut each = Vec::new();
    let mut threads = 0;
    for mut p in parts {
        threads += p.measured.threads.unwrap_or(1);
        // A rank's work and the job's are the program's own: what the MPI
        // runtime did (spinning while it waited for the other ranks, as
        // long as the emulated ranks happened to wait) is kept apart.
        if let Some(rt) = &p.runtime {
            p.measured.total -= rt;
        }
        add(&mut m, &p.measured);
        let r = p.measured;
        each.push(RankPart {
            rank: p.rank,
            host: p.host,
            total: r.total,
            seconds: r.seconds,
            threads: r.threads,
            regions: r.regions,
            samples: r.samples,
            runtime: p.runtime,
            windows: r.windows,
        });
    }
    m.warnings
        .extend(failed.iter().map(|f| Warning::RankFailed {
            rank: f.rank,
            why: f.why.clone(),
        }));
    m.threads = Some(threads);
    let shared = match m.separate_runs {
        // Said because an emulated job runs several times slower on the
        // same cores: only its waits differ, which `RankInRuntime` shows.
        true => {
            "; T from a native launch of the job, W and Q from an emulated one whose ranks shared the same cores (that changes how long they wait, not what they compute)"
        }
        false => "",
    };
    m.note = m.note.map(|n| {
        format!(
            "{} rank(s) launched by {}{shared}; each {n}",
            each.len(),
            launcher.name()
        )
    });
    m.ranks = Some(Ranks {
        launcher,
        each,
        failed,
    });
    m
}

/// Add one rank's measure `r` into the job's `m`: work, regions, blocks
/// and samples summed, the time the longest, the rest as any rank says.
fn add(m: &mut Measured, r: &Measured) {
    m.total += &r.total;
    m.seconds = m.seconds.max(r.seconds);
    for reg in &r.regions {
        match m.regions.iter_mut().find(|x| x.name == reg.name) {
            Some(x) => {
                x.calls += reg.calls;
                x.work += &reg.work;
                x.seconds += reg.seconds;
            }
            None => m.regions.push(reg.clone()),
        }
    }
    m.processes.extend(r.processes.iter().cloned());
    m.blocks.extend(r.blocks.iter().cloned());
    m.flow.extend(r.flow.iter().cloned());
    if let Some(s) = &r.samples {
        add_samples(m.samples.get_or_insert_with(Samples::default), s);
    }
    for w in &r.warnings {
        if !m.warnings.contains(w) {
            m.warnings.push(w.clone());
        }
    }
    m.source.clone_from(&r.source);
    m.note.clone_from(&r.note);
    m.counted_with.clone_from(&r.counted_with);
    m.separate_runs = r.separate_runs;
    m.emulated_cpu.clone_from(&r.emulated_cpu);
    m.method.clone_from(&r.method);
}

/// Add `s` into `into`.
fn add_samples(into: &mut Samples, s: &Samples) {
    for (k, n) in &s.places {
        *into.places.entry(k.clone()).or_default() += n;
    }
    for (e, places) in &s.events {
        let to = into.events.entry(e.clone()).or_default();
        for (k, n) in places {
            *to.entry(k.clone()).or_default() += n;
        }
    }
    into.total += s.total;
    into.lost += s.lost;
    into.event_period = s.event_period;
    into.cpu_seconds += s.cpu_seconds;
}
