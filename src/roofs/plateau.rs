//! Which of a level's sizes its roof comes from.
//!
//! A level's roof is meant to be what the level can deliver: the upper
//! bound for code whose data lives there. Within a level's range the rate
//! can still change with the size (a cache's prefetchers or its replacement
//! working better at some sizes; a shared cache holding less than hwloc says
//! once other cores and guests use it), so the roof is the best rate that
//! adjacent sizes *hold*: of each pair of neighbouring sizes the slower, the
//! best such pair, widened to the neighbours within the level's CV limit
//! (across one slower size between two that hold it: one size's bad luck).
//! One lucky size cannot make a roof; a cliff or a knee in the range does
//! not pull the roof down to a median of both sides. LARM takes the median
//! of the sizes instead (`roof_from: median`).

use crate::measure::stats::median;

/// How far below the plateau the sizes after it must fall for a knee: a
/// gentle slope past the plateau is not a level running out of room.
pub const KNEE_FALL: f64 = 0.10;

/// The sizes a roof comes from, by index into the level's sizes (sorted by
/// size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plateau {
    /// First size of the plateau.
    pub first: usize,
    /// Last size of the plateau.
    pub last: usize,
    /// The first size after it from which every larger size runs
    /// [`KNEE_FALL`] or more below it: the level's effective capacity ends
    /// there.
    pub knee: Option<usize>,
    /// Sizes apart from the plateau, with slower sizes between, reach it
    /// too: the sizes disagree (other work slowed some of them).
    pub split: bool,
    /// The lowest rate that holds the plateau; sizes inside it below this
    /// (one at a time) are left out of its value.
    pub floor: f64,
}

impl Plateau {
    /// The indices of its sizes.
    pub fn range(&self) -> std::ops::RangeInclusive<usize> {
        self.first..=self.last
    }
}

/// The plateau of `values` (one per size, sorted by size, in a unit that
/// does not follow the clock: per cycle), with `tol` the level's CV limit;
/// `None` without values.
pub fn plateau(values: &[f64], tol: f64) -> Option<Plateau> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    // The best rate a pair of neighbours holds (one size alone holds its own).
    let pair = |i: usize| values[i].min(values[(i + 1).min(n - 1)]);
    let (mut best, mut held) = (0, pair(0));
    for i in 1..n.saturating_sub(1) {
        if pair(i) > held {
            (best, held) = (i, pair(i));
        }
    }
    let floor = held * (1.0 - tol);
    let holds = |k: usize| values[k] >= floor;
    let (mut first, mut last) = (best, (best + 1).min(n - 1));
    loop {
        if first > 0 && holds(first - 1) {
            first -= 1;
        } else if first > 1 && holds(first - 2) {
            first -= 2;
        } else {
            break;
        }
    }
    loop {
        if last + 1 < n && holds(last + 1) {
            last += 1;
        } else if last + 2 < n && holds(last + 2) {
            last += 2;
        } else {
            break;
        }
    }
    let split = (0..first).chain(last + 1..n).any(holds);
    let p = Plateau {
        first,
        last,
        knee: None,
        split,
        floor,
    };
    let cut = value(values, &p) * (1.0 - KNEE_FALL);
    let knee = (last + 1..n).find(|&k| values[k..].iter().all(|&v| v < cut));
    Some(Plateau { knee, ..p })
}

/// Fewer sizes than this in a plateau, of at least [`REFINE_FROM`] sizes,
/// ask for more sizes around it ([`refine`]).
pub const SHORT: usize = 3;

/// Levels measured at fewer sizes (`--quick`) are not refined.
pub const REFINE_FROM: usize = 4;

/// Sizes to measure around a short plateau: the geometric middle of each
/// pair of neighbouring sizes from the one before it to the one after it.
/// A rate that holds over less than a step of the sizes (Zen 5's L2 loads
/// at 512-640 KiB, a step of 1.5 x) then gets two sizes of its own, so the
/// roof is what the level sustains there rather than the slower of its
/// neighbours. `sizes` are ascending, one per value the plateau came from.
pub fn refine(sizes: &[u64], p: &Plateau) -> Vec<u64> {
    let n = sizes.len();
    if n < REFINE_FROM || p.last - p.first + 1 >= SHORT {
        return Vec::new();
    }
    let (lo, hi) = (p.first.saturating_sub(1), (p.last + 1).min(n - 1));
    let mut out: Vec<u64> = (lo..hi)
        .map(|i| crate::machine::sizing::geometric_middle(sizes[i], sizes[i + 1]))
        .filter(|s| !sizes.contains(s))
        .collect();
    out.dedup();
    out
}

