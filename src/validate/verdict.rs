//! A sweep's verdict: it holds, or it fails for a cause named from how its
//! points sit and what it ran under.

use super::fit::Fit;
use crate::measure::steal;
pub use crate::results::verdict::{Cause, Verdict};

/// What a sweep ran under, beside its points: what [`likely_cause`] weighs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// The level is not the core's own (a shared cache, DRAM): a miss there
    /// takes hundreds of cycles, and other cores take from it.
    pub shared_level: bool,
    /// The kernel's memory unit stores.
    pub stores: bool,
    /// Threads of the sweep.
    pub threads: usize,
    /// Largest share of a point's time the host took from the CPUs.
    pub steal: f64,
    /// Points of the sweep kept although the probe after them found its
    /// threads sharing a core (see [`crate::measure::guard`]), and the
    /// points in all.
    pub shared_points: (usize, usize),
    /// The other points of the sweep held (median |deviation| within the
    /// threshold): the shared ones explain the failure.
    pub rest_held: bool,
    /// The load mix's sweep of the same level, threads and op held: its
    /// buffers were sized the same way, so they did not spill.
    pub load_mix_held: bool,
}

/// FP-bound points of a multi-thread sweep this far under their FP roof
/// (a fraction) mean its threads shared a core: FP pipes are the one thing
/// those points need, and the roof was measured with the same threads.
pub const SHARED_FLAT: f64 = 0.3;

/// The verdict on a sweep's fit at `threshold`.
pub fn verdict(fit: &Fit, threshold: f64, c: Context) -> Verdict {
    if fit.median_abs_deviation <= threshold {
        Verdict::Holds
    } else {
        Verdict::Fails(likely_cause(fit, threshold, c))
    }
}

