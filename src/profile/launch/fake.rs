//! A launch that runs nothing: it gives the native runs and the emulated
//! counts it was made with, so that the counters, the fold and the views
//! are tested without QEMU, a PMU or an MPI launcher (as `measure::fake`
//! stands for the CPU).

use super::{Guest, Launch, Rank, Ranked};
use crate::error::{Error, Result};
use crate::profile::launch::command::Found;
use crate::profile::launch::launcher::Launcher;
use crate::profile::launch::native::{NativeRun, Watch};
use crate::profile::launch::plugin_counts::Emulated;
use crate::results::apps::FailedRank;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// How a fake launch was watched: one entry per run, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// Natively, for its time.
    Time,
    /// Natively, sampled with this many events beside the time.
    Sampled(usize),
    /// Natively, counted with this PMU family.
    Counted(String),
    /// Under the emulator, with the plugin's environment.
    Emulated(Vec<(String, String)>),
}

/// A scripted launch.
#[derive(Debug, Default)]
pub struct Fake {
    /// The program it stands for.
    pub program: Found,
    /// The launcher, for a job of ranks; `None`: one process tree.
    pub launcher: Option<Launcher>,
    /// Each rank's native run (its node, and what it gave).
    pub native: Vec<(u32, String, NativeRun)>,
    /// The ranks that failed in the native run.
    pub failed: Vec<FailedRank>,
    /// Each rank's counts under the emulator.
    pub emulated: Vec<(u32, Emulated)>,
    /// The emulated run's seconds.
    pub emulated_seconds: f64,
    /// What it was asked to do, in order.
    pub asked: RefCell<Vec<Asked>>,
}

impl Launch for Fake {
    fn program(&self) -> &Found {
        &self.program
    }

    fn launcher(&self) -> Option<Launcher> {
        self.launcher
    }

    fn scratch(&self) -> Result<PathBuf> {
        crate::files::scratch_dir("fake")
    }

    fn native(&self, watch: Watch, _stdin: Stdio, _dir: &Path) -> Result<Ranked<NativeRun>> {
        self.asked.borrow_mut().push(match watch {
            Watch::Time => Asked::Time,
            Watch::Sampled(e) => Asked::Sampled(e.len()),
            Watch::Counted(f) => Asked::Counted(f.name.clone()),
        });
        if self.native.is_empty() {
            return Err(Error::input("the fake launch has no native run"));
        }
        let each = (self.native.iter())
            .map(|(r, host, run)| {
                let mut run = run.clone();
                // A run watched for its time alone has no samples.
                if matches!(watch, Watch::Time) {
                    run.samples = None;
                }
                let host = host.clone();
                (*r, Rank { host, run })
            })
            .collect();
        let failed = self.failed.clone();
        Ok(Ranked { each, failed })
    }

    fn emulated(&self, g: &Guest, _stdin: Stdio, _dir: &Path) -> Result<(Ranked<Emulated>, f64)> {
        let env = (g.env.iter()).map(|(k, v)| (k.to_string(), v.clone()));
        self.asked.borrow_mut().push(Asked::Emulated(env.collect()));
        let each = (self.emulated.iter())
            .map(|(r, e)| {
                let run = e.clone();
                (
                    *r,
                    Rank {
                        host: String::new(),
                        run,
                    },
                )
            })
            .collect();
        let failed = Vec::new();
        Ok((Ranked { each, failed }, self.emulated_seconds))
    }
}
