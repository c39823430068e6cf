//! The counters of each thread, and of the regions each thread ran, summed
//! at exit. A thread only ever writes its own counters, so its updates are
//! plain loads and stores, without a locked instruction.

use crate::classify::{Array, field};
use crate::process::Process;
use crate::sites::{self, Block, Runs};
use carmbench_counts::Output;
use carmbench_counts::protocol::Name;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// One thread's counters and regions.
pub struct Thread {
    counts: [AtomicU64; field::N],
    /// Regions open on this thread: number → the counters when each began.
    open: Mutex<HashMap<u64, Vec<Array>>>,
    /// Regions ended on this thread: number → (counts, calls).
    done: Mutex<HashMap<u64, (Array, u64)>>,
    /// How often each block ran on this thread.
    pub runs: Runs,
    /// Which block ran after which on this thread (loops asked for).
    pub edges: crate::edges::Edges,
    /// The block this thread ran last (loops asked for; `u32::MAX`: none).
    pub last: std::sync::atomic::AtomicU32,
}

impl Default for Thread {
    fn default() -> Self {
        Thread {
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
            open: Mutex::default(),
            done: Mutex::default(),
            runs: Runs::default(),
            edges: crate::edges::Edges::default(),
            last: std::sync::atomic::AtomicU32::new(u32::MAX),
        }
    }
}

impl Thread {
    /// Add a block's counts (only from the thread itself).
    pub fn add(&self, c: &Array) {
        for (a, b) in self.counts.iter().zip(c) {
            a.store(a.load(Relaxed) + b, Relaxed);
        }
    }

    /// Add the counters given as (field, value) pairs.
    pub fn add_sparse(&self, c: &[(usize, u64)]) {
        for &(i, v) in c {
            let a = &self.counts[i];
            a.store(a.load(Relaxed) + v, Relaxed);
        }
    }

    /// Its counters now.
    pub fn now(&self) -> Array {
        std::array::from_fn(|i| self.counts[i].load(Relaxed))
    }

    /// Back to zero, its open regions beginning now (after a fork: the
    /// child counts only its own work).
    fn restart(&self) {
        for a in &self.counts {
            a.store(0, Relaxed);
        }
        for starts in self.open.lock().unwrap().values_mut() {
            starts.iter_mut().for_each(|s| *s = [0; field::N]);
        }
        self.done.lock().unwrap().clear();
        self.runs.restart();
        self.edges.restart();
    }

    /// Region `id` begins on this thread.
    pub fn begin(&self, id: u64) {
        let now = self.now();
        self.open.lock().unwrap().entry(id).or_default().push(now);
    }

    /// Region `id` ends on this thread; one not begun is ignored.
    pub fn end(&self, id: u64) {
        let Some(start) = self.open.lock().unwrap().get_mut(&id).and_then(Vec::pop) else {
            return;
        };
        let now = self.now();
        let mut done = self.done.lock().unwrap();
        let (sum, calls) = done.entry(id).or_insert(([0; field::N], 0));
        for ((s, n), b) in sum.iter_mut().zip(now).zip(start) {
            *s += n - b;
        }
        *calls += 1;
    }
}

/// Every thread's counters, and the regions' names.
#[derive(Default)]
pub struct Tally {
    threads: Mutex<Vec<Arc<Thread>>>,
    names: Mutex<BTreeMap<u64, Name>>,
    /// Every block translated, by id.
    blocks: Mutex<Vec<Block>>,
}

impl Tally {
    /// A new thread's counters, kept until exit.
    pub fn thread(&self) -> Arc<Thread> {
        let t = Arc::new(Thread::default());
        self.threads.lock().unwrap().push(Arc::clone(&t));
        t
    }

    /// After a fork, in the child: only `me` (the thread that forked) runs
    /// on, from zero; the parent's other threads do not exist here.
    pub fn restart(&self, me: &Thread) {
        let mut threads = self.threads.lock().unwrap();
        threads.retain(|t| std::ptr::eq(Arc::as_ptr(t), me));
        me.restart();
    }

    /// A block just translated: its id.
    pub fn block(&self, b: Block) -> u32 {
        let mut blocks = self.blocks.lock().unwrap();
        blocks.push(b);
        blocks.len() as u32 - 1
    }

    /// Part of a region's name: the words at `offset`.
    pub fn define(&self, id: u64, offset: u64, words: [u64; 3]) {
        self.names
            .lock()
            .unwrap()
            .entry(id)
            .or_default()
            .put(offset, words);
    }

