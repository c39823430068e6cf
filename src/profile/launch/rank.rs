//! The rank wrapper (`carmbench mpi-rank`, hidden): what the launcher
//! starts in the program's place on every rank. It finds its rank in the
//! environment the launcher gives, then either runs the program natively
//! (timed, sampled or counted with the PMU, its regions timed) and writes
//! what it found to `rank-N.json`, or becomes QEMU with the counting plugin
//! writing into `rank-N/`. Either way the launcher sees the program's own
//! exit status.

use crate::error::{Error, Result};
use crate::profile::launch::command;
use crate::profile::launch::native::{self, NativeRun, Watch};
use crate::profile::measured::events;
use crate::profile::measured::samples::Samples;
use carmbench_counts::follow::Config;
use carmbench_regions::Record;
use clap::Args;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};

/// The environment variables a rank's number is read from, in order:
/// Open MPI, PMIx (Open MPI 5, srun --mpi=pmix), MPICH's PMI, Slurm.
pub const RANK_VARS: [&str; 4] = [
    "OMPI_COMM_WORLD_RANK",
    "PMIX_RANK",
    "PMI_RANK",
    "SLURM_PROCID",
];

/// How the wrapper runs its rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Natively, its wall time.
    Time,
    /// Natively, sampled (with the `--events` beside the time).
    Sampled,
    /// Natively, counted with the PMU events of `--family`.
    Counted,
    /// Under QEMU with the counting plugin (`--config`).
    Emulated,
}

/// The wrapper's arguments, as carmbench writes them.
#[derive(Debug, Clone, Args)]
pub struct RankArgs {
    /// The folder the ranks write into.
    #[arg(long)]
    pub dir: PathBuf,
    /// How the rank runs.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// Events sampled beside the time (name=config in hex).
    #[arg(long, value_delimiter = ',')]
    pub events: Vec<String>,
    /// The PMU event family counted.
    #[arg(long)]
    pub family: Option<String>,
    /// The emulator's configuration, encoded.
    #[arg(long)]
    pub config: Option<OsString>,
    /// Environment variables for the emulated program (NAME=VALUE).
    #[arg(long)]
    pub env: Vec<String>,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub command: Vec<OsString>,
}

/// What a rank's native run wrote.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankRun {
    /// Its rank.
    pub rank: u32,
    /// The node it ran on.
    pub host: String,
    /// Its wall time, seconds.
    pub seconds: f64,
    /// How it failed, when it did.
    pub failed: Option<String>,
    /// Where its time went, when sampled.
    pub samples: Option<SampleRecord>,
    /// The PMU's counts, when counted.
    pub events: BTreeMap<String, u64>,
    /// Its regions.
    pub regions: Vec<Record>,
}

/// [`Samples`] as a file holds them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SampleRecord {
    places: Vec<(String, u64, u64)>,
    total: u64,
    lost: u64,
    events: BTreeMap<String, Vec<(String, u64, u64)>>,
    event_period: u64,
    cpu_seconds: f64,
    /// The time samples in order: (seconds, file, offset), for a timeline.
    #[serde(default)]
    timed: Vec<(f64, String, u64)>,
    /// When each hardware event's samples were taken.
    #[serde(default)]
    event_times: BTreeMap<String, Vec<f64>>,
    /// The sampled run's wall time.
    #[serde(default)]
    wall_seconds: f64,
}

type Places = std::collections::HashMap<(String, u64), u64>;

fn listed(p: &Places) -> Vec<(String, u64, u64)> {
    let mut v: Vec<_> = p.iter().map(|((m, o), n)| (m.clone(), *o, *n)).collect();
    v.sort();
    v
}

fn keyed(v: Vec<(String, u64, u64)>) -> Places {
    v.into_iter().map(|(m, o, n)| ((m, o), n)).collect()
}

impl From<&Samples> for SampleRecord {
    fn from(s: &Samples) -> Self {
        SampleRecord {
            places: listed(&s.places),
            total: s.total,
            lost: s.lost,
            events: s
                .events
                .iter()
                .map(|(k, p)| (k.clone(), listed(p)))
                .collect(),
            event_period: s.event_period,
            cpu_seconds: s.cpu_seconds,
            timed: (s.timed.iter())
                .map(|(t, (m, o))| (*t, m.clone(), *o))
                .collect(),
            event_times: s.event_times.clone(),
            wall_seconds: s.wall_seconds,
        }
    }
}

impl From<SampleRecord> for Samples {
    fn from(r: SampleRecord) -> Self {
        Samples {
            places: keyed(r.places),
            total: r.total,
            lost: r.lost,
            events: r.events.into_iter().map(|(k, p)| (k, keyed(p))).collect(),
            event_period: r.event_period,
            cpu_seconds: r.cpu_seconds,
            timed: r.timed.into_iter().map(|(t, m, o)| (t, (m, o))).collect(),
            // A rank is one process: its windows need no telling apart.
            timed_pid: Vec::new(),
            event_times: r.event_times,
            wall_seconds: r.wall_seconds,
        }
    }
}

