//! The roofline model's arithmetic, used by the chart, validation,
//! profiling, comparison and prediction alike. A roof is min(P, AI × B): P
//! an FP peak (GFLOP/s), B a memory level's bandwidth (GB/s), AI the
//! arithmetic intensity (flop per byte requested by the core).

/// Attainable performance at `ai` under one bandwidth and one peak.
pub fn attainable(ai: f64, gflop_per_s: f64, gb_per_s: f64) -> f64 {
    (ai * gb_per_s).min(gflop_per_s)
}

/// The ridge: the AI where the bandwidth `gb_per_s` meets the peak
/// `gflop_per_s`.
pub fn ridge(gflop_per_s: f64, gb_per_s: f64) -> f64 {
    gflop_per_s / gb_per_s
}

/// Whether work of intensity `ai` is memory bound under bandwidth
/// `gb_per_s` and peak `gflop_per_s`: left of the ridge. In the
/// quadrant-split chart (Konstantinidis, "GPU performance estimation")
/// this is the point (B, P) lying above the line y = AI·x.
pub fn memory_bound(ai: f64, gb_per_s: f64, gflop_per_s: f64) -> bool {
    ai * gb_per_s < gflop_per_s
}

/// GFLOP/s at `ai` if memory and FP work ran one after the other instead of
/// side by side: the time per flop is the sum of the FP time and the memory
/// time, 1 / (1/P + 1/(AI × B)).
pub fn serial(ai: f64, gflop_per_s: f64, gb_per_s: f64) -> f64 {
    1.0 / (1.0 / gflop_per_s + 1.0 / (ai * gb_per_s))
}

/// Attainable performance where the core overlaps memory and FP work only
/// in part: FP work and the issue of the memory accesses (the core's own
/// time for them, `issue_ns_per_byte`) share something, so `1 − overlap`
/// of the shorter of the two adds to the core's time. The level's own
/// bandwidth is a bound beside it: a level slower than the issue hides the
/// core's time in its wait. With `overlap` 1 this is [`attainable`].
pub fn attainable_overlapping(
    ai: f64,
    gflop_per_s: f64,
    gb_per_s: f64,
    overlap: f64,
    issue_ns_per_byte: f64,
) -> f64 {
    let fp = 1.0 / gflop_per_s;
    let memory = 1.0 / (ai * gb_per_s);
    // The issue is part of the level's own time: never longer.
    let issue = (issue_ns_per_byte / ai).min(memory);
    let core = fp.max(issue) + (1.0 - overlap.clamp(0.0, 1.0)) * fp.min(issue);
    1.0 / core.max(memory)
}

/// Points within this factor of the ridge AI tell the overlap.
pub const OVERLAP_BAND: f64 = 2.0;

/// How much of the memory and FP work of a point overlapped: 1 when it ran
/// at min(P, AI × B) (full overlap), 0 when it took the time of both in
/// turn ([`serial`]). Only points within a factor [`OVERLAP_BAND`] of the
/// ridge tell (elsewhere both models agree within a third); `None` for the
/// others.
pub fn overlap(measured: f64, ai: f64, gflop_per_s: f64, gb_per_s: f64) -> Option<f64> {
    let r = ridge(gflop_per_s, gb_per_s);
    if !(ai >= r / OVERLAP_BAND && ai <= r * OVERLAP_BAND) || measured <= 0.0 {
        return None;
    }
    let t_min = 1.0 / attainable(ai, gflop_per_s, gb_per_s);
    let t_serial = 1.0 / serial(ai, gflop_per_s, gb_per_s);
    Some((t_serial - 1.0 / measured) / (t_serial - t_min))
}

/// Relative deviation of a measurement from its expected value.
pub fn deviation(measured: f64, expected: f64) -> f64 {
    (measured - expected) / expected
}

/// The peak of a mix of FMA and other FP work (Konstantinidis adjusts the
/// peak by instruction mix): the time of `fma_flops` at the FMA roof plus
/// the rest at the ADD/MUL roof, so the peak lies between the two.
pub fn mixed_peak(flops: f64, fma_flops: f64, fma_roof: f64, other_roof: f64) -> f64 {
    let fma = fma_flops.clamp(0.0, flops);
    flops / (fma / fma_roof + (flops - fma) / other_roof)
}

