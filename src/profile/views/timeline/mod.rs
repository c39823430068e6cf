//! A program's path over time (`profile --timeline`): the emulated run's
//! windows ([`Window`]: exact counts, and the instructions each function
//! ran in them) placed in the native run's time, then joined into phases.
//!
//! **Native time** (`native.rs`). The two runs execute the same code in the
//! same order, at different speeds, so a window is matched to the native
//! run by its functions: a function that ran a fraction of its
//! instructions by the window's end had then run that fraction of its
//! native samples, and the time stamp there is its guess of the window's
//! end. The window ends at the guesses' median, weighted by the
//! instructions each function ran in it; the ends are then made to follow
//! one another. A function found in one run only is matched with its
//! file's other such code, trusted less. Each guess rests on functions that
//! ran in the window: a function whose time per instruction changes
//! between its uses (the interpreter's, slower at exit over cold memory)
//! is outvoted, and moves no window far from it. Windows with no sampled
//! function share the time between their neighbours by instructions.
//!
//! **Phases.** A window is FP work when its W is at least [`FP_AI`] per
//! byte, else other work (integer, copies, waiting). It joins the phase
//! before it when both are of one sort and, for FP work, its intensity W/Q
//! is within a factor [`AI_FACTOR`] of the phase's so far; and its rate
//! (W for FP work, bytes for the other, per second of CPU time by the
//! native samples, so that other work on its cores or a sleep does not
//! split a phase) within [`RATE_FACTOR`]. Then a phase shorter than
//! [`MIN_SHARE`] of the run (or [`RATE_ONLY_SHARE`], when only its rate sets
//! it apart from a neighbour) is merged into the neighbour of its kind whose
//! intensity (then rate) it changes least, one whose intensity it leaves
//! alike (short steps of two intensities in turn stay apart rather than
//! blend); one under half a window long goes to either. Neighbours now alike
//! are joined, and each boundary settled by a window where that fits both
//! sides better, never leaving a phase short. A phase on a CPU under
//! [`WAITING`] of its time waited (a sleep): it is no point.

use crate::profile::ground::symbols::{Function, Symbols, canonical};
use crate::profile::measured::samples::{Samples, Stamped};
use crate::profile::measured::work::{Basis, Work};
pub use crate::profile::measured::{Every, FINER, MOST_WINDOWS, WINDOWS};
use crate::profile::measured::{Measured, Window};
use crate::profile::views::functions::by_function;
use crate::profile::views::point::Own;
use crate::results::apps::{AppPoint, Of, PhaseInfo, Share};
use std::collections::HashMap;

mod native;
mod phases;
mod processes;
pub use phases::{AI_FACTOR, FP_AI, MIN_SHARE, RATE_FACTOR, RATE_ONLY_SHARE, phases};

/// One window placed in the native run: its span, W and Q, the
/// instructions each function ran in it, and the CPU time the native run
/// spent in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub start: f64,
    pub end: f64,
    pub work: Work,
    pub flops: f64,
    pub bytes: f64,
    pub functions: Vec<(Function, u64)>,
    /// CPU seconds in it, by the native time samples' density (None
    /// unsampled): the time its work took, where the wall clock also holds
    /// the time other work held its cores, and its sleeps.
    pub cpu: Option<f64>,
}

/// A phase that spent under this share of its wall time on a CPU waited
/// (a sleep, a lock, input): no point.
pub const WAITING: f64 = 0.1;

impl Span {
    /// A span of `work` from `start` to `end`, W and Q under `basis`, its
    /// functions' instructions (or samples) hottest first.
    pub(crate) fn of(
        (start, end): (f64, f64),
        work: Work,
        functions: impl IntoIterator<Item = (Function, u64)>,
        basis: &Basis,
    ) -> Span {
        let d = basis.derive(&work);
        let mut functions: Vec<(Function, u64)> = functions.into_iter().collect();
        functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Span {
            start,
            end,
            work,
            flops: d.flops,
            bytes: d.bytes,
            functions,
            cpu: None,
        }
    }

    /// A span of `flops` and `bytes` from `start` to `end`, its work and
    /// functions not kept (a phase's sum, a test's window).
    fn bare(start: f64, end: f64, flops: f64, bytes: f64) -> Span {
        Span {
            start,
            end,
            work: Work::default(),
            flops,
            bytes,
            functions: Vec::new(),
            cpu: None,
        }
    }

