//! What to do next about a point: the roof that bounds it and how far
//! below it sits; the reasons its counts give, each with its share of the
//! work and the gain fixing it would bring at most (the roof it would then
//! be under, against the one it is under now); and what is wrong with the
//! measurement itself. Stable codes in the apps file (`advice:`), words in
//! `profile`'s output; docs/profile.md lists every code and its trigger.

use super::Document;
pub use super::apps::advice::{Advice, Code};
use super::apps::{AppPoint, Of};
use super::placement::{bounding, dots, level_roofs, peak_label, placement};
use super::view::View;
use crate::kernels::Op;
use crate::machine::Level;
use crate::machine::isa::Isa;

/// Each point's advice under `doc`'s roofs, replacing any it had.
pub fn advise_all(doc: &Document, points: &mut [AppPoint]) {
    for p in points {
        p.advice = advise(doc, p);
    }
}

/// `a` in words, one line (the bound's is the placement line's).
pub fn words(a: &Advice) -> String {
    let pct = 100.0 * a.share;
    let gain = a.gain.unwrap_or(1.0);
    let roof = a.roof.as_deref().unwrap_or("roof");
    match a.code {
        Code::Bound => format!("{pct:.1}% of the {roof}: up to {gain:.2}x to reach it"),
        Code::ScalarFp => format!(
            "{pct:.0}% of its FP work in vectors narrower than the CPU's widest; \
             all in the widest: up to {gain:.1}x"
        ),
        Code::NoFma => format!(
            "{pct:.0}% of its flops are adds and multiplies not fused; \
             as FMA: up to {gain:.1}x"
        ),
        Code::MemoryBound => format!(
            "memory-bound: {pct:.0}% of the {roof}; fewer bytes per flop there \
             (blocking, reuse, a denser layout) lift it"
        ),
        Code::NextRoof => format!("the {roof} next above, {gain:.2}x higher at its intensity"),
        Code::IntegerWork => format!(
            "{pct:.0}% of its ops are integer: place it under the integer roofs \
             (--precision int)"
        ),
        Code::X87 => format!(
            "{pct:.0}% of its FP instructions are x87, which no vector unit runs \
             (build with -mfpmath=sse)"
        ),
        Code::AboveRoof => format!(
            "{:.2}x the highest roof at its intensity: a counting or timing error, \
             not a speed above the peak (check its W, Q and T)",
            a.share
        ),
        Code::ShortRun => format!(
            "its CPU time is {pct:.0}% of {SHORT_SECONDS} s: a time that rests on \
             few samples; run it longer"
        ),
        Code::NoSymbols => {
            "named by file and offset: build with -g or install its debug symbols".into()
        }
    }
}

/// CPU seconds under which a run's time rests on fewer than a hundred
/// native samples (1 kHz): its T, and so its rate, is uncertain.
pub const SHORT_SECONDS: f64 = 0.1;

/// A reason is given when fixing it would gain at least this factor.
pub const MIN_GAIN: f64 = 1.1;

/// A reason is given when it concerns at least this share of the work.
pub const MIN_SHARE: f64 = 0.1;

/// The roofs of a point's thread count at its intensity.
struct Roofs {
    /// (label, GB/s) of each memory level, fastest first.
    levels: Vec<(String, f64)>,
    /// (label, GFLOP/s, op) of the compute roofs of the point's precision.
    peaks: Vec<(String, f64, Option<Op>)>,
    /// The widest ISA measured.
    widest: Isa,
    ai: f64,
}

impl Roofs {
    /// What code reaching `peak` at most could reach at the point's
    /// intensity under the memory roof of bandwidth `bw` (GB/s).
    fn ceiling(&self, peak: f64, bw: f64) -> f64 {
        peak.min(bw * self.ai)
    }

    /// The peak of `op`, if measured.
    fn peak(&self, op: Op) -> Option<f64> {
        (self.peaks.iter()).find(|p| p.2 == Some(op)).map(|p| p.1)
    }

    /// The highest peak.
    fn top(&self) -> Option<(String, f64)> {
        (self.peaks.iter())
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|p| (p.0.clone(), p.1))
    }
}

