//! A program's path over time (`profile --timeline`): the emulated run's
//! windows ([`Window`]: exact counts, and the instructions each function
//! ran in them) placed in the native run's time, then joined into phases.
//!
//! **Native time.** The two runs execute the same code in the same order,
//! at different speeds, so a window is matched to the native run by its
//! functions: a function that ran a fraction of its instructions by the
//! window's end had then run that fraction of its native samples. Summed
//! over the functions found in both runs, this gives how many of the
//! native run's samples (in time order) lie before the window's end, and
//! that sample's time stamp is its end in native seconds. Where no sample
//! matched (a run too short, or not sampled), time follows instructions.
//!
//! **Phases.** A window is FP work when its W is at least [`FP_AI`] per
//! byte, else other work (integer, copies, waiting). It joins the phase
//! before it when both are of one sort and, for FP work, its intensity W/Q
//! is within a factor [`AI_FACTOR`] of the phase's so far; and its rate
//! (W/s for FP work, bytes/s for the other) within [`RATE_FACTOR`]. Then a
//! phase shorter than [`MIN_SHARE`] of the run (or [`RATE_ONLY_SHARE`], when
//! only its rate sets it apart from a neighbour) is merged into the
//! neighbour nearer it (in intensity, then rate), and neighbours now alike
//! are joined.

use super::functions::by_function;
pub use super::measured::{Every, FINER, MOST_WINDOWS, WINDOWS};
use super::measured::{Measured, Window};
use super::point::Own;
use super::sample::Samples;
use super::symbols::{Function, Symbols, canonical};
use super::work::{Basis, Work};
use crate::results::apps::{AppPoint, Of, PhaseInfo, Share};
use std::collections::{HashMap, HashSet};

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

/// One window placed in the native run: its span, W and Q, and the
/// instructions each function ran in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub start: f64,
    pub end: f64,
    pub work: Work,
    pub flops: f64,
    pub bytes: f64,
    pub functions: Vec<(Function, u64)>,
}

impl Span {
    fn ai(&self) -> f64 {
        self.flops / self.bytes.max(1.0)
    }

    /// Whether it is FP work (see the module's words).
    fn fp(&self) -> bool {
        self.flops >= FP_AI * self.bytes.max(1.0)
    }

    /// W/s for FP work, bytes/s for the other.
    fn rate(&self) -> f64 {
        let done = if self.fp() { self.flops } else { self.bytes };
        done / (self.end - self.start)
    }
}

/// A native function's samples matched as those of the function the
/// emulated run took in its place (`code_paths`: the host's path needs a
/// feature QEMU lacks).
pub type StandIns = HashMap<Function, Function>;

/// The windows of `windows` in native time (`seconds` long), W and Q under
/// `basis`; `samples` the native run's, if sampled, their functions
/// matched through `stand_ins`.
pub fn spans(
    windows: &[Window],
    (samples, stand_ins): (Option<&Samples>, &StandIns),
    seconds: f64,
    basis: &Basis,
    symbols: &mut Symbols,
) -> Vec<Span> {
    let mut paths = HashMap::new();
    let code = (windows.iter().enumerate())
        .flat_map(|(k, w)| w.code.iter().map(move |(m, o, n)| (m, *o, (k, *n))))
        .map(|(m, o, x)| (canonical(m, &mut paths), o, x));
    let mut per: Vec<HashMap<Function, u64>> = vec![HashMap::new(); windows.len()];
    for (f, (k, n)) in by_function(code, symbols) {
        *per[k].entry(f).or_default() += n;
    }
    let timed = samples.map_or(&[][..], |s| &s.timed[..]);
    let sampled =
        (timed.iter().enumerate()).map(|(k, (_, (m, o)))| (canonical(m, &mut paths), *o, k));
    let mut of_sample: Vec<Option<Function>> = vec![None; timed.len()];
    for (f, k) in by_function(sampled, symbols) {
        of_sample[k] = Some(stand_ins.get(&f).cloned().unwrap_or(f));
    }
    let ends = native_ends(&per, timed, &of_sample, seconds);
    let mut start = 0.0;
    (windows.iter().zip(per).zip(ends))
        .map(|((w, functions), end)| {
            let work = Work::Counted(w.counts);
            let d = basis.derive(&work);
            let mut functions: Vec<(Function, u64)> = functions.into_iter().collect();
            functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let s = Span {
                start,
                end,
                work,
                flops: d.flops,
                bytes: d.bytes,
                functions,
            };
            start = end;
            s
        })
        .collect()
}

