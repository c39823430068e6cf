//! Warnings a roof carries, each with the one line that says what it means.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A warning on a roof. Serialized as its snake_case name, as results files
/// have always written them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// The clock moved between the first and second half of the samples.
    ClockDrift,
    /// The samples spread more than the level's CV limit.
    HighCv,
    /// The level's sizes differ by more than its CV limit.
    SizesDisagree,
    /// The level cannot be measured apart from the one below with these
    /// threads.
    NotIsolated,
    /// Above the theoretical limit (beyond the clock probe's noise).
    AboveTheoretical,
    /// The host took time from the CPUs during the measurement.
    Steal,
    /// An all-core roof of a per-core resource stayed below its share of
    /// the 1-thread roof: other work shared a core.
    SharedCore,
    /// Measured at smaller buffers than the sizing rule asks: memory allowed
    /// no more.
    MemoryCapped,
}

impl Flag {
    /// Every flag.
    pub const ALL: [Flag; 8] = [
        Flag::ClockDrift,
        Flag::HighCv,
        Flag::SizesDisagree,
        Flag::NotIsolated,
        Flag::AboveTheoretical,
        Flag::Steal,
        Flag::SharedCore,
        Flag::MemoryCapped,
    ];

    /// Name in results files and tables.
    pub fn name(self) -> &'static str {
        match self {
            Flag::ClockDrift => "clock_drift",
            Flag::HighCv => "high_cv",
            Flag::SizesDisagree => "sizes_disagree",
            Flag::NotIsolated => "not_isolated",
            Flag::AboveTheoretical => "above_theoretical",
            Flag::Steal => "steal",
            Flag::SharedCore => "shared_core",
            Flag::MemoryCapped => "memory_capped",
        }
    }

    /// What it means, in one line.
    pub fn meaning(self) -> &'static str {
        match self {
            Flag::ClockDrift => {
                "the core clock moved by more than 5% while the samples ran: the value per cycle is less certain"
            }
            Flag::HighCv => {
                "the samples spread more than the level allows (3% on a core's own resources, 5% on shared caches, 8% on DRAM): other work disturbed them"
            }
            Flag::SizesDisagree => {
                "the level's buffer sizes gave values further apart than its CV limit: a size spilled to the next level, or other work slowed it throughout"
            }
            Flag::NotIsolated => {
                "with this many threads the level's share is no larger than the level below: the value mixes both levels"
            }
            Flag::AboveTheoretical => {
                "above its theoretical limit by more than its CV and the clock probe's 1% noise: no kernel passes its limit, so a measuring error (a clock reading low, a kernel doing less than it declares) or a wrong limit in configs/limits.yaml, until shown otherwise"
            }
            Flag::Steal => {
                "the hypervisor took more than 5% of a CPU's time during the measurement (steal in /proc/stat): the value may be low"
            }
            Flag::SharedCore => {
                "this all-core roof of a per-core resource stayed below 85% of threads x its 1-thread roof after measuring again: other work (an SMT sibling, another tenant) shared a core"
            }
            Flag::MemoryCapped => {
                "measured at smaller buffers than the level needs, as large as half the usable memory allows (MemAvailable, or the cgroup's limit): a cache may still hold part of them, so the value may be high; free memory or run fewer threads"
            }
        }
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_serialize_as_the_names_files_hold() {
        for f in Flag::ALL {
            let yaml = serde_yaml::to_string(&f).unwrap();
            assert_eq!(yaml.trim(), f.name());
            assert_eq!(serde_yaml::from_str::<Flag>(&yaml).unwrap(), f);
            assert!(!f.meaning().is_empty());
        }
        assert!(serde_yaml::from_str::<Flag>("fast").is_err());
    }
}
