//! Order statistics of repeated samples: median, quartiles, spread.

use serde::{Deserialize, Serialize};

/// Summary of repeated samples of one quantity.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// Median.
    pub median: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Coefficient of variation (standard deviation / mean).
    pub cv: f64,
    /// Number of samples.
    pub n: usize,
}

/// Quantile `p` in [0, 1] of sorted data, interpolating linearly.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// Median of unsorted data (NaN when empty).
pub fn median(data: &[f64]) -> f64 {
    let mut v = data.to_vec();
    v.sort_by(f64::total_cmp);
    quantile_sorted(&v, 0.5)
}

/// Summarize samples. Empty input gives NaN fields and n = 0.
pub fn summarize(data: &[f64]) -> Summary {
    let mut v: Vec<f64> = data.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let mean = v.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    Summary {
        median: quantile_sorted(&v, 0.5),
        q1: quantile_sorted(&v, 0.25),
        q3: quantile_sorted(&v, 0.75),
        min: v.first().copied().unwrap_or(f64::NAN),
        max: v.last().copied().unwrap_or(f64::NAN),
        cv: if n > 0 && mean != 0.0 {
            var.sqrt() / mean
        } else {
            f64::NAN
        },
        n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_interpolate() {
        let s = summarize(&[4.0, 1.0, 3.0, 2.0, 5.0]);
        assert_eq!(s.median, 3.0);
        assert_eq!(s.q1, 2.0);
        assert_eq!(s.q3, 4.0);
        assert_eq!((s.min, s.max, s.n), (1.0, 5.0, 5));
        let s = summarize(&[1.0, 2.0]);
        assert_eq!(s.median, 1.5);
        assert_eq!(s.q1, 1.25);
    }

    #[test]
    fn cv_of_constant_is_zero_and_empty_is_nan() {
        assert_eq!(summarize(&[2.0, 2.0, 2.0]).cv, 0.0);
        let e = summarize(&[]);
        assert!(e.median.is_nan() && e.n == 0);
        let s = summarize(&[1.0, 3.0]);
        assert!((s.cv - (2f64.sqrt() / 2.0)).abs() < 1e-12);
    }
}
