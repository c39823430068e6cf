//! Validation: variable-intensity kernels run against every roof.
//!
//! A validation kernel repeats a memory unit j times and an FP unit k times
//! per iteration, so its arithmetic intensity is k·F / j·B, exact by
//! construction from its declaration. On a buffer sized for a level, its
//! expected performance is min(FP roof, AI × that level's bandwidth roof);
//! the deviation of the measured value from that tells whether the roofs
//! describe the machine.

use crate::kernels::{Decl, Shape};
use crate::measure::stats::median;
use serde::{Deserialize, Serialize};

/// Lowest intensity of the base sweep (flop/byte).
pub const AI_MIN: f64 = 1.0 / 32.0;
/// Highest intensity of the base sweep.
pub const AI_MAX: f64 = 32.0;
/// Multiples of each ridge AI added to the sweep, to be dense there.
pub const RIDGE_STEPS: [f64; 4] = [0.5, 0.75, 1.33, 2.0];
/// Largest repeat count of a unit.
pub const MAX_REPEAT: u32 = 256;

/// Target intensities: powers of two from [`AI_MIN`] to [`AI_MAX`], and
/// around each ridge AI. Sorted, without near-duplicates.
pub fn targets(ridges: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = (-5..=5).map(|e| 2f64.powi(e)).collect();
    for r in ridges.iter().filter(|r| r.is_finite() && **r > 0.0) {
        v.extend(RIDGE_STEPS.iter().map(|s| r * s));
    }
    v.sort_by(f64::total_cmp);
    v.dedup_by(|a, b| (*a / *b).ln().abs() < 0.08);
    v
}

/// The (j, k) whose intensity is closest to `target` for a kernel, with the
/// fewest units among equally close ones.
pub fn shape_for(d: &Decl, target: f64) -> Shape {
    let unit = d.intensity(Shape::ONE);
    let want = target / unit; // k / j
    let mut best = Shape::ONE;
    let mut err = f64::INFINITY;
    for j in 1..=MAX_REPEAT {
        let k = (want * f64::from(j))
            .round()
            .clamp(1.0, f64::from(MAX_REPEAT)) as u32;
        let e = ((f64::from(k) / f64::from(j)) / want).ln().abs();
        if e < err - 1e-9 {
            err = e;
            best = Shape { j, k };
        }
        if err < 0.01 {
            break;
        }
    }
    best
}

/// The distinct shapes for a set of targets.
pub fn shapes(d: &Decl, targets: &[f64]) -> Vec<Shape> {
    let mut v: Vec<Shape> = targets.iter().map(|t| shape_for(d, *t)).collect();
    v.sort_by(|a, b| d.intensity(*a).total_cmp(&d.intensity(*b)));
    v.dedup_by(|a, b| d.intensity(*a) == d.intensity(*b));
    v
}

/// Expected GFLOP/s at `ai` under one FP roof and one bandwidth roof.
pub fn expected(ai: f64, peak_gflops: f64, gb_per_s: f64) -> f64 {
    crate::chart::geometry::attainable(ai, peak_gflops, gb_per_s)
}

/// GFLOP/s at `ai` if memory and FP work ran one after the other instead of
/// side by side: the time per flop is the sum of the FP time and the memory
/// time, 1 / (1/P + 1/(AI x B)).
pub fn serial(ai: f64, peak_gflops: f64, gb_per_s: f64) -> f64 {
    1.0 / (1.0 / peak_gflops + 1.0 / (ai * gb_per_s))
}

/// How much of the memory and FP work of a point overlapped: 1 when it ran
/// at min(P, AI x B) (full overlap), 0 when it took the time of both in turn
/// ([`serial`]). Only points within a factor [`OVERLAP_BAND`] of the ridge
/// tell (elsewhere both models agree within a third); `None` for the others.
pub fn overlap(measured: f64, ai: f64, peak_gflops: f64, gb_per_s: f64) -> Option<f64> {
    let ridge = peak_gflops / gb_per_s;
    if !(ai >= ridge / OVERLAP_BAND && ai <= ridge * OVERLAP_BAND) || measured <= 0.0 {
        return None;
    }
    let (t_min, t_serial) = (
        1.0 / expected(ai, peak_gflops, gb_per_s),
        1.0 / serial(ai, peak_gflops, gb_per_s),
    );
    Some((t_serial - 1.0 / measured) / (t_serial - t_min))
}

