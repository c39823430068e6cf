//! The run in windows of time, for `profile --timeline`: a thread of the
//! plugin's own takes a snapshot of every block's runs on a timer, and a
//! window is what ran between two snapshots (its counts, and its runs per
//! block for the functions that ran in it).
//!
//! The timer knows nothing of the run's length, so the windows halve as
//! they pile up: with twice the windows asked for, the neighbours with the
//! fewest instructions are joined until half are left, and the timer's
//! period doubles, up to a limit. A run of any length ends with between the
//! number asked and twice that, even in instructions where the timer
//! allows, and a snapshot costs a pass over the blocks that ran, never a
//! callback per run.

use crate::classify::{Array, field};
use crate::sites::{Block, BlockTally, DYNAMIC};
use carmbench_counts::{Counts, Timeline, Window};
use std::collections::{BTreeMap, HashMap};

/// The timer's first period, nanoseconds: fine enough that a short run
/// still has its windows (a run of 1 s has 400 before any halving).
pub const FIRST_PERIOD_NS: u64 = 2_500_000;

/// The timer's longest period, nanoseconds: code QEMU runs fast (a sort,
/// a copy) still gets windows of its own late in a long run; a snapshot
/// costs a pass over the blocks that ran since the last.
pub const MOST_PERIOD_NS: u64 = 4 * FIRST_PERIOD_NS;

/// Two windows do alike work when their flops and bytes per instruction
/// are each within this factor (the phase rule's own, in carmbench).
pub const ALIKE: f64 = 2.0;

/// Two neighbouring windows as [`Windows::halve`] orders them: (whether
/// they do unlike work, their instructions), the first's index, the
/// second's.
type Pair = ((bool, u64), usize, usize);

/// One window as the plugin keeps it: its end, its counts and its runs per
/// block (id, runs), by id.
#[derive(Debug, Clone, PartialEq)]
pub struct Taken {
    pub end_ns: u64,
    pub counts: Array,
    pub runs: Vec<(u32, u64)>,
}

impl Taken {
    /// Whether this window and `b` do alike work: flops and bytes per
    /// instruction each within a factor [`ALIKE`] (below one in a hundred
    /// instructions, none).
    fn alike(&self, b: &Taken) -> bool {
        let per = |t: &Taken| {
            let c = Counts::from_array(&t.counts);
            let n = t.counts[field::INSTRUCTIONS].max(1) as f64;
            [c.flops() as f64 / n, c.bytes() as f64 / n].map(|x| if x < 0.01 { 0.0 } else { x })
        };
        let (x, y) = (per(self), per(b));
        x.iter().zip(y).all(|(p, q)| {
            let (lo, hi) = (p.min(q), p.max(q));
            hi == 0.0 || lo > 0.0 && hi <= ALIKE * lo
        })
    }

    /// `b`, the window after this one, joined to it.
    fn join(&mut self, b: &Taken) {
        self.end_ns = b.end_ns;
        self.counts
            .iter_mut()
            .zip(b.counts)
            .for_each(|(x, y)| *x += y);
        let mut runs: BTreeMap<u32, u64> = std::mem::take(&mut self.runs).into_iter().collect();
        (b.runs.iter()).for_each(|&(id, n)| *runs.entry(id).or_default() += n);
        self.runs = runs.into_iter().collect();
    }
}

/// The windows of one process so far.
#[derive(Debug)]
pub struct Windows {
    /// The fewest windows kept.
    keep: usize,
    /// The timer's period now, nanoseconds.
    pub period_ns: u64,
    start_ns: u64,
    /// Every block's runs and dynamic counts, over threads, at the last
    /// snapshot.
    last: HashMap<u32, BlockTally>,
    taken: Vec<Taken>,
}

impl Windows {
    /// No window yet; counting began at `start_ns`; at least `keep` kept.
    pub fn new(keep: usize, start_ns: u64) -> Windows {
        Windows {
            keep: keep.max(1),
            period_ns: FIRST_PERIOD_NS,
            start_ns,
            last: HashMap::new(),
            taken: Vec::new(),
        }
    }

    /// A snapshot at `now_ns`: `now` is every block's sums over threads
    /// (runs, then the [`DYNAMIC`] counters), `blocks` what each run counts.
    pub fn take(&mut self, now_ns: u64, now: BTreeMap<u32, BlockTally>, blocks: &[Block]) {
        let changed = self.changes(now);
        let counts: Vec<Option<&[(usize, u64)]>> = (changed.iter())
            .map(|(id, _)| blocks.get(*id as usize).map(|b| &b.counts[..]))
            .collect();
        self.push(now_ns, &changed, &counts);
    }

