//! Sizing rule: the per-thread buffer range for each memory level.
//!
//! After Algorithm 1 of LARM (Denoyelle et al., "Modeling Large Compute
//! Nodes with Heterogeneous Memories with Cache-Aware Roofline Model"): a buffer measures level *k* when it
//! no longer fits level *k−1* and still fits level *k*, both counted per
//! thread, i.e. dividing each cache by the benchmark threads that share one
//! instance of it. Threads are placed one per core, in hwloc's logical core
//! order (compact), the same placement `carmbench run` uses.
//!
//! Margins, and why:
//! - **fit**: at most [`FIT_MARGIN`] (75 %) of the per-thread share of level
//!   *k*. Physically indexed caches map pages onto sets unevenly, so a buffer
//!   the size of the cache takes conflict misses well before it is full; the
//!   stack, code and page-table walks also live in the cache.
//! - **spill**: at least [`SPILL_FACTOR`] (2×) the per-thread share of level
//!   *k−1*. Streaming cyclically over twice a cache's capacity misses it on
//!   (nearly) every line even with pseudo-LRU replacement. When 2× does not
//!   leave room under the fit bound, [`SPILL_FACTOR_MIN`] (1.25×) is used; if
//!   even that does not fit, the level cannot be isolated with this many
//!   threads and the range collapses to the fit bound, flagged.
//! - **L1** has no level below: its range is [half, all] of its fit bound, big
//!   enough that loop overhead is negligible.
//! - **DRAM**: [`DRAM_LLC_FACTOR`] (2×) the thread's share of its LLC
//!   instance (the instance over the threads under it), at least
//!   [`DRAM_MIN`]: streaming over twice what a cache can hold misses it on
//!   nearly every line, and the memory curves of the data files are flat from
//!   1.3× the LLC on (docs/methodology.md). Not more: the run's time and
//!   memory then do not grow with the LLC (a 260 MiB L3 took 1-2 GiB
//!   buffers under the earlier 4× rule). Its range spans [`DRAM_SPAN`] (1.5×)
//!   of that and reaches [`DRAM_TOP_MIN`] at least, at most [`DRAM_SIZES`]
//!   sizes: the curve is flat there, and a noisy host's best rate still has
//!   sizes enough to show.
//! - **Memory**: no level's buffers together take more than [`MEM_SHARE`] of
//!   the usable memory (MemAvailable, or the room under the cgroup's limit);
//!   a range that would is cut to the largest size allowed; when even its
//!   smallest size does not fit, it is marked `capped` and its roofs are
//!   flagged.

use super::{CacheLevel, Level, Machine};
use crate::units::human_bytes;
use serde::{Deserialize, Serialize};

/// Share of a level's per-thread capacity a buffer may use.
pub const FIT_MARGIN: f64 = 0.75;
/// Preferred multiple of the lower level's per-thread capacity.
pub const SPILL_FACTOR: f64 = 2.0;
/// Smallest multiple of the lower level's capacity still accepted.
pub const SPILL_FACTOR_MIN: f64 = 1.25;
/// DRAM buffers are this many times the thread's share of its LLC instance.
pub const DRAM_LLC_FACTOR: f64 = 2.0;
/// The DRAM range's largest size over its smallest.
pub const DRAM_SPAN: f64 = 1.5;
/// Most sizes measured at DRAM.
pub const DRAM_SIZES: usize = 4;
/// Share of usable memory the buffers of all threads together may take.
pub const MEM_SHARE: f64 = 0.5;
/// Buffer sizes are multiples of this (bytes).
pub const GRANULE: u64 = 1024;
/// The DRAM range reaches at least this far (the earlier rule's top on a
/// 32 MiB L3): on a shared host the larger sizes read the higher rates.
pub const DRAM_TOP_MIN: u64 = 256 << 20;
/// The smallest DRAM buffer, with or without caches (the earlier rule's on
/// a 32 MiB L3): a pass then lasts several samples, whose rate on a shared
/// host moved more than any size between 64 and 320 MiB did
/// (docs/evidence.md, "DRAM buffers").
pub const DRAM_MIN: u64 = 128 << 20;