/// Each window's end in native seconds (see the module's words): `per`
/// each window's instructions by function, `timed` the native samples in
/// time order and `of_sample` their functions. A function found in both
/// runs is matched to itself; the functions of a file found in one run
/// only are matched together, the file's unshared instructions in order to
/// its unshared samples (the emulated run took its own path through the
/// file's code, as a library does for a CPU feature QEMU lacks). Samples
/// matched to nothing leave their time to the windows around them.
fn native_ends(
    per: &[HashMap<Function, u64>],
    timed: &[(f64, (String, u64))],
    of_sample: &[Option<Function>],
    seconds: f64,
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
    let mut total: HashMap<Function, u64> = HashMap::new();
    (per.iter().flatten()).for_each(|(f, n)| *total.entry(key(f)).or_default() += n);
    let mut samples: HashMap<Function, u64> = HashMap::new();
    let mut times = Vec::new();
    for ((t, _), f) in timed.iter().zip(of_sample) {
        if let Some(k) = f.as_ref().map(key).filter(|k| total.contains_key(k)) {
            *samples.entry(k).or_default() += 1;
            times.push(*t);
        }
    }
    let all: u64 = total.values().sum();
    let (mut done, mut ran) = (0.0, 0u64);
    let mut ends: Vec<f64> = per
        .iter()
        .map(|w| {
            ran += w.values().sum::<u64>();
            for (f, n) in w {
                let k = key(f);
                let m = samples.get(&k).copied().unwrap_or(0) as f64;
                done += *n as f64 / total[&k] as f64 * m;
            }
            match times.is_empty() {
                true => seconds * ran as f64 / all.max(1) as f64,
                false => at(&times, done).min(seconds),
            }
        })
        .collect();
    if let Some(last) = ends.last_mut() {
        *last = seconds;
    }
    ends
}

/// The time by which `done` samples of `times` had been taken: 0 before
/// the first, between two stamps in proportion.
fn at(times: &[f64], done: f64) -> f64 {
    let k = done.floor() as usize;
    let before = if k == 0 {
        0.0
    } else {
        times[(k - 1).min(times.len() - 1)]
    };
    match times.get(k) {
        Some(&next) => before + (next - before) * (done - k as f64),
        None => before,
    }
}

/// The windows shown: `n` equal spans of the run, each with the W and Q of
/// the spans that overlap it, shared in proportion to the overlap.
pub fn shown(spans: &[Span], n: usize, seconds: f64) -> Vec<[f64; 3]> {
    let width = seconds / n.max(1) as f64;
    let mut out: Vec<[f64; 3]> = (1..=n).map(|k| [k as f64 * width, 0.0, 0.0]).collect();
    for s in spans {
        let first = ((s.start / width).floor() as usize).min(n - 1);
        let last = ((s.end / width).ceil() as usize).clamp(first + 1, n);
        for (k, w) in out.iter_mut().enumerate().take(last).skip(first) {
            let lo = (k as f64 * width).max(s.start);
            let hi = ((k + 1) as f64 * width).min(s.end);
            let part = match s.end > s.start {
                true => ((hi - lo) / (s.end - s.start)).max(0.0),
                false => f64::from(k == first),
            };
            w[1] += s.flops * part;
            w[2] += s.bytes * part;
        }
    }
    out
}

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
    loop {
        let short = (0..out.len())
            .filter(|&k| out.len() > 1 && short(spans, &out, k, seconds))
            .min_by(|&a, &b| duration(spans, &out[a]).total_cmp(&duration(spans, &out[b])));
        let Some(k) = short else { break };
        let me = sum(&spans[out[k].clone()]);
        let gap = |j: usize| distance(&me, &sum(&spans[out[j].clone()]));
        let into = match (k.checked_sub(1), (k + 1 < out.len()).then_some(k + 1)) {
            (Some(a), Some(b)) => {
                if gap(a) <= gap(b) {
                    a
                } else {
                    b
                }
            }
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => break,
        };
        let (lo, hi) = (k.min(into), k.max(into));
        out[lo].end = out[hi].end;
        out.remove(hi);
        join_alike(spans, &mut out);
    }
    out
}

/// Functions named in a phase at most.
const HOTTEST: usize = 3;