    fn ai(&self) -> f64 {
        self.flops / self.bytes.max(1.0)
    }

    /// Whether it is FP work (see the module's words).
    fn fp(&self) -> bool {
        self.flops >= FP_AI * self.bytes.max(1.0)
    }

    /// W/s for FP work, bytes/s for the other, per second of CPU time where
    /// it was sampled (a run slowed by other work on its cores, or that
    /// slept, does the same work a CPU second), else of wall time. Its CPU
    /// time counts at least [`WAITING`] of its wall time: a window the
    /// samples' density puts in a gap keeps a finite rate.
    fn rate(&self) -> f64 {
        let done = if self.fp() { self.flops } else { self.bytes };
        let wall = self.end - self.start;
        done / self.cpu.map_or(wall, |c| c.max(WAITING * wall))
    }

    /// Whether it waited more than it ran: sampled, with under [`WAITING`]
    /// of its wall time on a CPU.
    fn waiting(&self) -> bool {
        self.cpu
            .is_some_and(|c| c < WAITING * (self.end - self.start))
    }
}

/// Each span's CPU time from the time samples stamped `times` (in order),
/// each standing for `period` seconds of CPU: the samples counted between
/// its start and end, the count growing linearly between two stamps.
fn with_cpu(spans: &mut [Span], times: &[f64], period: f64) {
    if times.is_empty() || period <= 0.0 {
        return;
    }
    let count = |t: f64| {
        let i = times.partition_point(|&x| x <= t);
        let (lo, hi) = match i {
            0 => (0.0, times[0]),
            i if i == times.len() => return i as f64,
            i => (times[i - 1], times[i]),
        };
        i as f64 + ((t - lo) / (hi - lo).max(1e-12)).clamp(0.0, 1.0)
    };
    for s in spans {
        s.cpu = Some((count(s.end) - count(s.start)).max(0.0) * period);
    }
}

/// A native function's samples matched as those of the function the
/// emulated run took in its place (`code_paths`: the host's path needs a
/// feature QEMU lacks).
pub type StandIns = HashMap<Function, Function>;

/// The native time samples of a run: their stamps and places, the
/// process of each (empty where not known), and their functions.
pub type Timed<'a> = (&'a [Stamped], &'a [u32], &'a [Option<Function>]);

/// The windows of `windows` in native time (`seconds` long), W and Q under
/// `basis`; `timed` the native run's time samples (none if not sampled),
/// matched through `stand_ins`. A tree's processes are each placed by their
/// own samples, then set side by side (`processes.rs`).
pub fn spans(
    windows: &[Window],
    (timed, stand_ins): (Timed, &StandIns),
    seconds: f64,
    basis: &Basis,
    symbols: &mut Symbols,
) -> Vec<Span> {
    let (timed, pids, of_sample) = timed;
    let mut paths = HashMap::new();
    let code = (windows.iter().enumerate())
        .flat_map(|(k, w)| w.code.iter().map(move |(m, o, n)| (m, *o, (k, *n))))
        .map(|(m, o, x)| (canonical(m, &mut paths), o, x));
    let mut per: Vec<HashMap<Function, u64>> = vec![HashMap::new(); windows.len()];
    for (f, (k, n)) in by_function(code, symbols) {
        *per[k].entry(f).or_default() += n;
    }
    let matched: Vec<Option<Function>> = (of_sample.iter())
        .map(|f| f.as_ref().map(|f| stand_ins.get(f).unwrap_or(f).clone()))
        .collect();
    let groups = processes::groups(&windows.iter().map(|w| w.pid).collect::<Vec<_>>());
    if groups.len() < 2 || pids.len() != timed.len() {
        let ends = native::ends(&per, timed, &matched, seconds);
        return placed(windows.iter().zip(per).zip(ends), 0.0, basis);
    }
    // Each native process's samples by function, in the order first seen.
    let mut native: Vec<(u32, HashMap<Function, u64>)> = Vec::new();
    for (pid, f) in pids.iter().zip(&matched) {
        let k = match native.iter().position(|n| n.0 == *pid) {
            Some(k) => k,
            None => {
                native.push((*pid, HashMap::new()));
                native.len() - 1
            }
        };
        if let Some(f) = f {
            *native[k].1.entry(f.clone()).or_default() += 1;
        }
    }
    let totals: Vec<HashMap<Function, u64>> = (groups.iter())
        .map(|(_, ks)| {
            let mut all = HashMap::new();
            (ks.iter().flat_map(|&k| &per[k]))
                .for_each(|(f, n)| *all.entry(f.clone()).or_default() += n);
            all
        })
        .collect();
    let each = (groups.iter().zip(processes::matched(&totals, &native)))
        .map(|((_, ks), pid)| {
            // Its own samples, and the time between its first and last.
            let own: Vec<usize> = (0..timed.len()).filter(|&k| Some(pids[k]) == pid).collect();
            let t: Vec<Stamped> = own.iter().map(|&k| timed[k].clone()).collect();
            let f: Vec<Option<Function>> = own.iter().map(|&k| matched[k].clone()).collect();
            let gap = t
                .windows(2)
                .map(|w| w[1].0 - w[0].0)
                .fold(f64::INFINITY, f64::min);
            let (from, to) = match (t.first(), t.last()) {
                (Some(a), Some(b)) => ((a.0 - gap.min(a.0)).max(0.0), b.0),
                _ => (0.0, seconds),
            };
            let mine: Vec<HashMap<Function, u64>> = ks.iter().map(|&k| per[k].clone()).collect();
            let ends = native::ends_within(&mine, (&t, &f), (from, to));
            let ws = ks.iter().map(|&k| &windows[k]);
            placed(ws.zip(mine).zip(ends), from, basis)
        })
        .collect();
    processes::combined(each, basis)
}

