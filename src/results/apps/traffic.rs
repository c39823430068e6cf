//! The bytes that moved between the cache levels of a point's run, by
//! simulating the caches (`profile --traffic`).

use super::AppPoint;
use serde::{Deserialize, Serialize};

/// Bytes read from and written to one level by the level above it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadWrite {
    /// Bytes the level gave the one above it (its misses' fills).
    pub read: f64,
    /// Bytes written back into it (write-backs; every victim of L2 into an
    /// exclusive L3).
    pub write: f64,
}

impl ReadWrite {
    /// Both ways.
    pub fn total(&self) -> f64 {
        self.read + self.write
    }

    /// One way.
    pub fn of(&self, side: Side) -> f64 {
        match side {
            Side::Read => self.read,
            Side::Write => self.write,
        }
    }
}

/// One way bytes go: what Ofenbeck et al.'s read-only and write-only
/// rooflines draw apart, W over the bytes read or over those written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Loads: W over the bytes read, under the load roofs.
    Read,
    /// Stores: W over the bytes written, under the store roofs.
    Write,
}

impl Side {
    /// Its name, as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Side::Read => "read",
            Side::Write => "write",
        }
    }

    /// The bandwidth roofs its intensity is read against.
    pub fn mix(self) -> crate::kernels::Mix {
        match self {
            Side::Read => crate::kernels::Mix::Load,
            Side::Write => crate::kernels::Mix::Store,
        }
    }
}

impl std::str::FromStr for Side {
    type Err = String;
    fn from_str(s: &str) -> Result<Side, String> {
        match s.trim() {
            "read" => Ok(Side::Read),
            "write" => Ok(Side::Write),
            other => Err(format!("'{other}' is no side: give read or write")),
        }
    }
}

impl AppPoint {
    /// The point as the roofline of `side` draws it: Q the bytes of that
    /// side, and with simulated traffic each level's reads (on the write
    /// side none: a level's write-allocations cannot be told from its other
    /// reads, so its write-backs alone would not meet the store roof's
    /// bytes); None without the two sides apart.
    pub fn one_side(&self, side: Side) -> Option<AppPoint> {
        let s = self.sides?;
        let traffic = match side {
            Side::Read => self.traffic.clone().map(|mut t| {
                for rw in [&mut t.l2, &mut t.l3, &mut t.dram] {
                    rw.write = 0.0;
                }
                t
            }),
            Side::Write => None,
        };
        (s.of(side) > 0.0).then(|| AppPoint {
            bytes: s.of(side),
            traffic,
            ..self.clone()
        })
    }
}

/// The traffic between the levels, keyed by the level the bytes came from
/// or went to (`L2`: between L1 and L2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Traffic {
    /// Between L1 and L2.
    #[serde(rename = "L2")]
    pub l2: ReadWrite,
    /// Between L2 and L3.
    #[serde(rename = "L3")]
    pub l3: ReadWrite,
    /// Between L3 and DRAM.
    #[serde(rename = "DRAM")]
    pub dram: ReadWrite,
    /// Line accesses that hit in L1, L2 and L3.
    pub hits: [f64; 3],
    /// What was simulated: the caches, their policy, the sampling.
    pub model: String,
    /// One line in how many was simulated (the rest scaled from it).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub sample: u64,
    /// The simulated line, bytes.
    #[serde(default = "line", skip_serializing_if = "is_line")]
    pub line: u64,
    /// Whether the simulated L3 was exclusive (a victim cache: every line
    /// L2 evicts goes into it); files before it say so in `model` alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclusive_l3: Option<bool>,
}

fn one() -> u64 {
    1
}

fn is_one(v: &u64) -> bool {
    *v == 1
}

fn line() -> u64 {
    64
}

fn is_line(v: &u64) -> bool {
    *v == 64
}

impl Traffic {
    /// The expected relative error of `bytes` counted at a level, from
    /// the lines that were simulated: a binomial sample of one line in
    /// `sample` (`sqrt((1 - 1/s) / n)` for `n` lines simulated); 0 when
    /// every line was, 1 when none was. Streams do better: their lines
    /// fall in the sampled sets evenly.
    pub fn expected_error(&self, bytes: f64) -> f64 {
        if self.sample <= 1 {
            return 0.0;
        }
        let simulated = bytes / (self.line.max(1) * self.sample) as f64;
        match simulated >= 1.0 {
            true => ((1.0 - 1.0 / self.sample as f64) / simulated)
                .sqrt()
                .min(1.0),
            false => 1.0,
        }
    }

    /// The share of the line accesses that missed every level above
    /// `level`, so reached it (L1: none to say).
    pub fn reaching(&self, level: crate::machine::Level) -> Option<f64> {
        use crate::machine::Level;
        let [l1, l2, l3] = self.hits;
        let dram = self.dram.read / self.line.max(1) as f64;
        let all = l1 + l2 + l3 + dram;
        let above = match level {
            Level::L2 => l1,
            Level::L3 => l1 + l2,
            Level::Dram => l1 + l2 + l3,
            _ => return None,
        };
        (all > 0.0).then(|| ((all - above) / all).clamp(0.0, 1.0))
    }

    /// Whether the simulated L3 was exclusive.
    pub fn exclusive(&self) -> bool {
        self.exclusive_l3
            .unwrap_or_else(|| self.model.contains("exclusive"))
    }

    /// The bytes `level` moves per byte requested by a kernel of `mix`
    /// whose buffer sits there, under the rules this simulation applied
    /// ([`crate::kernels::Mix::moved_per_requested`]): a roof of `mix` at
    /// `level` times this counts the bytes a dot there counts.
    pub fn roof_scale(
        &self,
        mix: Option<crate::kernels::Mix>,
        level: crate::machine::Level,
    ) -> f64 {
        let below_l1 = level != crate::machine::Level::L1;
        let exclusive = level == crate::machine::Level::L3 && self.exclusive();
        mix.map_or(1.0, |m| m.moved_per_requested(below_l1, exclusive))
    }

    /// The bytes at each level below L1, by level.
    pub fn levels(&self) -> [(crate::machine::Level, ReadWrite); 3] {
        use crate::machine::Level;
        [
            (Level::L2, self.l2),
            (Level::L3, self.l3),
            (Level::Dram, self.dram),
        ]
    }
}
