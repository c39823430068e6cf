//! A validation sweep's verdict as the results document keeps it: it holds,
//! or it fails for a cause, each cause printing as the sentence a user
//! reads. How the cause is found is in `validate::verdict`.

use crate::measure::guard::SHARED_BELOW;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a sweep failed. Each prints as the sentence a user reads.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Cause {
    /// The host took some of the CPUs' time during points.
    Steal {
        /// The largest share of a point's time it took.
        share: f64,
    },
    /// Points were kept while the threads shared a physical core.
    SharedPoints {
        /// Points kept so.
        kept: usize,
        /// Points in all.
        of: usize,
        /// Threads of the sweep.
        threads: usize,
        /// Whether the guard probed L1 loads too (the core's own levels).
        loads_probed: bool,
    },
    /// FP-bound points far under the FP roof of the same threads.
    SharedCores {
        /// How far under, a fraction.
        under: f64,
        /// Threads of the sweep.
        threads: usize,
    },
    /// A storing mix fell short where the load mix held.
    StoresBesideFp {
        /// Median overlap near the ridge.
        #[serde(with = "crate::results::verdict::nan")]
        overlap: f64,
    },
    /// Memory and FP work serialize near the ridge of a level off the
    /// core: too few misses in flight.
    LatencyBound {
        /// Median overlap near the ridge.
        #[serde(with = "crate::results::verdict::nan")]
        overlap: f64,
    },
    /// Memory and FP work serialize near the ridge of the core's own level.
    NoOverlap {
        /// Median overlap near the ridge.
        #[serde(with = "crate::results::verdict::nan")]
        overlap: f64,
        /// The mix stores.
        stores: bool,
    },
    /// Points near the ridge low, far ones right: partial overlap.
    PartialOverlap {
        /// Median overlap near the ridge.
        #[serde(with = "crate::results::verdict::nan")]
        overlap: f64,
    },
    /// Points above the memory roof.
    AboveMemoryRoof,
    /// Points below the memory roof.
    BelowMemoryRoof {
        /// The level is the core's own (a sibling can take its load path).
        own_core: bool,
    },
    /// Points below the FP roof.
    BelowFpRoof {
        /// Threads of the sweep.
        threads: usize,
    },
    /// Points above the FP roof.
    AboveFpRoof,
    /// The deviation is at the ridge itself.
    AtRidge {
        /// Median overlap near the ridge.
        #[serde(with = "crate::results::verdict::nan")]
        overlap: f64,
    },
}

