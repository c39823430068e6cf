//! What counting a launch found ([`Measured`]): the work of the whole
//! command, of each process, region and block of code, where the native
//! run's time went, each rank's part of an MPI job, and how the work was
//! counted. The counters ([`crate::profile::counter`]) make it; the views
//! ([`crate::profile::views`]) read it and nothing else of the run.

pub mod events;
pub mod fold;
pub mod samples;
pub mod traffic;
pub mod work;

use crate::kernels::Precision;
use crate::profile::ground::warnings::Warning;
use crate::profile::measured::events::Family;
use crate::profile::measured::samples::Samples;
use crate::profile::measured::traffic::Caches;
use crate::profile::measured::work::{Basis, Work};
use crate::results::apps::{CountedBy, EmulatedCpu, FailedRank};

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
    /// The twin's file and the command's, as the blocks name them: the
    /// twin's functions stand for the command's.
    pub stand_in: Option<(String, String)>,
    /// What was not counted.
    pub warnings: Vec<Warning>,
    /// The work was counted in another run than the time was measured in
    /// (emulation): the two runs' code is compared.
    pub separate_runs: bool,
    /// The CPU the emulated program was shown.
    pub emulated_cpu: Option<EmulatedCpu>,
    /// How the native run used the CPUs (not for an MPI job: its ranks
    /// ran apart).
    pub cpu: Option<crate::results::apps::NativeTime>,
    /// The control flow between the blocks (loops asked for).
    pub flow: Vec<Flow>,
    /// Each rank, for an MPI job (`--mpi`): the rest is their sum.
    pub ranks: Option<Ranks>,
    /// How the work was counted: what turns it into W and Q.
    pub method: Method,
    /// The run in windows of the emulated run's time, in order
    /// (`--timeline`): they add up to `total`.
    pub windows: Vec<Window>,
}

/// How a run's work was counted, as much as its views need to turn that
/// work into W and Q.
#[derive(Debug, Clone, Default)]
pub enum Method {
    /// Given by hand.
    #[default]
    Manual,
    /// The PMU's events of this family; the bytes of one access, when given.
    Pmu {
        /// The CPU's event family.
        family: Family,
        /// Bytes per load or store, when given.
        access_bytes: Option<f64>,
    },
    /// Emulation, with the caches it simulated (`--traffic`).
    Emulation {
        /// The caches simulated, when asked for.
        caches: Option<Caches>,
    },
}

impl Method {
    /// The PMU's family and access bytes, when counted by the PMU.
    pub fn pmu(&self) -> Option<(&Family, Option<f64>)> {
        match self {
            Method::Pmu {
                family,
                access_bytes,
            } => Some((family, *access_bytes)),
            _ => None,
        }
    }

    /// The caches simulated, when there were.
    pub fn caches(&self) -> Option<&Caches> {
        match self {
            Method::Emulation { caches } => caches.as_ref(),
            _ => None,
        }
    }

    /// The counter, as a point says it.
    pub fn counted_by(&self) -> CountedBy {
        match self {
            Method::Manual => CountedBy::Manual,
            Method::Pmu { .. } => CountedBy::Pmu,
            Method::Emulation { .. } => CountedBy::Emulation,
        }
    }

    /// How work becomes W and Q under this counting, in `precision`.
    pub fn basis(&self, precision: Option<Precision>) -> Basis<'_> {
        Basis {
            precision,
            pmu: self.pmu(),
            caches: self.caches(),
        }
    }
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
    /// Its run in windows of time (`--timeline`), in its own native time.
    pub windows: Vec<Window>,
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

/// How the run is cut for showing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Every {
    /// [`WINDOWS`] windows over the run.
    Auto,
    /// A window of this many seconds.
    Seconds(f64),
}

/// Windows shown over a run by default.
pub const WINDOWS: usize = 100;

/// The plugin keeps this many windows for each one shown: phases are found
/// in the finer ones, so a boundary is placed within a quarter window.
pub const FINER: usize = 4;

/// Windows shown at most (a tiny window over a long run): the plugin keeps
/// up to twice [`FINER`] times as many, each a list of the code it ran.
pub const MOST_WINDOWS: usize = 2_000;

impl Every {
    /// The windows shown over a native run of `seconds`.
    pub fn count(self, seconds: f64) -> usize {
        match self {
            Every::Auto => WINDOWS,
            Every::Seconds(s) => ((seconds / s).ceil() as usize).clamp(1, MOST_WINDOWS),
        }
    }

    /// The windows the plugin is asked to keep, for a native run of
    /// `seconds`.
    pub fn fine(self, seconds: f64) -> usize {
        self.count(seconds) * FINER
    }
}

/// What one window of the emulated run counted, over its processes and
/// threads (`--timeline`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Window {
    /// Its end in the emulated run, nanoseconds of `CLOCK_MONOTONIC`.
    pub end_ns: u64,
    /// The emulated process it is of (its pid there; a process that ran
    /// `exec` keeps it).
    pub pid: u32,
    /// What it counted.
    pub counts: carmbench_counts::Counts,
    /// The instructions it ran at each place, (file, offset,
    /// instructions), the files named as [`Block`]s are.
    pub code: Vec<(String, u64, u64)>,
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

/// An MPI launcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    /// Open MPI's `mpirun`, `mpiexec` or `orterun`.
    OpenMpi,
    /// MPICH's `mpiexec` (Hydra).
    Mpich,
    /// Slurm's `srun`.
    Srun,
}

impl Launcher {
    /// Its name, for people.
    pub fn name(self) -> &'static str {
        match self {
            Launcher::OpenMpi => "Open MPI's mpirun",
            Launcher::Mpich => "MPICH's mpiexec",
            Launcher::Srun => "Slurm's srun",
        }
    }
}
