//! The emulated run's windows placed in the native run's time (the words
//! are in the parent module's): each function that ran in a window says
//! when, natively, it had run as much of itself; the window ends at their
//! weighted median, the ends then made to follow one another.

use crate::profile::ground::symbols::Function;
use crate::profile::measured::samples::Stamped;
use std::collections::{HashMap, HashSet};

/// How much a file's unshared code is trusted to tell the time, against a
/// function found in both runs: it mixes code that ran in one run only
/// (numpy's AVX-512 loops natively, its AVX2 ones under QEMU), whose time
/// per instruction differs from one of its uses to the next.
pub const STAND_IN_TRUST: f64 = 0.01;

/// When, natively, each window of `per` (the instructions each function ran
/// in it) ended, in seconds of a run of `seconds` whose time samples are
/// `timed` (their functions `of_sample`, in time order).
pub fn ends(
    per: &[HashMap<Function, u64>],
    timed: &[Stamped],
    of_sample: &[Option<Function>],
    seconds: f64,
) -> Vec<f64> {
    ends_within(per, (timed, of_sample), (0.0, seconds))
}

/// [`ends`] of windows that ran from `start` to `end` (a process of a tree
/// that started after the command did, or ended before it).
pub fn ends_within(
    per: &[HashMap<Function, u64>],
    (timed, of_sample): (&[Stamped], &[Option<Function>]),
    (start, seconds): (f64, f64),
) -> Vec<f64> {
    let ran: HashSet<&Function> = per.iter().flat_map(|w| w.keys()).collect();
    let sampled: HashSet<&Function> = of_sample.iter().flatten().collect();
    // A function found in both runs, else its file's unshared code.
    let key = |f: &Function| match ran.contains(f) && sampled.contains(f) {
        true => f.clone(),
        false => Function {
            module: f.module.clone(),
            name: String::new(),
        },
    };
    let per: Vec<HashMap<Function, u64>> = (per.iter())
        .map(|w| {
            let mut by: HashMap<Function, u64> = HashMap::new();
            w.iter()
                .for_each(|(f, n)| *by.entry(key(f)).or_default() += n);
            by
        })
        .collect();
    let mut total: HashMap<Function, u64> = HashMap::new();
    (per.iter().flatten()).for_each(|(f, n)| *total.entry(f.clone()).or_default() += n);
    // Each sample stands for the time since the sample before it, of any
    // function: a function's gap between two of its uses is no part of it;
    // nor is a wait (a sleep, no sample at all): a stretch is at most a few
    // of the run's usual gaps between two samples long.
    let longest = IDLE_GAPS * usual_gap(timed);
    let mut stretches: HashMap<Function, Vec<(f64, f64)>> = HashMap::new();
    let mut before = 0.0f64;
    for ((t, _), f) in timed.iter().zip(of_sample) {
        if let Some(k) = f.as_ref().map(key).filter(|k| total.contains_key(k)) {
            stretches
                .entry(k)
                .or_default()
                .push((before.max(t - longest), *t));
        }
        before = *t;
    }
    let mut done: HashMap<&Function, u64> = HashMap::new();
    let guesses: Vec<Option<(f64, f64)>> = (per.iter())
        .map(|w| {
            let (mut votes, mut weight) = (Vec::new(), 0.0);
            for (f, n) in w {
                let d = done.entry(f).or_default();
                *d += n;
                let Some(s) = stretches.get(f) else { continue };
                let trust = if f.name.is_empty() {
                    STAND_IN_TRUST
                } else {
                    1.0
                };
                let share = *d as f64 / total[f] as f64;
                votes.push((when(s, share), *n as f64 * trust));
                weight += *n as f64 / total[f] as f64 * s.len() as f64 * trust;
            }
            median(&mut votes).map(|t| (t, weight))
        })
        .collect();
    let instructions: Vec<u64> = per.iter().map(|w| w.values().sum()).collect();
    let mut ends = filled(&monotone(&guesses), &instructions, (start, seconds));
    if let Some(last) = ends.last_mut() {
        *last = seconds;
    }
    ends
}

/// Gaps between two time samples, in the run's usual gap, past which the
/// run waited (slept, or waited for input or a lock) rather than ran.
pub const IDLE_GAPS: f64 = 4.0;

