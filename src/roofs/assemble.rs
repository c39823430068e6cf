//! From a roof's measurements (one per buffer size) to the roof: its value,
//! statistics, clock, % of the theoretical limit and flags.

use super::plan::RoofTask;
use super::plateau;
use crate::config::limits::{self, Uarch};
use crate::config::plan::RoofFrom;
use crate::kernels::Kind;
use crate::measure::bench::{DRIFT_LIMIT, Measurement};
use crate::measure::stats::median;
use crate::results::{Curve, CurvePoint, Flag, Roof, SizePoint};

/// How far apart the values of a level's sizes are: largest over smallest,
/// minus 1 (0 for one size). Within a level's range the rate should not
/// depend on the size; when it does, a size spilled to the next level or
/// ran while other work slowed the core for the whole of its attempts.
pub fn spread(values: &[f64]) -> f64 {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    if lo > 0.0 && lo.is_finite() {
        hi / lo - 1.0
    } else {
        0.0
    }
}

/// The flags of a roof of `task`: its clock, steal, spread, sizes, limits.
fn flags(
    task: &RoofTask,
    ms: &[Measurement],
    rep: &Measurement,
    disagree: bool,
    percent: Option<f64>,
) -> Vec<Flag> {
    let drift = ms.iter().map(Measurement::clock_drift).fold(0.0, f64::max);
    [
        (drift > DRIFT_LIMIT, Flag::ClockDrift),
        (ms.iter().any(Measurement::stolen), Flag::Steal),
        (rep.rates.cv > task.scope.cv_limit(), Flag::HighCv),
        (disagree, Flag::SizesDisagree),
        (task.not_isolated, Flag::NotIsolated),
        (task.capped, Flag::MemoryCapped),
        (
            percent.is_some_and(|p| limits::above(p, rep.rates.cv)),
            Flag::AboveTheoretical,
        ),
    ]
    .into_iter()
    .filter_map(|(on, f)| on.then_some(f))
    .collect()
}

/// Each size's measurement, in GB/s.
fn sizes(ms: &[Measurement]) -> Vec<SizePoint> {
    let g = |x: f64| x / 1e9;
    ms.iter()
        .map(|m| SizePoint {
            bytes_per_thread: m.bytes_per_thread,
            value: g(m.value()),
            median: g(m.rates.median),
            cv: m.rates.cv,
        })
        .collect()
}

/// The roof of `task` from its measurements, one per size of its range
/// (ascending): the median of its plateau's sizes (or of all its sizes,
/// with `roof_from: median`), with the statistics of the size closest to it.
pub fn roof_of(task: &RoofTask, ms: &[Measurement], uarch: Option<&Uarch>) -> Roof {
    let d = &task.kernel.decl;
    let cv_limit = task.scope.cv_limit();
    let per_cycle: Vec<f64> = ms.iter().map(Measurement::per_cycle).collect();
    let plateau = match task.roof_from {
        RoofFrom::Plateau if d.kind == Kind::Bandwidth => plateau::plateau(&per_cycle, cv_limit),
        _ => None,
    };
    let from: Vec<&Measurement> = match &plateau {
        Some(p) => ms[p.range()]
            .iter()
            .filter(|m| m.per_cycle() >= p.floor)
            .collect(),
        None => ms.iter().collect(),
    };
    let values: Vec<f64> = from.iter().map(|m| m.value()).collect();
    let value = median(&values);
    let rep = from
        .iter()
        .min_by(|a, b| {
            (a.value() - value)
                .abs()
                .total_cmp(&(b.value() - value).abs())
        })
        .expect("at least one measurement");
    let clock = median(&from.iter().map(|m| m.clock_ghz()).collect::<Vec<_>>());
    let drift = ms.iter().map(Measurement::clock_drift).fold(0.0, f64::max);
    let disagree = match &plateau {
        Some(p) => p.split,
        None => spread(&ms.iter().map(Measurement::value).collect::<Vec<_>>()) > cv_limit,
    };
    let per_cycle = value / 1e9 / clock;
    let theoretical = uarch
        .and_then(|u| u.per_cycle(d, task.level))
        .map(|x| x * task.threads as f64);
    let percent = theoretical.map(|t| 100.0 * per_cycle / t);
    let flags = flags(task, ms, rep, disagree, percent);
    let g = |x: f64| x / 1e9;
    let bw = d.kind == Kind::Bandwidth;
    Roof {
        kind: d.kind,
        level: task.level,
        mix: d.mix,
        op: d.op,
        isa: d.isa,
        precision: d.precision,
        threads: task.threads,
        gb_per_s: bw.then(|| g(value)),
        gflop_per_s: (!bw).then(|| g(value)),
        per_cycle,
        median: g(rep.rates.median),
        q1: g(rep.rates.q1),
        q3: g(rep.rates.q3),
        cv: rep.rates.cv,
        clock_ghz: clock,
        clock_drift: drift,
        theoretical_per_cycle: theoretical,
        percent_of_theoretical: percent,
        kernel: d.name.to_string(),
        sizes: if bw { sizes(ms) } else { Vec::new() },
        plateau: plateau.map(|p| [ms[p.first].bytes_per_thread, ms[p.last].bytes_per_thread]),
        knee_bytes: plateau.and_then(|p| Some(ms[p.knee?].bytes_per_thread)),
        flags,
        note: uarch.and_then(|u| u.note(d)).map(String::from),
        paced_gb_per_s: None,
        seconds: None,
    }
}

