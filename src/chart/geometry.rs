//! Roofline geometry: ridges, line extents, axis ranges. Pure arithmetic,
//! no drawing. A roof is min(peak, AI × bandwidth): each sloped line ends
//! at its ridge with the top FP roof; each flat line starts at its ridge
//! with the highest bandwidth.

/// AI where the bandwidth `gb_per_s` meets the peak `gflop_per_s`.
pub fn ridge_ai(gflop_per_s: f64, gb_per_s: f64) -> f64 {
    gflop_per_s / gb_per_s
}

/// Attainable performance at `ai` under one bandwidth and one peak.
pub fn attainable(ai: f64, gflop_per_s: f64, gb_per_s: f64) -> f64 {
    (ai * gb_per_s).min(gflop_per_s)
}

/// Axis ranges (decades).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// AI range.
    pub x: (f64, f64),
    /// GFLOP/s range.
    pub y: (f64, f64),
}

fn decade_floor(v: f64) -> f64 {
    10f64.powf(v.log10().floor())
}
fn decade_ceil(v: f64) -> f64 {
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

/// The level bounding a point: the slowest level whose roof (under the top
/// peak) still reaches the point's performance. `levels` are (name, GB/s).
pub fn bounding_level(
    ai: f64,
    gflop_per_s: f64,
    levels: &[(String, f64)],
    top: f64,
) -> Option<&str> {
    let mut sorted: Vec<&(String, f64)> = levels.iter().collect();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    sorted
        .into_iter()
        .find(|(_, bw)| {
            attainable(ai, if top.is_finite() { top } else { f64::INFINITY }, *bw) >= gflop_per_s
        })
        .map(|(n, _)| n.as_str())
}

/// The roof right above a point: of the sloped roofs (AI × bandwidth,
/// capped by the top peak) and the flat ones, the lowest that the point
/// does not exceed; None when the point sits above every roof. `roofs` are
/// (label, GB/s) and `peaks` (label, GFLOP/s). Returns (label, GFLOP/s).
pub fn tightest_roof(
    ai: f64,
    gflop_per_s: f64,
    levels: &[(String, f64)],
    peaks: &[(String, f64)],
) -> Option<(String, f64)> {
    let top = peaks.iter().map(|p| p.1).fold(f64::NAN, f64::max);
    let top_label = peaks.iter().find(|p| p.1 == top).map(|p| p.0.clone());
    let mut cands: Vec<(String, f64)> = peaks.to_vec();
    for (l, bw) in levels {
        let v = ai * bw;
        if top.is_finite() && v >= top {
            if let Some(t) = &top_label {
                cands.push((t.clone(), top));
            }
        } else {
            cands.push((l.clone(), v));
        }
    }
    cands
        .into_iter()
        .filter(|c| c.1 >= gflop_per_s)
        .min_by(|a, b| a.1.total_cmp(&b.1))
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
        assert_eq!(attainable(0.01, 170.0, 600.0), 6.0);
        assert_eq!(attainable(10.0, 170.0, 600.0), 170.0);
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

    #[test]
    fn tightest_roof_above_a_point() {
        let lv = vec![("L1".to_string(), 600.0), ("DRAM".to_string(), 36.0)];
        let pk = vec![("FMA".to_string(), 116.0), ("ADD".to_string(), 58.0)];
        assert_eq!(
            tightest_roof(0.5, 10.0, &lv, &pk),
            Some(("DRAM".to_string(), 18.0))
        );
        assert_eq!(
            tightest_roof(0.5, 20.0, &lv, &pk),
            Some(("ADD".to_string(), 58.0))
        );
        assert_eq!(
            tightest_roof(0.5, 100.0, &lv, &pk),
            Some(("FMA".to_string(), 116.0))
        );
        assert_eq!(
            tightest_roof(10.0, 50.0, &lv, &pk),
            Some(("ADD".to_string(), 58.0))
        );
        assert_eq!(tightest_roof(0.5, 500.0, &lv, &pk), None);
    }

    #[test]
    fn bounding_level_is_the_slowest_sufficient_roof() {
        let lv = vec![
            ("L1".to_string(), 600.0),
            ("L3".to_string(), 100.0),
            ("DRAM".to_string(), 36.0),
        ];
        assert_eq!(bounding_level(0.5, 10.0, &lv, 170.0), Some("DRAM"));
        assert_eq!(bounding_level(0.5, 30.0, &lv, 170.0), Some("L3"));
        assert_eq!(bounding_level(0.5, 200.0, &lv, 170.0), None);
    }
}