/// The median gap between two consecutive samples of `timed`, seconds (the
/// longest a stretch may be without them: none).
fn usual_gap(timed: &[Stamped]) -> f64 {
    let mut gaps: Vec<f64> = timed.windows(2).map(|w| w[1].0 - w[0].0).collect();
    gaps.sort_by(f64::total_cmp);
    gaps.get(gaps.len() / 2).copied().unwrap_or(f64::INFINITY)
}

/// The time by which a function whose samples stand for `stretches` had
/// run `share` of them: within the stretch of the sample it was in, in
/// proportion.
fn when(stretches: &[(f64, f64)], share: f64) -> f64 {
    let d = share * stretches.len() as f64;
    let k = (d.ceil() as usize)
        .saturating_sub(1)
        .min(stretches.len() - 1);
    let (from, to) = stretches[k];
    from + (to - from) * (d - k as f64).clamp(0.0, 1.0)
}

/// The weighted median of `votes` (time, weight); None when there is none.
fn median(votes: &mut [(f64, f64)]) -> Option<f64> {
    votes.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let half = votes.iter().map(|v| v.1).sum::<f64>() / 2.0;
    let mut sum = 0.0;
    (votes.iter().find(|v| {
        sum += v.1;
        sum >= half
    }))
    .or(votes.last())
    .map(|v| v.0)
}

/// Guesses pooled: their (time, weight), their time, and their windows.
type Pool = (Vec<(f64, f64)>, f64, Vec<usize>);

/// The guesses (time, weight) made to follow one another, each at least
/// the one before, as near them as can be (a weighted median of each run
/// of guesses pooled: one wrong guess moves no more than its weight).
fn monotone(guesses: &[Option<(f64, f64)>]) -> Vec<Option<f64>> {
    let mut blocks: Vec<Pool> = Vec::new();
    for (k, g) in guesses.iter().enumerate() {
        let Some((t, w)) = *g else { continue };
        blocks.push((vec![(t, w)], t, vec![k]));
        while blocks.len() > 1 && blocks[blocks.len() - 2].1 > blocks[blocks.len() - 1].1 {
            let (votes, _, windows) = blocks.pop().expect("two blocks");
            let last = blocks.last_mut().expect("one block");
            last.0.extend(votes);
            last.2.extend(windows);
            last.1 = median(&mut last.0).unwrap_or(last.1);
        }
    }
    let mut out = vec![None; guesses.len()];
    for (_, t, windows) in blocks {
        windows.into_iter().for_each(|k| out[k] = Some(t));
    }
    out
}

