//! What profiling could not count or place, as values: the library gathers
//! them, the command prints them, one line each.

use crate::profile::ground::symbols::{Function, file_name};
use std::fmt;

/// One thing the points leave out or cannot say.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// The results named by default could not be read: the points go
    /// without their roofs.
    ResultsUnreadable(String),
    /// A process started a program by a way the preload library does not
    /// see (popen, a raw system call): it ran natively, uncounted.
    NotFollowed {
        /// The program that started it.
        program: String,
        /// Its pid in the emulated run.
        pid: u32,
        /// It is statically linked: no preload reaches what it starts.
        static_linked: bool,
    },
    /// A process started a program QEMU cannot run as it was asked to
    /// (set-user-ID, another architecture's): it ran natively, uncounted.
    StartedNatively {
        /// The program that started it.
        program: String,
        /// Its pid in the emulated run.
        pid: u32,
        /// The program it started.
        started: String,
    },
    /// Processes that ended without writing their counts.
    LostCounts(usize),
    /// The `--count-with` program may not be a build of the command's code.
    TwinUnlike {
        /// The twin, as given.
        twin: String,
        /// Why not.
        why: Vec<String>,
    },
    /// `--precision` names arithmetic the counts hardly hold.
    PrecisionContradicted {
        /// The precision asked for.
        asked: crate::kernels::Precision,
        /// The kind most of the counted work is.
        counted: crate::kernels::Precision,
        /// Work of the asked kind.
        asked_work: u64,
        /// Work of the counted kind.
        counted_work: u64,
    },
    /// Processes a signal ended while they waited: their counts up to
    /// that wait are in W and Q.
    CountsCut(usize),
    /// Processes of the native run still there, idle, when the command
    /// ended: left running, their time not in T.
    LeftRunning(Vec<Named>),
    /// Their emulated copies: stopped.
    StoppedUnderEmulation(Vec<Named>),
    /// The emulated run could not read the native run's input (a
    /// terminal): it read nothing.
    InputNotReplayed(&'static str),
    /// A region counted under emulation that the native run never timed.
    RegionNotTimed(String),
    /// A region whose hardware events could not be counted.
    RegionWithoutEvents {
        /// The region.
        region: String,
        /// Why, as the regions library said.
        why: String,
    },
    /// The run was too brief to share its time out among functions.
    TooBriefForFunctions {
        /// The program's point.
        program: String,
        /// Its native seconds.
        seconds: f64,
        /// The samples it got.
        samples: u64,
        /// The native seconds a run needs to be shared out.
        at_least: f64,
    },
    /// A program's or region's point with nothing to place.
    NotPlaced(String),
    /// A function the native run spent time in ran no instruction under
    /// emulation, where another function of its file ran in its place.
    RanInstead {
        /// The native run's function.
        native: Function,
        /// Its share of the native samples.
        native_share: f64,
        /// The emulated run's, in the same file.
        emulated: String,
        /// Its share of the emulated instructions.
        emulated_share: f64,
        /// The host's features the emulated CPU lacked.
        hidden: Vec<String>,
    },
    /// A function the native run spent time in ran no instruction under
    /// emulation, and none is known to have run in its place.
    NativeOnly {
        /// The function.
        function: Function,
        /// Its share of the native samples.
        share: f64,
        /// The host's features the emulated CPU lacked.
        hidden: Vec<String>,
    },
    /// A function that did real work under emulation got no native sample.
    EmulatedOnly {
        /// The function.
        function: Function,
        /// Its share of the emulated instructions.
        share: f64,
    },
    /// The native run could not be sampled: whether both runs ran the same
    /// code was not checked.
    PathsNotCompared(String),
    /// QEMU could not be given this CPU's identity.
    IdentityNotGiven(String),
    /// The emulated run took under [`crate::results::advice::TOO_FAST`]
    /// times the native run's time though the native run kept its CPUs
    /// busy: it likely did less work (a loop that runs for a fixed time).
    EmulatedTooFast(f64),
    /// A rank of an MPI job failed: left out of the sums.
    RankFailed {
        /// Its rank.
        rank: u32,
        /// How it failed.
        why: String,
    },
    /// A rank did much of its work in the MPI runtime's code: waiting for
    /// the other ranks, whose length differs under emulation.
    RankInRuntime {
        /// Its rank.
        rank: u32,
        /// The runtime's share of the W it counted.
        w_share: f64,
        /// The runtime's share of the Q it counted.
        q_share: f64,
    },
}

