//! The phase rule of a run over time: consecutive windows alike in
//! intensity and rate joined into phases (the words are in the parent
//! module's).

use crate::profile::views::timeline::Span;

/// Two windows are alike in intensity within this factor.
pub const AI_FACTOR: f64 = 2.0;

/// And in rate (W/s) within this one: the rate of a short window rests on
/// few native samples.
pub const RATE_FACTOR: f64 = 4.0;

/// A phase shorter than this share of the run is merged into a neighbour.
pub const MIN_SHARE: f64 = 0.05;

/// A phase apart from a neighbour by its rate alone, shorter than this
/// share of the run, is merged into it: a first pass over new memory, its
/// page faults' time, is not a phase of its own.
pub const RATE_ONLY_SHARE: f64 = 0.10;

/// Flops per byte below which a window is not FP work: its W is start-up
/// or bookkeeping, and its intensity says nothing.
pub const FP_AI: f64 = 1e-3;

/// The phases of `spans`: ranges of consecutive spans (see the module's
/// words).
pub fn phases(spans: &[Span]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for k in 0..spans.len() {
        match out.last_mut() {
            Some(r) if alike(&sum(&spans[r.clone()]), &spans[k]) => r.end = k + 1,
            _ => out.push(k..k + 1),
        }
    }
    let seconds = spans.last().map_or(0.0, |s| s.end);
    let tiny = 0.5 * median_width(spans);
    // Short phases no neighbour takes, as they are now.
    let mut kept: Vec<std::ops::Range<usize>> = Vec::new();
    loop {
        let short = (0..out.len())
            .filter(|&k| out.len() > 1 && short(spans, &out, k, seconds))
            .filter(|&k| !kept.contains(&out[k]))
            .min_by(|&a, &b| duration(spans, &out[a]).total_cmp(&duration(spans, &out[b])));
        let Some(k) = short else { break };
        // The neighbour it changes least: a window across a boundary goes
        // to the side its share moves least (the bytes of a stream's last
        // window would move a compute phase's Q a lot).
        let both =
            |j: usize| sum(&spans[out[k].start.min(out[j].start)..out[k].end.max(out[j].end)]);
        let gap = |j: usize| distance(&sum(&spans[out[j].clone()]), &both(j));
        // Only into a neighbour of its kind, one whose intensity it leaves
        // alike (a blip, a first pass): short steps of two intensities in
        // turn stay apart, not one blend neither is. A phase under half a
        // window long is an artefact of placing the windows: any takes it.
        let takes = |j: usize| {
            duration(spans, &out[k]) < tiny
                || apart(&sum(&spans[out[j].clone()]), &both(j)).0 <= AI_FACTOR.log2()
        };
        let neighbours = [k.checked_sub(1), (k + 1 < out.len()).then_some(k + 1)];
        let into = (neighbours.into_iter().flatten())
            .filter(|&j| takes(j))
            .min_by(|&a, &b| gap(a).total_cmp(&gap(b)));
        let Some(into) = into else {
            kept.push(out[k].clone());
            continue;
        };
        let (lo, hi) = (k.min(into), k.max(into));
        out[lo].end = out[hi].end;
        out.remove(hi);
        join_alike(spans, &mut out);
    }
    settle(spans, &mut out, MIN_SHARE * seconds);
    out
}

/// The median length of `spans`, seconds.
fn median_width(spans: &[Span]) -> f64 {
    let mut w: Vec<f64> = spans.iter().map(|s| s.end - s.start).collect();
    w.sort_by(f64::total_cmp);
    w.get(w.len() / 2).copied().unwrap_or(0.0)
}