/// Predicted seconds of `flops` and `bytes` under peak `gflop_per_s` and
/// bandwidth `gb_per_s`, T = W / min(P, AI × B), and whether the bandwidth
/// bounds it.
pub fn predict(flops: f64, bytes: f64, gflop_per_s: f64, gb_per_s: f64) -> (f64, bool) {
    let ai = flops / bytes;
    (
        flops / (attainable(ai, gflop_per_s, gb_per_s) * 1e9),
        memory_bound(ai, gb_per_s, gflop_per_s),
    )
}

/// The level bounding a point: the slowest level whose roof (under the top
/// peak) still reaches the point's performance. `levels` are (name, GB/s).
pub fn bounding_level<T>(ai: f64, gflop_per_s: f64, levels: &[(T, f64)], top: f64) -> Option<&T> {
    let cap = if top.is_finite() { top } else { f64::INFINITY };
    let mut sorted: Vec<&(T, f64)> = levels.iter().collect();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    sorted
        .into_iter()
        .find(|(_, bw)| attainable(ai, cap, *bw) >= gflop_per_s)
        .map(|(n, _)| n)
}

/// The roof right above a point: of the sloped roofs (AI × bandwidth,
/// capped by the top peak) and the flat ones, the lowest that the point
/// does not exceed; None when the point sits above every roof, which is
/// above the roofline itself, min(top peak, fastest bandwidth × AI): a
/// point between the fastest level's slope and the peak is under no roof
/// at its intensity, though a flat roof is drawn above it. `levels` are
/// (label, GB/s) and `peaks` (label, GFLOP/s). Returns (label, GFLOP/s).
pub fn tightest_roof(
    ai: f64,
    gflop_per_s: f64,
    levels: &[(String, f64)],
    peaks: &[(String, f64)],
) -> Option<(String, f64)> {
    let top = peaks.iter().map(|p| p.1).fold(f64::NAN, f64::max);
    let fastest = levels.iter().map(|l| l.1).fold(f64::NAN, f64::max);
    if gflop_per_s > ai * fastest && ai * fastest < top {
        return None;
    }
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
    fn roof_ridge_and_bound() {
        assert_eq!(attainable(0.1, 100.0, 500.0), 50.0);
        assert_eq!(attainable(10.0, 100.0, 500.0), 100.0);
        assert_eq!(ridge(170.0, 600.0), 170.0 / 600.0);
        // P = 100, B = 50: the ridge is at 2.
        assert!(memory_bound(1.0, 50.0, 100.0));
        assert!(!memory_bound(2.0, 50.0, 100.0));
        assert!(!memory_bound(4.0, 50.0, 100.0));
        assert_eq!(deviation(95.0, 100.0), -0.05);
    }

    #[test]
    fn prediction_formula() {
        // 1 GFLOP over 10 GB on 50 GB/s and 100 GFLOP/s: AI 0.1 -> 5 GFLOP/s -> 0.2 s, memory bound.
        let (t, mem) = predict(1e9, 1e10, 100.0, 50.0);
        assert!((t - 0.2).abs() < 1e-12 && mem);
        // AI 10: capped by the peak: 1 GFLOP at 100 GFLOP/s = 0.01 s.
        let (t, mem) = predict(1e9, 1e8, 100.0, 50.0);
        assert!((t - 0.01).abs() < 1e-12 && !mem);
    }

    #[test]
    fn mixed_peak_lies_between_the_roofs() {
        assert_eq!(mixed_peak(100.0, 100.0, 32.0, 16.0), 32.0);
        assert_eq!(mixed_peak(100.0, 0.0, 32.0, 16.0), 16.0);
        // Half the flops in FMAs: 50/32 + 50/16 = 4.6875 -> 21.33.
        assert!((mixed_peak(100.0, 50.0, 32.0, 16.0) - 100.0 / 4.6875).abs() < 1e-12);
    }

    #[test]
    fn overlap_tells_side_by_side_from_one_after_the_other() {
        // P = 100 GFLOP/s, B = 400 GB/s: ridge at 0.25 flop/byte.
        let (p, b) = (100.0, 400.0);
        assert_eq!(serial(0.25, p, b), 50.0);
        assert!((serial(0.125, p, b) - 1.0 / (0.01 + 1.0 / 50.0)).abs() < 1e-12);
        // At the model it overlaps fully; at the serial model not at all.
        for ai in [0.125, 0.25, 0.5] {
            let full = overlap(attainable(ai, p, b), ai, p, b).unwrap();
            let none = overlap(serial(ai, p, b), ai, p, b).unwrap();
            assert!((full - 1.0).abs() < 1e-12 && none.abs() < 1e-12, "{ai}");
        }
        // Half way in time per flop: 0.5.
        let t = (1.0 / attainable(0.25, p, b) + 1.0 / serial(0.25, p, b)) / 2.0;
        assert!((overlap(1.0 / t, 0.25, p, b).unwrap() - 0.5).abs() < 1e-12);
        // Far from the ridge the two models agree: no verdict.
        assert_eq!(overlap(10.0, 0.01, p, b), None);
        assert_eq!(overlap(100.0, 4.0, p, b), None);
        assert_eq!(overlap(0.0, 0.25, p, b), None);
    }

    #[test]
    fn partial_overlap_adds_the_hidden_part_back() {
        // P = 100 GFLOP/s, B = 400 GB/s; the memory unit's issue takes as
        // long as its L1 bandwidth (0.0025 ns a byte).
        let (p, b, issue) = (100.0, 400.0, 1.0 / 400.0);
        for ai in [0.05, 0.25, 2.0] {
            // Full overlap: the roof.
            let full = attainable_overlapping(ai, p, b, 1.0, issue);
            assert!((full - attainable(ai, p, b)).abs() < 1e-9, "{ai}");
            // None: at the level whose bandwidth is the issue's, the sum.
            let none = attainable_overlapping(ai, p, b, 0.0, issue);
            assert!((none - serial(ai, p, b)).abs() < 1e-9, "{ai}");
        }
        // A slower level (B = 100 GB/s) at its ridge (AI 1), half overlap:
        // 10 ns of memory, 10 ns of FP, half the 2.5 ns of issue added.
        let t = 1.0 / attainable_overlapping(1.0, 100.0, 100.0, 0.5, issue);
        assert!((t - (0.01 + 0.5 * 0.0025)).abs() < 1e-12, "{t}");
        // Far below its ridge (AI 0.05): 0.2 ns of memory a flop, 0.05 of
        // issue and 0.01 of FP; the core's 0.06 hides in the level's wait.
        let t = 1.0 / attainable_overlapping(0.05, 100.0, 100.0, 0.0, issue);
        assert!((t - 0.2).abs() < 1e-12, "{t}");
        // Out-of-range overlaps are clamped.
        assert_eq!(
            attainable_overlapping(1.0, p, b, 7.0, issue),
            attainable_overlapping(1.0, p, b, 1.0, issue)
        );
    }

    #[test]
    fn tightest_roof_above_a_point() {
        let lv = vec![("fast".to_string(), 600.0), ("slow".to_string(), 36.0)];
        let pk = vec![("FMA".to_string(), 116.0), ("ADD".to_string(), 58.0)];
        assert_eq!(
            tightest_roof(0.5, 10.0, &lv, &pk),
            Some(("slow".to_string(), 18.0))
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
        // At AI 0.05 the fastest level reaches 30: a point at 40 is above
        // the roofline, though both peaks are drawn above it.
        assert_eq!(tightest_roof(0.05, 40.0, &lv, &pk), None);
        assert_eq!(
            tightest_roof(0.05, 29.0, &lv, &pk),
            Some(("fast".to_string(), 30.0))
        );
    }

    #[test]
    fn bounding_level_is_the_slowest_sufficient_roof() {
        let lv = vec![("fast", 600.0), ("mid", 100.0), ("slow", 36.0)];
        assert_eq!(bounding_level(0.5, 10.0, &lv, 170.0), Some(&"slow"));
        assert_eq!(bounding_level(0.5, 30.0, &lv, 170.0), Some(&"mid"));
        assert_eq!(bounding_level(0.5, 200.0, &lv, 170.0), None);
    }
}