    /// What changed since the last snapshot: each block's deltas (by id),
    /// `now` taken as the last. The first half of [`Windows::take`], which
    /// needs no block's counts (the translating threads hold them).
    pub fn changes(&mut self, now: BTreeMap<u32, BlockTally>) -> Vec<(u32, BlockTally)> {
        let mut out = Vec::new();
        for (id, v) in now {
            let before = self.last.insert(id, v).unwrap_or_default();
            let d: BlockTally = std::array::from_fn(|k| v[k].saturating_sub(before[k]));
            if d.iter().any(|&x| x > 0) {
                out.push((id, d));
            }
        }
        out
    }

    /// The second half: the window of `changed`, ending at `now_ns`, each
    /// block's counts per run in `counts` (in `changed`'s order).
    pub fn push(
        &mut self,
        now_ns: u64,
        changed: &[(u32, BlockTally)],
        counts: &[Option<&[(usize, u64)]>],
    ) {
        let mut w = Taken {
            end_ns: now_ns.max(self.taken.last().map_or(self.start_ns, |t| t.end_ns)),
            counts: [0; field::N],
            runs: Vec::new(),
        };
        for ((id, d), c) in changed.iter().zip(counts) {
            c.iter()
                .flat_map(|c| c.iter())
                .for_each(|&(f, x)| w.counts[f] += x * d[0]);
            DYNAMIC
                .iter()
                .zip(&d[1..])
                .for_each(|(&f, x)| w.counts[f] += x);
            if d[0] > 0 {
                w.runs.push((*id, d[0]));
            }
        }
        self.taken.push(w);
        if self.taken.len() >= 2 * self.keep {
            self.halve();
        }
    }

    /// Half the windows joined into their neighbours, the pair with the
    /// fewest instructions first, and the period doubled (to at most
    /// [`MOST_PERIOD_NS`]). Windows even in instructions are nearer even in
    /// native time than windows even in emulated time: QEMU runs some code
    /// a hundred times slower than the rest (numpy's dgemm), the CPU far
    /// less unevenly, and the native run's time is the one shown.
    fn halve(&mut self) {
        use std::cmp::Reverse;
        let size = |t: &Option<Taken>| t.as_ref().map_or(0, |t| t.counts[field::INSTRUCTIONS]);
        // A pair that does unlike work is joined last: one window across a
        // change of step blurs both sides.
        let key = |a: &Option<Taken>, b: &Option<Taken>| match (a, b) {
            (Some(x), Some(y)) => (!x.alike(y), size(a) + size(b)),
            _ => (true, u64::MAX),
        };
        let mut alive: Vec<Option<Taken>> = std::mem::take(&mut self.taken)
            .into_iter()
            .map(Some)
            .collect();
        let n = alive.len();
        // Each window's neighbours (n: none) and the pairs by their size.
        let (mut prev, mut next): (Vec<usize>, Vec<usize>) = (0..n)
            .map(|k| (k.checked_sub(1).unwrap_or(n), k + 1))
            .unzip();
        let mut pairs: std::collections::BinaryHeap<Reverse<Pair>> = (1..n)
            .map(|k| Reverse((key(&alive[k - 1], &alive[k]), k - 1, k)))
            .collect();
        let mut left = n;
        while left > self.keep {
            let Some(Reverse((s, a, b))) = pairs.pop() else {
                break;
            };
            // A pair since joined to another is stale.
            if next[a] != b || alive[b].is_none() || key(&alive[a], &alive[b]) != s {
                continue;
            }
            let joined = alive[b].take().expect("alive");
            if let Some(w) = alive[a].as_mut() {
                w.join(&joined);
            }
            next[a] = next[b];
            if next[b] < n {
                prev[next[b]] = a;
            }
            left -= 1;
            for (x, y) in [(prev[a], a), (a, next[a])] {
                if x < n && y < n {
                    pairs.push(Reverse((key(&alive[x], &alive[y]), x, y)));
                }
            }
        }
        self.taken = alive.into_iter().flatten().collect();
        self.period_ns = self.period_ns.saturating_mul(2).min(MOST_PERIOD_NS);
    }

    /// In a forked child: its own windows from `now_ns`, from zero.
    pub fn restart(&mut self, now_ns: u64) {
        self.start_ns = now_ns;
        self.last.clear();
        self.taken.clear();
    }