/// Each boundary moved by a window either way where that changes the two
/// phases' intensities (then rates) less: the window across a boundary,
/// joined to a phase it was alike enough to join, goes to the side its
/// share moves least; never so far that a phase of `least` seconds or more
/// is left shorter.
fn settle(spans: &[Span], out: &mut [std::ops::Range<usize>], least: f64) {
    for k in 1..out.len() {
        let (a, b, c) = (out[k - 1].start, out[k].start, out[k].end);
        if b - a < 3 || c - b < 3 {
            continue;
        }
        let (core_a, core_b) = (sum(&spans[a..b - 1]), sum(&spans[b + 1..c]));
        let cost = |at: usize| {
            distance(&core_a, &sum(&spans[a..at])) + distance(&core_b, &sum(&spans[at..c]))
        };
        let long = |r: std::ops::Range<usize>| duration(spans, &r) >= least;
        let keeps = |at: usize| (!long(a..b) || long(a..at)) && (!long(b..c) || long(at..c));
        let best = (b - 1..=b + 1)
            .filter(|&at| keeps(at))
            .min_by(|x, y| cost(*x).total_cmp(&cost(*y)));
        if let Some(at) = best {
            out[k - 1].end = at;
            out[k].start = at;
        }
    }
}

/// Whether phase `k` of `out` is too short to stand apart: under
/// [`MIN_SHARE`] of the run, or under [`RATE_ONLY_SHARE`] and apart from a
/// neighbour by its rate only.
fn short(spans: &[Span], out: &[std::ops::Range<usize>], k: usize, seconds: f64) -> bool {
    let d = duration(spans, &out[k]);
    let me = sum(&spans[out[k].clone()]);
    let by_rate = |j: usize| apart(&me, &sum(&spans[out[j].clone()])).0 <= AI_FACTOR.log2();
    let neighbours = [k.checked_sub(1), (k + 1 < out.len()).then_some(k + 1)];
    d < MIN_SHARE * seconds
        || d < RATE_ONLY_SHARE * seconds && neighbours.into_iter().flatten().any(by_rate)
}

/// Neighbouring phases now alike, joined.
fn join_alike(spans: &[Span], out: &mut Vec<std::ops::Range<usize>>) {
    let mut k = 0;
    while k + 1 < out.len() {
        if alike(
            &sum(&spans[out[k].clone()]),
            &sum(&spans[out[k + 1].clone()]),
        ) {
            out[k].end = out[k + 1].end;
            out.remove(k + 1);
        } else {
            k += 1;
        }
    }
}

fn duration(spans: &[Span], r: &std::ops::Range<usize>) -> f64 {
    spans[r.end - 1].end - spans[r.start].start
}

/// Spans as one (their W, Q, time and CPU time; no functions).
pub(super) fn sum(spans: &[Span]) -> Span {
    let cpu = spans.iter().map(|s| s.cpu).sum::<Option<f64>>();
    Span {
        cpu,
        ..Span::bare(
            spans.first().map_or(0.0, |s| s.start),
            spans.last().map_or(0.0, |s| s.end),
            spans.iter().map(|s| s.flops).sum(),
            spans.iter().map(|s| s.bytes).sum(),
        )
    }
}

/// How far apart `a` and `b` are: (intensity, rate), each the log2 of their
/// ratio (intensity infinite between FP work and other; rate 0 where
/// either took no time).
fn apart(a: &Span, b: &Span) -> (f64, f64) {
    let log = |x: f64, y: f64| (x.max(1e-300) / y.max(1e-300)).log2().abs();
    // Work that moved no byte is of infinite intensity, alike only to its
    // own kind.
    let ai = match ((a.fp(), a.bytes > 0.0), (b.fp(), b.bytes > 0.0)) {
        ((true, true), (true, true)) => log(a.ai(), b.ai()),
        ((true, false), (true, false)) | ((false, _), (false, _)) => 0.0,
        _ => f64::INFINITY,
    };
    let timed = a.end > a.start && b.end > b.start;
    let rate = match timed {
        true => log(a.rate(), b.rate()),
        false => 0.0,
    };
    (ai, rate)
}

