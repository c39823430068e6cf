//! How a sweep's points sit against their roofs, summed up.

use crate::measure::stats::median;
use serde::{Deserialize, Serialize};

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
    /// Median [`crate::roofline::overlap`] of the points near the ridge (NaN without any).
    pub overlap: f64,
}

/// Fit of (ai, deviation) points against a roof whose ridge is at `ridge`;
/// `overlaps` are the [`crate::roofline::overlap`] values of the points near the ridge.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_sums_up_the_points() {
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
        let near = [(0.05, -0.02), (0.5, -0.3), (0.8, -0.35), (2.0, 0.0)];
        let ridge = fit(&near, 1.0, &[0.1, 0.0]);
        assert_eq!(ridge.far_sloped_bias, -0.02);
        assert_eq!(ridge.overlap, 0.05);
    }
}