/// Points within this factor of the ridge AI tell the overlap.
pub const OVERLAP_BAND: f64 = 2.0;

/// Relative deviation of a measurement from its expected value.
pub fn deviation(measured: f64, expected: f64) -> f64 {
    (measured - expected) / expected
}

/// Which part of the roof a point is under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Region {
    /// Memory bound (AI below the ridge).
    Sloped,
    /// Compute bound (AI above the ridge).
    Flat,
}

/// Summary of one level's points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Points.
    pub n: usize,
    /// Points under the sloped part.
    pub sloped: usize,
    /// Points under the flat part.
    pub flat: usize,
    /// Median of |deviation|.
    pub median_abs_deviation: f64,
    /// The point with the largest |deviation|: (AI, deviation).
    pub worst: (f64, f64),
    /// Median signed deviation of the sloped points.
    pub sloped_bias: f64,
    /// Median signed deviation of the flat points.
    pub flat_bias: f64,
    /// Median signed deviation of the sloped points far from the ridge
    /// (AI at most a quarter of it), where the bandwidth alone matters.
    pub far_sloped_bias: f64,
    /// Median [`overlap`] of the points near the ridge (NaN without any).
    pub overlap: f64,
}

/// Fit of (ai, deviation) points against a roof whose ridge is at `ridge`;
/// `overlaps` are the [`overlap`] values of the points near the ridge.
pub fn fit(points: &[(f64, f64)], ridge: f64, overlaps: &[f64]) -> Fit {
    let abs: Vec<f64> = points.iter().map(|p| p.1.abs()).collect();
    let worst = points
        .iter()
        .copied()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .unwrap_or((f64::NAN, f64::NAN));
    let sl: Vec<f64> = points.iter().filter(|p| p.0 < ridge).map(|p| p.1).collect();
    let fl: Vec<f64> = points
        .iter()
        .filter(|p| p.0 >= ridge)
        .map(|p| p.1)
        .collect();
    let far: Vec<f64> = points
        .iter()
        .filter(|p| p.0 <= ridge / 4.0)
        .map(|p| p.1)
        .collect();
    Fit {
        n: points.len(),
        sloped: sl.len(),
        flat: fl.len(),
        median_abs_deviation: median(&abs),
        worst,
        sloped_bias: median(&sl),
        flat_bias: median(&fl),
        far_sloped_bias: median(&far),
        overlap: median(overlaps),
    }
}

/// What a sweep ran under, beside its points: what [`likely_cause`] weighs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// A level off the core (L3, L4, DRAM), where a miss takes hundreds of
    /// cycles.
    pub shared_level: bool,
    /// The kernel's memory unit stores.
    pub stores: bool,
    /// Threads of the sweep.
    pub threads: usize,
    /// Largest share of a point's time the host took from the CPUs.
    pub steal: f64,
    /// Points of the sweep kept although the probe after them found its
    /// threads sharing a core (see [`crate::measure::sharing`]), and the
    /// points in all.
    pub shared_points: (usize, usize),
    /// The other points of the sweep held (median |deviation| within the
    /// threshold): the shared ones explain the failure.
    pub rest_held: bool,
    /// The load mix's sweep of the same level, threads and op held: its
    /// buffers were sized the same way, so they did not spill.
    pub load_mix_held: bool,
}

/// Why a mix that stores falls short beside FMAs where loads do not.
const STORE_FMA: &str = "FP stores and FMAs share a resource on some cores: on Zen 5, 8 512-bit stores and 16 FMAs take 16 cycles, each alone 8; on Zen 3, 8 256-bit stores and 12 FMAs take 14 cycles, the stores alone 8 and the FMAs 6, while with 12 ADDs in place of the FMAs they take 8";

