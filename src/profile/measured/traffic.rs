//! Which level the traffic comes from (`profile --traffic`): the counting
//! plugin simulates the machine's data caches (`qemu-plugin/src/cache.rs`)
//! from every access, and each point gets the bytes that moved between L1
//! and L2, L2 and L3, L3 and DRAM. Each level's dot is W over that level's
//! bytes, against that level's roof; the dot nearest its roof is the level
//! that bounds the code (Intel Advisor's memory-level roofline).

use crate::error::{Error, Result};
use crate::machine::Machine;
use crate::results::apps::{ReadWrite, Traffic};
use carmbench_counts::Counts;
use carmbench_counts::protocol::{CacheSpec, Geometry};

/// Every how many lines one is simulated by default: the callbacks on
/// every access cost what they cost, the simulation itself an eighth
/// (docs/evidence.md, "Cache traffic").
pub const SAMPLE: u64 = 8;

/// The caches to simulate, as the plugin takes them, and in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Caches {
    /// What the plugin simulates (given in `protocol::CACHE_ENV`).
    pub spec: CacheSpec,
    /// What is simulated, for the apps file and people.
    pub model: String,
}

/// The caches of `m`: its L1d, L2 and L3 (one instance of each: L3 shared
/// by the command's threads), LRU, write-back; an exclusive L3 on AMD (a
/// victim cache), non-inclusive elsewhere. One line in `sample` simulated.
pub fn caches(m: &Machine, sample: u64) -> Result<Caches> {
    if !sample.is_power_of_two() {
        return Err(Error::input(format!(
            "--traffic-sample is {sample}; give a power of two (1 simulates every line)"
        )));
    }
    let level = |d: usize| m.caches.iter().find(|c| c.depth == d);
    let (Some(l1), Some(l2), Some(l3)) = (level(1), level(2), level(3)) else {
        return Err(Error::input(
            "--traffic simulates L1, L2 and L3; this machine's topology has fewer data cache levels",
        ));
    };
    let line = l1.line_bytes.unwrap_or(64);
    // Sampling by line keeps one set in `sample` exact; past the L1's sets
    // every simulated line falls in one set, and the count is a guess. And
    // memory is placed by whole pages (as natively): past a page's lines
    // the lines sampled would move with it.
    let sets =
        (l1.size_bytes / line / u64::from(l1.associativity.filter(|w| *w > 0).unwrap_or(8))).max(1);
    let most = sets.min(carmbench_counts::protocol::PAGE / line).max(1);
    if sample > most {
        return Err(Error::input(format!(
            "--traffic-sample {sample} leaves less than one of the L1d's {sets} sets or of a page's lines simulated; give a power of two of at most {most} (default {SAMPLE}; 1 simulates every line)"
        )));
    }
    // Unknown ways: 8; fully associative (0): every line of the cache.
    let ways = |c: &crate::machine::CacheLevel| match c.associativity {
        Some(0) => (c.size_bytes / line).max(1),
        Some(w) => u64::from(w),
        None => 8,
    };
    let exclusive = m.cpu_vendor.as_deref().is_some_and(|v| v.contains("AMD"));
    let geometry = |c: &crate::machine::CacheLevel| Geometry {
        size: c.size_bytes,
        ways: ways(c) as u32,
    };
    let spec = CacheSpec {
        line,
        levels: [geometry(l1), geometry(l2), geometry(l3)],
        exclusive,
        sample,
    };
    let size = crate::units::human_bytes;
    let model = format!(
        "simulated caches: L1d {} {}-way, L2 {} {}-way, L3 {} {}-way {}, {line}-byte lines, LRU, write-back; {}; no prefetcher simulated",
        size(l1.size_bytes),
        ways(l1),
        size(l2.size_bytes),
        ways(l2),
        size(l3.size_bytes),
        ways(l3),
        if exclusive {
            "exclusive (a victim cache)"
        } else {
            "non-inclusive"
        },
        if sample == 1 {
            "every line".to_string()
        } else {
            format!("one line in {sample}, scaled up")
        }
    );
    Ok(Caches { spec, model })
}

/// The traffic in `c`, when the caches were simulated.
pub fn of(c: &Counts, caches: &Caches) -> Option<Traffic> {
    let (spec, model) = (&caches.spec, &caches.model);
    let rw = |read: u64, write: u64| ReadWrite {
        read: read as f64,
        write: write as f64,
    };
    let t = Traffic {
        l2: rw(c.l2_read, c.l2_write),
        l3: rw(c.l3_read, c.l3_write),
        dram: rw(c.dram_read, c.dram_write),
        hits: [c.l1_hits as f64, c.l2_hits as f64, c.l3_hits as f64],
        model: model.to_string(),
        sample: spec.sample,
        line: spec.line,
        exclusive_l3: Some(spec.exclusive),
    };
    (c.l1_hits + c.l2_read > 0).then_some(t)
}
