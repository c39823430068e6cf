//! What `carmbench topology` shows of a machine: its topology, the buffer
//! ranges of every level, and for the live machine its ISA and clock.

use super::isa::{self, IsaReport};
use super::sizing::{self, ThreadRanges};
use super::{Machine, Source};
use crate::measure::clock::ClockReport;
use serde::{Deserialize, Serialize};

/// The machine as the benchmarks will see it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TopologyReport {
    /// The machine.
    pub machine: Machine,
    /// Buffer ranges with 1 thread and with one thread per core.
    pub buffer_ranges: Vec<ThreadRanges>,
    /// ISA of the CPU running carmbench (live machine only).
    pub isa: Option<IsaReport>,
    /// Clock of the CPU running carmbench (live machine only).
    pub clock: Option<ClockReport>,
}

impl TopologyReport {
    /// The report of a topology source; the ISA and clock only for the live
    /// machine (a saved or synthetic topology is not the CPU running this).
    pub fn of(source: &Source) -> crate::Result<TopologyReport> {
        let machine = Machine::load(source)?;
        let buffer_ranges = sizing::thread_ranges(&machine, &sizing::shown_thread_counts(&machine));
        let live = matches!(source, Source::Live);
        Ok(TopologyReport {
            machine,
            buffer_ranges,
            isa: live.then(isa::detect),
            clock: live.then(ClockReport::measure),
        })
    }
}
