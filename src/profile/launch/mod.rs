//! What a counter runs: a launch. One process tree (the command and every
//! program it starts, [`Tree`]), or an MPI job of ranks ([`mpi::Mpi`]: the
//! launcher starts carmbench's rank wrapper, [`rank`], in the program's
//! place). Either is run natively (timed, sampled or counted with the PMU)
//! or under the emulator, and gives each rank's run: a process tree is one
//! rank, 0. The counters are written once against [`Launch`], and a fake
//! ([`fake::Fake`]) lets them be tested without QEMU, a PMU or MPI.

pub mod command;
pub mod cpu_use;
pub mod emulator;
pub mod fake;
pub mod identity;
pub mod input;
pub mod launcher;
pub mod mask;
pub mod mpi;
pub mod native;
pub mod perf;
pub mod plugin_counts;
pub mod rank;
pub mod sampler;
pub mod signals;
pub mod stderr;
pub mod tree;
pub mod twin;

use crate::error::Result;
use crate::profile::launch::command::Found;
use crate::profile::launch::emulator::Emulator;
use crate::profile::launch::plugin_counts::Emulated;
use crate::results::apps::FailedRank;
use launcher::Launcher;
use native::{NativeRun, Watch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

/// Runs one profiled program, natively or emulated.
pub trait Launch {
    /// The program every rank runs (the command itself for a tree).
    fn program(&self) -> &Found;

    /// Who starts the ranks; `None` for one process tree.
    fn launcher(&self) -> Option<Launcher>;

    /// A new folder for one profile's files (its input's copy, the ranks'
    /// records), removed by the caller.
    fn scratch(&self) -> Result<PathBuf>;

    /// Run it natively, watched as `watch`, reading `stdin`; the ranks'
    /// files (if any) go to `dir`. Each rank's run, and the ranks that
    /// failed; an error when none ran.
    fn native(&self, watch: Watch, stdin: Stdio, dir: &Path) -> Result<Ranked<NativeRun>>;

    /// Run it under the emulator as `guest` says, reading `stdin`, its
    /// files in `dir`: each rank's counts, and the seconds it took.
    fn emulated(&self, guest: &Guest, stdin: Stdio, dir: &Path) -> Result<(Ranked<Emulated>, f64)>;
}

/// Each rank's part of one run of a launch (a tree's one process tree is
/// rank 0), and the ranks that failed.
#[derive(Debug, Clone)]
pub struct Ranked<T> {
    /// By rank.
    pub each: BTreeMap<u32, Rank<T>>,
    /// Ranks that did not run to their end.
    pub failed: Vec<FailedRank>,
}

/// One rank's run.
#[derive(Debug, Clone)]
pub struct Rank<T> {
    /// The node it ran on ("" for a process tree).
    pub host: String,
    /// What it gave.
    pub run: T,
}

impl<T> Ranked<T> {
    /// A launch of one rank, 0, that ran.
    pub fn one(run: T) -> Ranked<T> {
        Ranked {
            each: [(
                0,
                Rank {
                    host: String::new(),
                    run,
                },
            )]
            .into(),
            failed: Vec::new(),
        }
    }
}

/// What the emulated run is asked: the emulator, what the plugin does
/// besides counting, and the program counted in the command's place.
#[derive(Debug, Clone, Copy)]
pub struct Guest<'a> {
    /// QEMU, the plugin and the preload library.
    pub emulator: &'a Emulator,
    /// The plugin's environment (the caches to simulate, loops).
    pub env: &'a [(&'static str, String)],
    /// A twin build counted in the program's place.
    pub twin: Option<&'a Found>,
}

/// One process tree: the command and every program it starts.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The command.
    pub command: Found,
}

impl Launch for Tree {
    fn program(&self) -> &Found {
        &self.command
    }

    fn launcher(&self) -> Option<Launcher> {
        None
    }

    fn scratch(&self) -> Result<PathBuf> {
        crate::files::scratch_dir("input")
    }

    fn native(&self, watch: Watch, stdin: Stdio, _dir: &Path) -> Result<Ranked<NativeRun>> {
        Ok(Ranked::one(native::run_with(&self.command, watch, stdin)?))
    }

    fn emulated(&self, g: &Guest, stdin: Stdio, _dir: &Path) -> Result<(Ranked<Emulated>, f64)> {
        let t0 = Instant::now();
        let env: Vec<(&str, &str)> = g.env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let counted = g.twin.unwrap_or(&self.command);
        let out = g.emulator.count_found_with(counted, &env, stdin)?;
        Ok((Ranked::one(out), t0.elapsed().as_secs_f64()))
    }
}

/// The launch a profile resolved to.
#[derive(Debug, Clone)]
pub enum Planned {
    /// One process tree.
    Tree(Tree),
    /// An MPI job.
    Mpi(mpi::Mpi),
}

impl Planned {
    /// As a launch to run.
    pub fn launch(&self) -> &dyn Launch {
        match self {
            Planned::Tree(t) => t,
            Planned::Mpi(m) => m,
        }
    }
}
