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
    /// The first size after it, when every larger size fell below it: the
    /// level's effective capacity ends there.
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
    let fell = values[last + 1..]
        .iter()
        .all(|&v| v < value(values, &p) * (1.0 - KNEE_FALL));
    Some(Plateau {
        knee: (last + 1 < n && fell).then_some(last + 1),
        ..p
    })
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
    fn a_knee_at_an_effective_capacity_is_left_out_and_found() {
        // A shared L3 on a busy host: full rate to 7 MiB, then less.
        let v = [118.9, 117.0, 115.3, 98.0, 81.2];
        let p = plateau(&v, 0.05).unwrap();
        assert_eq!((p.first, p.last, p.knee), (0, 2, Some(3)));
        assert!((value(&v, &p) - 117.0).abs() < 1e-9);
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
