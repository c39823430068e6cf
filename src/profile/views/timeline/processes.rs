//! A process tree's windows in one native time (`sh -c './a & ./b &
//! wait'`): QEMU slows each process by its own factor, so the emulated
//! run's order of their windows is no order they had natively. Each
//! emulated process is matched to the native process whose samples ran
//! the same functions, its windows placed by those samples alone, and the
//! processes' spans are then shared out over every moment one of them
//! ended a window: two steady processes side by side make one steady
//! stretch, not an alternation of the two.

use crate::profile::ground::symbols::Function;
use crate::profile::measured::work::{Basis, Work};
use crate::profile::views::timeline::Span;
use std::collections::HashMap;

/// The emulated processes of windows ending in `pids` order: each pid and
/// its windows' indices, in the order the processes first ended one.
pub fn groups(pids: &[u32]) -> Vec<(u32, Vec<usize>)> {
    let mut out: Vec<(u32, Vec<usize>)> = Vec::new();
    for (k, &pid) in pids.iter().enumerate() {
        match out.iter_mut().find(|g| g.0 == pid) {
            Some(g) => g.1.push(k),
            None => out.push((pid, vec![k])),
        }
    }
    out
}

/// Which native process (of `native`: pid and its samples by function, in
/// the order each was first sampled) each emulated one is (`emulated`:
/// the instructions each ran by function): the one whose share of samples
/// by function is most like its share of instructions; among alike ones
/// (one program run twice) the first unmatched, in order. None where no
/// native process ran any of its functions (a shell that only started the
/// others, too brief to be sampled).
pub fn matched(
    emulated: &[HashMap<Function, u64>],
    native: &[(u32, HashMap<Function, u64>)],
) -> Vec<Option<u32>> {
    let shares = |m: &HashMap<Function, u64>| {
        let all = m.values().sum::<u64>().max(1) as f64;
        (m.iter())
            .map(|(f, n)| (f.clone(), *n as f64 / all))
            .collect::<HashMap<Function, f64>>()
    };
    let native: Vec<(u32, HashMap<Function, f64>)> =
        (native.iter()).map(|(p, m)| (*p, shares(m))).collect();
    let mut taken = vec![false; native.len()];
    (emulated.iter())
        .map(|e| {
            let e = shares(e);
            let alike = |n: &HashMap<Function, f64>| -> f64 {
                (e.iter())
                    .filter_map(|(f, a)| n.get(f).map(|b| a.min(*b)))
                    .sum()
            };
            let best = (0..native.len())
                .filter(|&k| !taken[k])
                .map(|k| (k, alike(&native[k].1)))
                .filter(|&(_, score)| score > 0.0)
                // The most alike; the first of equals (a tie within a
                // hundredth: the same program's runs).
                .fold(None, |best: Option<(usize, f64)>, (k, s)| match best {
                    Some((_, b)) if s <= b + 0.01 => best,
                    _ => Some((k, s)),
                })?;
            taken[best.0] = true;
            Some(native[best.0].0)
        })
        .collect()
}

/// The spans of processes that ran side by side (`each`: every process's
/// spans, in its own order) as one sequence: cut at every moment one of
/// them starts or ends a span, each piece holding its share (by time) of
/// every span it overlaps, W and Q under `basis`. Moments no process ran
/// make no span.
pub fn combined(each: Vec<Vec<Span>>, basis: &Basis) -> Vec<Span> {
    let mut cuts: Vec<f64> = (each.iter().flatten())
        .flat_map(|s| [s.start, s.end])
        .collect();
    cuts.sort_by(f64::total_cmp);
    cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    let pieces = cuts.len().saturating_sub(1);
    let mut work: Vec<Option<Work>> = vec![None; pieces];
    let mut functions: Vec<HashMap<Function, u64>> = vec![HashMap::new(); pieces];
    let piece_of = |t: f64| cuts.partition_point(|&c| c < t - 1e-12);
    for s in each.into_iter().flatten() {
        // The pieces it covers, and its share of each by time (a span of
        // no time: all of it in the piece it ends).
        let (lo, hi) = (piece_of(s.start), piece_of(s.end).max(1).min(pieces));
        let lo = lo.min(hi.saturating_sub(1));
        let long = s.end - s.start;
        let upto: Vec<f64> = (lo..hi)
            .map(|k| match long > 0.0 {
                true => ((cuts[k + 1].min(s.end) - s.start) / long).clamp(0.0, 1.0),
                false => f64::from(k + 1 == hi),
            })
            .collect();
        for (j, k) in (lo..hi).enumerate() {
            let (from, to) = (if j == 0 { 0.0 } else { upto[j - 1] }, upto[j]);
            if to <= from {
                continue;
            }
            let part = between(&s.work, from, to);
            match &mut work[k] {
                Some(w) => *w += &part,
                w => *w = Some(part),
            }
            for (f, n) in &s.functions {
                *functions[k].entry(f.clone()).or_default() += cut(*n, from, to);
            }
        }
    }
    (0..pieces)
        .filter_map(|k| {
            let work = work[k].take()?;
            let span = (cuts[k], cuts[k + 1]);
            Some(Span::of(span, work, functions[k].drain(), basis))
        })
        .collect()
}