/// The value of a roof over `values`: the median of its plateau's values
/// that hold it.
pub fn value(values: &[f64], p: &Plateau) -> f64 {
    let held: Vec<f64> = values[p.range()]
        .iter()
        .copied()
        .filter(|&v| v >= p.floor)
        .collect();
    median(&held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cliff_inside_the_range_gives_the_high_side() {
        // Zen 5 L2, AVX-512 loads, B/cycle at 96 to 896 KiB: 46-48 below
        // 384 KiB, 60-61 at 512-640 KiB, 57 at 768 KiB.
        let v = [46.9, 46.7, 47.7, 60.3, 61.3, 57.1];
        let p = plateau(&v, 0.03).unwrap();
        assert_eq!((p.first, p.last), (3, 4));
        assert!((value(&v, &p) - 60.8).abs() < 1e-9);
        // The size after the plateau is 6 % below it: neither a knee nor a
        // disagreement.
        assert_eq!(p.knee, None);
        assert!(!p.split);
    }

    #[test]
    fn a_plateau_narrower_than_a_step_gets_sizes_of_its_own() {
        // Zen 5 L2 loads at the 6 sizes of its range: only 507 KiB falls in
        // the 512-640 KiB window; the best pair holds the 768 KiB rate.
        let k = |x: u64| x << 10;
        let sizes = [k(96), k(145), k(220), k(334), k(507), k(768)];
        let v = [46.9, 46.7, 47.7, 47.5, 60.3, 57.1];
        let p = plateau(&v, 0.03).unwrap();
        assert_eq!((p.first, p.last), (4, 5));
        let more = refine(&sizes, &p);
        assert_eq!(more, [k(411), k(624)]);
        // Measured there (411 KiB: still below the cliff; 624: 61.0), the
        // plateau is the two sizes inside the window.
        let sizes = [
            k(96),
            k(145),
            k(220),
            k(334),
            k(411),
            k(507),
            k(624),
            k(768),
        ];
        let v = [46.9, 46.7, 47.7, 47.5, 48.0, 60.3, 61.0, 57.1];
        let p = plateau(&v, 0.03).unwrap();
        assert_eq!((p.first, p.last), (5, 6));
        assert!((value(&v, &p) - 60.65).abs() < 1e-9);
        // Two sizes, or a plateau of three: nothing to refine.
        assert!(refine(&sizes[..2], &plateau(&v[..2], 0.03).unwrap()).is_empty());
        let flat = [63.2, 63.7, 63.0, 63.5];
        assert!(refine(&sizes[..4], &plateau(&flat, 0.03).unwrap()).is_empty());
    }

    #[test]
    fn a_knee_at_an_effective_capacity_is_left_out_and_found() {
        // A shared L3 on a busy host: full rate to 7 MiB, then less.
        let v = [118.9, 117.0, 115.3, 98.0, 81.2];
        let p = plateau(&v, 0.05).unwrap();
        assert_eq!((p.first, p.last, p.knee), (0, 2, Some(3)));
        assert!((value(&v, &p) - 117.0).abs() < 1e-9);
        // A size a little below, then the fall: the knee is where it falls.
        let v = [54.1, 54.2, 54.2, 54.0, 50.0, 30.3];
        let p = plateau(&v, 0.05).unwrap();
        assert_eq!((p.last, p.knee), (3, Some(5)));
        // A gentle slope past the plateau is no knee.
        let v = [28.5, 28.3, 27.0, 27.4, 26.5, 26.0];
        let p = plateau(&v, 0.03).unwrap();
        assert_eq!((p.first, p.last, p.knee), (0, 1, None));
    }

    #[test]
    fn one_noisy_spike_is_not_a_roof() {
        let v = [30.0, 30.2, 45.0, 29.9, 30.1];
        let p = plateau(&v, 0.03).unwrap();
        assert!(value(&v, &p) < 31.0, "{p:?}");
        assert!(!p.split);
        // A spike at an end of the range neither.
        let v = [30.0, 30.1, 29.9, 50.0];
        let p = plateau(&v, 0.03).unwrap();
        assert!(value(&v, &p) < 31.0, "{p:?}");
    }

    #[test]
    fn a_flat_level_is_all_plateau() {
        let v = [63.2, 63.7, 63.0, 63.5, 63.1, 63.6];
        let p = plateau(&v, 0.03).unwrap();
        assert_eq!((p.first, p.last, p.knee, p.split), (0, 5, None, false));
        // One slow size inside is bridged and left out of the value.
        let v = [63.2, 63.7, 55.0, 63.5, 63.1, 63.6];
        let p = plateau(&v, 0.03).unwrap();
        assert_eq!((p.first, p.last, p.knee, p.split), (0, 5, None, false));
        assert!((value(&v, &p) - 63.5).abs() < 1e-9);
        assert_eq!(plateau(&[5.0], 0.03).unwrap().range(), 0..=0);
        assert!(plateau(&[], 0.03).is_none());
    }

    #[test]
    fn a_dip_between_two_runs_at_the_roof_is_a_disagreement() {
        // Two sizes slowed by other work in the middle of a flat level.
        let v = [64.0, 63.8, 40.0, 41.0, 63.9, 64.1];
        let p = plateau(&v, 0.03).unwrap();
        assert!(p.split && p.knee.is_none(), "{p:?}");
        assert!((value(&v, &p) - 64.0).abs() < 0.2);
    }
}
