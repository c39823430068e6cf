//! What to do next about a point: the roof that bounds it and how far
//! below it sits; the reasons its counts give, each with its share of the
//! work, its evidence and the gain fixing it would bring at most (the roof
//! it would then be under, against the one it is under now); and what is
//! wrong with the measurement itself (`quality.rs`). Stable codes in the
//! apps file (`advice:`), words in `profile`'s output and the report
//! ([`words`]); docs/profile.md lists every code and its trigger.

use super::Document;
pub use super::apps::advice::{Advice, Code, Evidence, Widths};
use super::apps::{AppPoint, Of, Side};
use super::placement::{Bound, BoundBy, Placement, level_roofs, peak_label, place};
use super::view::View;
use crate::kernels::{Mix, Op};
use crate::machine::isa::Isa;

mod quality;
#[cfg(test)]
mod tests;
mod words;
pub use quality::{
    FEW_SAMPLES, MUCH_STEAL, Others, SHORT_SECONDS, TOO_FAST, samples_explain, too_fast,
};
pub use words::words;

/// A reason is given when fixing it would gain at least this factor.
pub const MIN_GAIN: f64 = 1.1;

/// A reason is given when it concerns at least this share of the work; a
/// point under this share of its bound is far below it.
pub const MIN_SHARE: f64 = 0.1;

/// A level's dot and its roof count the same bytes (the roof's kernel's
/// own write-allocations and write-backs, under the simulation's rules),
/// but the simulation write-allocates every store while a core may not (a
/// whole line stored without reading it first): a store stream's dot may
/// then sit up to twice its roof at full speed. Above that, its counts or
/// its time are wrong.
pub const LEVEL_ABOVE: f64 = 2.0;

/// x87 is named from this share of the FP instructions: below it, the
/// odd `long double` of a library.
pub const X87_SHARE: f64 = 0.01;

/// Integer work is named from this many integer ops per flop
/// (docs/profile.md): below it, the loop counters and addresses of FP code.
pub const INT_PER_FLOP: f64 = 4.0;

