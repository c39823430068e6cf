//! The chart's geometry: line extents and axis ranges, no drawing. A roof is
//! min(peak, AI × bandwidth) ([`crate::roofline`]): each sloped line ends at
//! its ridge with the top FP roof; each flat line starts at its ridge with
//! the highest bandwidth.

use crate::machine::Level;
use crate::results::ValidationPoint;
use crate::roofline::ridge as ridge_ai;

/// Axis ranges (decades).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// AI range.
    pub x: (f64, f64),
    /// GFLOP/s range.
    pub y: (f64, f64),
}

pub(crate) fn decade_floor(v: f64) -> f64 {
    10f64.powf(v.log10().floor())
}
pub(crate) fn decade_ceil(v: f64) -> f64 {
    10f64.powf(v.log10().ceil())
}

/// Ranges showing every roof, every ridge and every point, in whole decades.
pub fn bounds(bws: &[f64], peaks: &[f64], points: &[(f64, f64)]) -> Bounds {
    let top = peaks.iter().copied().fold(f64::NAN, f64::max);
    let low = peaks.iter().copied().fold(f64::NAN, f64::min);
    let bmax = bws.iter().copied().fold(f64::NAN, f64::max);
    let mut xs: Vec<f64> = Vec::new();
    if top.is_finite() {
        xs.extend(bws.iter().map(|b| ridge_ai(top, *b)));
    }
    if low.is_finite() && bmax.is_finite() {
        xs.push(ridge_ai(low, bmax));
    }
    xs.extend(points.iter().map(|p| p.0));
    let (mut x0, mut x1) = if xs.is_empty() {
        (0.01, 100.0)
    } else {
        (
            xs.iter().copied().fold(f64::INFINITY, f64::min) / 4.0,
            xs.iter().copied().fold(0.0, f64::max) * 4.0,
        )
    };
    x0 = decade_floor(x0);
    x1 = decade_ceil(x1).max(x0 * 100.0);
    let mut ys: Vec<f64> = peaks.to_vec();
    ys.extend(points.iter().map(|p| p.1));
    let bmin = bws.iter().copied().fold(f64::NAN, f64::min);
    if bmin.is_finite() {
        ys.push(bmin * x0);
    }
    if !top.is_finite() && bmax.is_finite() {
        ys.push(bmax * x1);
    }
    let y1 = decade_ceil(ys.iter().copied().fold(0.0, f64::max) * 2.0);
    let y0 = decade_floor(ys.iter().copied().fold(f64::INFINITY, f64::min) / 2.0).min(y1 / 100.0);
    Bounds {
        x: (x0, x1),
        y: (y0, y1),
    }
}

/// A sloped (bandwidth) roof as drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sloped {
    /// Bandwidth, GB/s.
    pub gb_per_s: f64,
    /// Drawn from this AI...
    pub x0: f64,
    /// ... to this AI (the ridge with the top roof, or the axis end).
    pub x1: f64,
    /// Ridge point with the top FP roof, if there is one.
    pub ridge: Option<(f64, f64)>,
}

/// A flat (compute) roof as drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flat {
    /// Peak, GFLOP/s.
    pub gflop_per_s: f64,
    /// Drawn from this AI (ridge with the highest bandwidth)...
    pub x0: f64,
    /// ... to the axis end.
    pub x1: f64,
}

/// Lines for a set of bandwidths and peaks within `b`.
pub fn lines(bws: &[f64], peaks: &[f64], b: &Bounds) -> (Vec<Sloped>, Vec<Flat>) {
    let top = peaks.iter().copied().fold(f64::NAN, f64::max);
    let bmax = bws.iter().copied().fold(f64::NAN, f64::max);
    let sloped = bws
        .iter()
        .map(|&bw| {
            let ridge = top.is_finite().then(|| (ridge_ai(top, bw), top));
            Sloped {
                gb_per_s: bw,
                x0: b.x.0,
                x1: ridge.map_or(b.x.1, |r| r.0.min(b.x.1)),
                ridge,
            }
        })
        .collect();
    let flat = peaks
        .iter()
        .map(|&p| Flat {
            gflop_per_s: p,
            x0: if bmax.is_finite() {
                ridge_ai(p, bmax).max(b.x.0)
            } else {
                b.x.0
            },
            x1: b.x.1,
        })
        .collect();
    (sloped, flat)
}

/// A point of the chart: intensity, GFLOP/s.
pub type Xy = (f64, f64);

/// The expected values of validation points as segments, level by level in
/// order of intensity: where the core overlaps memory and FP work only in
/// part, they bend below the roofs.
pub fn expected_lines(points: &[ValidationPoint]) -> Vec<(Level, Xy, Xy)> {
    let mut levels: Vec<Level> = points.iter().map(|v| v.level).collect();
    levels.dedup();
    let mut out = Vec::new();
    for l in levels {
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|v| v.level == l && v.expected_gflop_per_s > 0.0)
            .map(|v| (v.ai, v.expected_gflop_per_s))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.dedup_by(|a, b| a.0 == b.0);
        out.extend(pts.windows(2).map(|w| (l, w[0], w[1])));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ridges_are_peak_over_bandwidth() {
        let b = bounds(&[600.0, 150.0, 40.0], &[170.0, 58.0], &[]);
        let (s, f) = lines(&[600.0, 150.0, 40.0], &[170.0, 58.0], &b);
        assert_eq!(s[0].ridge, Some((170.0 / 600.0, 170.0)));
        assert_eq!(s[2].x1, 170.0 / 40.0);
        // Each sloped line ends where it meets the top roof: y = AI × BW = peak.
        for l in &s {
            assert!((l.x1 * l.gb_per_s - 170.0).abs() < 1e-9);
        }
        // The lower flat roof starts at its ridge with the fastest level.
        assert!((f[1].x0 - 58.0 / 600.0).abs() < 1e-12);
        assert_eq!(f[0].x1, b.x.1);
    }

    #[test]
    fn bounds_hold_every_ridge_and_point_in_decades() {
        let b = bounds(
            &[600.0, 40.0],
            &[170.0, 7.0],
            &[(0.001, 0.02), (300.0, 100.0)],
        );
        assert!(b.x.0 <= 0.001 && b.x.1 >= 300.0);
        assert!(b.y.0 <= 0.02 && b.y.1 >= 170.0);
        for v in [b.x.0, b.x.1, b.y.0, b.y.1] {
            assert!(
                (v.log10() - v.log10().round()).abs() < 1e-9,
                "{v} is a decade"
            );
        }
        let only_bw = bounds(&[100.0], &[], &[]);
        assert!(only_bw.x.0 < only_bw.x.1 && only_bw.y.0 < only_bw.y.1);
        let only_fp = bounds(&[], &[50.0], &[]);
        assert!(only_fp.y.1 >= 50.0 && only_fp.y.0 < 50.0);
    }
}