/// Windows with their functions' instructions and native ends as spans,
/// the first from `start`.
fn placed<'a>(
    windows: impl Iterator<Item = ((&'a Window, HashMap<Function, u64>), f64)>,
    mut start: f64,
    basis: &Basis,
) -> Vec<Span> {
    windows
        .map(|((w, functions), end)| {
            let s = Span::of((start, end), Work::Counted(w.counts), functions, basis);
            start = end;
            s
        })
        .collect()
}

/// The PMU's windows (no emulated run): `n` equal spans of the native run
/// (`seconds`), each with the hardware events sampled in it (its samples
/// times the period between two) and the functions its time samples fell
/// in. Events sampled every 100 003 leave a span of a few milliseconds a
/// few dozen samples, hence the shown windows, not finer ones.
pub fn sampled_spans(
    (s, of_sample): (&Samples, &[Option<Function>]),
    n: usize,
    seconds: f64,
    basis: &Basis,
) -> Vec<Span> {
    let n = n.max(1);
    let width = seconds.max(1e-9) / n as f64;
    // The samples' run (a second one, beside the counted run) in the
    // counted run's length.
    let scale = match s.wall_seconds > 0.0 {
        true => seconds / s.wall_seconds,
        false => 1.0,
    };
    let bin = |t: f64| ((t * scale / width) as usize).min(n - 1);
    let mut events: Vec<std::collections::BTreeMap<String, u64>> = vec![Default::default(); n];
    for (name, times) in &s.event_times {
        for &t in times {
            *events[bin(t)].entry(name.clone()).or_default() += s.event_period;
        }
    }
    let mut per: Vec<HashMap<Function, u64>> = vec![HashMap::new(); n];
    for ((t, _), f) in s.timed.iter().zip(of_sample) {
        if let Some(f) = f {
            *per[bin(*t)].entry(f.clone()).or_default() += 1;
        }
    }
    (events.into_iter().zip(per).enumerate())
        .map(|(k, (e, functions))| {
            let span = (k as f64 * width, (k + 1) as f64 * width);
            Span::of(span, Work::Events(e), functions, basis)
        })
        .collect()
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

/// Functions named in a phase at most.
const HOTTEST: usize = 3;

/// The phase points of `m`'s windows, cut as `every` says (the samples
/// matched through `stand_ins`), each named after the program (`name`) and
/// its hottest native function; made by `own`, each typed by its own work
/// (an integer phase of an FP program under the integer roofs) unless the
/// arithmetic was asked for.
pub fn phase_points(
    name: &str,
    m: &Measured,
    (every, stand_ins): (Every, &StandIns),
    own: &Own,
    symbols: &mut Symbols,
) -> Vec<AppPoint> {
    let timed = m.samples.as_ref().map_or(&[][..], |s| &s.timed[..]);
    let pids = m.samples.as_ref().map_or(&[][..], |s| &s.timed_pid[..]);
    let of_sample = sample_functions(timed, symbols);
    let mut spans = match (m.windows.is_empty(), &m.samples) {
        (true, Some(s)) if !s.event_times.is_empty() => sampled_spans(
            (s, &of_sample),
            every.count(m.seconds),
            m.seconds,
            &own.basis,
        ),
        _ => {
            let matched = ((timed, pids, &of_sample[..]), stand_ins);
            spans(&m.windows, matched, m.seconds, &own.basis, symbols)
        }
    };
    if let Some(s) = m.samples.as_ref().filter(|s| s.total > 0) {
        let times: Vec<f64> = timed.iter().map(|t| t.0).collect();
        with_cpu(&mut spans, &times, s.cpu_seconds / s.total as f64);
    }
    let windows = shown(&spans, every.count(m.seconds), m.seconds);
    let mut out = Vec::new();
    // A phase that mostly waited (a sleep between two) is no point.
    let working =
        (phases(&spans).into_iter()).filter(|r| !phases::sum(&spans[r.clone()]).waiting());
    for (k, r) in working.enumerate() {
        let part = &spans[r];
        let (start, end) = (part[0].start, part[part.len() - 1].end);
        let mut work = Work::default();
        part.iter().for_each(|s| work += &s.work);
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
        let mut p = own.point(Of::Phase(info), label, &work, end - start, Some(what));
        p.emulated_cpu = m.emulated_cpu.clone();
        out.push(p);
    }
    out
}

/// The function of each of the time samples `timed`.
fn sample_functions(timed: &[Stamped], symbols: &mut Symbols) -> Vec<Option<Function>> {
    let mut paths = HashMap::new();
    let places =
        (timed.iter().enumerate()).map(|(k, (_, (m, o)))| (canonical(m, &mut paths), *o, k));
    let mut of_sample: Vec<Option<Function>> = vec![None; timed.len()];
    for (f, k) in by_function(places, symbols) {
        of_sample[k] = Some(f);
    }
    of_sample
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pmus_windows_are_its_event_samples_in_time() {
        let zen3 = (crate::profile::measured::events::families().into_iter())
            .find(|f| f.name == "zen3")
            .unwrap();
        let basis = Basis {
            precision: None,
            pmu: Some((&zen3, Some(8.0))),
            caches: None,
        };
        // A second run of 2 s standing for a counted run of 1 s: FP work for
        // its first 40 %, then loads; a time sample every 10 ms in `f`, then
        // `g`.
        let mut s = Samples {
            event_period: 1000,
            wall_seconds: 2.0,
            ..Samples::default()
        };
        let every = |from: f64, to: f64, n: usize| -> Vec<f64> {
            (0..n)
                .map(|k| from + (to - from) * (k as f64 + 0.5) / n as f64)
                .collect()
        };
        s.event_times
            .insert("fp_ret_sse_avx_ops.all".into(), every(0.0, 0.8, 4000));
        s.event_times
            .insert("ls_dispatch.ld_dispatch".into(), every(0.8, 2.0, 6000));
        s.timed = every(0.0, 2.0, 200)
            .into_iter()
            .map(|t| (t, (String::from(if t < 0.8 { "f" } else { "g" }), 0)))
            .collect();
        let of_sample = sample_functions(&s.timed, &mut Symbols::default());
        let spans = sampled_spans((&s, &of_sample), 50, 1.0, &basis);
        assert_eq!(spans.len(), 50);
        assert!((spans[49].end - 1.0).abs() < 1e-12);
        let flops: f64 = spans.iter().map(|x| x.flops).sum();
        assert_eq!(flops, 4000.0 * 1000.0);
        assert_eq!(spans[0].bytes, 0.0);
        assert_eq!(spans[30].bytes, 200.0 * 1000.0 * 8.0);
        let p = phases(&spans);
        assert_eq!(p, vec![0..20, 20..50], "{spans:?}");
        assert_eq!(spans[0].functions[0].1, 4, "four time samples a span");
    }

    #[test]
    fn shown_windows_share_a_span_by_its_overlap_and_keep_the_whole() {
        let spans = vec![
            Span::bare(0.0, 0.15, 30.0, 3.0),
            Span::bare(0.15, 0.4, 50.0, 0.0),
        ];
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