/// A DRAM roof with its paced form's measurement `m` at one of the roof's
/// sizes: recorded (`paced_gb_per_s`) when it delivers more than the level's
/// CV limit above the roof. The roof itself stays the bare stream's, what
/// memory-bound code reads; code with vector work beside its loads can read
/// the paced rate, and validation points near the ridge may sit above the
/// roof by as much.
pub fn with_paced(roof: Roof, task: &RoofTask, m: &Measurement) -> Roof {
    let paced = m.value() / 1e9;
    match roof.gb_per_s {
        Some(bare) if paced > bare * (1.0 + task.scope.cv_limit()) => Roof {
            paced_gb_per_s: Some(paced),
            ..roof
        },
        _ => roof,
    }
}

/// The memory curve's points of a bandwidth task: its range's sizes and
/// the sizes between its level and the one below, ascending.
pub fn curve_points(
    task: &RoofTask,
    range: &[Measurement],
    between: &[Measurement],
) -> Vec<CurvePoint> {
    let Some(level) = task.level else {
        return Vec::new();
    };
    let point = |m: &Measurement, level| CurvePoint {
        bytes_per_thread: m.bytes_per_thread,
        gb_per_s: m.value() / 1e9,
        per_cycle: m.per_cycle(),
        level,
    };
    let mut v: Vec<CurvePoint> = between
        .iter()
        .zip(&task.between_levels)
        .map(|(m, &l)| point(m, l))
        .chain(range.iter().map(|m| point(m, level)))
        .collect();
    v.sort_by_key(|p| p.bytes_per_thread);
    v
}