/// Every piece of advice for `p` under `doc`'s roofs: the bound first, then
/// the reasons, then the run's own quality.
pub fn advise(doc: &Document, p: &AppPoint) -> Vec<Advice> {
    // A GPU kernel's roofs are its GPU's.
    if matches!(p.of, Of::Kernel(_)) {
        return Vec::new();
    }
    let mut out = quality(p);
    if !p.placeable() {
        return out;
    }
    let Some(place) = placement(doc, p, p.threads.unwrap_or(1)) else {
        return out;
    };
    let Some(v) = View::of_precision(doc, place.threads, p.precision) else {
        return out;
    };
    let scale = place.nodes as f64;
    let roofs = Roofs {
        levels: level_roofs(&v, scale),
        peaks: (v.compute.iter())
            .map(|r| (peak_label(r), scale * r.value(), r.op))
            .collect(),
        widest: v.isa,
        ai: p.ai(),
    };
    let perf = p.gflop_per_s();
    let Some((label, at)) = place.roof else {
        let top = roofs.top().map_or(0.0, |t| {
            let fastest = roofs.levels.first().map_or(f64::INFINITY, |l| l.1);
            roofs.ceiling(t.1, fastest)
        });
        out.insert(0, advice(Code::AboveRoof, perf / top, None, None));
        return out;
    };
    // The memory roof bounding the point (None when a peak does), and with
    // simulated caches the level whose dot is nearest its roof.
    let under = (roofs.levels.iter()).find(|l| l.0 == label).map(|l| l.1);
    let dots = dots(p, Some(doc));
    let level = bounding(p, &dots).and_then(|(l, share)| {
        let dot = dots.iter().find(|d| d.level == l)?;
        Some((l, share, dot.roof))
    });
    // What fixing its arithmetic gains stops at its memory: that level's
    // roof at its own intensity, else the memory roof right above it.
    let cap = (level.and_then(|l| l.2))
        .or(under.map(|b| b * roofs.ai))
        .unwrap_or(f64::INFINITY);
    let mut reasons = vec![advice(
        Code::Bound,
        perf / at,
        Some(at / perf),
        Some(label.clone()),
    )];
    if under.is_some() {
        reasons.push(memory(&roofs, level.map(|l| (l.0, l.1)), perf / at, label));
    }
    reasons.extend(next_roof(&roofs, at));
    if !p.precision.is_some_and(|q| q.is_integer()) {
        reasons.extend(scalar_fp(p, &roofs, cap));
        reasons.extend(no_fma(p, &roofs, cap));
        reasons.extend(integer_work(p));
        reasons.extend(x87(p));
    }
    reasons.extend(out);
    reasons
}

fn advice(code: Code, share: f64, gain: Option<f64>, roof: Option<String>) -> Advice {
    Advice {
        code,
        share,
        gain,
        roof,
    }
}

/// Memory-bound: the level whose dot is nearest its roof when the caches
/// were simulated (`level`, with its share of its roof), else the CARM's
/// bounding roof (`label`, `share` of it).
fn memory(roofs: &Roofs, level: Option<(Level, f64)>, share: f64, label: String) -> Advice {
    match level {
        Some((level, share)) => {
            let label = (roofs.levels.iter())
                .find(|l| l.0.starts_with(&format!("{level} ")))
                .map_or(format!("{level} roof"), |l| l.0.clone());
            advice(Code::MemoryBound, share, None, Some(label))
        }
        None => advice(Code::MemoryBound, share, None, Some(label)),
    }
}

/// The next roof above the bound at the point's intensity: a faster
/// level's, or the peak.
fn next_roof(roofs: &Roofs, at: f64) -> Option<Advice> {
    let top = roofs.top()?;
    let mut above: Vec<(String, f64)> = (roofs.levels.iter())
        .map(|l| (l.0.clone(), roofs.ceiling(top.1, l.1)))
        .filter(|l| l.1 < top.1)
        .collect();
    above.push(top.clone());
    let next = (above.into_iter())
        .filter(|l| l.1 > at * (1.0 + 1e-9))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(advice(
        Code::NextRoof,
        at / next.1,
        Some(next.1 / at),
        Some(next.0),
    ))
}

