//! An MPI job as a launch (`profile --mpi -- mpirun -np 4 ./app`): the
//! launcher ([`crate::profile::launch::launcher`]) starts carmbench's rank wrapper
//! ([`crate::profile::launch::rank`]) in the program's place, which runs its rank natively
//! and writes what it found to `rank-N.json`, or becomes QEMU with the
//! plugin writing into `rank-N/`. Each launch is a whole job: ranks of one
//! launch only talk to each other.

use super::{Guest, Launch, Rank, Ranked};
use crate::error::{Error, Result};
use crate::profile::launch::command::Found;
use crate::profile::launch::launcher::{Launcher, MpiCommand};
use crate::profile::launch::native::{NativeRun, Watch, how_it_ended};
use crate::profile::launch::plugin_counts::{Emulated, read_processes};
use crate::profile::launch::rank::{Mode, RankRun};
use crate::profile::launch::stderr::{one_line, with_stderr};
use crate::profile::launch::tree::{self, Leftovers, Rules};
use crate::results::apps::FailedRank;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// An MPI launch to profile.
#[derive(Debug, Clone)]
pub struct Mpi {
    /// The launch command, split.
    pub launch: MpiCommand,
    /// The program every rank runs, found here.
    pub program: Found,
    /// The launcher's file.
    pub launcher: PathBuf,
    /// Where the ranks write: beside the apps file, as on a cluster the
    /// nodes share that folder more often than a temporary one.
    pub shared: PathBuf,
}

/// How one launch of the job is run.
struct Job<'a> {
    mpi: &'a Mpi,
    dir: &'a Path,
    mode: Mode,
    /// More wrapper arguments (the emulator, the events).
    extra: Vec<OsString>,
    /// The program counted in the program's place (a twin build).
    program: Option<&'a str>,
}

impl Job<'_> {
    /// The launch command: carmbench's wrapper before the program.
    fn command(&self) -> Result<Command> {
        let exe = std::env::current_exe()
            .map_err(|e| Error::Io(format!("cannot find carmbench's own program: {e}")))?;
        use clap::ValueEnum;
        let mode =
            (self.mode.to_possible_value()).map_or(String::new(), |v| v.get_name().to_string());
        let mut wrapper: Vec<OsString> = vec![exe.into(), "mpi-rank".into(), "--dir".into()];
        wrapper.extend([self.dir.into(), "--mode".into(), mode.into()]);
        wrapper.extend(self.extra.iter().cloned());
        wrapper.push("--".into());
        let mut launch = self.mpi.launch.clone();
        if let Some(p) = self.program {
            launch.program = p.to_string();
        }
        let argv = launch.wrapped(&wrapper);
        let mut cmd = Command::new(&self.mpi.launcher);
        cmd.args(&argv[1..]);
        Ok(cmd)
    }

    /// Run it natively (its output the user's); the launcher's status.
    fn run_native(&self, stdin: Stdio) -> Result<std::process::ExitStatus> {
        std::fs::create_dir_all(self.dir).map_err(|e| Error::Io(e.to_string()))?;
        let mut cmd = self.command()?;
        cmd.stdin(stdin);
        let rules = Rules {
            timeout: self.mpi.program.timeout,
            leftovers: Leftovers::Leave,
            run: "native run",
        };
        Ok(tree::run(&mut cmd, &rules, || {})?.status)
    }

    /// Each rank's native run, by rank; the ranks that failed.
    fn native_ranks(&self) -> (BTreeMap<u32, RankRun>, Vec<FailedRank>) {
        let mut ok = BTreeMap::new();
        let mut failed = Vec::new();
        let files = std::fs::read_dir(self.dir).into_iter().flatten().flatten();
        for f in files.map(|e| e.path()) {
            let Some(r) = (std::fs::read_to_string(&f).ok())
                .and_then(|t| serde_json::from_str::<RankRun>(&t).ok())
            else {
                continue;
            };
            match r.failed.clone() {
                Some(why) => failed.push(FailedRank { rank: r.rank, why }),
                None => {
                    ok.insert(r.rank, r);
                }
            }
        }
        failed.sort_by_key(|f| f.rank);
        (ok, failed)
    }
}