/// The per-thread buffer range for one memory level and thread count.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BufferRange {
    /// The level the range measures.
    pub level: Level,
    /// Benchmark threads (one per core).
    pub threads: usize,
    /// Most benchmark threads under one instance of this level (caches).
    pub threads_per_instance: usize,
    /// Per-thread capacity of this level (caches), bytes.
    pub share_bytes: Option<u64>,
    /// Smallest buffer per thread, bytes.
    pub min_bytes: u64,
    /// Largest buffer per thread, bytes.
    pub max_bytes: u64,
    /// False when the level cannot be measured apart from its neighbours.
    pub isolated: bool,
    /// Why the range is not isolated, or what bounded it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
    /// Cut to what memory allows ([`MEM_SHARE`]): smaller than the rule
    /// asks.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub capped: bool,
}

/// The buffer ranges of every level for one thread count.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThreadRanges {
    /// Benchmark threads.
    pub threads: usize,
    /// One range per level, caches then DRAM.
    pub levels: Vec<BufferRange>,
}

/// The ranges of `machine` for each of `counts` threads.
pub fn thread_ranges(machine: &Machine, counts: &[usize]) -> Vec<ThreadRanges> {
    counts
        .iter()
        .map(|&t| ThreadRanges {
            threads: t,
            levels: ranges(machine, t),
        })
        .collect()
}

/// The thread counts a machine's ranges are shown for: 1 and all cores.
pub fn shown_thread_counts(m: &Machine) -> Vec<usize> {
    let mut v = vec![1, m.cores];
    v.dedup();
    v
}

/// The range of `level` among `ranges`.
pub fn range_of(ranges: &[BufferRange], level: Level) -> Option<&BufferRange> {
    ranges.iter().find(|r| r.level == level)
}

/// Most of the first `threads` cores (logical order) that fall in one
/// instance of `level`.
pub fn threads_per_instance(level: &CacheLevel, threads: usize) -> usize {
    let mut counts = std::collections::HashMap::new();
    for inst in level.core_instance.iter().take(threads) {
        *counts.entry(*inst).or_insert(0usize) += 1;
    }
    counts.values().copied().max().unwrap_or(1).max(1)
}

fn down(x: f64) -> u64 {
    ((x / GRANULE as f64).floor() as u64 * GRANULE).max(GRANULE)
}
fn up(x: f64) -> u64 {
    (x / GRANULE as f64).ceil() as u64 * GRANULE
}

/// Buffer ranges for every level (caches then DRAM) with `threads` threads.
/// `threads` is clamped to [1, cores].
pub fn ranges(machine: &Machine, threads: usize) -> Vec<BufferRange> {
    let threads = threads.clamp(1, machine.cores.max(1));
    let mut out = Vec::new();
    let mut below: Option<u64> = None;
    for c in &machine.caches {
        let tpi = threads_per_instance(c, threads);
        let sh = c.size_bytes / tpi as u64;
        let max = down(sh as f64 * FIT_MARGIN);
        let (min, isolated, note) = match below {
            None => (down(max as f64 / 2.0), true, None),
            Some(b) => {
                let want = up(b as f64 * SPILL_FACTOR);
                let least = up(b as f64 * SPILL_FACTOR_MIN);
                if want <= max {
                    (want, true, None)
                } else if least <= max {
                    (
                        least,
                        true,
                        Some(format!(
                            "lower bound is {SPILL_FACTOR_MIN}x the level below (2x does not fit)"
                        )),
                    )
                } else {
                    (
                        max,
                        false,
                        Some(format!(
                            "with {threads} thread(s), {} per thread is not larger than the level below: values mix both levels",
                            human_bytes(sh)
                        )),
                    )
                }
            }
        };
        out.push(cap(
            machine,
            BufferRange {
                level: c.level(),
                threads,
                threads_per_instance: tpi,
                share_bytes: Some(sh),
                min_bytes: min,
                max_bytes: max,
                isolated,
                note,
                capped: false,
            },
        ));
        below = Some(sh);
    }
    out.push(dram_range(machine, threads));
    out
}

/// The most bytes per thread `threads` threads may each take: their share
/// of [`MEM_SHARE`] of the usable memory.
pub fn memory_cap(machine: &Machine, threads: usize) -> u64 {
    down(machine.usable_memory() as f64 * MEM_SHARE / threads.max(1) as f64)
}