/// Steal above this share of a point's time is named as the cause.
pub const STEAL_LIMIT: f64 = crate::measure::steal::LIMIT;

/// FP-bound points of a multi-thread sweep this far under their FP roof
/// (a fraction) mean its threads shared a core: FP pipes are the one thing
/// those points need, and the roof was measured with the same threads.
pub const SHARED_FLAT: f64 = 0.3;

/// The likely cause when a level fails validation at `threshold`.
pub fn likely_cause(f: &Fit, threshold: f64, c: Context) -> String {
    if c.steal > STEAL_LIMIT {
        return format!(
            "the host took up to {:.0}% of these CPUs' time during points of this sweep (steal, /proc/stat), which ran slow for it; run again when the host leaves the CPUs alone",
            c.steal * 100.0
        );
    }
    if c.shared_points.0 > 0 && c.rest_held {
        let below = crate::measure::sharing::SHARED_BELOW * 100.0;
        return if c.threads > 1 {
            format!(
                "{} of {} points were measured while the {} threads shared a physical core (FMA{} on every thread, probed after each point, ran under {below:.0}% of {} x its 1-thread roof) and waiting did not outlast it; run again",
                c.shared_points.0,
                c.shared_points.1,
                c.threads,
                if c.shared_level { "" } else { " or L1 loads" },
                c.threads
            )
        } else {
            format!(
                "{} of {} points were measured while other work shared the core (FMA{}, probed after each point, ran under {below:.0}% of its 1-thread roof: a tenant on an SMT sibling) and waiting did not outlast it; run again on an idle machine",
                c.shared_points.0,
                c.shared_points.1,
                if c.shared_level { "" } else { " or L1 loads" },
            )
        };
    }
    if c.threads > 1 && f.flat_bias < -SHARED_FLAT {
        return format!(
            "the FP-bound points ran {:.0}% under the {}-thread FP roof measured with the same threads: the threads shared a physical core during the sweep (a host can put two vCPUs on SMT siblings for seconds; seen here: 2-thread FMA at exactly the 1-thread rate, with no steal); run again",
            -f.flat_bias * 100.0,
            c.threads
        );
    }
    let (shared, stores) = (c.shared_level, c.stores);
    let far_ok = f.far_sloped_bias.abs() <= threshold;
    // Points under the memory roof, or serialized near the ridge, in a mix
    // that stores, while the load mix held on buffers sized the same way:
    // not a spill, but the stores beside the FP op (seen on Zen 3: 2ld1st
    // points at 1/32 flop/byte, 32 stores to 12 FMAs, 16-35% under).
    if stores && c.load_mix_held && !shared && (f.sloped_bias < -threshold || f.overlap < 0.5) {
        return format!(
            "points sit below min(P, AI x B) (overlap {:.0}%) while the load mix held on buffers sized the same way: the roofs and sizes are right, but the core did not issue this mix's stores beside the FP op at full rate ({STORE_FMA})",
            f.overlap * 100.0
        );
    }
    // Little overlap near the ridge while the points far from it roughly
    // hold: the model's min() is what fails, not a roof.
    if f.overlap < 0.5 && f.far_sloped_bias.abs() <= 2.0 * threshold && shared {
        format!(
            "memory and FP work serialize near the ridge (overlap {:.0}%: 0% is one after the other, 100% side by side) while points far from it hold: the kernel is latency bound there: the FP work between its loads fills the reorder buffer and leaves room for too few misses in flight to cover the memory latency, which the prefetching kernels run from half the ridge up did not make up for here; more threads reach the roof",
            f.overlap * 100.0
        )
    } else if f.overlap < 0.5 && f.far_sloped_bias.abs() <= 2.0 * threshold {
        format!(
            "memory and FP work serialize near the ridge (overlap {:.0}%: 0% is one after the other, 100% side by side) while points far from it hold: the roofs are right, but the core did not issue this mix's accesses beside the FP op at full rate, so min(P, AI x B) is optimistic there{}",
            f.overlap * 100.0,
            if stores {
                format!(" ({STORE_FMA})")
            } else {
                " (loads beside FMAs overlap fully on the cores measured so far: other work on this core is the likelier cause; run again on an idle machine)".into()
            }
        )
    } else if f.sloped_bias < -threshold && far_ok {
        format!(
            "points near the ridge sit below min(P, AI x B) while those far from it hold: memory and FP work overlap only in part there (overlap {:.0}%)",
            f.overlap * 100.0
        )
    } else if f.sloped_bias > threshold {
        "points sit above the memory roof: the bandwidth roof was under-measured".into()
    } else if f.sloped_bias < -threshold {
        format!(
            "points sit below the memory roof: the buffer spills to the next level, or the bandwidth roof was over-measured{}",
            if shared {
                ""
            } else {
                ", or other work on an SMT sibling took the core's load and store path during points (a spell that ended before the core guard's probe after them)"
            }
        )
    } else if f.flat_bias < -threshold {
        if c.threads > 1 {
            format!(
                "points sit below the {}-thread FP roof: other work shared the cores during the sweep (a tenant on an SMT sibling taking less than the core guard waits out), the kernel is latency bound there, or the FP roof was over-measured",
                c.threads
            )
        } else {
            "points sit below the FP roof: the kernel is latency bound there, or the FP roof was over-measured".into()
        }
    } else if f.flat_bias > threshold {
        "points sit above the FP roof: the FP roof was under-measured".into()
    } else {
        format!(
            "the deviation is at the ridge, where memory and FP work must overlap perfectly (overlap {:.0}%)",
            f.overlap * 100.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Isa;
    use crate::kernels::{Mix, Op, Precision, validation};

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
    fn sweep_covers_the_range_and_the_ridges() {
        let t = targets(&[0.18, 3.3]);
        assert!(t[0] <= 1.0 / 32.0 && *t.last().unwrap() >= 32.0);
        assert!(t.len() >= 12);
        for r in [0.18, 3.3] {
            assert!(
                t.iter().filter(|x| **x > r / 2.1 && **x < r * 2.1).count() >= 4,
                "dense around {r}"
            );
        }
        assert!(t.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn shapes_hit_their_targets_exactly_by_construction() {
        let d = validation(Mix::TwoLdOneSt, Op::Fma, Isa::Avx512, Precision::Dp)
            .unwrap()
            .decl;
        // Unit: 16 FMA x 8 lanes x 2 = 256 flops over (16 + 8) x 64 = 1536 bytes.
        assert_eq!(d.intensity(Shape::ONE), 256.0 / 1536.0);
        for t in [1.0 / 32.0, 0.25, 1.0, 3.3, 32.0] {
            let s = shape_for(&d, t);
            let ai = d.intensity(s);
            assert_eq!(ai, (s.k as f64 * 256.0) / (s.j as f64 * 1536.0));
            assert!(
                (ai / t).ln().abs() < 0.05,
                "target {t}: got {ai} with {s:?}"
            );
        }
        let sh = shapes(&d, &targets(&[0.3]));
        assert!(sh.windows(2).all(|w| d.intensity(w[0]) < d.intensity(w[1])));
    }

    #[test]
    fn deviation_and_fit_math() {
        assert_eq!(expected(0.1, 100.0, 500.0), 50.0);
        assert_eq!(expected(10.0, 100.0, 500.0), 100.0);
        assert_eq!(deviation(95.0, 100.0), -0.05);
        let pts = [
            (0.05, -0.02),
            (0.1, 0.01),
            (0.2, -0.30),
            (1.0, 0.0),
            (4.0, -0.04),
        ];
        let f = fit(&pts, 0.5, &[]);
        assert_eq!((f.n, f.sloped, f.flat), (5, 3, 2));
        assert_eq!(f.median_abs_deviation, 0.02);
        assert_eq!(f.worst, (0.2, -0.30));
        assert_eq!(f.sloped_bias, -0.02);
        assert_eq!(f.flat_bias, -0.02);
        assert!(f.overlap.is_nan());
        let low = fit(&[(0.1, -0.2), (0.2, -0.3), (2.0, 0.0)], 1.0, &[]);
        assert!(likely_cause(&low, 0.1, ctx(false, false)).contains("spills"));
        let near = [(0.05, -0.02), (0.5, -0.3), (0.8, -0.35), (2.0, 0.0)];
        let ridge = fit(&near, 1.0, &[0.1, 0.0]);
        assert_eq!(ridge.far_sloped_bias, -0.02);
        assert_eq!(ridge.overlap, 0.05);
        assert!(likely_cause(&ridge, 0.1, ctx(false, false)).contains("serialize"));
        assert!(likely_cause(&ridge, 0.1, ctx(false, false)).contains("did not issue"));
        // The store/FMA conflict is named for mixes that store, not for loads.
        assert!(likely_cause(&ridge, 0.1, ctx(false, true)).contains("FP stores and FMAs"));
        assert!(!likely_cause(&ridge, 0.1, ctx(false, false)).contains("FP stores"));
        assert!(likely_cause(&ridge, 0.1, ctx(true, false)).contains("latency bound"));
        // Little overlap, but the far points are far below too: a roof or the buffer.
        let spill = fit(
            &[(0.1, -0.4), (0.2, -0.5), (0.5, -0.5), (2.0, 0.0)],
            1.0,
            &[0.1],
        );
        assert!(likely_cause(&spill, 0.1, ctx(false, false)).contains("spills"));
        // The same points of a mix that stores, where the load mix held:
        // the stores beside the FP op, not a spill.
        let held = Context {
            load_mix_held: true,
            ..ctx(false, true)
        };
        let stored = likely_cause(&spill, 0.1, held);
        assert!(
            stored.contains("load mix held") && stored.contains("FP stores and FMAs"),
            "{stored}"
        );
        assert!(!stored.contains("spills"));
        let part = fit(&near, 1.0, &[0.7, 0.8]);
        assert!(likely_cause(&part, 0.1, ctx(false, false)).contains("overlap only in part"));
        let flat = fit(&[(0.1, 0.0), (2.0, -0.2), (4.0, -0.3)], 1.0, &[]);
        assert!(likely_cause(&flat, 0.1, ctx(false, false)).contains("latency bound"));
        let high = fit(&[(0.1, 0.2), (0.2, 0.3), (2.0, 0.0)], 1.0, &[]);
        assert!(likely_cause(&high, 0.1, ctx(false, false)).contains("under-measured"));
    }

    #[test]
    fn overlap_tells_side_by_side_from_one_after_the_other() {
        // P = 100 GFLOP/s, B = 400 GB/s: ridge at 0.25 flop/byte.
        let (p, b) = (100.0, 400.0);
        assert_eq!(serial(0.25, p, b), 50.0);
        assert!((serial(0.125, p, b) - 1.0 / (0.01 + 1.0 / 50.0)).abs() < 1e-12);
        // At the model it overlaps fully; at the serial model not at all.
        for ai in [0.125, 0.25, 0.5] {
            let full = overlap(expected(ai, p, b), ai, p, b).unwrap();
            let none = overlap(serial(ai, p, b), ai, p, b).unwrap();
            assert!((full - 1.0).abs() < 1e-12 && none.abs() < 1e-12, "{ai}");
        }
        // Half way in time per flop: 0.5.
        let t = (1.0 / expected(0.25, p, b) + 1.0 / serial(0.25, p, b)) / 2.0;
        assert!((overlap(1.0 / t, 0.25, p, b).unwrap() - 0.5).abs() < 1e-12);
        // Far from the ridge the two models agree: no verdict.
        assert_eq!(overlap(10.0, 0.01, p, b), None);
        assert_eq!(overlap(100.0, 4.0, p, b), None);
        assert_eq!(overlap(0.0, 0.25, p, b), None);
    }
}