/// The phase points of `m`'s windows, cut as `every` says (the samples
/// matched through `stand_ins`), each named after the program (`name`) and
/// its hottest native function; made by `own` (the program's arithmetic,
/// so that the phases add up to the program).
pub fn phase_points(
    name: &str,
    m: &Measured,
    (every, stand_ins): (Every, &StandIns),
    own: &Own,
    symbols: &mut Symbols,
) -> Vec<AppPoint> {
    let matched = (m.samples.as_ref(), stand_ins);
    let spans = spans(&m.windows, matched, m.seconds, &own.basis, symbols);
    let windows = shown(&spans, every.count(m.seconds), m.seconds);
    let timed = m.samples.as_ref().map_or(&[][..], |s| &s.timed[..]);
    let mut paths = HashMap::new();
    let sampled =
        (timed.iter().enumerate()).map(|(k, (_, (p, o)))| (canonical(p, &mut paths), *o, k));
    let mut of_sample: Vec<Option<Function>> = vec![None; timed.len()];
    for (f, k) in by_function(sampled, symbols) {
        of_sample[k] = Some(f);
    }
    let mut out = Vec::new();
    for (k, r) in phases(&spans).into_iter().enumerate() {
        let part = &spans[r];
        let (start, end) = (part[0].start, part[part.len() - 1].end);
        let mut counts = carmbench_counts::Counts::default();
        for s in part {
            if let Work::Counted(c) = &s.work {
                counts += c;
            }
        }
        let in_time = (timed.iter().zip(&of_sample))
            .filter(|((t, _), _)| (start..end).contains(t))
            .filter_map(|(_, f)| f.clone().map(|f| (f, 1)));
        let mut functions = hottest(in_time);
        if functions.is_empty() {
            functions = hottest(part.iter().flat_map(|s| s.functions.iter().cloned()));
        }
        let first = functions
            .first()
            .map_or(String::new(), |f| format!(" ({})", f.name));
        let info = PhaseInfo {
            program: name.to_string(),
            index: k + 1,
            start,
            end,
            functions,
            windows: (windows.iter())
                .filter(|w| w[0] > start + 1e-12 && w[0] <= end + 1e-12)
                .copied()
                .collect(),
        };
        let what = format!("phase {} of the run, {start:.3} s to {end:.3} s", k + 1);
        let label = format!("{name}: phase {}{first}", k + 1);
        let work = Work::Counted(counts);
        let mut p = own.point(Of::Phase(info), label, &work, end - start, Some(what));
        p.emulated_cpu = m.emulated_cpu.clone();
        out.push(p);
    }
    out
}

