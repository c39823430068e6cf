//! Counting a command: every counter (given by hand, the PMU, emulation)
//! runs it natively for its time and gives one [`Measured`]: the work of
//! the whole command, of each process, region and block of code, and where
//! the native run's time went. The views ([`super::views`]) make the points
//! from it without asking which counter it was.

use super::command::Found;
use super::mpi::launcher::Launcher;
use super::native::{self, NativeRun, Watch};
use super::pmu::Family;
use super::sample::Samples;
use super::warnings::Warning;
use super::work::Work;
use crate::error::Result;
use crate::results::apps::{EmulatedCpu, FailedRank};

/// Counts a command.
pub trait Counter {
    /// Run `command` (natively, and counted as this counter counts) and
    /// say what it did; where its time went too, when `sampled`.
    fn measure(&self, command: &Found, sampled: bool) -> Result<Measured>;
}

/// What counting a command found.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// The whole command.
    pub total: Work,
    /// Seconds the command ran natively.
    pub seconds: f64,
    /// The most threads one of its processes ran, when counted.
    pub threads: Option<usize>,
    /// Each process it started, when counted apart (emulation).
    pub processes: Vec<Process>,
    /// Each region its programs marked.
    pub regions: Vec<Region>,
    /// Each block of code that did work, where it is.
    pub blocks: Vec<Block>,
    /// Where the native run's time went, when sampled.
    pub samples: Option<Samples>,
    /// Where the counts come from, for the apps file.
    pub source: String,
    /// How the counting went, for people.
    pub note: Option<String>,
    /// The program counted in the command's place (a twin build).
    pub counted_with: Option<String>,
    /// What was not counted.
    pub warnings: Vec<Warning>,
    /// The work was counted in another run than the time was measured in
    /// (emulation): the two runs' code is compared.
    pub separate_runs: bool,
    /// The CPU the emulated program was shown.
    pub emulated_cpu: Option<EmulatedCpu>,
    /// The control flow between the blocks (loops asked for).
    pub flow: Vec<Flow>,
    /// Each rank, for an MPI job (`--mpi`): the rest is their sum.
    pub ranks: Option<Ranks>,
}

/// Every rank of a job.
#[derive(Debug, Clone)]
pub struct Ranks {
    /// Who launched them.
    pub launcher: Launcher,
    /// Each rank that ran to its end, by rank.
    pub each: Vec<RankPart>,
    /// Those that did not: left out of the sums.
    pub failed: Vec<FailedRank>,
}

/// One rank's part.
#[derive(Debug, Clone)]
pub struct RankPart {
    /// Its rank.
    pub rank: u32,
    /// The node it ran on.
    pub host: String,
    /// Its work.
    pub total: Work,
    /// Its wall time.
    pub seconds: f64,
    /// Its threads, when counted.
    pub threads: Option<usize>,
    /// Its regions.
    pub regions: Vec<Region>,
    /// Where its time went, when sampled.
    pub samples: Option<Samples>,
    /// Its work in the MPI runtime's code, when counted by place: what it
    /// did waiting for the other ranks is there.
    pub runtime: Option<Work>,
}

impl Ranks {
    /// The nodes the ranks ran on.
    pub fn nodes(&self) -> usize {
        let hosts: std::collections::BTreeSet<&str> =
            self.each.iter().map(|r| r.host.as_str()).collect();
        hosts.len().max(1)
    }

    /// The slowest rank.
    pub fn slowest(&self) -> u32 {
        (self.each.iter())
            .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
            .map_or(0, |r| r.rank)
    }

    /// The region `name` in each rank: its seconds and work (none in a
    /// rank that never entered it).
    pub fn region_parts(&self, name: &str) -> Vec<(u32, f64, Work)> {
        (self.each.iter())
            .map(|r| match r.regions.iter().find(|x| x.name == name) {
                Some(x) => (r.rank, x.seconds, x.work.clone()),
                None => (r.rank, 0.0, Work::default()),
            })
            .collect()
    }
}

/// One process of the command.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    /// The program it ran.
    pub program: String,
    /// Its pid in the counted run.
    pub pid: u32,
    /// Its work.
    pub work: Work,
    /// It ended by running another program (an exec): a launcher.
    pub replaced: bool,
}

