//! Memory levels (the data caches hwloc reports, by depth, then DRAM) and
//! what the measurements of each may be compared with.
//!
//! This is the one place level names are spelled: results files, plans and
//! the command line write them "L1", "L2", ... "DRAM".

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A memory level a bandwidth roof is measured at. Orders as the hierarchy:
/// L1 < L2 < ... < DRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The data (or unified) cache of this depth, 1 for L1.
    Cache(u8),
    /// Main memory.
    Dram,
}

impl Level {
    /// The first-level data cache.
    pub const L1: Level = Level::Cache(1);
    /// The second-level cache.
    pub const L2: Level = Level::Cache(2);
    /// The third-level cache.
    pub const L3: Level = Level::Cache(3);

    /// The cache level of hwloc depth `depth`.
    pub fn cache(depth: usize) -> Level {
        Level::Cache(u8::try_from(depth).unwrap_or(u8::MAX))
    }

    /// Name in results, plans and on the command line: "L1", ..., "DRAM".
    pub fn name(self) -> String {
        match self {
            Level::Cache(d) => format!("L{d}"),
            Level::Dram => "DRAM".to_string(),
        }
    }

    /// Parse "L1" (also "l1", "L1d"), "L2", ..., "DRAM" (any case).
    pub fn parse(s: &str) -> Result<Level, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("dram") {
            return Ok(Level::Dram);
        }
        let depth = t
            .strip_prefix(['L', 'l'])
            .map(|d| d.strip_suffix(['d', 'D']).unwrap_or(d))
            .and_then(|d| d.parse::<u8>().ok())
            .filter(|d| *d >= 1);
        depth
            .map(Level::Cache)
            .ok_or_else(|| format!("'{s}' is not a memory level; write L1, L2, L3 or DRAM"))
    }

    /// A cache's name as hwloc and lscpu give it: "L1d" (the data half of
    /// L1), "L2", "L3", ...; DRAM's name otherwise.
    pub fn cache_name(self) -> String {
        match self {
            Level::Cache(1) => "L1d".to_string(),
            l => l.name(),
        }
    }

    /// Whether this is main memory.
    pub fn is_memory(self) -> bool {
        self == Level::Dram
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Padded like a string, so that tables can align it.
        f.pad(&self.name())
    }
}

impl FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        Level::parse(s)
    }
}

impl Serialize for Level {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
        let s = String::deserialize(d)?;
        Level::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Whom a resource serves, read from the topology: what decides how steady
/// its measurements are and what they can be compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One core's own: FP pipes, or a cache whose every instance serves one
    /// core. It runs on the core clock and nothing but other work on that
    /// core slows it.
    Core,
    /// A cache instance several cores share: other cores (and other guests
    /// of a host) take from it.
    Shared,
    /// Main memory, shared by every core and by the memory fabric.
    Memory,
}

impl Scope {
    /// The coefficient of variation of a measurement's samples above which it
    /// counts as disturbed: the more a resource is shared, the more its
    /// undisturbed samples spread.
    pub fn cv_limit(self) -> f64 {
        match self {
            Scope::Core => 0.03,
            Scope::Shared => 0.05,
            Scope::Memory => 0.08,
        }
    }

    /// Whether the resource belongs to one core (and so follows its clock).
    pub fn own_core(self) -> bool {
        self == Scope::Core
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_as_the_hierarchy() {
        for (text, level) in [
            ("L1", Level::L1),
            ("l1d", Level::L1),
            ("L2", Level::L2),
            ("L4", Level::Cache(4)),
            ("DRAM", Level::Dram),
            ("dram", Level::Dram),
        ] {
            assert_eq!(Level::parse(text), Ok(level), "{text}");
            assert_eq!(Level::parse(&level.name()), Ok(level));
            assert_eq!(level.to_string(), level.name());
            assert_eq!(format!("{level:<5}|").len(), 6.max(level.name().len() + 1));
        }
        for bad in ["L0", "L", "cache", "", "L1x"] {
            assert!(Level::parse(bad).is_err(), "{bad}");
        }
        let mut v = vec![
            Level::Dram,
            Level::L3,
            Level::L1,
            Level::Cache(4),
            Level::L2,
        ];
        v.sort();
        assert_eq!(
            v,
            [
                Level::L1,
                Level::L2,
                Level::L3,
                Level::Cache(4),
                Level::Dram
            ]
        );
        let yaml = serde_yaml::to_string(&vec![Level::L1, Level::Dram]).unwrap();
        assert_eq!(yaml, "- L1\n- DRAM\n");
        let back: Vec<Level> = serde_yaml::from_str(&yaml).unwrap();
        assert_eq!(back, [Level::L1, Level::Dram]);
        assert!(serde_yaml::from_str::<Level>("L0").is_err());
    }

    #[test]
    fn the_more_shared_the_looser_the_cv_limit() {
        assert!(Scope::Core.cv_limit() < Scope::Shared.cv_limit());
        assert!(Scope::Shared.cv_limit() < Scope::Memory.cv_limit());
        assert!(Scope::Core.own_core() && !Scope::Shared.own_core());
    }
}
