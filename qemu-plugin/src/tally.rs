//! The counters of each thread, and of the regions each thread ran, summed
//! at exit. A thread only ever writes its own counters, so its updates are
//! plain loads and stores, without a locked instruction.
//!
//! A thread's totals are its blocks' runs times their counts, made when the
//! counts are written: a block's run costs one increment. Only while a
//! region is open on the thread are its counts also added as they happen,
//! for the region's own sums.

use crate::cache::Private;
use crate::classify::{Array, field};
use crate::process::Process;
use crate::sites::{self, Block, DYNAMIC, Runs};
use crate::solo::Solo;
use carmbench_counts::Output;
use carmbench_counts::protocol::Name;
use std::cell::UnsafeCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// One thread's counters and regions.
pub struct Thread {
    /// What ran while a region was open on this thread (else nothing).
    counts: [AtomicU64; field::N],
    /// How many regions are open on this thread.
    opened: AtomicU32,
    /// Regions open on this thread: number → the counters when each began.
    open: Mutex<HashMap<u64, Vec<Array>>>,
    /// Regions ended on this thread: number → (counts, calls).
    done: Mutex<HashMap<u64, (Array, u64)>>,
    /// How often each block ran on this thread.
    pub runs: Runs,
    /// Which block ran after which on this thread (loops asked for).
    pub edges: crate::edges::Edges,
    /// The block this thread ran last (loops asked for; `u32::MAX`: none).
    pub last: AtomicU32,
    /// The block it ran last as each signal handler still running began.
    pub interrupted: crate::signals::Interrupted,
    /// Its last lookups of where memory is placed (caches asked for).
    pub recent: crate::placement::Recent,
    /// This thread's simulated L1 and L2 (caches asked for).
    private: Own<Option<Private>>,
}

/// State only its own thread touches, in a [`Thread`] others read.
struct Own<T>(UnsafeCell<T>);

// SAFETY: only the owning thread reaches the contents (`Thread::private`).
unsafe impl<T: Send> Sync for Own<T> {}

impl Default for Thread {
    fn default() -> Self {
        Thread {
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
            opened: AtomicU32::new(0),
            open: Mutex::default(),
            done: Mutex::default(),
            runs: Runs::default(),
            edges: crate::edges::Edges::default(),
            last: AtomicU32::new(u32::MAX),
            interrupted: Default::default(),
            recent: Default::default(),
            private: Own(UnsafeCell::new(None)),
        }
    }
}

impl Thread {
    /// Block `id` ran once (only from the thread itself); whether a region
    /// is open, so that the block's counts go to it too ([`Thread::add`]).
    #[inline]
    pub fn ran(&self, id: u32) -> bool {
        self.runs.ran(id);
        self.opened.load(Relaxed) > 0
    }

    /// Add a block's counts, (field, value), for the regions open.
    pub fn add(&self, counts: &[(usize, u64)]) {
        for &(i, v) in counts {
            let a = &self.counts[i];
            a.store(a.load(Relaxed) + v, Relaxed);
        }
    }

    /// An instruction of block `id` added `values` at run time to the
    /// [`DYNAMIC`] counters from the `first`th on (only from the thread
    /// itself).
    #[inline]
    pub fn accessed(&self, id: u32, first: usize, values: &[u64]) {
        self.runs.accessed(id, first, values);
        if self.opened.load(Relaxed) > 0 {
            for (&f, &v) in DYNAMIC[first..].iter().zip(values) {
                let a = &self.counts[f];
                a.store(a.load(Relaxed) + v, Relaxed);
            }
        }
    }