/// Whether span `b` belongs with `a`: intensity within [`AI_FACTOR`], rate
/// within [`RATE_FACTOR`].
fn alike(a: &Span, b: &Span) -> bool {
    let (ai, rate) = apart(a, b);
    ai <= AI_FACTOR.log2() && rate <= RATE_FACTOR.log2()
}

/// One number for how far apart two stretches are: intensity first.
fn distance(a: &Span, b: &Span) -> f64 {
    let (ai, rate) = apart(a, b);
    ai * 1e3 + rate
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows of 10 ms in turn: for each (count, flops, bytes), that many
    /// windows of that W and Q.
    fn windows(parts: &[(usize, f64, f64)]) -> Vec<Span> {
        let each = parts
            .iter()
            .flat_map(|&(n, w, q)| std::iter::repeat_n((w, q), n));
        (each.enumerate())
            .map(|(k, (w, q))| Span::bare(k as f64 * 0.01, (k + 1) as f64 * 0.01, w, q))
            .collect()
    }

    #[test]
    fn compute_then_stream_then_compute_is_three_phases_and_a_blip_is_merged() {
        // Compute (AI 8), a window across the boundary (the compute's last
        // flops and the stream's first bytes: AI 1.3), a stream (AI 1/12),
        // compute again.
        let spans = windows(&[
            (30, 17e6, 2.1e6),
            (1, 2.5e6, 1.9e6),
            (40, 6e6, 72e6),
            (30, 17e6, 2.1e6),
        ]);
        let p = phases(&spans);
        // The mixed window joins the stream, whose intensity it changes
        // least (0.8 %, where the compute's by 2.4 %), though its own is
        // nearer the compute's.
        assert_eq!(p, vec![0..30, 30..71, 71..101]);
        // Too short a run of windows alone: one phase.
        assert_eq!(phases(&spans[..2]), vec![0..2]);
        assert!(phases(&[]).is_empty());
    }

    #[test]
    fn a_window_joined_to_the_phase_before_goes_where_it_changes_least() {
        // A at AI 1, a window at AI 2 (alike enough to join A), B at AI 4
        // with eight times A's flops: in B it moves B's intensity least.
        let spans = windows(&[(10, 1e6, 1e6), (1, 1e6, 5e5), (10, 8e6, 2e6)]);
        assert_eq!(phases(&spans), vec![0..10, 10..21]);
    }

    #[test]
    fn a_slow_first_pass_at_the_same_intensity_is_not_a_phase_of_its_own() {
        // Compute, then a triad whose first pass (page faults) runs at a
        // tenth of the rate for 8 % of the run, then compute.
        let spans = windows(&[
            (30, 4e6, 1e6),
            (8, 1e5, 1.2e6),
            (32, 1e6, 1.2e7),
            (30, 4e6, 1e6),
        ]);
        assert_eq!(phases(&spans), vec![0..30, 30..70, 70..100]);
        // As long as the rest of the triad, it is a phase of its own.
        let mut long = spans[..38].to_vec();
        long.extend(spans[30..].iter().cloned());
        let seconds: Vec<f64> = (0..long.len()).map(|k| k as f64 * 0.01).collect();
        for (s, t) in long.iter_mut().zip(seconds) {
            (s.start, s.end) = (t, t + 0.01);
        }
        assert_eq!(phases(&long).len(), 4);
    }

    #[test]
    fn short_steps_of_two_intensities_in_turn_stay_apart_not_blended() {
        // Compute, then five pairs of short steps (3 % of the run each) at
        // AI 2 and AI 1/12, then compute: no phase blends the two.
        let mut parts = vec![(40, 8e6, 1e6)];
        for _ in 0..5 {
            parts.extend([(3, 2e6, 1e6), (3, 1e5, 1.2e6)]);
        }
        parts.push((40, 8e6, 1e6));
        let spans = windows(&parts);
        let p = phases(&spans);
        for r in &p {
            let ai = sum(&spans[r.clone()]).ai();
            assert!(!(0.2..1.5).contains(&ai), "a blend at AI {ai}: {p:?}");
        }
        // The steps between steps stay apart (one at each end may join the
        // compute, whose intensity it hardly moves).
        assert!(p.len() >= 8, "{p:?}");
    }

    #[test]
    fn a_phase_of_no_time_is_merged_and_settling_leaves_no_short_phase() {
        // The loader's start-up: integer work the placing left no time,
        // then compute and a stream.
        let mut spans = windows(&[(1, 0.0, 5e5), (60, 8e6, 1e6), (40, 1e6, 1.2e7)]);
        spans[0].end = 1e-9;
        spans[1].start = 1e-9;
        let p = phases(&spans);
        assert_eq!(p, vec![0..61, 61..101], "{p:?}");
    }

    #[test]
    fn settling_a_boundary_never_leaves_a_phase_short() {
        // A stream of six windows between two computes, its first and last
        // windows mixed (half the compute's flops): settled alone, both
        // would go to the computes, leaving the stream 4 % of the run.
        let mut spans = windows(&[(47, 8e6, 1e6), (6, 1e5, 1.2e7), (47, 8e6, 1e6)]);
        for k in [47, 52] {
            spans[k].flops = 4e6;
        }
        let mut out = vec![0..47, 47..53, 53..100];
        let mut unguarded = out.clone();
        settle(&spans, &mut out, MIN_SHARE * 1.0);
        assert!(duration(&spans, &out[1]) >= MIN_SHARE - 1e-9, "{out:?}");
        settle(&spans, &mut unguarded, 0.0);
        assert!(
            duration(&spans, &unguarded[1]) < MIN_SHARE - 1e-9,
            "{unguarded:?}"
        );
    }

    #[test]
    fn a_phase_slowed_by_other_work_on_its_cores_stays_one_per_cpu_second() {
        // A triad a third of whose time ran at a sixth of its wall rate
        // while other work held its core: its CPU time the same per window.
        let mut spans = windows(&[(30, 8e6, 1e6), (90, 1e6, 1.2e7), (30, 8e6, 1e6)]);
        let mut t = 0.0;
        for (k, s) in spans.iter_mut().enumerate() {
            let slow = (60..70).contains(&k);
            let wall = if slow { 0.06 } else { 0.01 };
            (s.start, s.end, s.cpu) = (t, t + wall, Some(0.01));
            t += wall;
        }
        assert_eq!(phases(&spans), vec![0..30, 30..120, 120..150]);
        // By the wall clock alone, the slow part is a phase of its own.
        spans.iter_mut().for_each(|s| s.cpu = None);
        assert_eq!(phases(&spans).len(), 5);
    }

    #[test]
    fn a_sleep_between_two_phases_is_a_waiting_phase() {
        // Compute, a sleep (no work, no CPU) of a fifth of the run, compute.
        let mut spans = windows(&[(40, 8e6, 1e6), (20, 0.0, 1e3), (40, 8e6, 1e6)]);
        for (k, s) in spans.iter_mut().enumerate() {
            s.cpu = Some(if (40..60).contains(&k) { 0.0 } else { 0.01 });
        }
        let p = phases(&spans);
        let waits: Vec<bool> = p.iter().map(|r| sum(&spans[r.clone()]).waiting()).collect();
        assert_eq!(waits, [false, true, false], "{p:?}");
    }

    #[test]
    fn work_without_flops_is_one_phase_while_its_byte_rate_holds() {
        // A sort (no flops; bytes at one rate, then a third as fast), then
        // element-wise FP work.
        let mut spans = windows(&[(20, 0.0, 3e6), (20, 2.0, 1e6), (20, 5e5, 1e7)]);
        assert_eq!(phases(&spans), vec![0..40, 40..60]);
        // Ten times slower bytes: another phase.
        spans[20..40].iter_mut().for_each(|s| s.bytes = 3e5);
        assert_eq!(phases(&spans), vec![0..20, 20..40, 40..60]);
    }
}