/// The [`HOTTEST`] functions of `weights` (a function and its weight, as
/// often as it comes), with their shares.
fn hottest(weights: impl Iterator<Item = (Function, u64)>) -> Vec<Share> {
    let mut by: HashMap<Function, u64> = HashMap::new();
    weights.for_each(|(f, n)| *by.entry(f).or_default() += n);
    let all: u64 = by.values().sum();
    let mut v: Vec<(Function, u64)> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    (v.into_iter().take(HOTTEST))
        .map(|(f, n)| Share {
            name: f.name,
            share: n as f64 / all.max(1) as f64,
        })
        .collect()
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

/// Spans as one (their W, Q and time; no functions).
fn sum(spans: &[Span]) -> Span {
    Span {
        start: spans.first().map_or(0.0, |s| s.start),
        end: spans.last().map_or(0.0, |s| s.end),
        work: Work::default(),
        flops: spans.iter().map(|s| s.flops).sum(),
        bytes: spans.iter().map(|s| s.bytes).sum(),
        functions: Vec::new(),
    }
}

/// How far apart `a` and `b` are: (intensity, rate), each the log2 of their
/// ratio (intensity infinite between FP work and other; rate 0 where
/// either took no time).
fn apart(a: &Span, b: &Span) -> (f64, f64) {
    let log = |x: f64, y: f64| (x.max(1e-300) / y.max(1e-300)).log2().abs();
    let ai = match (a.fp(), b.fp()) {
        (true, true) => log(a.ai(), b.ai()),
        (false, false) => 0.0,
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

/// One number for how far apart two phases are: intensity first.
fn distance(a: &Span, b: &Span) -> f64 {
    let (ai, rate) = apart(a, b);
    ai * 1e3 + rate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: f64, end: f64, flops: f64, bytes: f64) -> Span {
        Span {
            start,
            end,
            work: Work::default(),
            flops,
            bytes,
            functions: Vec::new(),
        }
    }

    fn g(module: &str) -> Function {
        Function {
            module: module.into(),
            name: "x".into(),
        }
    }

    fn f(name: &str) -> Function {
        Function {
            module: "/bin/app".into(),
            name: name.into(),
        }
    }

    #[test]
    fn compute_then_stream_then_compute_is_three_phases_and_a_blip_is_merged() {
        let mut spans = Vec::new();
        let mut t = 0.0;
        for (n, flops, bytes) in [
            (30, 4e6, 1e6),
            (1, 1e6, 4e6),
            (40, 1e5, 1.2e6),
            (30, 4e6, 1e6),
        ] {
            for _ in 0..n {
                spans.push(span(t, t + 0.01, flops, bytes));
                t += 0.01;
            }
        }
        let p = phases(&spans);
        // The mixed window at the first boundary joins the stream, the
        // side nearer its intensity.
        assert_eq!(p, vec![0..30, 30..71, 71..101]);
        // Too short a run of windows alone: one phase.
        assert_eq!(phases(&spans[..2]), vec![0..2]);
        assert!(phases(&[]).is_empty());
    }

    #[test]
    fn a_slow_first_pass_at_the_same_intensity_is_not_a_phase_of_its_own() {
        // Compute, then a triad whose first pass (page faults) runs at a
        // tenth of the rate for 8 % of the run, then compute.
        let mut spans = Vec::new();
        let mut t = 0.0;
        for (n, flops) in [(30, 4e6), (8, 1e5), (32, 1e6), (30, 4e6)] {
            let bytes = if flops == 4e6 { 1e6 } else { flops * 12.0 };
            for _ in 0..n {
                spans.push(span(t, t + 0.01, flops, bytes));
                t += 0.01;
            }
        }
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
    fn work_without_flops_is_one_phase_while_its_byte_rate_holds() {
        // A sort (no flops; bytes at one rate, then a third as fast), then
        // element-wise FP work.
        let mut spans = Vec::new();
        let mut t = 0.0;
        for (n, flops, bytes) in [(20, 0.0, 3e6), (20, 2.0, 1e6), (20, 5e5, 1e7)] {
            for _ in 0..n {
                spans.push(span(t, t + 0.01, flops, bytes));
                t += 0.01;
            }
        }
        assert_eq!(phases(&spans), vec![0..40, 40..60]);
        // Ten times slower bytes: another phase.
        spans[20..40].iter_mut().for_each(|s| s.bytes = 3e5);
        assert_eq!(phases(&spans), vec![0..20, 20..40, 40..60]);
    }

    #[test]
    fn a_window_ends_when_its_functions_native_samples_do() {
        let (a, b) = (f("a"), f("b"));
        // a ran 100 instructions then b 100 then a 100; natively a's samples
        // at 1..=4 s and 9..=12 s, b's at 5..=8 s (half as fast, per
        // instruction, as a).
        let per = vec![
            HashMap::from([(a.clone(), 100)]),
            HashMap::from([(b.clone(), 100)]),
            HashMap::from([(a.clone(), 100)]),
        ];
        let mut timed = Vec::new();
        let mut of = Vec::new();
        for k in 1..=12 {
            timed.push((k as f64, (String::new(), 0)));
            of.push(Some(if (5..=8).contains(&k) {
                b.clone()
            } else {
                a.clone()
            }));
        }
        let ends = native_ends(&per, &timed, &of, 12.5);
        assert_eq!(ends, vec![4.0, 8.0, 12.5]);
        // The emulated run took its own path in a's second call (c in place
        // of d natively, in a's file): the file's unshared code, matched in
        // order.
        let mut per = per;
        per[2] = HashMap::from([(f("c"), 40)]);
        of[8..12].iter_mut().for_each(|x| *x = Some(f("d")));
        let ends = native_ends(&per, &timed, &of, 12.5);
        assert_eq!(ends, vec![4.0, 8.0, 12.5]);
        // Code of another file at the start, run natively unsampled (cold),
        // and a sample in a file the emulated run never ran: neither moves
        // the times.
        per.insert(0, HashMap::from([(g("ld.so"), 10)]));
        timed.insert(4, (4.5, (String::new(), 0)));
        of.insert(4, Some(g("vdso")));
        let ends = native_ends(&per, &timed, &of, 12.5);
        assert_eq!(ends[..3], [0.0, 4.0, 8.0]);
        // Not sampled: time follows instructions.
        assert_eq!(
            native_ends(&per, &[], &[], 1.5),
            vec![0.06, 0.66, 1.26, 1.5]
        );
        assert_eq!(at(&[1.0, 2.0], 0.5), 0.5);
        assert_eq!(at(&[1.0, 2.0], 1.5), 1.5);
        assert_eq!(at(&[1.0, 2.0], 5.0), 2.0);
    }

    #[test]
    fn shown_windows_share_a_span_by_its_overlap_and_keep_the_whole() {
        let spans = vec![span(0.0, 0.15, 30.0, 3.0), span(0.15, 0.4, 50.0, 0.0)];
        let w = shown(&spans, 4, 0.4);
        assert_eq!(w.len(), 4);
        assert!((w[0][1] - 20.0).abs() < 1e-9 && (w[1][1] - 10.0 - 10.0).abs() < 1e-9);
        let total: f64 = w.iter().map(|x| x[1]).sum();
        assert!((total - 80.0).abs() < 1e-9);
        assert!((w[3][0] - 0.4).abs() < 1e-12);
        assert_eq!(Every::Seconds(0.1).count(0.45), 5);
        assert_eq!(Every::Auto.fine(1.0), WINDOWS * FINER);
    }
}