/// The conflict behind [`Cause::StoresBesideFp`], in a sentence.
const STORE_FP: &str = "on some cores FP stores and FMAs share a resource, so a loop of both takes nearly the sum of their times (docs/methodology.md, \"Validation\")";

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |x: f64| x * 100.0;
        match *self {
            Cause::Steal { share: s } => write!(
                f,
                "the host took up to {:.0}% of these CPUs' time during points of this sweep (steal, /proc/stat), which ran slow for it; run again when the host leaves the CPUs alone",
                pct(s)
            ),
            Cause::SharedPoints {
                kept,
                of,
                threads,
                loads_probed,
            } => {
                let probe = if loads_probed {
                    "FMA or L1 loads"
                } else {
                    "FMA"
                };
                if threads > 1 {
                    write!(
                        f,
                        "{kept} of {of} points were measured while the {threads} threads shared a physical core ({probe} on every thread, probed after each point, ran under {:.0}% of {threads} x its 1-thread roof) and waiting did not outlast it; run again",
                        pct(SHARED_BELOW)
                    )
                } else {
                    write!(
                        f,
                        "{kept} of {of} points were measured while other work shared the core ({probe}, probed after each point, ran under {:.0}% of its 1-thread roof: a tenant on an SMT sibling) and waiting did not outlast it; run again on an idle machine",
                        pct(SHARED_BELOW)
                    )
                }
            }
            Cause::SharedCores { under, threads } => write!(
                f,
                "the FP-bound points ran {:.0}% under the {threads}-thread FP roof measured with the same threads: the threads shared a physical core during the sweep (a host can put two vCPUs on SMT siblings for seconds); run again",
                pct(under)
            ),
            Cause::StoresBesideFp { overlap } => write!(
                f,
                "points sit below min(P, AI x B) (overlap {:.0}%) while the load mix held on buffers sized the same way: the roofs and sizes are right, but the core did not issue this mix's stores beside the FP op at full rate ({STORE_FP})",
                pct(overlap)
            ),
            Cause::LatencyBound { overlap } => write!(
                f,
                "memory and FP work serialize near the ridge (overlap {:.0}%: 0% is one after the other, 100% side by side) while points far from it hold: the kernel is latency bound there: beside the FP work too few lines stay in flight to cover the memory latency, with either form of the kernel (plain, and prefetching each line 4 KiB ahead); more threads reach the roof",
                pct(overlap)
            ),
            Cause::NoOverlap { overlap, stores } => write!(
                f,
                "memory and FP work serialize near the ridge (overlap {:.0}%: 0% is one after the other, 100% side by side) while points far from it hold: the roofs are right, but the core did not issue this mix's accesses beside the FP op at full rate, so min(P, AI x B) is optimistic there ({})",
                pct(overlap),
                if stores {
                    STORE_FP
                } else {
                    "loads beside FMAs overlap fully on the cores measured so far: other work on this core is the likelier cause; run again on an idle machine"
                }
            ),
            _ => self.against_roofs(f),
        }
    }
}

impl Cause {
    /// The causes read from where points sit against the roofs.
    fn against_roofs(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |x: f64| x * 100.0;
        match *self {
            Cause::PartialOverlap { overlap } => write!(
                f,
                "points near the ridge sit below min(P, AI x B) while those far from it hold: memory and FP work overlap only in part there (overlap {:.0}%)",
                pct(overlap)
            ),
            Cause::AboveMemoryRoof => f.write_str(
                "points sit above the memory roof: the bandwidth roof was under-measured",
            ),
            Cause::BelowMemoryRoof { own_core } => write!(
                f,
                "points sit below the memory roof: the buffer spills to the next level, or the bandwidth roof was over-measured{}",
                if own_core {
                    ", or other work on an SMT sibling took the core's load and store path during points (a spell that ended before the core guard's probe after them)"
                } else {
                    ""
                }
            ),
            Cause::BelowFpRoof { threads } if threads > 1 => write!(
                f,
                "points sit below the {threads}-thread FP roof: other work shared the cores during the sweep (a tenant on an SMT sibling taking less than the core guard waits out), the kernel is latency bound there, or the FP roof was over-measured"
            ),
            Cause::BelowFpRoof { .. } => f.write_str(
                "points sit below the FP roof: the kernel is latency bound there, or the FP roof was over-measured",
            ),
            Cause::AboveFpRoof => {
                f.write_str("points sit above the FP roof: the FP roof was under-measured")
            }
            Cause::AtRidge { overlap } => write!(
                f,
                "the deviation is at the ridge, where memory and FP work must overlap perfectly (overlap {:.0}%)",
                pct(overlap)
            ),
            _ => Ok(()),
        }
    }
}

/// A sweep's verdict at a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "why", rename_all = "snake_case")]
pub enum Verdict {
    /// Its median |deviation| is within the threshold.
    Holds,
    /// It is not, for this likely cause.
    Fails(Cause),
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Holds => f.write_str("ok"),
            Verdict::Fails(c) => write!(f, "FAILED: {c}"),
        }
    }
}

/// Serde for an `f64` that may be NaN (unknown): `null` in a file, which
/// JSON has no NaN for.
pub mod nan {
    use serde::{Deserialize, Deserializer, Serializer};

    /// NaN as `null`.
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_nan() {
            s.serialize_none()
        } else {
            s.serialize_some(v)
        }
    }

    /// `null` as NaN.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}
