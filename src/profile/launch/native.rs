//! The command's native run, the one whose time every point carries:
//! watched by its wall time alone, by samples of where its time went (and
//! of hardware events beside them), or by the PMU's counts; its regions
//! timed (and counted) by the regions library either way.

use crate::error::{Error, Result};
use crate::profile::ground::warnings::Named;
use crate::profile::launch::command::Found;
use crate::profile::launch::perf;
use crate::profile::launch::sampler;
use crate::profile::launch::tree::{self, Ended, Leftovers, Rules};
use crate::profile::measured::events::Family;
use crate::profile::measured::samples::Samples;
use carmbench_regions::Record;
use std::collections::BTreeMap;
use std::process::{Command, ExitStatus, Stdio};

/// How the native run is watched.
#[derive(Debug, Clone, Copy)]
pub enum Watch<'a> {
    /// Its wall time.
    Time,
    /// Sampled: the time per place in the code, and these hardware events
    /// (name, raw config) per place beside it.
    Sampled(&'a [(String, u64)]),
    /// Counted with the PMU: `family`'s events over the whole run and in
    /// each region.
    Counted(&'a Family),
}

/// What the native run gave.
#[derive(Debug, Clone, Default)]
pub struct NativeRun {
    /// Wall time, seconds.
    pub seconds: f64,
    /// Where the time went (and the events beside it), when sampled.
    pub samples: Option<Samples>,
    /// The PMU's counts by event name, when counted.
    pub events: BTreeMap<String, u64>,
    /// Each region the program marked: its time, calls and events.
    pub regions: Vec<Record>,
    /// Its processes left running, idle, when it ended.
    pub left: Vec<Named>,
    /// The most of its threads a look saw running at once (0: not seen).
    pub at_once: usize,
    /// How many looks saw it running (see [`NativeRun::at_once_seen`]).
    pub looks: usize,
    /// Its CPU time and its wait for a CPU.
    pub cpu: crate::results::apps::NativeTime,
}

/// See [`NativeRun::at_once_seen`].
const MIN_LOOKS: usize = 10;

impl NativeRun {
    /// The threads that ran at once, where more than one did: processes
    /// started together (`./a & ./b & wait`) count each.
    pub fn threads_at_once(&self) -> Option<usize> {
        (self.at_once > 1).then_some(self.at_once)
    }

    /// The threads that ran at once, where enough looks saw the run to
    /// tell (a tenth of a second of it): fewer can miss threads that ran
    /// together, or see only a main thread that set up before them.
    pub fn at_once_seen(&self) -> Option<usize> {
        (self.looks >= MIN_LOOKS && self.at_once > 0).then_some(self.at_once)
    }
}

/// The command as it runs natively: the program found, its `argv[0]` as
/// given.
pub fn command(f: &Found) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(&f.path);
    cmd.arg0(&f.argv0).args(&f.args);
    cmd
}

/// Run `f` natively, watched as asked, on carmbench's own input; an error
/// when it fails.
pub fn run(f: &Found, watch: Watch) -> Result<NativeRun> {
    run_with(f, watch, Stdio::inherit())
}

/// [`run`] with `stdin` as its input.
pub fn run_with(f: &Found, watch: Watch, stdin: Stdio) -> Result<NativeRun> {
    let (status, out) = run_status(f, watch, stdin)?;
    match status.success() {
        true => Ok(out),
        false => Err(failed(&f.given, &status)),
    }
}

