//! What to do next about a point: the roof that bounds it and how far
//! below it sits; the reasons its counts give, each with its share of the
//! work, its evidence and the gain fixing it would bring at most (the roof
//! it would then be under, against the one it is under now); and what is
//! wrong with the measurement itself (`quality.rs`). Stable codes in the
//! apps file (`advice:`), words in `profile`'s output and the report
//! ([`words`]); docs/profile.md lists every code and its trigger.

use super::Document;
pub use super::apps::advice::{Advice, Code, Evidence, Widths};
use super::apps::{AppPoint, Of};
use super::placement::{bounding, dots, level_roofs, peak_label, placement};
use super::view::View;
use crate::kernels::Op;
use crate::machine::Level;
use crate::machine::isa::Isa;

mod quality;
#[cfg(test)]
mod tests;
mod words;
pub use quality::{FEW_SAMPLES, MUCH_STEAL, SHORT_SECONDS};
pub use words::words;

/// A reason is given when fixing it would gain at least this factor.
pub const MIN_GAIN: f64 = 1.1;

/// A reason is given when it concerns at least this share of the work; a
/// point under this share of its bound is far below it.
pub const MIN_SHARE: f64 = 0.1;

/// A level's dot counts the bytes the level moved, write-allocations and
/// write-backs too, against roofs of the bytes the cores requested: a store
/// stream's dot sits up to twice its roof at full speed. Above that, its
/// counts or its time are wrong.
pub const LEVEL_ABOVE: f64 = 2.0;

/// x87 is named from this share of the FP instructions: below it, the
/// odd `long double` of a library.
pub const X87_SHARE: f64 = 0.01;

/// Each point's advice under `doc`'s roofs (none: the run's own quality
/// alone), replacing any it had; a program's reads its functions among
/// `points`.
pub fn advise_all(doc: Option<&Document>, points: &mut [AppPoint]) {
    let all: Vec<Vec<Advice>> = points.iter().map(|p| advise(doc, p, points)).collect();
    for (p, a) in points.iter_mut().zip(all) {
        p.advice = a;
    }
}

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

/// Every piece of advice for `p` under `doc`'s roofs (`all`: the points of
/// its apps file, where a program finds its functions): the bound first,
/// then the reasons, then the run's own quality (alone without roofs).
pub fn advise(doc: Option<&Document>, p: &AppPoint, all: &[AppPoint]) -> Vec<Advice> {
    // A GPU kernel's roofs are its GPU's.
    if matches!(p.of, Of::Kernel(_)) {
        return Vec::new();
    }
    let mut out: Vec<Advice> = quality::other_path(p, all).into_iter().collect();
    out.extend(quality::of_run(p));
    let Some(doc) = doc.filter(|_| p.placeable()) else {
        return out;
    };
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
    let mut reasons = vec![advice(
        Code::Bound,
        perf / at,
        Some(at / perf),
        Some(label.clone()),
    )];
    // Far below is judged at the rate it would have had alone.
    let alone = (out.iter())
        .find(|a| a.code == Code::SharedCores)
        .and_then(|a| a.gain)
        .unwrap_or(1.0);
    reasons.extend(under_roof(p, doc, &roofs, (label, at), alone));
    reasons.extend(out);
    reasons
}

/// The reasons of a point under the roof `label` of height `at` at its
/// intensity: its memory, the next roof, its instruction mix; `alone` its
/// rate alone on its cores over its rate.
fn under_roof(
    p: &AppPoint,
    doc: &Document,
    roofs: &Roofs,
    (label, at): (String, f64),
    alone: f64,
) -> Vec<Advice> {
    let perf = p.gflop_per_s();
    // The memory roof bounding the point (None when a peak does), and with
    // simulated caches the level whose dot is nearest its roof.
    let under = (roofs.levels.iter()).find(|l| l.0 == label).map(|l| l.1);
    let dots = dots(p, Some(doc));
    let level = bounding(p, &dots).and_then(|(l, share)| {
        let dot = dots.iter().find(|d| d.level == l)?;
        Some(Nearest {
            level: l,
            share,
            roof: dot.roof,
            ai: dot.ai,
        })
    });
    // What fixing its arithmetic gains stops at its memory: that level's
    // roof at its own intensity, else the memory roof right above it.
    let cap = (level.as_ref().and_then(|l| l.roof))
        .or(under.map(|b| b * roofs.ai))
        .unwrap_or(f64::INFINITY);
    let mut mix = Vec::new();
    // Another function's counts say nothing of this one's instructions.
    if !p.precision.is_some_and(|q| q.is_integer()) && !counted_as_other(p) {
        mix.extend(scalar_fp(p, roofs, cap));
        mix.extend(no_fma(p, roofs, cap));
        mix.extend(integer_work(p));
        mix.extend(x87(p));
    }
    let (mut out, below_next) = match under {
        Some(_) => memory_reasons(p, roofs, (label, at), level, alone),
        None => {
            let explained: f64 = mix.iter().filter_map(|a| a.gain).product();
            let far = (perf / at * explained * alone < MIN_SHARE)
                .then(|| far_below(perf / at, Some(label)));
            (far.into_iter().collect(), at)
        }
    };
    out.extend(next_roof(roofs, below_next));
    out.extend(mix);
    out
}