/// The likely cause when a sweep fails at `threshold`: what it ran under
/// first (steal, shared cores), then how its points sit.
pub fn likely_cause(f: &Fit, threshold: f64, c: Context) -> Cause {
    if c.steal > steal::LIMIT {
        return Cause::Steal { share: c.steal };
    }
    if c.shared_points.0 > 0 && c.rest_held {
        return Cause::SharedPoints {
            kept: c.shared_points.0,
            of: c.shared_points.1,
            threads: c.threads,
            loads_probed: !c.shared_level,
        };
    }
    if c.threads > 1 && f.flat_bias < -SHARED_FLAT {
        return Cause::SharedCores {
            under: -f.flat_bias,
            threads: c.threads,
        };
    }
    let (shared, stores) = (c.shared_level, c.stores);
    let far_ok = f.far_sloped_bias.abs() <= threshold;
    // A storing mix under the memory roof, or serialized near the ridge,
    // where the load mix held on buffers sized the same way: not a spill.
    if stores && c.load_mix_held && !shared && (f.sloped_bias < -threshold || f.overlap < 0.5) {
        return Cause::StoresBesideFp { overlap: f.overlap };
    }
    // Little overlap near the ridge while the points far from it roughly
    // hold: the model's min() is what fails, not a roof.
    let serialized = f.overlap < 0.5 && f.far_sloped_bias.abs() <= 2.0 * threshold;
    if serialized && shared {
        Cause::LatencyBound { overlap: f.overlap }
    } else if serialized {
        Cause::NoOverlap {
            overlap: f.overlap,
            stores,
        }
    } else if f.sloped_bias < -threshold && far_ok {
        Cause::PartialOverlap { overlap: f.overlap }
    } else if f.sloped_bias > threshold {
        Cause::AboveMemoryRoof
    } else if f.sloped_bias < -threshold {
        Cause::BelowMemoryRoof { own_core: !shared }
    } else if f.flat_bias < -threshold {
        Cause::BelowFpRoof { threads: c.threads }
    } else if f.flat_bias > threshold {
        Cause::AboveFpRoof
    } else {
        Cause::AtRidge { overlap: f.overlap }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fit::fit;
    use super::*;

    fn ctx(shared_level: bool, stores: bool) -> Context {
        Context {
            shared_level,
            stores,
            threads: 1,
            steal: 0.0,
            shared_points: (0, 14),
            rest_held: true,
            load_mix_held: false,
        }
    }

    #[test]
    fn causes_follow_how_the_points_sit() {
        let low = fit(&[(0.1, -0.2), (0.2, -0.3), (2.0, 0.0)], 1.0, &[]);
        assert_eq!(
            likely_cause(&low, 0.1, ctx(false, false)),
            Cause::BelowMemoryRoof { own_core: true }
        );
        assert!(
            likely_cause(&low, 0.1, ctx(false, false))
                .to_string()
                .contains("spills")
        );
        let near = [(0.05, -0.02), (0.5, -0.3), (0.8, -0.35), (2.0, 0.0)];
        let ridge = fit(&near, 1.0, &[0.1, 0.0]);
        let c = likely_cause(&ridge, 0.1, ctx(false, false));
        assert_eq!(
            c,
            Cause::NoOverlap {
                overlap: 0.05,
                stores: false
            }
        );
        assert!(c.to_string().contains("serialize") && c.to_string().contains("did not issue"));
        // The store/FP conflict is named for mixes that store, not for loads.
        assert!(
            likely_cause(&ridge, 0.1, ctx(false, true))
                .to_string()
                .contains("FP stores and FMAs")
        );
        assert!(!c.to_string().contains("FP stores"));
        assert_eq!(
            likely_cause(&ridge, 0.1, ctx(true, false)),
            Cause::LatencyBound { overlap: 0.05 }
        );
        // Little overlap, but the far points are far below too: a roof or the buffer.
        let spill = fit(
            &[(0.1, -0.4), (0.2, -0.5), (0.5, -0.5), (2.0, 0.0)],
            1.0,
            &[0.1],
        );
        assert_eq!(
            likely_cause(&spill, 0.1, ctx(false, false)),
            Cause::BelowMemoryRoof { own_core: true }
        );
        // The same points of a mix that stores, where the load mix held:
        // the stores beside the FP op, not a spill.
        let held = Context {
            load_mix_held: true,
            ..ctx(false, true)
        };
        let stored = likely_cause(&spill, 0.1, held);
        assert_eq!(stored, Cause::StoresBesideFp { overlap: 0.1 });
        assert!(stored.to_string().contains("load mix held"));
        let part = fit(&near, 1.0, &[0.7, 0.8]);
        assert_eq!(
            likely_cause(&part, 0.1, ctx(false, false)),
            Cause::PartialOverlap { overlap: 0.75 }
        );
        let flat = fit(&[(0.1, 0.0), (2.0, -0.2), (4.0, -0.3)], 1.0, &[]);
        assert_eq!(
            likely_cause(&flat, 0.1, ctx(false, false)),
            Cause::BelowFpRoof { threads: 1 }
        );
        let high = fit(&[(0.1, 0.2), (0.2, 0.3), (2.0, 0.0)], 1.0, &[]);
        assert_eq!(
            likely_cause(&high, 0.1, ctx(false, false)),
            Cause::AboveMemoryRoof
        );
    }

    #[test]
    fn what_the_sweep_ran_under_comes_before_how_its_points_sit() {
        let half: Vec<(f64, f64)> = [0.03, 0.06, 0.12, 0.25, 0.5, 1.0, 2.0]
            .iter()
            .map(|&ai| (ai, -0.5))
            .collect();
        let f = fit(&half, 0.25, &[]);
        let two = Context {
            threads: 2,
            ..ctx(false, false)
        };
        assert_eq!(
            likely_cause(&f, 0.1, two),
            Cause::SharedCores {
                under: 0.5,
                threads: 2
            }
        );
        let stolen = Context { steal: 0.45, ..two };
        assert_eq!(likely_cause(&f, 0.1, stolen), Cause::Steal { share: 0.45 });
        assert!(
            Cause::Steal { share: 0.45 }
                .to_string()
                .contains("took up to 45%")
        );
        let kept = Context {
            shared_points: (3, 7),
            ..two
        };
        let c = likely_cause(&f, 0.1, kept);
        assert!(
            c.to_string().contains(
                "3 of 7 points were measured while the 2 threads shared a physical core (FMA or L1 loads"
            ),
            "{c}"
        );
        // The other points failed too: the 3 do not explain it.
        let rest = Context {
            rest_held: false,
            ..kept
        };
        assert_ne!(
            std::mem::discriminant(&likely_cause(&f, 0.1, rest)),
            std::mem::discriminant(&c)
        );
        // One thread: the core shared with a tenant on its sibling.
        let one = Context { threads: 1, ..kept };
        assert!(
            likely_cause(&f, 0.1, one)
                .to_string()
                .contains("3 of 7 points were measured while other work shared the core")
        );
        assert_eq!(
            verdict(&fit(&[(0.1, 0.01)], 1.0, &[]), 0.1, two),
            Verdict::Holds
        );
        assert!(verdict(&f, 0.1, two).to_string().starts_with("FAILED: "));
    }
}