    /// This thread's simulated caches, made by `make` on first use.
    ///
    /// # Safety
    /// Only from the thread itself, and not while a reference an earlier
    /// call returned is alive.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn private(&self, make: impl FnOnce() -> Private) -> &mut Private {
        // SAFETY: see the contract: no other reference exists.
        let p = unsafe { &mut *self.private.0.get() };
        p.get_or_insert_with(make)
    }

    /// The counters regions are measured by.
    fn now(&self) -> Array {
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

    /// Region `id` begins on this thread, `extra` counted elsewhere for it
    /// so far (the inline runs, [`Solo`]).
    fn begin(&self, id: u64, extra: Array) {
        let now = add(self.now(), extra);
        self.open.lock().unwrap().entry(id).or_default().push(now);
        self.opened.store(self.opened.load(Relaxed) + 1, Relaxed);
    }

    /// Region `id` ends on this thread (`extra`: as in `begin`); one not
    /// begun is ignored.
    fn end(&self, id: u64, extra: Array) {
        let Some(start) = self.open.lock().unwrap().get_mut(&id).and_then(Vec::pop) else {
            return;
        };
        self.opened.store(self.opened.load(Relaxed) - 1, Relaxed);
        let now = add(self.now(), extra);
        let mut done = self.done.lock().unwrap();
        let (sum, calls) = done.entry(id).or_insert(([0; field::N], 0));
        for ((s, n), b) in sum.iter_mut().zip(now).zip(start) {
            *s += n - b;
        }
        *calls += 1;
    }
}

/// `a + b`, field by field.
fn add(mut a: Array, b: Array) -> Array {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    a
}

