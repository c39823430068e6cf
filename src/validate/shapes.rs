//! The intensities a sweep visits and the kernel shape that gives each.
//!
//! A validation kernel repeats a memory unit j times and an FP unit k times
//! per iteration, so its arithmetic intensity is k·F / j·B, exact by
//! construction from its declaration.

use crate::kernels::{Decl, Shape};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Mix, Op, Precision, Role, find};
    use crate::machine::isa::Isa;

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
        let d = find(
            Isa::Avx512,
            Role::Validation {
                mix: Mix::TwoLdOneSt,
                op: Op::Fma,
                precision: Precision::Dp,
                prefetching: false,
            },
        )
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
}
