//! What the emulated run of a command counted ([`Emulated`]): the plugin's
//! file of each process read back and summed, and what the run's end says
//! of them (processes left idle, lost or cut short).

use crate::error::{Error, Result};
use crate::profile::ground::warnings::Named;
use crate::profile::ground::warnings::Warning;
use carmbench_counts::follow;
use carmbench_counts::protocol::CountsFile;
use carmbench_counts::{Counts, Output, RegionCounts};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// What the emulated run of a command counted: the sums over every process
/// it started, and each process.
#[derive(Debug, Clone, Default)]
pub struct Emulated {
    /// The most threads one process ran.
    pub threads: usize,
    /// The whole command.
    pub total: Counts,
    /// Each region, summed over processes by name.
    pub regions: Vec<RegionCounts>,
    /// Each process, in the order they started.
    pub processes: Vec<Output>,
    /// Processes that ended without writing their counts (killed by a
    /// signal).
    pub lost: usize,
    /// Its processes still there, idle, when the command ended: stopped.
    pub stopped: Vec<Named>,
    /// Processes a signal ended while they waited: their counts up to
    /// that wait.
    pub cut: usize,
}

impl Emulated {
    /// What the run's end says of the counts: the processes it left idle
    /// (`left`, stopped) and those a signal cut short.
    pub(crate) fn settle(&mut self, left: Vec<Named>) {
        // Counts written as a process began to wait, and never again: a
        // signal ended it, carmbench's (a copy left idle) or another's.
        self.cut = (self.processes.iter())
            .filter(|p| p.partial && !left.iter().any(|s| s.pid as u32 == p.pid))
            .count();
        self.stopped = left;
    }
}

/// Every process's counts in `dir`, summed.
pub fn read_processes(dir: &Path) -> Result<Emulated> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::Io(format!("cannot read the counts in {}: {e}", dir.display())))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    // By pid, then by the programs one pid ran in turn.
    let order = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| CountsFile::parse(&n.to_string_lossy()))
    };
    files.sort_by_key(order);
    let mut c = Emulated::default();
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if text.is_empty() {
            c.lost += 1;
            continue;
        }
        let o: Output = serde_json::from_str(&text)
            .map_err(|e| Error::Io(format!("unreadable counts from the plugin: {e}")))?;
        if o.version != carmbench_counts::VERSION {
            return Err(Error::input(format!(
                "the counting plugin writes counts of version {}, this carmbench reads version {}; rebuild both together",
                o.version,
                carmbench_counts::VERSION
            )));
        }
        c.add(o);
    }
    Ok(c)
}

impl Emulated {
    /// Add one process.
    fn add(&mut self, o: Output) {
        self.threads = self.threads.max(o.threads);
        self.total += &o.total;
        for r in &o.regions {
            match self.regions.iter_mut().find(|x| x.name == r.name) {
                Some(x) => {
                    x.calls += r.calls;
                    x.counts += &r.counts;
                }
                None => self.regions.push(r.clone()),
            }
        }
        self.processes.push(o);
    }

    /// What was not counted: programs started natively, and processes that
    /// ended without their counts.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut w = Vec::new();
        for p in &self.processes {
            for s in &p.skipped {
                w.push(if s.is_empty() {
                    Warning::NotFollowed {
                        program: p.program.clone(),
                        pid: p.pid,
                        static_linked: is_static(&p.program),
                    }
                } else {
                    Warning::StartedNatively {
                        program: p.program.clone(),
                        pid: p.pid,
                        started: s.clone(),
                    }
                });
            }
        }
        if self.lost > 0 {
            w.push(Warning::LostCounts(self.lost));
        }
        if self.cut > 0 {
            w.push(Warning::CountsCut(self.cut));
        }
        w
    }
}

/// Whether `program` (a path, or a name on `PATH`) is a statically linked
/// x86-64 program: no preload library reaches the programs it starts.
fn is_static(program: &str) -> bool {
    let path = follow::search(OsStr::new(program), std::env::var_os("PATH").as_deref());
    path.and_then(|p| follow::head(&p).ok())
        .is_some_and(|h| follow::kind(&h) == follow::Kind::Elf { dynamic: false })
}