    /// The sums over threads, for `process`.
    pub fn output(&self, process: &Process) -> Output {
        let threads = self.threads.lock().unwrap();
        let mut total = [0u64; field::N];
        let mut regions: BTreeMap<u64, (Array, u64)> = BTreeMap::new();
        for t in threads.iter() {
            for (s, x) in total.iter_mut().zip(t.now()) {
                *s += x;
            }
            for (id, (c, calls)) in t.done.lock().unwrap().iter() {
                let r = regions.entry(*id).or_insert(([0; field::N], 0));
                for (s, x) in r.0.iter_mut().zip(c) {
                    *s += x;
                }
                r.1 += calls;
            }
        }
        let names = self.names.lock().unwrap();
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
        let (modules, sites, edges) = sites::sites(
            &self.blocks.lock().unwrap(),
            threads.iter().map(|t| (&t.runs, &t.edges)),
            &sites::mappings(&maps),
        );
        Output {
            version: carmbench_counts::VERSION,
            pid: process.pid,
            parent: process.parent,
            program: process.program.clone(),
            skipped: process.skipped.clone(),
            threads: busy(threads.iter().map(|t| t.now()[field::INSTRUCTIONS])),
            total: carmbench_counts::Counts::from_array(&total),
            regions: regions
                .into_iter()
                .map(|(id, (c, calls))| carmbench_counts::RegionCounts {
                    name: names.get(&id).map(Name::text).unwrap_or_default(),
                    calls,
                    counts: carmbench_counts::Counts::from_array(&c),
                })
                .collect(),
            modules,
            sites,
            partial: false,
            replaced: process.replaced,
            edges,
        }
    }
}

/// The threads that worked, by their instructions: those with at least
/// 1/[`BUSY`] of the busiest one's (a main thread that only started the
/// workers and waits for them is not one; every thread of an even split is).
fn busy(instructions: impl Iterator<Item = u64>) -> usize {
    let all: Vec<u64> = instructions.collect();
    let most = all.iter().copied().max().unwrap_or(0);
    all.iter().filter(|i| **i * BUSY >= most).count().max(1)
}

/// See [`busy`].
const BUSY: u64 = 20;

#[cfg(test)]
mod tests {
    use super::*;
    use carmbench_counts::protocol::name_parts;

    #[test]
    fn threads_and_regions_sum_exactly() {
        let tally = Tally::default();
        let (a, b) = (tally.thread(), tally.thread());
        let mut block = [0; field::N];
        block[field::DP_FMA] = 8;
        block[field::BYTES_LOADED] = 64;
        for (offset, w) in name_parts(b"triad") {
            tally.define(7, offset, w);
        }
        a.add(&block);
        a.begin(7);
        a.add(&block);
        a.add(&block);
        a.end(7);
        b.begin(7);
        b.add(&block);
        b.end(7);
        b.end(9);
        let out = tally.output(&Process::default());
        assert_eq!(out.threads, 2);
        assert_eq!(out.total.dp_fma_flops, 32);
        assert_eq!(out.regions.len(), 1);
        let r = &out.regions[0];
        assert_eq!((r.name.as_str(), r.calls), ("triad", 2));
        assert_eq!(r.counts.dp_fma_flops, 24);
        assert_eq!(r.counts.bytes_loaded, 192);
    }

    #[test]
    fn a_forked_child_counts_from_zero_with_its_one_thread() {
        let tally = Tally::default();
        let (a, b) = (tally.thread(), tally.thread());
        let mut block = [0; field::N];
        block[field::SP_FMA] = 4;
        a.add(&block);
        b.add(&block);
        a.begin(1);
        a.add(&block);
        tally.restart(&a);
        a.add(&block);
        a.end(1);
        let out = tally.output(&Process::default());
        assert_eq!((out.threads, out.total.sp_fma_flops), (1, 4));
        assert_eq!(out.regions[0].counts.sp_fma_flops, 4);
    }

    #[test]
    fn long_names_arrive_in_parts() {
        let tally = Tally::default();
        let parts = name_parts(b"a name longer than 24 bysecond part");
        for (offset, w) in parts.into_iter().rev() {
            tally.define(1, offset, w);
        }
        let t = tally.thread();
        t.begin(1);
        t.end(1);
        assert_eq!(
            tally.output(&Process::default()).regions[0].name,
            "a name longer than 24 bysecond part"
        );
    }
}