impl Warning {
    /// The warnings of the comparison of the native and the emulated run.
    fn fmt_paths(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::RanInstead {
                native,
                native_share,
                emulated,
                emulated_share,
                hidden,
            } => write!(
                f,
                "{} took {:.1} % of the native samples but ran no instruction under emulation, where {emulated} ran in its place ({:.1} % of the instructions): {}; its point has its own time and {emulated}'s W and Q (counted_as), and the program's W and Q count {emulated}",
                place(native),
                100.0 * native_share,
                100.0 * emulated_share,
                why_function(native, hidden)
            ),
            Warning::NativeOnly {
                function,
                share,
                hidden,
            } => write!(
                f,
                "{} took {:.1} % of the native samples but ran no instruction under emulation: {}; W and Q count other code than the native run executed there, and its point is not placed",
                place(function),
                100.0 * share,
                why_function(function, hidden)
            ),
            Warning::EmulatedOnly { function, share } => write!(
                f,
                "{} did {:.1} % of the emulated instructions but got no native sample: the emulated run took a path the native run did not, and W and Q count it",
                place(function),
                100.0 * share
            ),
            _ => Ok(()),
        }
    }
}

/// Why `function`'s path differs, in words: an MPI runtime waits and
/// polls as the run goes, else the features the emulated CPU lacked.
fn why_function(function: &Function, hidden: &[String]) -> String {
    match crate::profile::ground::runtime::in_runtime(&function.module) {
        true => "it is the MPI runtime's, whose path follows the CPU it is shown (Open MPI reads its clock from the TSC only where CPUID says the TSC is invariant, which QEMU's CPU does not) and how long each run waits".into(),
        false => why_path(hidden),
    }
}

/// Why a path differs, in words: the features the emulated CPU lacked.
fn why_path(hidden: &[String]) -> String {
    match hidden.is_empty() {
        true => "the program chose its path by something the emulated CPU answers otherwise".into(),
        false => format!(
            "the host's path likely needs a feature QEMU cannot emulate ({}{})",
            hidden[..hidden.len().min(4)].join(", "),
            match hidden.len() > 4 {
                true => format!(" and {} more: emulated_cpu.hidden", hidden.len() - 4),
                false => String::new(),
            }
        ),
    }
}

/// "name (file)".
fn place(f: &Function) -> String {
    match f.module.is_empty() {
        true => f.name.clone(),
        false => format!("{} ({})", f.name, file_name(&f.module)),
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::ResultsUnreadable(e) => {
                write!(f, "{e}; the points are written without their roofs")
            }
            Warning::NotFollowed {
                program,
                pid,
                static_linked,
            } => write!(
                f,
                "{program} (pid {pid}) started a program by a way the preload library does not see{}: that program ran natively, its own work is not in W and Q (what it started in turn was followed, if it is dynamically linked)",
                if *static_linked {
                    " (a statically linked program starts others with a raw system call)"
                } else {
                    " (popen, or a raw execve system call)"
                }
            ),
            Warning::StartedNatively {
                program,
                pid,
                started,
            } => write!(
                f,
                "{program} (pid {pid}) started {started} natively (set-user-ID, or not an x86-64 program): its work is not in W and Q"
            ),
            Warning::LostCounts(n) => write!(
                f,
                "{n} process(es) ended without their counts (killed by a signal): their work is not in W and Q"
            ),
            Warning::RegionNotTimed(r) => write!(
                f,
                "region {r} was counted under emulation but not timed natively; left out"
            ),
            Warning::RegionWithoutEvents { region, why } => {
                write!(f, "region {region} counted without hardware events: {why}")
            }
            Warning::TooBriefForFunctions {
                program,
                seconds,
                samples,
                at_least,
            } => write!(
                f,
                "{program} ran {:.1} ms natively, too briefly to share its time out by sampling (at least {} ms, {samples} samples): no function points; the whole-program point is written",
                seconds * 1e3,
                at_least * 1e3,
            ),
            Warning::NotPlaced(p) => {
                write!(f, "{p} has no counted flops or bytes; it cannot be placed")
            }
            Warning::PathsNotCompared(why) => write!(
                f,
                "the native run could not be sampled ({why}): whether the emulated run executed the same code was not checked"
            ),
            Warning::IdentityNotGiven(why) => write!(
                f,
                "{why}: the emulated program saw QEMU's own CPU, and code that chooses its path by CPU may have run another path than natively"
            ),
            _ => self.fmt_runs(f),
        }
    }
}