/// The curves of the bandwidth roofs' points: per ISA, mix and threads,
/// every level's sizes in one ascending curve.
pub fn curves(roofs: &[Roof], points: Vec<Vec<CurvePoint>>) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    for (r, pts) in roofs.iter().zip(points) {
        let Some(mix) = r.mix.filter(|_| !pts.is_empty()) else {
            continue;
        };
        match out
            .iter_mut()
            .find(|c| (c.isa, c.mix, c.threads) == (r.isa, mix, r.threads))
        {
            Some(c) => c.points.extend(pts),
            None => out.push(Curve {
                isa: r.isa,
                mix,
                threads: r.threads,
                points: pts,
            }),
        }
    }
    for c in &mut out {
        c.points.sort_by_key(|p| p.bytes_per_thread);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::limits;
    use crate::kernels::{Mix, Role, find};
    use crate::machine::isa::Isa;
    use crate::machine::{Level, Scope};
    use crate::measure::fake::{CLOCK, Outcome};

    fn task(threads: usize) -> RoofTask {
        RoofTask {
            kernel: find(Isa::Avx2, Role::Bandwidth(Mix::Load)).unwrap(),
            level: Some(Level::L1),
            threads,
            sizes: vec![16 << 10, 20 << 10, 24 << 10],
            between: Vec::new(),
            between_levels: Vec::new(),
            roof_from: RoofFrom::Median,
            not_isolated: false,
            capped: false,
            one_per_thread: true,
            scope: Scope::Core,
            paced: None,
        }
    }

    #[test]
    fn a_dram_roof_records_its_paced_form_only_when_it_is_clearly_faster() {
        let paced = find(Isa::Avx2, Role::Paced(Mix::Load)).unwrap();
        assert!(paced.decl.pace > 0);
        let t = RoofTask {
            level: Some(Level::Dram),
            scope: Scope::Memory,
            sizes: vec![128 << 20, 192 << 20, 256 << 20],
            paced: Some(paced),
            ..task(1)
        };
        let ms: Vec<Measurement> = t
            .sizes
            .iter()
            .map(|&b| Outcome::steady(6.0).measurement(b))
            .collect();
        let bare = roof_of(&t, &ms, None);
        // 20 % faster: recorded beside the bare roof, which stays.
        let fast = Outcome::steady(7.2).measurement(192 << 20);
        let r = with_paced(bare.clone(), &t, &fast);
        assert!((r.paced_gb_per_s.unwrap() - 7.2 * CLOCK).abs() < 1e-9);
        assert_eq!(
            Roof {
                paced_gb_per_s: None,
                ..r
            },
            bare
        );
        // Within the memory level's 8 % CV limit: nothing recorded.
        let near = Outcome::steady(6.4).measurement(192 << 20);
        assert_eq!(with_paced(bare.clone(), &t, &near), bare);
    }

    #[test]
    fn a_roof_is_the_median_of_its_sizes_with_its_limit_and_flags() {
        let zen3 = limits::all()
            .into_iter()
            .find(|u| u.name == "zen3")
            .unwrap();
        let t = task(2);
        let ms: Vec<Measurement> = [(60.0, 0.01), (126.0, 0.01), (124.0, 0.2)]
            .iter()
            .zip(&t.sizes)
            .map(|(&(v, cv), &b)| {
                Outcome {
                    cv,
                    ..Outcome::steady(v)
                }
                .measurement(b)
            })
            .collect();
        let r = roof_of(&t, &ms, Some(&zen3));
        // The median of 60, 126 and 124, with the statistics of that size.
        assert!((r.per_cycle - 124.0).abs() < 1e-9, "{}", r.per_cycle);
        assert!((r.gb_per_s.unwrap() - 124.0 * CLOCK).abs() < 1e-6);
        assert_eq!(r.cv, 0.2);
        assert_eq!(r.sizes.len(), 3);
        // Zen 3: 64 B/cycle of AVX2 loads per core, two threads.
        assert_eq!(r.theoretical_per_cycle, Some(128.0));
        assert!((r.percent_of_theoretical.unwrap() - 100.0 * 124.0 / 128.0).abs() < 1e-9);
        assert_eq!(r.flags, [Flag::HighCv, Flag::SizesDisagree]);
        assert_eq!((r.plateau, r.knee_bytes), (None, None));
        // The same sizes with `roof_from: plateau`: the two that hold 124+
        // make the roof; the slow small size is a ramp, not a disagreement.
        let p = RoofTask {
            roof_from: RoofFrom::Plateau,
            ..t.clone()
        };
        let r = roof_of(&p, &ms, Some(&zen3));
        assert!((r.per_cycle - 125.0).abs() < 1e-9, "{}", r.per_cycle);
        assert_eq!(r.plateau, Some([20 << 10, 24 << 10]));
        assert!(r.flags.is_empty(), "{:?}", r.flags);
        // Above the limit, stolen, drifting, not isolated: each flagged.
        let odd = Outcome {
            steal: 0.3,
            clock_drift: 0.2,
            ..Outcome::steady(140.0)
        }
        .measurement(16 << 10);
        let lone = RoofTask {
            not_isolated: true,
            capped: false,
            sizes: vec![16 << 10],
            ..t
        };
        let r = roof_of(&lone, &[odd], Some(&zen3));
        assert_eq!(
            r.flags,
            [
                Flag::ClockDrift,
                Flag::Steal,
                Flag::NotIsolated,
                Flag::AboveTheoretical
            ]
        );
        // An unknown CPU: no limit, no percentage.
        assert_eq!(roof_of(&task(1), &ms, None).percent_of_theoretical, None);
    }

    #[test]
    fn sizes_that_disagree_are_told_apart_from_agreeing_ones() {
        // Two sizes held at 2/3 of the third.
        assert!((spread(&[42.3, 40.0, 64.4]) - 0.61).abs() < 0.01);
        assert!(spread(&[42.3, 40.0, 64.4]) > Scope::Core.cv_limit());
        // Three sizes within 1%: no flag at any level.
        assert!(spread(&[63.2, 63.7, 63.0]) < Scope::Core.cv_limit());
        assert_eq!(spread(&[5.0]), 0.0);
        assert_eq!(spread(&[]), 0.0);
    }
}