/// FP work in narrower vectors than the widest the roofs were measured
/// with: its share of the element operations, and the gain were every FP
/// instruction of the widest (the same instructions a cycle, each doing
/// more lanes).
fn scalar_fp(p: &AppPoint, roofs: &Roofs, cap: f64) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    use crate::kernels::Precision;
    let element = match m.sp_flops > m.dp_flops {
        true => f64::from(Precision::Sp.bytes()),
        false => f64::from(Precision::Dp.bytes()),
    };
    let lanes = |isa: Isa| f64::from(isa.width_bytes()) / element;
    let widest = lanes(roofs.widest).max(1.0);
    let widths = [
        (m.fp_scalar, 1.0),
        (m.fp_128, lanes(Isa::Sse)),
        (m.fp_256, lanes(Isa::Avx2)),
        (m.fp_512, lanes(Isa::Avx512)),
    ];
    let instructions: f64 = widths.iter().map(|w| w.0).sum();
    let elements: f64 = widths.iter().map(|w| w.0 * w.1).sum();
    if instructions <= 0.0 || elements <= 0.0 {
        return None;
    }
    let narrow: f64 = (widths.iter())
        .filter(|w| w.1 < widest)
        .map(|w| w.0 * w.1)
        .sum();
    let mean = elements / instructions;
    let (_, top) = roofs.top()?;
    let gain = top.min(cap) / (top * mean / widest).min(cap);
    (narrow / elements >= MIN_SHARE && gain >= MIN_GAIN)
        .then(|| advice(Code::ScalarFp, narrow / elements, Some(gain), None))
}

/// Adds and multiplies not fused where the CPU has FMA: the rate they
/// could reach were they at the FMA roof, against their own mix of FMA
/// and the roof of adds and multiplies interleaved.
fn no_fma(p: &AppPoint, roofs: &Roofs, cap: f64) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    let flops = m.dp_flops + m.sp_flops;
    let fma = roofs.peak(Op::Fma)?;
    let plain = (roofs.peak(Op::AddMul)).or(roofs.peak(Op::Add))?;
    let unfused = (flops - m.fma_flops).max(0.0);
    if flops <= 0.0 || fma <= plain {
        return None;
    }
    let now = flops / (m.fma_flops / fma + unfused / plain);
    let gain = fma.min(cap) / now.min(cap);
    (unfused / flops >= MIN_SHARE && gain >= MIN_GAIN)
        .then(|| advice(Code::NoFma, unfused / flops, Some(gain), None))
}

/// Most ops integer, under FP roofs: `--precision int` places them under
/// the integer roofs.
fn integer_work(p: &AppPoint) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    let int = m.int8_ops + m.int16_ops + m.int32_ops + m.int64_ops;
    let int = int + m.scalar_int_ops.iter().sum::<f64>();
    let share = int / (int + p.flops).max(1.0);
    (share >= 0.5).then(|| advice(Code::IntegerWork, share, None, None))
}

/// x87 arithmetic, which no vector unit runs.
fn x87(p: &AppPoint) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    let fp = m.fp_scalar + m.fp_128 + m.fp_256 + m.fp_512 + m.x87;
    (m.x87 > 0.0 && fp > 0.0).then(|| advice(Code::X87, m.x87 / fp, None, None))
}