/// `r` cut to what memory allows, marked and said so when it was.
fn cap(machine: &Machine, mut r: BufferRange) -> BufferRange {
    let most = memory_cap(machine, r.threads);
    if r.max_bytes <= most {
        return r;
    }
    let wanted = r.min_bytes;
    r.max_bytes = most;
    if wanted <= most {
        // Its smallest size still fits: the range is only narrower.
        return r;
    }
    r.min_bytes = most;
    r.capped = true;
    let said = format!(
        "capped at {} per thread ({}% of the usable memory over {} thread(s)); the rule asks {} or more",
        human_bytes(most),
        (MEM_SHARE * 100.0) as u32,
        r.threads,
        human_bytes(wanted)
    );
    r.note = Some(match r.note.take() {
        Some(n) => format!("{n}; {said}"),
        None => said,
    });
    r
}

/// The DRAM range (see the module notes).
pub fn dram_range(machine: &Machine, threads: usize) -> BufferRange {
    let threads = threads.clamp(1, machine.cores.max(1));
    let min = match machine.llc() {
        Some(llc) => {
            let share = llc.size_bytes as f64 / threads_per_instance(llc, threads) as f64;
            up(share * DRAM_LLC_FACTOR).max(DRAM_MIN)
        }
        None => DRAM_MIN,
    };
    cap(
        machine,
        BufferRange {
            level: Level::Dram,
            threads,
            threads_per_instance: threads,
            share_bytes: None,
            min_bytes: min,
            max_bytes: up(min as f64 * DRAM_SPAN).max(DRAM_TOP_MIN),
            isolated: true,
            note: None,
            capped: false,
        },
    )
}

/// The sizes a level's roof is measured at: `n` over its range, at most
/// [`DRAM_SIZES`] at DRAM (its curve is flat).
pub fn sizes_for(r: &BufferRange, n: usize) -> Vec<u64> {
    let n = if r.level.is_memory() {
        n.min(DRAM_SIZES)
    } else {
        n
    };
    sizes_in_range(r, n)
}

/// The size halfway between `a` and `b` on a log scale.
pub fn geometric_middle(a: u64, b: u64) -> u64 {
    down((a as f64 * b as f64).sqrt())
}

/// The memory curve's largest step from one size to the next.
pub const CURVE_STEP: f64 = 2.0;

/// The sizes between the range of a level (`below`) and the next level's
/// (`above`), spaced evenly in log so that no step exceeds [`CURVE_STEP`]:
/// with them the memory curve shows where one level ends and the next
/// begins.
pub fn between(below: &BufferRange, above: &BufferRange) -> Vec<u64> {
    let (lo, hi) = (below.max_bytes as f64, above.min_bytes as f64);
    if hi <= lo {
        return Vec::new();
    }
    let steps = ((hi / lo).ln() / CURVE_STEP.ln()).ceil().max(1.0) as i32;
    (1..steps)
        .map(|i| down(lo * (hi / lo).powf(f64::from(i) / f64::from(steps))))
        .collect()
}

/// The level that holds a buffer of `bytes` per thread: the first cache
/// whose per-thread share is as large, else DRAM.
pub fn holding(ranges: &[BufferRange], bytes: u64) -> Level {
    ranges
        .iter()
        .find(|r| r.share_bytes.is_some_and(|s| s >= bytes))
        .map_or(Level::Dram, |r| r.level)
}

/// `n` sizes spread geometrically over `[min, max]`, multiples of `GRANULE`.
pub fn sizes_in_range(r: &BufferRange, n: usize) -> Vec<u64> {
    let n = n.max(1);
    if n == 1 || r.max_bytes <= r.min_bytes {
        return vec![down(((r.min_bytes as f64) * (r.max_bytes as f64)).sqrt())];
    }
    let ratio = (r.max_bytes as f64 / r.min_bytes as f64).powf(1.0 / (n - 1) as f64);
    let mut v: Vec<u64> = (0..n)
        .map(|i| match i {
            0 => r.min_bytes,
            i if i == n - 1 => r.max_bytes,
            i => down(r.min_bytes as f64 * ratio.powi(i as i32)).clamp(r.min_bytes, r.max_bytes),
        })
        .collect();
    v.dedup();
    v
}