/// Every thread's counters, and the regions' names.
#[derive(Default)]
pub struct Tally {
    /// The runs counted inline while the process had one thread.
    pub solo: Solo<Thread>,
    threads: Mutex<Vec<Arc<Thread>>>,
    names: Mutex<BTreeMap<u64, Name>>,
    /// Every block translated, by id.
    blocks: Mutex<Vec<Block>>,
    /// The file mappings the blocks were found in.
    maps: Mutex<crate::maps::Maps>,
    /// The guest mapped or unmapped memory since the mappings were read.
    remapped: std::sync::atomic::AtomicBool,
    /// Host address less guest address (QEMU's guest base).
    guest_base: std::sync::atomic::AtomicU64,
    /// The length of the `mmap` each vCPU is in, whether it is fixed and
    /// whether anonymous.
    mmapping: Mutex<HashMap<u32, (u64, bool, bool)>>,
    /// The old address and length and the new length of the `mremap` each
    /// vCPU is in (caches asked for).
    remapping: Mutex<HashMap<u32, [u64; 3]>>,
    /// The guest's mappings as Linux would place them (caches asked for).
    pub placement: crate::placement::Placement,
    /// The signal handlers installed (loops asked for).
    pub handlers: crate::signals::Handlers,
    /// The run's windows in time (a timeline asked for).
    pub timeline: Mutex<Option<crate::timeline::Windows>>,
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
        self.solo.restart(self.blocks.lock().unwrap().len());
        if let Some(w) = self.timeline.lock().unwrap().as_mut() {
            w.restart(crate::timeline::monotonic_ns());
        }
    }

    /// A timeline's snapshot at `now_ns`, when one is asked for: the
    /// period to the next.
    ///
    /// The blocks' lock, which translation takes, is held only to copy the
    /// counts of the blocks that ran since the last (never with the
    /// timeline's: the counts file is written holding both, blocks first).
    pub fn snapshot(&self, now_ns: u64) -> Option<u64> {
        static ONE: Mutex<()> = Mutex::new(());
        let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
        self.timeline.lock().unwrap().as_ref()?;
        let n = self.blocks.lock().unwrap().len();
        let threads: Vec<Arc<Thread>> = self.threads.lock().unwrap().clone();
        let runs = (threads.iter().map(|t| &t.runs)).chain([&self.solo.runs]);
        let sums = sites::block_sums(n, runs);
        let changed = self.timeline.lock().unwrap().as_mut()?.changes(sums);
        let counts: Vec<Option<Vec<(usize, u64)>>> = {
            let blocks = self.blocks.lock().unwrap();
            (changed.iter())
                .map(|(id, _)| blocks.get(*id as usize).map(|b| b.counts.clone()))
                .collect()
        };
        let counts: Vec<Option<&[(usize, u64)]>> = counts.iter().map(|c| c.as_deref()).collect();
        let mut timeline = self.timeline.lock().unwrap();
        let w = timeline.as_mut()?;
        w.push(now_ns, &changed, &counts);
        Some(w.period_ns)
    }

    /// What the inline runs add to `t`'s regions (nothing unless they are
    /// its runs).
    fn solo_part(&self, t: &Thread) -> Array {
        let first =
            (self.threads.lock().unwrap().first()).is_some_and(|f| std::ptr::eq(Arc::as_ptr(f), t));
        match self.solo.belongs_to(t, first) {
            true => self.solo.now(&self.blocks.lock().unwrap()),
            false => [0; field::N],
        }
    }

    /// Region `id` begins on thread `t`.
    pub fn begin(&self, t: &Thread, id: u64) {
        t.begin(id, self.solo_part(t));
    }

    /// Region `id` ends on thread `t`; one not begun is ignored.
    pub fn end(&self, t: &Thread, id: u64) {
        t.end(id, self.solo_part(t));
    }

    /// The blocks translated so far, for `f`.
    pub fn with_blocks<T>(&self, f: impl FnOnce(&[Block]) -> T) -> T {
        f(&self.blocks.lock().unwrap())
    }

    /// A block just translated: its id.
    pub fn block(&self, mut b: Block) -> u32 {
        let changed = self
            .remapped
            .swap(false, std::sync::atomic::Ordering::Relaxed);
        b.map = self
            .maps
            .lock()
            .unwrap()
            .place(b.host_address, changed, || {
                std::fs::read_to_string("/proc/self/maps").unwrap_or_default()
            });
        let mut blocks = self.blocks.lock().unwrap();
        blocks.push(b);
        blocks.len() as u32 - 1
    }

    /// A block at guest address `guest` is at `host` here.
    pub fn guest_at(&self, guest: u64, host: u64) {
        (self.guest_base).store(
            host.wrapping_sub(guest),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Where guest address `guest` is in QEMU's own memory.
    pub fn host(&self, guest: u64) -> u64 {
        guest.wrapping_add(self.guest_base.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// `vcpu` asks for `len` bytes of memory, `anonymous` or of a file
    /// (`fixed`: where it says).
    pub fn mmap(&self, vcpu: u32, len: u64, fixed: bool, anonymous: bool) {
        (self.mmapping.lock().unwrap()).insert(vcpu, (len, fixed, anonymous));
    }

    /// `vcpu`'s `mmap` returned `ret`; `placed`: the simulated caches want
    /// it placed (a file's mappings as anonymous ones: mapped again, natively
    /// it takes the hole it left, and its lines are the same).
    pub fn mmap_returned(&self, vcpu: u32, ret: i64, placed: bool) {
        let Some((len, fixed, anonymous)) = self.mmapping.lock().unwrap().remove(&vcpu) else {
            return;
        };
        if ret >= 0 {
            let start = self.host(ret as u64);
            let end = start + len.div_ceil(4096) * 4096;
            if anonymous {
                self.maps.lock().unwrap().mapped_anonymous(start, end);
            }
            if placed {
                self.placement.mapped(ret as u64, len, fixed);
            }
        }
    }

    /// `vcpu` moves `old_len` bytes at `old` to `new_len` bytes.
    pub fn mremap(&self, vcpu: u32, old: u64, old_len: u64, new_len: u64) {
        (self.remapping.lock().unwrap()).insert(vcpu, [old, old_len, new_len]);
    }

    /// `vcpu`'s `mremap` returned `ret`.
    pub fn mremap_returned(&self, vcpu: u32, ret: i64) {
        let Some([old, old_len, new_len]) = self.remapping.lock().unwrap().remove(&vcpu) else {
            return;
        };
        if ret >= 0 {
            (self.placement).remapped(old, old_len, ret as u64, new_len);
        }
    }

    /// The guest unmapped `len` bytes at `guest`.
    pub fn munmap(&self, guest: u64, len: u64) {
        let start = self.host(guest);
        self.maps
            .lock()
            .unwrap()
            .unmapped(start, start.saturating_add(len));
    }

    /// The guest mapped, unmapped or moved memory: the mappings are read
    /// again before the next block is placed.
    pub fn remapped(&self) {
        (self.remapped).store(true, std::sync::atomic::Ordering::Relaxed);
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
        let blocks = self.blocks.lock().unwrap();
        let mut total = [0u64; field::N];
        let mut instructions = Vec::new();
        let mut regions: BTreeMap<u64, (Array, u64)> = BTreeMap::new();
        let solo = self.solo.runs.total(&blocks);
        let mut solo_left = Some(solo);
        for (k, t) in threads.iter().enumerate() {
            let mut mine = t.runs.total(&blocks);
            if self.solo.belongs_to(t, k == 0) {
                mine = add(mine, solo_left.take().unwrap_or([0; field::N]));
            }
            instructions.push(mine[field::INSTRUCTIONS]);
            for (s, x) in total.iter_mut().zip(mine) {
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
        // No thread was made to count (none called back): the one thread.
        if let Some(solo) = solo_left.filter(|s| s[field::INSTRUCTIONS] > 0) {
            instructions.push(solo[field::INSTRUCTIONS]);
            total = add(total, solo);
        }
        let names = self.names.lock().unwrap();
        let maps = self.maps.lock().unwrap();
        let written = sites::sites(
            &blocks,
            (threads.iter().map(|t| (&t.runs, &t.edges)))
                .chain([(&self.solo.runs, &self.solo.edges)]),
            &maps.all,
        );
        let timeline =
            (self.timeline.lock().unwrap().as_ref()).map(|w| w.written(&written.site_of, &blocks));
        Output {
            version: carmbench_counts::VERSION,
            pid: process.pid,
            parent: process.parent,
            program: process.program.clone(),
            skipped: process.skipped.clone(),
            threads: busy(instructions.into_iter()),
            total: carmbench_counts::Counts::from_array(&total),
            regions: regions
                .into_iter()
                .map(|(id, (c, calls))| carmbench_counts::RegionCounts {
                    name: names.get(&id).map(Name::text).unwrap_or_default(),
                    calls,
                    counts: carmbench_counts::Counts::from_array(&c),
                })
                .collect(),
            modules: written.modules,
            sites: written.sites,
            partial: false,
            replaced: process.replaced,
            read_stdin: process.read_stdin,
            edges: written.edges,
            timeline,
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
        let block = vec![(field::DP_FMA, 8), (field::BYTES_LOADED, 64)];
        let id = tally.block(Block {
            counts: block.clone(),
            ..Block::default()
        });
        for (offset, w) in name_parts(b"triad") {
            tally.define(7, offset, w);
        }
        if a.ran(id) {
            a.add(&block);
        }
        tally.begin(&a, 7);
        if a.ran(id) {
            a.add(&block);
        }
        if a.ran(id) {
            a.add(&block);
        }
        // A line from DRAM, at run time, inside the region.
        a.accessed(id, 4 + 4, &[64]);
        tally.end(&a, 7);
        if a.ran(id) {
            a.add(&block);
        }
        tally.begin(&b, 7);
        if b.ran(id) {
            b.add(&block);
        }
        tally.end(&b, 7);
        tally.end(&b, 9);
        let out = tally.output(&Process::default());
        assert_eq!(out.threads, 2);
        assert_eq!(out.total.dp_fma_flops, 40);
        assert_eq!(out.total.dram_read, 64);
        assert_eq!(out.regions.len(), 1);
        let r = &out.regions[0];
        assert_eq!((r.name.as_str(), r.calls), ("triad", 2));
        assert_eq!(r.counts.dp_fma_flops, 24);
        assert_eq!(r.counts.bytes_loaded, 192);
        assert_eq!(r.counts.dram_read, 64);
    }

    #[test]
    fn a_forked_child_counts_from_zero_with_its_one_thread() {
        let tally = Tally::default();
        let (a, b) = (tally.thread(), tally.thread());
        let block = vec![(field::SP_FMA, 4)];
        let id = tally.block(Block {
            counts: block.clone(),
            ..Block::default()
        });
        if a.ran(id) {
            a.add(&block);
        }
        if b.ran(id) {
            b.add(&block);
        }
        tally.begin(&a, 1);
        if a.ran(id) {
            a.add(&block);
        }
        tally.restart(&a);
        if a.ran(id) {
            a.add(&block);
        }
        tally.end(&a, 1);
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
        tally.begin(&t, 1);
        tally.end(&t, 1);
        assert_eq!(
            tally.output(&Process::default()).regions[0].name,
            "a name longer than 24 bysecond part"
        );
    }
}