/// What is wrong with the run itself: too short for its samples (a
/// region's time is its own, not sampled); code without symbols.
fn quality(p: &AppPoint) -> Vec<Advice> {
    let mut out = Vec::new();
    let cpu = p.seconds * p.threads.unwrap_or(1) as f64;
    if p.seconds > 0.0 && cpu < SHORT_SECONDS && !matches!(p.of, Of::Region) {
        out.push(advice(Code::ShortRun, cpu / SHORT_SECONDS, None, None));
    }
    if p.function().is_some() && super::apps::is_unnamed(&p.name) {
        out.push(advice(Code::NoSymbols, 1.0, None, None));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::InstructionMix;

    fn doc() -> Document {
        let text = include_str!("../../tests/fixtures/emr-xeon-2core.yaml");
        crate::results::file::parse(text, "emr-xeon-2core.yaml").unwrap()
    }

    /// A one-thread point of `flops` (none fused) done by `instructions` FP
    /// instructions of `width` bytes (8: scalar), at `ai`, reaching `share`
    /// of the roof right above it.
    fn point(doc: &Document, ai: f64, width: u32, fma: bool, share: f64) -> AppPoint {
        let flops = 1e11;
        let per = f64::from(width / 8) * if fma { 2.0 } else { 1.0 };
        let mut m = InstructionMix {
            dp_flops: flops,
            fma_flops: if fma { flops } else { 0.0 },
            other_flops: if fma { 0.0 } else { flops },
            ..InstructionMix::default()
        };
        *match width {
            8 => &mut m.fp_scalar,
            16 => &mut m.fp_128,
            32 => &mut m.fp_256,
            _ => &mut m.fp_512,
        } = flops / per;
        let mut p = AppPoint::new("p", flops, flops / ai, 1e6);
        p.threads = Some(1);
        p.mix = Some(m);
        // Far below every roof, then moved to `share` of the roof above it.
        let (_, at) = placement(doc, &p, 1).unwrap().roof.unwrap();
        p.seconds = flops * 1e-9 / (share * at);
        p
    }

    fn find(a: &[Advice], code: Code) -> Option<&Advice> {
        a.iter().find(|x| x.code == code)
    }

    #[test]
    fn a_scalar_loop_is_told_the_vector_width_and_an_unfused_one_fma() {
        let d = doc();
        // Compute-bound (100 flop/B), scalar, no FMA, at 90 % of its roof.
        let a = advise(&d, &point(&d, 100.0, 8, false, 0.9));
        assert_eq!(a[0].code, Code::Bound, "{a:?}");
        assert!((a[0].share - 0.9).abs() < 1e-9, "{a:?}");
        let s = find(&a, Code::ScalarFp).expect("scalar_fp");
        assert_eq!(s.share, 1.0);
        assert!(
            (s.gain.unwrap() - 8.0).abs() < 1e-9,
            "AVX-512's 8 doubles: {a:?}"
        );
        let f = find(&a, Code::NoFma).expect("no_fma");
        assert_eq!(f.share, 1.0);
        assert!((1.7..=2.1).contains(&f.gain.unwrap()), "{a:?}");
        assert!(find(&a, Code::MemoryBound).is_none(), "{a:?}");
        // The same loop in 512-bit FMA: neither.
        let a = advise(&d, &point(&d, 100.0, 64, true, 0.9));
        assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
        assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
        // Vectorised without FMA: FMA alone.
        let a = advise(&d, &point(&d, 100.0, 64, false, 0.9));
        assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
        assert!(find(&a, Code::NoFma).is_some(), "{a:?}");
    }

    #[test]
    fn a_dram_triad_is_memory_bound_with_no_compute_advice() {
        let d = doc();
        // 2 flops per 24 bytes, scalar, no FMA: DRAM bounds it whatever
        // its width.
        let a = advise(&d, &point(&d, 2.0 / 24.0, 8, false, 0.8));
        let dram = |x: &Advice| x.roof.as_deref().is_some_and(|r| r.starts_with("DRAM "));
        assert!(dram(&a[0]), "{a:?}");
        let m = find(&a, Code::MemoryBound).expect("memory_bound");
        assert!(dram(m), "{a:?}");
        assert!((m.share - 0.8).abs() < 1e-9, "{a:?}");
        assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
        assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
        let n = find(&a, Code::NextRoof).expect("next roof");
        assert!(n.gain.unwrap() > 1.0 && !dram(n), "{a:?}");
        let back: Vec<Advice> = serde_yaml::from_str(&serde_yaml::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn a_point_above_every_roof_is_a_counting_error_and_a_brief_run_is_said() {
        let d = doc();
        let mut p = point(&d, 100.0, 64, true, 0.5);
        p.seconds /= 1000.0;
        let a = advise(&d, &p);
        assert_eq!(a[0].code, Code::AboveRoof, "{a:?}");
        assert!(a[0].share > 1.0);
        assert!(find(&a, Code::Bound).is_none());
        assert!(find(&a, Code::ShortRun).is_some(), "{} s: {a:?}", p.seconds);
        let long = advise(&d, &point(&d, 100.0, 64, true, 0.5));
        assert!(find(&long, Code::ShortRun).is_none(), "{long:?}");
    }
}