/// Every window's end: those without a guess between their neighbours', in
/// proportion to their instructions; from `start`, at most `seconds`.
fn filled(ends: &[Option<f64>], instructions: &[u64], (start, seconds): (f64, f64)) -> Vec<f64> {
    let mut out = vec![start; ends.len()];
    let (mut from, mut at) = (0, start);
    for k in 0..ends.len() {
        let to = match (ends[k], k + 1 == ends.len()) {
            (Some(t), _) => t.clamp(start, seconds),
            (None, true) => seconds,
            (None, false) => continue,
        };
        let all: u64 = instructions[from..=k].iter().sum();
        let mut ran = 0;
        for j in from..=k {
            ran += instructions[j];
            out[j] = at + (to - at) * ran as f64 / all.max(1) as f64;
        }
        out[k] = to;
        (from, at) = (k + 1, to.max(at));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str) -> Function {
        Function {
            module: "/bin/app".into(),
            name: name.into(),
        }
    }

    /// One sample a second, at 1, 2, ... s, in the functions `names`.
    fn samples(names: &[&str]) -> (Vec<Stamped>, Vec<Option<Function>>) {
        let timed = (1..=names.len()).map(|k| (k as f64, (String::new(), 0)));
        (timed.collect(), names.iter().map(|n| Some(f(n))).collect())
    }

    #[test]
    fn a_window_ends_when_its_functions_native_samples_do() {
        // a ran 100 instructions then b 100 then a 100; natively a's samples
        // at 1..=4 s and 9..=12 s, b's at 5..=8 s (half as fast, per
        // instruction, as a).
        let mut per = vec![
            HashMap::from([(f("a"), 100)]),
            HashMap::from([(f("b"), 100)]),
            HashMap::from([(f("a"), 100)]),
        ];
        let names = ["a", "a", "a", "a", "b", "b", "b", "b", "a", "a", "a", "a"];
        let (mut timed, mut of) = samples(&names);
        assert_eq!(ends(&per, &timed, &of, 12.5), vec![4.0, 8.0, 12.5]);
        // The emulated run took its own path in a's second call (c in place
        // of d natively, in a's file): the file's unshared code, matched in
        // order.
        per[2] = HashMap::from([(f("c"), 40)]);
        of[8..12].iter_mut().for_each(|x| *x = Some(f("d")));
        assert_eq!(ends(&per, &timed, &of, 12.5), vec![4.0, 8.0, 12.5]);
        // Code of another file at the start, run natively unsampled (cold),
        // and a sample in a file the emulated run never ran: neither moves
        // the times; the cold code's end lies before a's.
        let ld = Function {
            module: "/lib/ld.so".into(),
            name: "x".into(),
        };
        per.insert(0, HashMap::from([(ld, 10)]));
        timed.insert(4, (4.5, (String::new(), 0)));
        of.insert(4, Some(f("vdso")));
        let e = ends(&per, &timed, &of, 12.5);
        assert_eq!(e[1..], [4.0, 8.0, 12.5]);
        assert!(e[0] > 0.0 && e[0] < 1.0, "{e:?}");
        // Not sampled: time follows instructions.
        let e = ends(&per, &[], &[], 1.5);
        let want = [0.06, 0.66, 1.26, 1.5];
        assert!(
            e.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12),
            "{e:?}"
        );
    }

    #[test]
    fn a_function_slower_at_its_last_use_moves_no_other_window() {
        // The start-up runs p, q and r, 100 instructions each, a sample each
        // in turn (1..=12 s); then m, 4 samples; then the exit runs p again,
        // as many instructions as at the start over cold memory: 12 samples.
        // Shared out by p's instructions alone, the start-up would end at
        // 16 s and m at 20 s.
        let per = vec![
            HashMap::from([(f("p"), 100), (f("q"), 100), (f("r"), 100)]),
            HashMap::from([(f("m"), 100)]),
            HashMap::from([(f("p"), 100)]),
        ];
        let mut names: Vec<&str> = ["p", "q", "r"].repeat(4);
        names.extend(["m"; 4]);
        names.extend(["p"; 12]);
        let (timed, of) = samples(&names);
        assert_eq!(ends(&per, &timed, &of, 28.5), vec![12.0, 16.0, 28.5]);
    }

    #[test]
    fn ends_follow_one_another_past_a_wrong_guess() {
        // A light guess out of order is pooled with its neighbours and
        // takes their time; a heavy one takes theirs.
        let g = |v: &[(f64, f64)]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        let m = monotone(&g(&[(1.0, 1.0), (2.0, 1.0), (0.5, 0.1), (3.0, 1.0)]));
        assert_eq!(m, [Some(1.0), Some(2.0), Some(2.0), Some(3.0)]);
        let m = monotone(&g(&[(1.0, 1.0), (2.0, 1.0), (0.5, 5.0), (3.0, 1.0)]));
        assert_eq!(m, [Some(0.5), Some(0.5), Some(0.5), Some(3.0)]);
        assert_eq!(when(&[(0.0, 1.0), (3.0, 4.0)], 0.75), 3.5);
        assert_eq!(when(&[(0.0, 1.0), (3.0, 4.0)], 0.5), 1.0);
        assert_eq!(when(&[(0.0, 1.0), (3.0, 4.0)], 0.0), 0.0);
        assert_eq!(median(&mut [(2.0, 1.0), (1.0, 1.0), (3.0, 1.0)]), Some(2.0));
        assert_eq!(median(&mut []), None);
        let f = filled(&[None, Some(2.0), None, None], &[1, 3, 1, 1], (0.0, 4.0));
        assert_eq!(f, [0.5, 2.0, 3.0, 4.0]);
    }
}