/// With simulated caches, the level whose dot is nearest its roof: its
/// share of that roof, the roof (its bandwidth at the dot's intensity, at
/// most the peak) and that intensity.
#[derive(Debug, Clone, Copy)]
struct Nearest {
    level: Level,
    share: f64,
    roof: Option<f64>,
    ai: f64,
}

/// The memory reasons of a point under the memory roof `label` (height
/// `at`), `level` the nearest level by its own bytes when the caches were
/// simulated: memory-bound, far below, or a counting error; and the height
/// the next roof must be above.
fn memory_reasons(
    p: &AppPoint,
    roofs: &Roofs,
    (label, at): (String, f64),
    level: Option<Nearest>,
    alone: f64,
) -> (Vec<Advice>, f64) {
    let perf = p.gflop_per_s();
    let top = roofs.top();
    let peak = perf / top.as_ref().map_or(f64::INFINITY, |t| t.1);
    // A level's dot may sit under the peak, not under its bandwidth: its
    // bytes then limit nothing, and the peak is the bound.
    let capped = (level.and_then(|l| l.roof)).zip(top.as_ref());
    if let Some((_, t)) = capped.filter(|(r, t)| *r >= 0.999 * t.1) {
        let far = (peak * alone < MIN_SHARE).then(|| far_below(peak, Some(t.0.clone())));
        return (far.into_iter().collect(), t.1);
    }
    let (lvl, share, ai) = match level {
        Some(l) => (Some(l.level), l.share, l.ai),
        None => (None, perf / at, roofs.ai),
    };
    let m = memory(p, roofs, (lvl, share, ai), label);
    // The next roof is above the bounding level's.
    let below_next = (lvl.and(m.roof.as_ref()))
        .and_then(|r| roofs.levels.iter().find(|l| &l.0 == r))
        .map_or(at, |bw| {
            roofs.ceiling(top.map_or(f64::INFINITY, |t| t.1), bw.1)
        });
    // A level's dot far above its own roof: its bytes or time are wrong;
    // far below every roof, the peak's too: latency.
    let out = match share {
        s if lvl.is_some() && s > LEVEL_ABOVE => advice(Code::AboveRoof, s, None, m.roof),
        s if s.max(peak) * alone < MIN_SHARE => far_below(s, m.roof),
        s if s * alone < MIN_SHARE => return (Vec::new(), below_next),
        _ => m,
    };
    (vec![out], below_next)
}

/// Whether `p`'s counts are another function's (`counted_as`).
fn counted_as_other(p: &AppPoint) -> bool {
    p.function().is_some_and(|f| f.counted_as.is_some())
}

fn advice(code: Code, share: f64, gain: Option<f64>, roof: Option<String>) -> Advice {
    Advice {
        code,
        share,
        gain,
        roof,
        evidence: Evidence::default(),
    }
}

/// Far below its bound (`roof`; with simulated caches, the roof of the
/// level whose dot is nearest it): `share` of it.
fn far_below(share: f64, roof: Option<String>) -> Advice {
    advice(Code::FarBelow, share, None, roof)
}

/// Memory-bound: the level whose dot is nearest its roof when the caches
/// were simulated (`level`, with `share` of its roof, `ai` its own
/// intensity), else the CARM's bounding roof (`label`); with the bytes per
/// unit of work there, and the accesses that reached it.
fn memory(p: &AppPoint, roofs: &Roofs, at: (Option<Level>, f64, f64), label: String) -> Advice {
    let (level, share, ai) = at;
    let label = match level {
        Some(level) => (roofs.levels.iter())
            .find(|l| l.0.starts_with(&format!("{level} ")))
            .map_or(format!("{level} roof"), |l| l.0.clone()),
        None => label,
    };
    let mut a = advice(Code::MemoryBound, share, None, Some(label));
    a.evidence.bytes_per_op = (ai > 0.0).then(|| 1.0 / ai);
    a.evidence.misses_per_access = (p.traffic.as_ref())
        .zip(level)
        .and_then(|(t, l)| t.reaching(l));
    a
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
    let of = |k: usize| widths[k].0 * widths[k].1 / elements;
    let mut a = advice(Code::ScalarFp, narrow / elements, Some(gain), None);
    a.evidence.widths = Some(Widths {
        scalar: of(0),
        v128: of(1),
        v256: of(2),
        v512: of(3),
    });
    (narrow / elements >= MIN_SHARE && gain >= MIN_GAIN).then_some(a)
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
    let mut a = advice(Code::NoFma, unfused / flops, Some(gain), None);
    a.evidence.fma_share = Some(m.fma_flops / flops);
    (unfused / flops >= MIN_SHARE && gain >= MIN_GAIN).then_some(a)
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
    let share = m.x87 / fp;
    (fp > 0.0 && share >= X87_SHARE).then(|| advice(Code::X87, share, None, None))
}