impl RankRun {
    /// The native run it stands for.
    pub fn native(self) -> NativeRun {
        NativeRun {
            seconds: self.seconds,
            samples: self.samples.map(Samples::from),
            events: self.events,
            regions: self.regions,
            left: Vec::new(),
            at_once: 0,
            looks: 0,
            // A rank ran beside the others: its use of the CPUs is not its own.
            cpu: Default::default(),
        }
    }
}

/// This process's rank, from the launcher's environment.
pub fn rank_here() -> Option<u32> {
    RANK_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// The file a rank's native run writes.
pub fn run_file(dir: &Path, rank: u32) -> PathBuf {
    dir.join(format!("rank-{rank}.json"))
}

/// The file a rank's wrapper makes as it starts: a rank without its
/// record was started, and stopped before its end.
pub fn started_file(dir: &Path, rank: u32) -> PathBuf {
    dir.join(format!("rank-{rank}.started"))
}

/// The folder a rank's counts are written into.
pub fn counts_dir(dir: &Path, rank: u32) -> PathBuf {
    dir.join(format!("rank-{rank}"))
}

/// Run the wrapper; its exit status, the program's.
pub fn main(a: &RankArgs) -> i32 {
    match wrap(a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("carmbench mpi-rank: error: {e}");
            e.exit_code()
        }
    }
}

fn wrap(a: &RankArgs) -> Result<i32> {
    let rank = rank_here().ok_or_else(|| {
        Error::input(format!(
            "no rank in the environment ({}): start carmbench mpi-rank through an MPI launcher",
            RANK_VARS.join(", ")
        ))
    })?;
    let found = command::find(&a.command)?;
    // Told apart from a rank the launcher never started.
    let _ = std::fs::create_dir_all(&a.dir);
    let _ = std::fs::write(started_file(&a.dir, rank), "");
    // Killed by the launcher, this wrapper cannot remove its scratch
    // folders: they go where carmbench removes the job's files.
    crate::files::scratch_in(&a.dir);
    if a.mode == Mode::Emulated {
        return Err(become_emulated(a, rank, &found));
    }
    let events: Vec<(String, u64)> = (a.events.iter())
        .filter_map(|e| {
            let (n, c) = e.split_once('=')?;
            Some((n.to_string(), u64::from_str_radix(c, 16).ok()?))
        })
        .collect();
    let family = match (a.mode, &a.family) {
        (Mode::Counted, Some(name)) => Some(
            (events::families().into_iter().find(|f| &f.name == name))
                .ok_or_else(|| Error::input(format!("no PMU event family '{name}'")))?,
        ),
        _ => None,
    };
    let watch = match (&family, a.mode) {
        (Some(f), _) => Watch::Counted(f),
        (None, Mode::Sampled) => Watch::Sampled(&events),
        _ => Watch::Time,
    };
    crate::profile::launch::signals::catch_for_rank(rank);
    let (status, run) = native::run_status(&found, watch, Stdio::inherit())?;
    let record = RankRun {
        rank,
        host: crate::fleet::slurm::node_name(),
        seconds: run.seconds,
        failed: (!status.success()).then(|| native::how_it_ended(&status)),
        samples: run.samples.as_ref().map(SampleRecord::from),
        events: run.events,
        regions: run.regions,
    };
    let text = serde_json::to_string(&record).map_err(|e| Error::Io(e.to_string()))?;
    crate::files::write_atomic(&run_file(&a.dir, rank), &text)?;
    crate::profile::launch::signals::exit_if_stopped();
    Ok(exit_code(&status))
}

/// Exec QEMU with the plugin counting into this rank's folder; an error
/// when that cannot be done.
fn become_emulated(a: &RankArgs, rank: u32, found: &command::Found) -> Error {
    use std::os::unix::process::CommandExt;
    let Some(mut config) = a.config.as_deref().and_then(Config::decode) else {
        return Error::input("--mode emulated needs the emulator's --config");
    };
    config.out = counts_dir(&a.dir, rank);
    if let Err(e) = std::fs::create_dir_all(&config.out) {
        return Error::Io(format!("cannot make {}: {e}", config.out.display()));
    }
    let env: Vec<(&str, &str)> = (a.env.iter()).filter_map(|kv| kv.split_once('=')).collect();
    let mut cmd = match crate::profile::launch::emulator::guest_command(&config, found, &env) {
        Ok(c) => c,
        Err(e) => return e,
    };
    Error::Io(format!(
        "cannot start {}: {}",
        config.qemu.display(),
        cmd.exec()
    ))
}

/// The exit status a shell would give for `status`.
fn exit_code(status: &ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or(status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_come_back_from_their_record_as_they_were() {
        let mut s = Samples {
            total: 7,
            cpu_seconds: 0.07,
            event_period: 1000,
            ..Samples::default()
        };
        s.places.insert(("/bin/app".into(), 0x40), 5);
        s.places.insert((String::new(), 0x7000), 2);
        s.events
            .insert("ev".into(), [(("/bin/app".into(), 0x40), 3)].into());
        let text = serde_json::to_string(&SampleRecord::from(&s)).unwrap();
        let back: SampleRecord = serde_json::from_str(&text).unwrap();
        let back = Samples::from(back);
        assert_eq!(
            (back.places, back.events, back.total),
            (s.places, s.events, 7)
        );
    }
}