/// One region, its work summed over its calls, threads and processes.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// Its name.
    pub name: String,
    /// Calls over all threads and processes.
    pub calls: u64,
    /// Its work.
    pub work: Work,
    /// Its native seconds, summed over calls and threads.
    pub seconds: f64,
}

/// The work of the code at one place of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The file's path, as the native run's samples name it ("" for code
    /// in no file).
    pub module: String,
    /// The offset in the file (the address, for code in no file).
    pub offset: u64,
    /// Its work, summed over its runs, threads and processes.
    pub work: Work,
    /// How often it ran (emulation with loops asked for; else 0).
    pub runs: u64,
    /// Its bytes of code (likewise).
    pub size: u64,
    /// How its last instruction leaves it.
    pub ends: carmbench_counts::End,
}

/// Control flow: one block ran right after another this often (emulation
/// with loops asked for), each by its file and offset as [`Block`]s are.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    /// The block that ran first.
    pub from: (String, u64),
    /// The block that ran next.
    pub to: (String, u64),
    /// How often.
    pub count: u64,
}

/// Counts given by hand: the native run gives the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Manual {
    /// W.
    pub flops: f64,
    /// Q.
    pub bytes: f64,
}

/// The warning for processes a native run left running.
pub fn left_running(run: &native::NativeRun) -> Vec<Warning> {
    match run.left.is_empty() {
        true => Vec::new(),
        false => vec![Warning::LeftRunning(run.left.clone())],
    }
}

impl Counter for Manual {
    fn measure(&self, command: &Found, _sampled: bool) -> Result<Measured> {
        let run = native::run(command, Watch::Time)?;
        Ok(Measured {
            total: Work::Given {
                flops: self.flops,
                bytes: self.bytes,
            },
            seconds: run.seconds,
            source: "manual counts".into(),
            warnings: left_running(&run),
            ..Measured::default()
        })
    }
}

/// The PMU: the native run counted with a CPU family's events; with
/// functions, a second native run samples them beside the time.
#[derive(Debug, Clone)]
pub struct Pmu {
    /// The events of this CPU.
    pub family: Family,
    /// Bytes per load or store, when given.
    pub access_bytes: Option<f64>,
}

impl Counter for Pmu {
    fn measure(&self, command: &Found, sampled: bool) -> Result<Measured> {
        let run = native::run(command, Watch::Counted(&self.family))?;
        let samples = match sampled {
            true => {
                let events = self.sampled_events();
                let again = native::run(command, Watch::Sampled(&events))?;
                Some(again.samples.unwrap_or_default())
            }
            false => None,
        };
        Ok(self.assemble(run, samples))
    }
}

impl Pmu {
    /// The events sampled beside the time (name, raw config).
    pub fn sampled_events(&self) -> Vec<(String, u64)> {
        (self.family.events.iter())
            .map(|e| (e.name.clone(), e.config(self.family.vendor())))
            .collect()
    }

    /// The measure of a run counted with the events, and its samples.
    pub(crate) fn assemble(&self, run: NativeRun, samples: Option<Samples>) -> Measured {
        let warnings = left_running(&run);
        let mut m = Measured {
            total: Work::Events(run.events),
            seconds: run.seconds,
            source: "perf".into(),
            warnings,
            ..Measured::default()
        };
        for r in run.regions {
            if let Some(why) = r.error {
                m.warnings.push(Warning::RegionWithoutEvents {
                    region: r.name.clone(),
                    why,
                });
            }
            m.regions.push(Region {
                name: r.name,
                calls: r.calls,
                work: Work::Events(r.counts),
                seconds: r.seconds,
            });
        }
        if let Some(samples) = samples {
            m.blocks = sampled_blocks(&samples);
            m.samples = Some(samples);
        }
        m
    }
}

/// The blocks of a run's sampled hardware events: each place's samples of
/// each event, times the events between two samples.
pub(crate) fn sampled_blocks(s: &Samples) -> Vec<Block> {
    let mut out = Vec::new();
    for (event, places) in &s.events {
        for ((module, offset), n) in places {
            out.push(Block {
                module: module.clone(),
                offset: *offset,
                work: Work::Events([(event.clone(), n * s.event_period)].into()),
                runs: 0,
                size: 0,
                ends: Default::default(),
            });
        }
    }
    out
}