/// [`run_with`], whatever its exit status: the status and what the run
/// gave up to its end.
pub fn run_status(f: &Found, watch: Watch, stdin: Stdio) -> Result<(ExitStatus, NativeRun)> {
    let mut cmd = command(f);
    cmd.stdin(stdin);
    let events = match watch {
        Watch::Counted(family) => family
            .events
            .iter()
            .map(|e| format!("{}={:x}", e.name, e.config(family.vendor())))
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    };
    // The user's processes left waiting stay theirs.
    let rules = Rules {
        timeout: f.timeout,
        leftovers: Leftovers::Leave,
        run: "native run",
    };
    let (run, regions) = with_regions(&mut cmd, &events, |cmd| watched(cmd, watch, &rules))?;
    let (ended, mut out) = run?;
    out.seconds = ended.seconds;
    out.left = ended.left;
    out.at_once = ended.at_once;
    out.looks = ended.looks;
    out.cpu = ended.cpu;
    out.regions = regions;
    Ok((ended.status, out))
}

/// Run `cmd` as `watch` asks.
fn watched(cmd: &mut Command, watch: Watch, rules: &Rules) -> Result<(Ended, NativeRun)> {
    match watch {
        Watch::Time => Ok((tree::run(cmd, rules, || {})?, NativeRun::default())),
        Watch::Sampled(events) => {
            let (ended, s) = sampler::run_with_events(cmd, events, rules)?;
            let samples = Some(s);
            Ok((
                ended,
                NativeRun {
                    samples,
                    ..NativeRun::default()
                },
            ))
        }
        Watch::Counted(family) => {
            let r = perf::count_command(family, cmd, rules)?;
            Ok((
                r.ended,
                NativeRun {
                    events: r.counts,
                    ..NativeRun::default()
                },
            ))
        }
    }
}

/// Run `cmd` with the regions library writing its records to a private
/// file, counting `events` (empty: time only); what `run` returned and the
/// records.
pub fn with_regions<T>(
    cmd: &mut Command,
    events: &str,
    run: impl FnOnce(&mut Command) -> T,
) -> Result<(T, Vec<Record>)> {
    let dir = crate::files::scratch_dir("regions")?;
    let file = dir.join("regions.jsonl");
    cmd.env(carmbench_regions::OUT_ENV, &file)
        .env(carmbench_regions::EVENTS_ENV, events)
        .env_remove(carmbench_regions::EMULATED_ENV);
    let out = run(cmd);
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    let doc = "the regions record";
    let records = text
        .lines()
        .map(|l| {
            let r = Record::parse_line(l).map_err(|e| Error::input(format!("{doc}: {e}")))?;
            crate::results::check::region(&r, doc)?;
            Ok(r)
        })
        .collect::<Result<_>>()?;
    Ok((out, records))
}

/// An error for a command that did not exit with 0.
pub fn failed(prog: &str, status: &ExitStatus) -> Error {
    use std::os::unix::process::ExitStatusExt;
    // 132: a shell's report of a child stopped by SIGILL.
    if status.signal() == Some(libc::SIGILL) || status.code() == Some(128 + libc::SIGILL) {
        return Error::input(format!(
            "'{prog}' stopped on an instruction this CPU lacks (SIGILL): it was built for another CPU (e.g. -march=native elsewhere, AVX-512); build it for this one, and to count it by emulation count a twin build with --count-with PROGRAM (e.g. built with -march=x86-64-v3); no point written"
        ));
    }
    Error::input(format!(
        "'{prog}' {}; no point written",
        how_it_ended(status)
    ))
}

/// How a run ended, for people.
pub fn how_it_ended(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was stopped by signal {s} ({})", signal_name(s)),
        _ => format!("ended ({status})"),
    }
}

fn signal_name(s: i32) -> &'static str {
    match s {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_at_once_are_trusted_only_from_enough_looks() {
        let run = |at_once, looks| NativeRun {
            at_once,
            looks,
            ..NativeRun::default()
        };
        // A brief run whose few looks saw its main thread set up alone.
        assert_eq!(run(1, 3).at_once_seen(), None);
        assert_eq!(run(2, MIN_LOOKS).at_once_seen(), Some(2));
        assert_eq!(run(0, 50).at_once_seen(), None);
        // Any look that saw two at once shows they ran together.
        assert_eq!(run(2, 3).threads_at_once(), Some(2));
    }
}
