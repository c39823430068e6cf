//! A validation sweep's summary and verdict, as `validate` printed them:
//! what the report shows of validation without measuring again.

use crate::kernels::{Mix, Op, Precision};
use crate::machine::Level;
use crate::machine::isa::Isa;
use crate::results::verdict::Verdict;
use serde::{Deserialize, Serialize};

/// What tells sweeps apart: level, ISA, precision, threads, mix and op.
pub type SweepKey = (Level, Isa, Precision, usize, Mix, Op);

/// One sweep: a level, ISA, precision, thread count, mix and op.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepSummary {
    /// Level.
    pub level: Level,
    /// ISA.
    pub isa: Isa,
    /// Precision.
    pub precision: Precision,
    /// Threads.
    pub threads: usize,
    /// Access mix.
    pub mix: Mix,
    /// FP op.
    pub op: Op,
    /// Ridge AI of the level's and the FP roof.
    pub ridge: f64,
    /// Points in all, under the slope and under the flat roof.
    pub points: usize,
    /// Under the slope.
    pub sloped: usize,
    /// Under the flat roof.
    pub flat: usize,
    /// Median |deviation| of the points (a fraction).
    pub median_abs_deviation: f64,
    /// AI of the point of the largest |deviation|.
    pub worst_ai: f64,
    /// Its deviation.
    pub worst_deviation: f64,
    /// Median overlap of memory and FP work near the ridge.
    pub overlap: Option<f64>,
    /// Levels off the core: the bandwidth around the sweep against the
    /// roof, minus 1.
    pub moved: Option<f64>,
    /// Its change during the sweep.
    pub moved_during: Option<f64>,
    /// The threshold the verdict used (a fraction).
    pub threshold: f64,
    /// The verdict.
    pub verdict: Verdict,
}

impl SweepSummary {
    /// The sweep it describes.
    pub fn sweep(&self) -> SweepKey {
        (
            self.level,
            self.isa,
            self.precision,
            self.threads,
            self.mix,
            self.op,
        )
    }
}
