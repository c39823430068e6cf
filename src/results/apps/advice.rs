//! A point's advice as the apps file keeps it: stable codes with their
//! numbers ([`crate::results::advice`] finds them and says them in words).

use serde::{Deserialize, Serialize};

/// What one piece of advice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// The roof right above the point (`roof`): `share` of it reached,
    /// `gain` the speed-up to reach it.
    Bound,
    /// FP work in narrower vectors than the CPU's widest: `share` of the
    /// flops; `gain` were it all of the widest.
    ScalarFp,
    /// FP work not in FMA where the CPU has FMA: `share` of the flops;
    /// `gain` were every add and multiply fused.
    NoFma,
    /// Under a memory level's roof (`roof`): `share` of it reached, the
    /// level whose dot is nearest its roof when the caches were simulated.
    MemoryBound,
    /// The roof the point would meet were its bound lifted (`roof`):
    /// `gain` its height over the bound's at the point's intensity.
    NextRoof,
    /// Most of the work is integer, placed under FP roofs: `share` of the
    /// ops that are integer.
    IntegerWork,
    /// x87 instructions: `share` of the FP instructions.
    X87,
    /// Above every roof: a counting or timing error, never a speed above
    /// the peak; `share` its rate over the highest roof at its intensity.
    AboveRoof,
    /// A run too short for its native samples: `share` its CPU time over
    /// [`crate::results::advice::SHORT_SECONDS`].
    ShortRun,
    /// Code without symbols: named by file and offset (`share` 1).
    NoSymbols,
}

/// One piece of advice: its code and numbers (see [`Code`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Advice {
    /// What it is about.
    pub code: Code,
    /// The share of the work (or of the roof) it concerns.
    pub share: f64,
    /// The speed-up fixing it would bring at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gain: Option<f64>,
    /// The roof it names, by its chart label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof: Option<String>,
}

impl Advice {
    /// Its stable code, as the apps file writes it.
    pub fn name(&self) -> String {
        serde_yaml::to_string(&self.code).map_or(String::new(), |s| s.trim().to_string())
    }
}
