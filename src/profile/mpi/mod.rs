//! MPI programs (`profile --mpi -- mpirun -np 4 ./app`): every rank counted
//! and timed by carmbench's rank wrapper ([`rank`]), which the launcher
//! starts in the program's place ([`launcher`]), then the ranks joined
//! ([`join`]): one measure whose total is their sum, whose time is the
//! slowest rank's, and which keeps each rank's part for its own point and
//! for the spread of functions and regions over the ranks.
//!
//! The job is launched twice, as a command is run twice: natively (its
//! time and samples, or the PMU's counts) and counted (under QEMU, or
//! sampled beside the PMU). Each launch is a whole job: ranks of one
//! launch only talk to each other.

pub mod join;
pub mod launcher;
pub mod rank;
pub mod runtime;

use super::command::Found;
use super::counter::Measured;
use super::counter::Pmu;
use super::emulate::{Emulated, Emulation, read_processes};
use super::input::Input;
use super::stderr::{one_line, with_stderr};
use super::tree::{self, Leftovers, Rules};
use crate::error::{Error, Result};
use crate::results::apps::FailedRank;
use launcher::Launch;
use rank::{Mode, RankRun};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// An MPI launch to profile.
#[derive(Debug, Clone)]
pub struct Mpi {
    /// The launch command, split.
    pub launch: Launch,
    /// The program every rank runs, found here.
    pub program: Found,
    /// The launcher's file.
    pub launcher: std::path::PathBuf,
    /// Where the ranks write: beside the apps file, as on a cluster the
    /// nodes share that folder more often than a temporary one.
    pub shared: std::path::PathBuf,
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
    fn native(
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
        // Ranks asked for that wrote nothing: stopped before their end.
        for rank in 0..self.launch.ranks().unwrap_or(0) {
            if !ok.contains_key(&rank) && !failed.iter().any(|f| f.rank == rank) {
                failed.push(FailedRank {
                    rank,
                    why: "ended without its record (stopped before its end: a launcher stops the job when a rank fails)".into(),
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
                    super::native::how_it_ended(&status)
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
    fn emulated(
        &self,
        e: &Emulation,
        dir: &Path,
        stdin: Stdio,
    ) -> Result<(BTreeMap<u32, Emulated>, f64)> {
        let mut extra: Vec<OsString> = vec!["--config".into()];
        extra.push(e.emulator.config(dir).encode());
        for (k, v) in e.env() {
            extra.extend(["--env".into(), format!("{k}={v}").into()]);
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(e.to_string()))?;
        let twin = e
            .twin
            .as_ref()
            .map(|t| t.path.to_string_lossy().into_owned());
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
                super::native::how_it_ended(&ended.status),
                one_line(&stderr)
            )));
        }
        Ok((by_rank, seconds))
    }
}

/// How the ranks are counted.
#[derive(Debug, Clone, Copy)]
pub enum Counting<'a> {
    /// Under QEMU.
    Emulate(&'a Emulation),
    /// With the PMU's events.
    Pmu(&'a Pmu),
    /// By hand: refused, each rank's work is counted.
    Manual,
}

/// Count and time every rank of `mpi`'s job as `counting` counts.
pub fn measure(mpi: &Mpi, counting: Counting, sampled: bool) -> Result<Measured> {
    let scratch = crate::files::scratch_dir_in(&mpi.shared, "mpi")?;
    let out = (|| match counting {
        Counting::Emulate(e) => by_emulation(mpi, e, &scratch),
        Counting::Pmu(p) => {
            let family = vec!["--family".into(), p.family.name.clone().into()];
            let (mut runs, failed) = mpi.native(
                &scratch.join("native"),
                Mode::Counted,
                family,
                Stdio::inherit(),
            )?;
            let mut samples = BTreeMap::new();
            if sampled {
                let events: Vec<String> = (p.sampled_events().iter())
                    .map(|(n, c)| format!("{n}={c:x}"))
                    .collect();
                let extra = vec!["--events".into(), events.join(",").into()];
                let dir = scratch.join("sampled");
                let (again, _) = mpi.native(&dir, Mode::Sampled, extra, Stdio::null())?;
                samples = again
                    .into_iter()
                    .map(|(r, a)| (r, a.native().samples))
                    .collect();
            }
            let parts = std::mem::take(&mut runs).into_iter().map(|(rank, run)| {
                let host = run.host.clone();
                let measured = p.assemble(run.native(), samples.remove(&rank).flatten());
                let runtime = sampled.then(|| join::runtime_work(&measured.blocks));
                join::Part {
                    rank,
                    host,
                    measured,
                    runtime,
                }
            });
            Ok(join::join(mpi.launch.launcher, parts.collect(), failed))
        }
        Counting::Manual => Err(Error::input(
            "--mpi counts each rank (by emulation or the PMU): leave out --flops and --bytes",
        )),
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    out
}

/// Both launches under emulation, joined.
fn by_emulation(mpi: &Mpi, e: &Emulation, scratch: &Path) -> Result<Measured> {
    let refused = super::sample::available().err();
    let mode = match refused {
        None => Mode::Sampled,
        Some(_) => Mode::Time,
    };
    let input = Input::of_stdin(scratch)?;
    let (mut runs, mut failed) =
        mpi.native(&scratch.join("native"), mode, Vec::new(), input.first()?)?;
    let (stdin, unreplayed) = input.second()?;
    let (mut counted, seconds) = mpi.emulated(e, &scratch.join("counted"), stdin)?;
    let mut parts = Vec::new();
    for (r, run) in std::mem::take(&mut runs) {
        let Some(out) = counted.remove(&r).filter(|c| !c.processes.is_empty()) else {
            failed.push(FailedRank {
                rank: r,
                why: "wrote no counts in the emulated launch".into(),
            });
            continue;
        };
        let host = run.host.clone();
        let runtime = Some(join::runtime_counted(&out.processes));
        let measured = e.assemble(
            &mpi.program,
            run.native(),
            out,
            seconds,
            unreplayed,
            refused.clone(),
        );
        parts.push(join::Part {
            rank: r,
            host,
            measured,
            runtime,
        });
    }
    if parts.is_empty() {
        return Err(Error::input(format!(
            "--mpi: no rank of '{}' was both timed and counted; no point written",
            mpi.program.given
        )));
    }
    failed.sort_by_key(|f| f.rank);
    Ok(join::join(mpi.launch.launcher, parts, failed))
}
