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
    /// level whose dot is nearest its roof (the caches were simulated).
    MemoryBound,
    /// Under a memory roof (`roof`) by the bytes its core requested, `share`
    /// of it, the caches not simulated: which level its bytes come from,
    /// and so whether memory bounds it, is not known (`--traffic` tells).
    LevelUnknown,
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
    /// Under emulation other code ran in this code's place (the host's
    /// path needs what QEMU lacks): `share` of the point's native time
    /// whose W and Q are the other code's (`ran_instead` names it for a
    /// function); its instruction mix is that code's too.
    OtherPath,
    /// Far below the roof above it (`share` of it, under
    /// [`crate::results::advice::MIN_SHARE`]): neither bandwidth nor the FP
    /// units limit it, but latency, little work per call, or waiting.
    FarBelow,
    /// The native run shared its cores: `share` of its threads' time they
    /// were ready but waited for a CPU other work held (`steal` the share
    /// the host took); `gain` its rate were it alone.
    SharedCores,
    /// The native run mostly did not run: `share` of its wall time (over
    /// its threads) it neither ran nor waited for a CPU (I/O, sleep, locks,
    /// other processes).
    MostlyWaited,
    /// Its work was counted in an emulated run not several times slower
    /// than the busy native one (`share` the emulated run's time over the
    /// native's): it likely did less work there (a loop run for a fixed
    /// time), and W and Q count only that.
    EmulatedTooFast,
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
    /// The counts that say it.
    #[serde(default, skip_serializing_if = "Evidence::is_empty")]
    pub evidence: Evidence,
}

/// The counts behind a piece of advice, those its code has.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// `scalar_fp`: the FP element operations by the width of their
    /// instructions, shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widths: Option<Widths>,
    /// `no_fma`: the share of the flops done by FMA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fma_share: Option<f64>,
    /// `memory_bound`: bytes at the bounding level per unit of work (flop,
    /// or integer op).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_op: Option<f64>,
    /// `memory_bound` with simulated caches: the share of the line
    /// accesses that missed every level above the bounding one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misses_per_access: Option<f64>,
    /// `memory_bound`, the bytes read and written apart: the side whose
    /// bytes take longer at the bounding level's load and store roofs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<super::Side>,
    /// `shared_cores`, `mostly_waited`: CPU time over wall time × threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_share: Option<f64>,
    /// `shared_cores`: the share of the machine's CPU time the host took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal: Option<f64>,
    /// `other_path` of a function: the function that ran in its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_instead: Option<String>,
    /// `other_path` of a function: the one run it ran in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_only: Option<super::RanOnly>,
}

impl Evidence {
    /// Nothing in it.
    pub fn is_empty(&self) -> bool {
        *self == Evidence::default()
    }
}

/// Shares of FP element operations by instruction width.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Widths {
    /// Scalar.
    pub scalar: f64,
    /// 128-bit vectors.
    pub v128: f64,
    /// 256-bit vectors.
    pub v256: f64,
    /// 512-bit vectors.
    pub v512: f64,
}

impl Advice {
    /// Its stable code, as the apps file writes it.
    pub fn name(&self) -> String {
        serde_yaml::to_string(&self.code).map_or(String::new(), |s| s.trim().to_string())
    }
}