impl Warning {
    /// How the runs went: the twin, the precision asked, processes cut,
    /// left or stopped, the input.
    fn fmt_runs(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::EmulatedTooFast(ratio) => write!(
                f,
                "the emulated run took {ratio:.1}x the native run's time, where emulation runs code several times slower: it likely did less work than the native run (a loop that runs for a fixed time, as benchmark harnesses, timed STREAM-like loops and servers do), and W and Q count only what it did; give the program a fixed amount of work (a count of repetitions, not seconds) to profile it"
            ),
            Warning::TwinUnlike { twin, why } => write!(
                f,
                "--count-with {twin} may not be a twin build of the command: {}; its W and Q are those of other code if so",
                why.join("; and ")
            ),
            Warning::PrecisionContradicted {
                asked,
                counted,
                asked_work,
                counted_work,
            } => write!(
                f,
                "--precision {} was asked, but the counts hold {counted_work:.3e} {} {} against {asked_work:.3e} {} ones: the point is placed under the {} roofs as asked; leave --precision out to place it by its own work",
                asked.name(),
                counted.name(),
                counted.unit(),
                asked.name(),
                asked.name()
            ),
            Warning::CountsCut(n) => write!(
                f,
                "{n} process(es) were ended by a signal while they waited: their work up to that wait is in W and Q, any after it is not"
            ),
            Warning::LeftRunning(p) => write!(
                f,
                "the command ended and left {} running, idle: left as they are; T runs to the end of its last working process",
                list(p)
            ),
            Warning::StoppedUnderEmulation(p) => write!(
                f,
                "under emulation, stopped the copies of what it left running: {}",
                list(p)
            ),
            Warning::InputNotReplayed(what) => write!(
                f,
                "standard input is {what}, which cannot be read twice: the emulated run read nothing, so W and Q are those of a run without input (give the input from a file: < FILE)"
            ),
            Warning::RankFailed { rank, why } => write!(
                f,
                "MPI rank {rank} {why}: left out of the program's W, Q and T; the other ranks are kept"
            ),
            Warning::RankInRuntime {
                rank,
                w_share,
                q_share,
            } => write!(
                f,
                "MPI rank {rank} did {:.0} % of the W and {:.0} % of the Q it counted in the MPI runtime's code, mostly waiting for the other ranks; a wait lasts as long as the run it is in (the emulated run's, under emulation), so that work is left out of the rank's and the program's W and Q and kept apart in rank.runtime",
                100.0 * w_share,
                100.0 * q_share
            ),
            _ => self.fmt_paths(f),
        }
    }
}

/// A process, named for people: its program and pid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The pid.
    pub pid: i32,
    /// Its program (the emulated one, for QEMU).
    pub name: String,
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (pid {})", self.name, self.pid)
    }
}

/// "a (pid 1), b (pid 2)", or "nothing" when empty.
pub fn list(p: &[Named]) -> String {
    match p.is_empty() {
        true => "nothing".into(),
        false => p
            .iter()
            .map(Named::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}
