//! What profiling could not count or place, as values: the library gathers
//! them, the command prints them, one line each.

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
    },
    /// A program's or region's point with nothing to place.
    NotPlaced(String),
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
                "{program} (pid {pid}) started a program carmbench could not follow{}: it ran natively and its work is not in W and Q",
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
            } => write!(
                f,
                "{program} ran {:.1} ms natively, too briefly to share its time out by sampling (at least {} ms, {samples} samples): no function points; the whole-program point is written",
                seconds * 1e3,
                super::sample::MIN_SECONDS * 1e3,
            ),
            Warning::NotPlaced(p) => {
                write!(f, "{p} has no counted flops or bytes; it cannot be placed")
            }
        }
    }
}