impl Mpi {
    /// The ranks' native runs, launched with `mode`: those that ran, and
    /// those that failed; an error when no rank ran.
    fn ranks(
        &self,
        dir: &Path,
        mode: Mode,
        extra: Vec<OsString>,
        stdin: Stdio,
    ) -> Result<(BTreeMap<u32, RankRun>, Vec<FailedRank>)> {
        let job = Job {
            mpi: self,
            dir,
            mode,
            extra,
            program: None,
        };
        let status = job.run_native(stdin)?;
        let (ok, mut failed) = job.native_ranks();
        let started = |r: u32| crate::profile::launch::rank::started_file(dir, r).exists();
        let asked = self.launch.ranks().unwrap_or(0);
        let any_started = (std::fs::read_dir(dir).into_iter().flatten().flatten())
            .any(|e| e.file_name().to_string_lossy().ends_with(".started"));
        if !status.success() && ok.is_empty() && failed.is_empty() && !any_started {
            return Err(Error::input(format!(
                "--mpi: {} {} and started no rank of '{}': the launch itself failed (see its messages above: hosts, the scheduler, the MPI installation); no point written",
                self.launch.head[0],
                how_it_ended(&status),
                self.program.given
            )));
        }
        // Ranks asked for that wrote nothing: stopped before their end, or
        // never started.
        for rank in 0..asked {
            if !ok.contains_key(&rank) && !failed.iter().any(|f| f.rank == rank) {
                let why = match started(rank) {
                    true => {
                        "ended without its record (stopped before its end: a launcher stops the job when a rank fails)"
                    }
                    false => "was never started by the launcher",
                };
                failed.push(FailedRank {
                    rank,
                    why: why.into(),
                });
            }
        }
        failed.sort_by_key(|f| f.rank);
        if ok.is_empty() {
            let why = match failed.is_empty() {
                false => (failed.iter())
                    .map(|f| format!("rank {} {}", f.rank, f.why))
                    .collect::<Vec<_>>()
                    .join("; "),
                true => format!(
                    "{} {} and no rank ran under carmbench's wrapper (see its messages above)",
                    self.launch.head[0],
                    how_it_ended(&status)
                ),
            };
            return Err(Error::input(format!(
                "--mpi: no rank of '{}' ran to its end: {why}; no point written",
                self.program.given
            )));
        }
        Ok((ok, failed))
    }

    /// The emulated launch: each rank's counts, by rank, and its seconds.
    fn counted(
        &self,
        g: &Guest,
        dir: &Path,
        stdin: Stdio,
    ) -> Result<(BTreeMap<u32, Emulated>, f64)> {
        let mut extra: Vec<OsString> = vec!["--config".into()];
        extra.push(g.emulator.config(dir).encode());
        for (k, v) in g.env {
            extra.extend(["--env".into(), format!("{k}={v}").into()]);
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(e.to_string()))?;
        let twin = g.twin.map(|t| t.path.to_string_lossy().into_owned());
        let job = Job {
            mpi: self,
            dir,
            mode: Mode::Emulated,
            extra,
            program: twin.as_deref(),
        };
        let mut cmd = job.command()?;
        cmd.stdin(stdin).stdout(Stdio::null());
        let rules = Rules {
            timeout: self.program.timeout,
            leftovers: Leftovers::Stop,
            run: "emulated run",
        };
        let t0 = Instant::now();
        let (ended, stderr) = with_stderr(cmd, |cmd| tree::run(cmd, &rules, || {}));
        let ended = ended?;
        let seconds = t0.elapsed().as_secs_f64();
        let mut by_rank = BTreeMap::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(r) = name
                .strip_prefix("rank-")
                .and_then(|r| r.parse::<u32>().ok())
            else {
                continue;
            };
            let mut counted = read_processes(&entry.path())?;
            counted.settle(ended.left.clone());
            by_rank.insert(r, counted);
        }
        if by_rank.values().all(|c| c.processes.is_empty()) {
            return Err(Error::Io(format!(
                "--mpi: the emulated launch counted no rank ({}); it said: {}",
                how_it_ended(&ended.status),
                one_line(&stderr)
            )));
        }
        Ok((by_rank, seconds))
    }
}

/// How the wrapper runs a rank watched as `watch`, and the arguments that
/// go with it.
fn mode(watch: Watch) -> (Mode, Vec<OsString>) {
    match watch {
        Watch::Time => (Mode::Time, Vec::new()),
        Watch::Sampled([]) => (Mode::Sampled, Vec::new()),
        Watch::Sampled(events) => {
            let events: Vec<String> = (events.iter()).map(|(n, c)| format!("{n}={c:x}")).collect();
            (
                Mode::Sampled,
                vec!["--events".into(), events.join(",").into()],
            )
        }
        Watch::Counted(family) => (
            Mode::Counted,
            vec!["--family".into(), family.name.clone().into()],
        ),
    }
}

impl Launch for Mpi {
    fn program(&self) -> &Found {
        &self.program
    }

    fn launcher(&self) -> Option<Launcher> {
        Some(self.launch.launcher)
    }

    fn scratch(&self) -> Result<PathBuf> {
        crate::files::scratch_dir_in(&self.shared, "mpi")
    }

    fn native(&self, watch: Watch, stdin: Stdio, dir: &Path) -> Result<Ranked<NativeRun>> {
        let (mode, extra) = mode(watch);
        let (runs, failed) = self.ranks(dir, mode, extra, stdin)?;
        let each = (runs.into_iter())
            .map(|(r, run)| {
                let host = run.host.clone();
                let run = run.native();
                (r, Rank { host, run })
            })
            .collect();
        Ok(Ranked { each, failed })
    }

    fn emulated(&self, g: &Guest, stdin: Stdio, dir: &Path) -> Result<(Ranked<Emulated>, f64)> {
        let (by_rank, seconds) = self.counted(g, dir, stdin)?;
        // A rank that wrote no counts is missing here: the counter names it.
        let each = (by_rank.into_iter())
            .filter(|(_, c)| !c.processes.is_empty())
            .map(|(r, run)| {
                let host = String::new();
                (r, Rank { host, run })
            })
            .collect();
        let failed = Vec::new();
        Ok((Ranked { each, failed }, seconds))
    }
}