    /// The windows as written: each block's runs as instructions at its
    /// site (`site_of`: block id to index in the written sites).
    pub fn written(&self, site_of: &HashMap<u32, u32>, blocks: &[Block]) -> Timeline {
        let windows = (self.taken.iter())
            .map(|t| {
                let mut at: BTreeMap<u32, u64> = BTreeMap::new();
                for &(id, runs) in &t.runs {
                    let (Some(&site), Some(b)) = (site_of.get(&id), blocks.get(id as usize)) else {
                        continue;
                    };
                    let per_run = (b.counts.iter())
                        .find(|(f, _)| *f == field::INSTRUCTIONS)
                        .map_or(0, |x| x.1);
                    *at.entry(site).or_default() += per_run * runs;
                }
                Window {
                    end_ns: t.end_ns,
                    counts: Counts::from_array(&t.counts),
                    sites: at.into_iter().filter(|x| x.1 > 0).collect(),
                }
            })
            .collect();
        Timeline {
            start_ns: self.start_ns,
            windows,
        }
    }
}

/// The host's `CLOCK_MONOTONIC` now, nanoseconds (the clock carmbench's
/// native samples are stamped with).
pub fn monotonic_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: fills the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(fma: u64) -> Block {
        Block {
            counts: vec![(field::INSTRUCTIONS, 3), (field::DP_FMA, fma)],
            ..Block::default()
        }
    }

    fn runs(pairs: &[(u32, u64)]) -> BTreeMap<u32, BlockTally> {
        (pairs.iter())
            .map(|&(id, n)| {
                let mut t: BlockTally = [0; DYNAMIC.len() + 1];
                t[0] = n;
                t[1] = n * 2;
                (id, t)
            })
            .collect()
    }

    #[test]
    fn windows_are_what_ran_between_snapshots_and_add_up_to_the_whole() {
        let blocks = vec![block(4), block(8)];
        let mut w = Windows::new(2, 100);
        w.take(200, runs(&[(0, 10)]), &blocks);
        w.take(300, runs(&[(0, 10), (1, 5)]), &blocks);
        assert_eq!(w.taken.len(), 2);
        assert_eq!(w.taken[0].counts[field::DP_FMA], 40);
        assert_eq!(
            w.taken[1].counts[field::DP_FMA],
            40,
            "only block 1's 5 runs"
        );
        assert_eq!(w.taken[1].runs, vec![(1, 5)]);
        // The dynamic counters' deltas: block 0's loads stayed, block 1's came.
        assert_eq!(w.taken[1].counts[DYNAMIC[0]], 10);
        // Four windows of two kept (30, 15, 6 and 12 instructions): the
        // pair with the fewest instructions joined first (the last two), then
        // again (the second with them), the period doubled.
        w.take(400, runs(&[(0, 12), (1, 5)]), &blocks);
        w.take(500, runs(&[(0, 12), (1, 9)]), &blocks);
        assert_eq!(w.taken.len(), 2);
        assert_eq!(w.period_ns, 2 * FIRST_PERIOD_NS);
        assert_eq!(w.taken[0].end_ns, 200);
        assert_eq!(w.taken[1].end_ns, 500);
        assert_eq!(w.taken[1].runs, vec![(0, 2), (1, 9)]);
        let fma: u64 = w.taken.iter().map(|t| t.counts[field::DP_FMA]).sum();
        assert_eq!(
            fma,
            12 * 4 + 9 * 8,
            "the windows add up to the runs' counts"
        );
        let site_of = HashMap::from([(0, 7), (1, 7)]);
        let t = w.written(&site_of, &blocks);
        assert_eq!(t.start_ns, 100);
        assert_eq!(t.windows[1].sites, vec![(7, 3 * 11)]);
        assert_eq!(t.windows[0].counts.dp_fma_flops, 40);
        w.restart(900);
        assert!(w.written(&site_of, &blocks).windows.is_empty());
    }

    #[test]
    fn windows_across_a_change_of_work_are_joined_last() {
        // FMA work in 10 runs, then 1; then 1 run of plain work, then 10:
        // the two small windows, though the smallest pair, do unlike work.
        let blocks = vec![block(4), block(0)];
        let mut w = Windows::new(2, 0);
        let mut now = [(0, 0), (1, 0)];
        for (k, (id, n)) in [(0, 10), (0, 1), (1, 1), (1, 10)].into_iter().enumerate() {
            now[id as usize].1 += n;
            w.take(10 * (k as u64 + 1), runs(&now), &blocks);
        }
        assert_eq!(w.taken.len(), 2);
        assert_eq!(w.taken[0].runs, vec![(0, 11)]);
        assert_eq!(w.taken[1].runs, vec![(1, 11)]);
    }

    #[test]
    fn a_window_never_ends_before_the_one_before_it() {
        let mut w = Windows::new(8, 1000);
        w.take(500, runs(&[]), &[]);
        assert_eq!(w.taken[0].end_ns, 1000);
        assert!(monotonic_ns() > 0);
    }
}