/// The share of `n` between the fractions `from` and `to` of it, rounded
/// so that the shares of consecutive fractions add up to `n`.
fn cut(n: u64, from: f64, to: f64) -> u64 {
    let at = |x: f64| (n as f64 * x).round() as u64;
    at(to).saturating_sub(at(from))
}

/// `w`'s share between the fractions `from` and `to` of it.
fn between(w: &Work, from: f64, to: f64) -> Work {
    match w {
        Work::Counted(c) => {
            let a = c.to_array().map(|n| cut(n, from, to));
            Work::Counted(carmbench_counts::Counts::from_array(&a))
        }
        Work::Given { flops, bytes } => Work::Given {
            flops: flops * (to - from),
            bytes: bytes * (to - from),
        },
        Work::Events(e) => Work::Events(
            (e.iter())
                .map(|(k, n)| (k.clone(), cut(*n, from, to)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str) -> Function {
        Function {
            module: format!("/bin/{name}"),
            name: name.into(),
        }
    }

    fn given(start: f64, end: f64, flops: f64, bytes: f64) -> Span {
        Span {
            start,
            end,
            work: Work::Given { flops, bytes },
            flops,
            bytes,
            functions: Vec::new(),
            cpu: None,
        }
    }

    #[test]
    fn processes_are_matched_by_the_functions_they_ran_then_in_order() {
        let m = |fs: &[(&str, u64)]| -> HashMap<Function, u64> {
            fs.iter().map(|(n, k)| (f(n), *k)).collect()
        };
        // Emulated: a shell, then b, then a twice; natively sampled a, b, a.
        let emulated = [
            m(&[("sh", 10)]),
            m(&[("b", 900)]),
            m(&[("a", 500)]),
            m(&[("a", 700)]),
        ];
        let native = [
            (7, m(&[("a", 40)])),
            (8, m(&[("b", 30), ("a", 1)])),
            (9, m(&[("a", 41)])),
        ];
        assert_eq!(
            matched(&emulated, &native),
            vec![None, Some(8), Some(7), Some(9)]
        );
    }

    #[test]
    fn two_steady_processes_side_by_side_make_one_steady_stretch() {
        let basis = Basis {
            precision: None,
            pmu: None,
            caches: None,
        };
        // a: 1 flop/B over 0..2 s in two windows; b: 0.25 flop/B over 0..2
        // s in three (QEMU slowed it more). Sorted by their ends they
        // alternate 1, 0.25, ...; side by side every piece holds both.
        let a = vec![given(0.0, 1.0, 100.0, 100.0), given(1.0, 2.0, 100.0, 100.0)];
        let b = vec![
            given(0.0, 0.6, 30.0, 120.0),
            given(0.6, 1.4, 40.0, 160.0),
            given(1.4, 2.0, 30.0, 120.0),
        ];
        let out = combined(vec![a, b], &basis);
        let ends: Vec<f64> = out.iter().map(|s| s.end).collect();
        assert_eq!(ends, vec![0.6, 1.0, 1.4, 2.0]);
        for s in &out {
            let ai = s.flops / s.bytes;
            assert!((ai - 200.0 / 400.0).abs() < 1e-9, "{ai} at {}", s.end);
        }
        let w: f64 = out.iter().map(|s| s.flops).sum();
        assert!((w - 300.0).abs() < 1e-9);
    }

    #[test]
    fn shares_of_counts_add_up_to_the_whole() {
        let n = 1001;
        let cuts = [0.0, 0.3, 0.31, 0.7, 1.0];
        let parts: u64 = cuts.windows(2).map(|w| cut(n, w[0], w[1])).sum();
        assert_eq!(parts, n);
    }
}