/// Each point's advice under `doc`'s roofs (none: the run's own quality
/// alone), replacing any it had; a program's reads its functions among
/// `points`.
pub fn advise_all(doc: Option<&Document>, points: &mut [AppPoint]) {
    let others = Others::of(points);
    let all: Vec<Vec<Advice>> = points.iter().map(|p| advise(doc, p, &others)).collect();
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
    /// The compute roofs of the point's precision at every ISA measured,
    /// (ISA, op, GFLOP/s): what each width reaches.
    widths: Vec<(Isa, Option<Op>, f64)>,
    /// The widest ISA measured.
    widest: Isa,
    ai: f64,
    /// Each level's (load, store) roofs, GB/s, where both were measured.
    sides: Vec<(crate::machine::Level, f64, f64)>,
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

/// Every piece of advice for `p` under `doc`'s roofs (`others`: what its
/// apps file's functions say of their programs): the bound first, then the
/// reasons, then the run's own quality (alone without roofs).
pub fn advise(doc: Option<&Document>, p: &AppPoint, others: &Others) -> Vec<Advice> {
    // A GPU kernel's roofs are its GPU's.
    if matches!(p.of, Of::Kernel(_)) {
        return Vec::new();
    }
    let mut out: Vec<Advice> = quality::other_path(p, others).into_iter().collect();
    out.extend(quality::of_run(p));
    let Some(doc) = doc.filter(|_| p.placeable()) else {
        return out;
    };
    let Some(place) = place(doc, p) else {
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
        widths: widths(doc, place.threads, p.precision, scale),
        widest: v.isa,
        ai: p.ai(),
        sides: side_roofs(doc, &v, scale),
    };
    let perf = p.gflop_per_s();
    let Some(bound) = place.bound.clone() else {
        let top = roofs.top().map_or(0.0, |t| {
            let fastest = roofs.levels.first().map_or(f64::INFINITY, |l| l.1);
            roofs.ceiling(t.1, fastest)
        });
        // A time resting on a few samples explains a rate above the roofs.
        if !quality::samples_explain(p, perf / top) {
            out.insert(0, advice(Code::AboveRoof, perf / top, None, None));
        }
        return out;
    };
    let mut reasons = vec![advice(
        Code::Bound,
        bound.share,
        Some(1.0 / bound.share),
        Some(bound.label.clone()),
    )];
    // Far below is judged at the rate it would have had alone, and on the
    // time it was busy.
    let alone = (out.iter())
        .find(|a| a.code == Code::SharedCores)
        .and_then(|a| a.gain)
        .unwrap_or(1.0);
    let busy = quality::busy_share(p);
    reasons.extend(under_roof(p, &roofs, &place, &bound, (alone, busy)));
    reasons.extend(out);
    reasons
}

/// The compute roofs of `precision` (the default's) at every ISA measured
/// for `threads`, × `scale` nodes.
fn widths(
    doc: &Document,
    threads: usize,
    precision: Option<crate::kernels::Precision>,
    scale: f64,
) -> Vec<(Isa, Option<Op>, f64)> {
    let precision = precision.or(Some(crate::kernels::Precision::Dp));
    (doc.roofs.iter())
        .filter(|r| r.threads == threads && r.usable())
        .filter(|r| r.kind == crate::kernels::Kind::Compute && r.precision == precision)
        .map(|r| (r.isa, r.op, scale * r.value()))
        .collect()
}

/// The reasons of a point under `bound` (placed as `place`): its memory,
/// the next roof, its instruction mix; `alone` its rate alone on its cores
/// over its rate, `busy` the share of its wall time it ran or was ready to.
fn under_roof(
    p: &AppPoint,
    roofs: &Roofs,
    place: &Placement,
    bound: &Bound,
    (alone, busy): (f64, f64),
) -> Vec<Advice> {
    let perf = p.gflop_per_s();
    // What fixing its arithmetic gains stops at its memory: the tightest
    // level's roof at that level's own intensity; without simulated caches
    // the memory roof right above the point.
    let cap = match bound.by {
        BoundBy::UnknownLevel => bound.at,
        _ => (place.dots.iter())
            .filter(|d| !d.under_peak)
            .filter_map(|d| d.roof)
            .fold(f64::INFINITY, f64::min),
    };
    let mut mix = Vec::new();
    // Another function's counts say nothing of this one's instructions.
    if !p.precision.is_some_and(|q| q.is_integer()) && !counted_as_other(p) {
        mix.extend(scalar_fp(p, roofs, cap, busy));
        mix.extend(no_fma(p, roofs, cap, busy));
        mix.extend(integer_work(p));
        mix.extend(x87(p));
    }
    let top = roofs.top();
    let peak = perf / top.as_ref().map_or(f64::INFINITY, |t| t.1);
    let far = |share: f64, roof: &str| far_below(share, Some(roof.to_string()));
    let mut out = Vec::new();
    let below_next = match bound.by {
        BoundBy::Peak => {
            let explained: f64 = mix.iter().filter_map(|a| a.gain).product();
            if bound.share * explained * alone < MIN_SHARE {
                out.push(far(bound.share, &bound.label));
            }
            Some(bound.at)
        }
        BoundBy::UnknownLevel => {
            if bound.share.max(peak) * alone < MIN_SHARE {
                out.push(far(bound.share, &bound.label));
            } else {
                out.push(advice(
                    Code::LevelUnknown,
                    bound.share,
                    None,
                    Some(bound.label.clone()),
                ));
            }
            // Which roof is next depends on the level: unknown.
            None
        }
        BoundBy::Level(level) => {
            out.extend(level_reasons(p, bound, (level, roofs), (peak, alone)));
            // The next roof is above the bounding level's, at the point's
            // own intensity.
            Some(
                (roofs.levels.iter())
                    .find(|l| l.0 == bound.label)
                    .map_or(bound.at, |bw| {
                        roofs.ceiling(top.as_ref().map_or(f64::INFINITY, |t| t.1), bw.1)
                    }),
            )
        }
    };
    out.extend(below_next.and_then(|at| next_roof(roofs, at)));
    out.extend(mix);
    out
}

/// The reasons of a point whose simulated caches put its bound at `level`:
/// memory-bound there, far below it and the peak (`peak` its share of the
/// peak; `alone` its rate alone on its cores over its rate), or a counting
/// error when its dot sits far above its roof.
fn level_reasons(
    p: &AppPoint,
    bound: &Bound,
    (level, roofs): (crate::machine::Level, &Roofs),
    (peak, alone): (f64, f64),
) -> Vec<Advice> {
    match bound.share {
        s if s > LEVEL_ABOVE => vec![advice(Code::AboveRoof, s, None, Some(bound.label.clone()))],
        s if s.max(peak) * alone < MIN_SHARE => vec![far_below(s, Some(bound.label.clone()))],
        // Under a tenth of its level's roof but near the peak: neither.
        s if s * alone < MIN_SHARE => Vec::new(),
        _ => vec![memory(p, bound, level, roofs)],
    }
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

/// Memory-bound at `level` (its dot's `share` of its roof, the bound's),
/// with the bytes per unit of work there, and the accesses that reached it.
fn memory(p: &AppPoint, bound: &Bound, level: crate::machine::Level, roofs: &Roofs) -> Advice {
    let mut a = advice(
        Code::MemoryBound,
        bound.share,
        None,
        Some(bound.label.clone()),
    );
    let bytes = match level {
        crate::machine::Level::L1 => Some(p.bytes),
        l => (p.traffic.as_ref())
            .and_then(|t| t.levels().into_iter().find(|x| x.0 == l))
            .map(|x| x.1.total()),
    };
    a.evidence.bytes_per_op = bytes.filter(|_| p.flops > 0.0).map(|b| b / p.flops);
    a.evidence.misses_per_access = p.traffic.as_ref().and_then(|t| t.reaching(level));
    a.evidence.side = bounding_side(p, level, roofs);
    a
}

/// The side whose bytes at `level` take longer at its load and store roofs
/// (Ofenbeck et al.'s read and write rooflines): the core's loads and
/// stores at L1, a lower level's fills and write-backs; None without both.
fn bounding_side(p: &AppPoint, level: crate::machine::Level, roofs: &Roofs) -> Option<Side> {
    let (_, load, store) = roofs.sides.iter().find(|s| s.0 == level)?;
    let rw = match level {
        crate::machine::Level::L1 => p.sides?,
        l => {
            (p.traffic.as_ref()?.levels().into_iter())
                .find(|x| x.0 == l)?
                .1
        }
    };
    let (read, write) = (rw.read / load, rw.write / store);
    (read + write > 0.0).then_some(if read >= write {
        Side::Read
    } else {
        Side::Write
    })
}

/// Each level's load and store roofs beside `v`'s (its ISA and threads),
/// × `scale` nodes.
fn side_roofs(doc: &Document, v: &View, scale: f64) -> Vec<(crate::machine::Level, f64, f64)> {
    let of = |level, mix| {
        (doc.roofs.iter())
            .find(|r| {
                r.threads == v.threads
                    && r.usable()
                    && r.isa == v.isa
                    && r.level == Some(level)
                    && r.mix == Some(mix)
            })
            .map(|r| scale * r.value())
    };
    (v.bandwidth.iter())
        .filter_map(|r| {
            let l = r.level?;
            Some((l, of(l, Mix::Load)?, of(l, Mix::Store)?))
        })
        .collect()
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

/// The gain `raw` of making the busy share `busy` of a run's time that
/// much faster (Amdahl): the rest (sleep, I/O, waiting) stays.
fn amdahl(raw: f64, busy: f64) -> f64 {
    let busy = busy.clamp(0.0, 1.0);
    1.0 / ((1.0 - busy) + busy / raw.max(1e-300))
}

/// FP work in narrower vectors than the widest the roofs were measured
/// with: its share of the element operations, and the gain were every FP
/// instruction of the widest, read from the roofs measured at each width
/// (lanes alone where a width was not measured: the same instructions a
/// cycle, each doing more lanes), capped by its memory (`cap`) and by the
/// share of its time it was busy.
fn scalar_fp(p: &AppPoint, roofs: &Roofs, cap: f64, busy: f64) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    use crate::kernels::Precision;
    let element = match m.sp_flops > m.dp_flops {
        true => f64::from(Precision::Sp.bytes()),
        false => f64::from(Precision::Dp.bytes()),
    };
    let lanes = |isa: Isa| (f64::from(isa.width_bytes()) / element).max(1.0);
    let widest = lanes(roofs.widest);
    let (top_label, top) = roofs.top()?;
    let top_op = (roofs.peaks.iter())
        .find(|x| x.0 == top_label)
        .and_then(|x| x.2);
    // What code of one width reaches: its own roof of the top's op (its
    // highest, else), else the widest's by lanes.
    let reach = |isa: Isa| {
        let own: Vec<&(Isa, Option<Op>, f64)> =
            roofs.widths.iter().filter(|w| w.0 == isa).collect();
        (own.iter().find(|w| w.1 == top_op))
            .or_else(|| own.iter().max_by(|a, b| a.2.total_cmp(&b.2)))
            .map(|w| w.2)
            .filter(|_| isa != roofs.widest)
            .unwrap_or(top * lanes(isa).min(widest) / widest)
    };
    let widths = [
        (m.fp_scalar, 1.0, Isa::Scalar),
        (m.fp_128, lanes(Isa::Sse), Isa::Sse),
        (m.fp_256, lanes(Isa::Avx2), Isa::Avx2),
        (m.fp_512, lanes(Isa::Avx512), Isa::Avx512),
    ];
    let elements: f64 = widths.iter().map(|w| w.0 * w.1).sum();
    if elements <= 0.0 {
        return None;
    }
    let narrow: f64 = (widths.iter())
        .filter(|w| w.1 < widest)
        .map(|w| w.0 * w.1)
        .sum();
    // Time per element op now, against all at the widest's roof.
    let now: f64 = (widths.iter())
        .filter(|w| w.0 > 0.0)
        .map(|w| w.0 * w.1 / elements / reach(w.2.min(roofs.widest)))
        .sum();
    let rate = 1.0 / now;
    let gain = amdahl(top.min(cap) / rate.min(top).min(cap), busy);
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
/// and the roof of adds and multiplies interleaved; capped as
/// [`scalar_fp`]'s gain.
fn no_fma(p: &AppPoint, roofs: &Roofs, cap: f64, busy: f64) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    let flops = m.dp_flops + m.sp_flops;
    let fma = roofs.peak(Op::Fma)?;
    let plain = (roofs.peak(Op::AddMul)).or(roofs.peak(Op::Add))?;
    let unfused = (flops - m.fma_flops).max(0.0);
    if flops <= 0.0 || fma <= plain {
        return None;
    }
    let now = flops / (m.fma_flops / fma + unfused / plain);
    let gain = amdahl(fma.min(cap) / now.min(cap), busy);
    let mut a = advice(Code::NoFma, unfused / flops, Some(gain), None);
    a.evidence.fma_share = Some(m.fma_flops / flops);
    (unfused / flops >= MIN_SHARE && gain >= MIN_GAIN).then_some(a)
}

/// Mostly integer ops under FP roofs, at least [`INT_PER_FLOP`] a flop
/// (fewer are the loop counters and addresses of FP code): `--precision
/// int` places them under the integer roofs.
fn integer_work(p: &AppPoint) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    let int = m.int8_ops + m.int16_ops + m.int32_ops + m.int64_ops;
    let int = int + m.scalar_int_ops.iter().sum::<f64>();
    let share = int / (int + p.flops).max(1.0);
    (int >= INT_PER_FLOP * p.flops && int > 0.0)
        .then(|| advice(Code::IntegerWork, share, None, None))
}

/// x87 arithmetic, which no vector unit runs.
fn x87(p: &AppPoint) -> Option<Advice> {
    let m = p.mix.as_ref()?;
    let fp = m.fp_scalar + m.fp_128 + m.fp_256 + m.fp_512 + m.x87;
    let share = m.x87 / fp;
    (fp > 0.0 && share >= X87_SHARE).then(|| advice(Code::X87, share, None, None))
}
