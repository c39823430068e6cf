//! Where the counts came from: how often each translated block ran on each
//! thread, and which file (and offset in it) each block's code came from,
//! so that carmbench can give every function its own point.
//!
//! Counting a block's runs costs one store per run into the thread's own
//! array (no locked instruction, no lookup); the sums per block are made
//! once, when the counts are written. A block is found in its file through
//! the host address of its first instruction and `/proc/self/maps`: under
//! `qemu-user` the guest's files are mapped by the host, by name.

use crate::classify::field;
use crate::edges::Edges;
use crate::maps::Mapping;
use carmbench_counts::{Counts, Edge, End, Site, TRAFFIC};
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering::Relaxed};

/// The counters an instruction's memory callbacks add at run time: its
/// block's are fixed when it is translated, these are not (the accesses
/// whose bytes depend on run-time state, and the simulated caches' traffic).
pub const DYNAMIC: [usize; D] = {
    let access = [
        field::LOADS,
        field::STORES,
        field::BYTES_LOADED,
        field::BYTES_STORED,
    ];
    let mut d = [0; D];
    let mut k = 0;
    while k < D {
        d[k] = if k < 4 { access[k] } else { TRAFFIC[k - 4] };
        k += 1;
    }
    d
};

/// Where the traffic's counters begin in [`DYNAMIC`].
pub const TRAFFIC_AT: usize = 4;

/// Where the L1 hits are in [`DYNAMIC`].
pub const L1_HITS: usize = TRAFFIC_AT + 6;

/// How many [`DYNAMIC`] counters: the accesses' four, then the traffic's.
pub const D: usize = 4 + TRAFFIC.len();

/// A block's runs, then its [`DYNAMIC`] counters.
pub type BlockTally = [u64; D + 1];
type Tally = BlockTally;

/// Blocks a thread counts in its array; later ones (a very long run that
/// translates over a million blocks) go to a map.
const CAP: usize = 1 << 20;

/// A block's runs on one thread, and what its memory callbacks added;
/// with loops asked for, the two blocks that most often ran after it (an
/// id plus one, 0 for none) and how often: most blocks end in a branch of
/// two ways, so the pairs seldom go further (to [`Edges`]).
#[derive(Default)]
#[repr(C)]
struct Slot {
    dynamic: [AtomicU64; D],
    next: [AtomicU32; 2],
    next_runs: [AtomicU64; 2],
}

/// One thread's counters per block: the runs in an array of their own (a
/// block's run touches 8 bytes, blocks that run together share lines), the
/// rest in an array of slots; a million of each, from the allocator's
/// zeroed pages, so only the pages of blocks that ran take memory.
pub struct Runs {
    runs: AtomicPtr<AtomicU64>,
    slots: AtomicPtr<Slot>,
    more: Mutex<HashMap<u32, Tally>>,
}

fn layout<T>() -> Layout {
    Layout::array::<T>(CAP).expect("a fixed, valid layout")
}

/// A zeroed array of [`CAP`] `T`s.
fn zeroed<T>() -> *mut T {
    // SAFETY: a non-zero size; all-zero bytes are valid atomics.
    unsafe { alloc_zeroed(layout::<T>()) }.cast::<T>()
}

/// Give back an array [`zeroed`] made (null: none).
fn free<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { dealloc(p.cast(), layout::<T>()) };
    }
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            runs: AtomicPtr::new(zeroed()),
            slots: AtomicPtr::new(zeroed()),
            more: Mutex::default(),
        }
    }
}

impl Drop for Runs {
    fn drop(&mut self) {
        free(*self.runs.get_mut());
        free(*self.slots.get_mut());
    }
}

impl Runs {
    fn slot(&self, id: u32) -> Option<&Slot> {
        let p = self.slots.load(Relaxed);
        // SAFETY: within the array, which lives as long as self.
        (!p.is_null() && (id as usize) < CAP).then(|| unsafe { &*p.add(id as usize) })
    }

    fn runs_of(&self, id: u32) -> Option<&AtomicU64> {
        let p = self.runs.load(Relaxed);
        // SAFETY: as in `slot`.
        (!p.is_null() && (id as usize) < CAP).then(|| unsafe { &*p.add(id as usize) })
    }

    fn add_more(&self, id: u32, k: usize, v: u64) {
        let mut more = self.more.lock().unwrap_or_else(|e| e.into_inner());
        more.entry(id).or_default()[k] += v;
    }

    /// The address of block `id`'s runs, for QEMU's inline adds.
    pub fn counter(&self, id: u32) -> Option<*mut u64> {
        self.runs_of(id).map(AtomicU64::as_ptr)
    }

    /// The runs of the first `n` blocks back to zero, where they are.
    pub fn zero(&self, n: usize) {
        for id in 0..n.min(CAP) as u32 {
            if let Some(r) = self.runs_of(id) {
                r.store(0, Relaxed);
            }
        }
    }

    /// Block `id` ran once (only from the thread itself).
    pub fn ran(&self, id: u32) {
        match self.runs_of(id) {
            Some(r) => r.store(r.load(Relaxed) + 1, Relaxed),
            None => self.add_more(id, 0, 1),
        }
    }

    /// Block `to` ran right after block `from` (only from the thread
    /// itself): counted in `from`'s slot, else in `edges`.
    pub fn followed(&self, from: u32, to: u32, edges: &Edges) {
        if let Some(s) = self.slot(from) {
            for k in 0..2 {
                match s.next[k].load(Relaxed) {
                    x if x == to + 1 => {
                        let n = &s.next_runs[k];
                        n.store(n.load(Relaxed) + 1, Relaxed);
                        return;
                    }
                    0 => {
                        s.next_runs[k].store(1, Relaxed);
                        s.next[k].store(to + 1, Relaxed);
                        return;
                    }
                    _ => {}
                }
            }
        }
        edges.add(from, to);
    }

    /// The pairs counted in the slots: (from, to, count).
    fn each_next(&self, blocks: usize, mut f: impl FnMut(u32, u32, u64)) {
        for id in 0..blocks.min(CAP) as u32 {
            let Some(s) = self.slot(id) else { break };
            for k in 0..2 {
                match s.next[k].load(Relaxed) {
                    0 => break,
                    to => f(id, to - 1, s.next_runs[k].load(Relaxed)),
                }
            }
        }
    }

    /// An instruction of block `id` added `values` at run time to the
    /// [`DYNAMIC`] counters from the `first`th on.
    #[inline]
    pub fn accessed(&self, id: u32, first: usize, values: &[u64]) {
        match self.slot(id) {
            Some(s) => {
                for (a, &v) in s.dynamic[first..].iter().zip(values) {
                    a.store(a.load(Relaxed) + v, Relaxed);
                }
            }
            None => {
                (values.iter().enumerate()).for_each(|(k, &v)| self.add_more(id, first + k + 1, v))
            }
        }
    }

    /// This thread's counts: each block's runs times its counts, plus what
    /// its memory callbacks added.
    pub fn total(&self, blocks: &[Block]) -> [u64; field::N] {
        let mut c = [0; field::N];
        self.each(blocks.len(), |id, v| {
            let Some(b) = blocks.get(id as usize) else {
                return;
            };
            b.counts.iter().for_each(|&(f, x)| c[f] += x * v[0]);
            DYNAMIC.iter().zip(&v[1..]).for_each(|(&f, x)| c[f] += x);
        });
        c
    }

    /// Runs and dynamic counts of every block that ran, by id.
    fn each(&self, blocks: usize, mut f: impl FnMut(u32, Tally)) {
        for id in 0..blocks.min(CAP) as u32 {
            let (Some(s), Some(r)) = (self.slot(id), self.runs_of(id)) else {
                break;
            };
            let runs = r.load(Relaxed);
            let d = s.dynamic.each_ref().map(|a| a.load(Relaxed));
            if runs > 0 || d.iter().any(|&x| x > 0) {
                let mut v: Tally = [0; D + 1];
                v[0] = runs;
                v[1..].copy_from_slice(&d);
                f(id, v);
            }
        }
        for (&id, &v) in self.more.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            f(id, v);
        }
    }

    /// Back to zero, in a forked child (its only thread): fresh pages
    /// rather than writing zeros over every page the parent touched.
    pub fn restart(&self) {
        // No other thread exists in the child to read the old arrays.
        free(self.runs.swap(zeroed(), Relaxed));
        free(self.slots.swap(zeroed(), Relaxed));
        self.more.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// A translated block: where its code is, and what one run counts (the
/// counters that are not zero); with loops asked for, each instruction too.
#[derive(Debug, Clone, Default)]
pub struct Block {
    pub host_address: u64,
    /// The file mapping its code was in when it was translated: an index
    /// into the process's [`crate::maps::Maps`] (none: code in no file).
    pub map: Option<u32>,
    pub counts: Vec<(usize, u64)>,
    /// Bytes of code.
    pub size: u64,
    /// Its instructions (loops asked for; else none): a block is split
    /// where another block starts, each part a site of its own.
    pub pieces: Vec<Piece>,
    /// How its last instruction leaves it.
    pub ends: End,
}

/// One instruction of a block: where it starts in the block, what one run
/// of it counts, and whether it has memory callbacks.
#[derive(Debug, Clone, Default)]
pub struct Piece {
    pub at: u64,
    pub counts: Vec<(usize, u64)>,
    pub accesses: bool,
}

/// A block's parts, split where other blocks start: each part's start in
/// the block, size, and counts per run; and which part gets the block's
/// memory callbacks' counts (the part of its first accessing instruction).
fn parts(b: &Block, starts: &HashSet<u64>) -> (Vec<(u64, u64, [u64; field::N])>, usize) {
    let mut out: Vec<(u64, u64, [u64; field::N])> = Vec::new();
    if b.pieces.is_empty() {
        let mut c = [0; field::N];
        b.counts.iter().for_each(|&(f, x)| c[f] += x);
        return (vec![(0, b.size, c)], 0);
    }
    let mut dynamic = None;
    for p in &b.pieces {
        if out.is_empty() || (p.at > 0 && starts.contains(&(b.host_address + p.at))) {
            out.push((p.at, 0, [0; field::N]));
        }
        let last = out.len() - 1;
        p.counts.iter().for_each(|&(f, x)| out[last].2[f] += x);
        if p.accesses && dynamic.is_none() {
            dynamic = Some(last);
        }
    }
    for k in 0..out.len() {
        let end = out.get(k + 1).map_or(b.size, |n| n.0);
        out[k].1 = end - out[k].0;
    }
    (out, dynamic.unwrap_or(0))
}

/// Every block's runs and dynamic counts summed over the threads' `runs`,
/// by id (a snapshot for the timeline: each read as the thread left it).
pub fn block_sums<'a>(
    blocks: usize,
    runs: impl IntoIterator<Item = &'a Runs>,
) -> BTreeMap<u32, Tally> {
    let mut per_block: BTreeMap<u32, Tally> = BTreeMap::new();
    for r in runs {
        r.each(blocks, |id, v| {
            let s = per_block.entry(id).or_default();
            s.iter_mut().zip(v).for_each(|(a, b)| *a += b);
        });
    }
    per_block
}

/// What [`sites`] writes: the files, the sites, the control flow between
/// them, and each block's site (its first part's: an index into `sites`).
pub struct Written {
    pub modules: Vec<String>,
    pub sites: Vec<Site>,
    pub edges: Vec<Edge>,
    pub site_of: HashMap<u32, u32>,
}

/// A place in a file: (module index, offset), as a site's.
type Place = (u32, u64);

/// What a place sums: counts, runs, size, and how its last instruction
/// leaves it.
type PlaceSum = ([u64; field::N], u64, u64, End);

/// The sites: every block's counts times its runs, plus what its memory
/// callbacks added, summed over `threads` and over blocks of one place
/// (code translated again), in the file mappings `maps` their `map` index;
/// with loops asked for, blocks
/// split where others start, and the control flow between the places
/// (each thread's [`Edges`], and each split block's parts in turn).
pub fn sites<'a>(
    blocks: &[Block],
    threads: impl IntoIterator<Item = (&'a Runs, &'a Edges)>,
    maps: &[Mapping],
) -> Written {
    let (per_block, pairs) = summed(blocks.len(), threads);
    let starts: HashSet<u64> = blocks.iter().map(|b| b.host_address).collect();
    let mut modules: Vec<String> = Vec::new();
    let mut index: HashMap<&str, u32> = HashMap::new();
    let mut place_of = |b: &Block, address: u64| match b.map.and_then(|i| maps.get(i as usize)) {
        Some(m) => {
            let k = *index.entry(&m.path).or_insert_with(|| {
                modules.push(m.path.clone());
                modules.len() as u32 - 1
            });
            (k, address - m.start + m.offset)
        }
        None => (Site::ANONYMOUS, address),
    };
    let mut places: BTreeMap<Place, PlaceSum> = BTreeMap::new();
    let mut flow: BTreeMap<(Place, Place), u64> = BTreeMap::new();
    // Each block's first and last parts' places, for the edges.
    let mut ends: HashMap<u32, (Place, Place)> = HashMap::new();
    for (id, v) in per_block {
        let Some(b) = blocks.get(id as usize) else {
            continue;
        };
        let (parts, dynamic) = parts(b, &starts);
        let mut seen: Vec<Place> = Vec::new();
        for (k, (at, size, c)) in parts.iter().enumerate() {
            let place = place_of(b, b.host_address + at);
            let e = places
                .entry(place)
                .or_insert(([0; field::N], 0, 0, End::Other));
            if k + 1 == parts.len() && b.ends != End::Other {
                e.3 = b.ends;
            }
            c.iter().enumerate().for_each(|(f, x)| e.0[f] += x * v[0]);
            if k == dynamic {
                DYNAMIC.iter().zip(&v[1..]).for_each(|(f, x)| e.0[*f] += x);
            }
            e.1 += v[0];
            e.2 = e.2.max(*size);
            if let Some(before) = seen.last() {
                *flow.entry((*before, place)).or_default() += v[0];
            }
            seen.push(place);
        }
        if let (Some(first), Some(last)) = (seen.first(), seen.last()) {
            ends.insert(id, (*first, *last));
        }
    }
    for ((a, b), n) in pairs {
        if let (Some(from), Some(to)) = (ends.get(&a), ends.get(&b)) {
            *flow.entry((from.1, to.0)).or_default() += n;
        }
    }
    // Edges only where blocks were split or followed (loops asked for).
    let loops = blocks.iter().any(|b| !b.pieces.is_empty());
    let index: HashMap<Place, u32> = (places.keys().enumerate())
        .map(|(k, p)| (*p, k as u32))
        .collect();
    let site_of = (ends.iter())
        .filter_map(|(id, (first, _))| Some((*id, *index.get(first)?)))
        .collect();
    Written {
        modules,
        sites: written(places),
        edges: if loops { edges(flow) } else { Vec::new() },
        site_of,
    }
}

/// Every block's runs and dynamic counts over `threads` (by id: the
/// modules are numbered in the order of their first block, the same in
/// every run), and the pairs of blocks that ran one after the other.
#[allow(clippy::type_complexity)]
fn summed<'a>(
    blocks: usize,
    threads: impl IntoIterator<Item = (&'a Runs, &'a Edges)>,
) -> (BTreeMap<u32, Tally>, HashMap<(u32, u32), u64>) {
    let mut per_block: BTreeMap<u32, Tally> = BTreeMap::new();
    let mut pairs: HashMap<(u32, u32), u64> = HashMap::new();
    for (runs, edges) in threads {
        runs.each(blocks, |id, v| {
            let s = per_block.entry(id).or_default();
            s.iter_mut().zip(v).for_each(|(a, b)| *a += b);
        });
        edges.each(|a, b, n| *pairs.entry((a, b)).or_default() += n);
        runs.each_next(blocks, |a, b, n| *pairs.entry((a, b)).or_default() += n);
    }
    (per_block, pairs)
}

/// The places' sums as sites.
fn written(places: BTreeMap<Place, PlaceSum>) -> Vec<Site> {
    places
        .into_iter()
        .map(|((module, offset), (c, runs, size, ends))| Site {
            module,
            offset,
            counts: Counts::from_array(&c),
            runs,
            size,
            ends,
        })
        .collect()
}

/// The flow between places as edges.
fn edges(flow: BTreeMap<(Place, Place), u64>) -> Vec<Edge> {
    flow.into_iter()
        .map(|((from, to), count)| Edge { from, to, count })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_times_counts_land_at_their_file_offsets() {
        let maps = crate::maps::mappings(
            "00400000-00401000 r--p 00000000 08:01 12 /usr/bin/prog\n\
             00401000-00402000 r-xp 00001000 08:01 12 /usr/bin/prog\n\
             7f0000000000-7f0000010000 r-xp 00020000 08:01 13 /lib/libm.so.6 (deleted)\n\
             7f0000020000-7f0000030000 rw-p 00000000 00:00 0 \n\
             7ffd00000000-7ffd00001000 rw-p 00000000 00:00 0                          [stack]\n",
        );
        assert_eq!(maps.len(), 4);
        assert_eq!(maps[2].path, "/lib/libm.so.6");
        assert_eq!(maps[3].path, carmbench_counts::protocol::ANONYMOUS);
        let block = |host_address, counts: &[(usize, u64)]| Block {
            host_address,
            map: crate::maps::index_of(&maps, host_address),
            counts: counts.to_vec(),
            size: 16,
            pieces: vec![],
            ends: End::Other,
        };
        let fma = [(field::DP_FMA, 8), (field::INSTRUCTIONS, 3)];
        let blocks = vec![
            block(0x401010, &fma),
            block(0x7f0000000100, &[(field::BYTES_LOADED, 64)]),
            // The first block translated again: the same site.
            block(0x401010, &fma),
            block(0x7f0000020010, &[(field::INSTRUCTIONS, 1)]),
        ];
        let (a, b) = (Runs::default(), Runs::default());
        a.ran(0);
        a.ran(0);
        b.ran(2);
        b.ran(1);
        // Two loads of 16 bytes and a line from DRAM (the simulated caches).
        b.accessed(1, 0, &[2, 0, 16]);
        b.accessed(1, 8, &[64]);
        a.ran(3);
        let none = Edges::default();
        let Written {
            modules,
            sites,
            edges,
            site_of,
        } = sites(&blocks, [(&a, &none), (&b, &none)], &maps);
        assert!(edges.is_empty());
        let anonymous = carmbench_counts::protocol::ANONYMOUS;
        assert_eq!(modules, ["/usr/bin/prog", "/lib/libm.so.6", anonymous]);
        assert_eq!(sites.len(), 3);
        let prog = &sites[0];
        assert_eq!((prog.module, prog.offset), (0, 0x1010));
        assert_eq!(prog.counts.dp_fma_flops, 24);
        assert_eq!(prog.counts.instructions, 9);
        let lib = &sites[1];
        assert_eq!((lib.module, lib.offset), (1, 0x20100));
        assert_eq!((lib.counts.bytes_loaded, lib.counts.loads), (80, 2));
        assert_eq!(lib.counts.dram_read, 64);
        let anon = &sites[2];
        // Anonymous memory's code: from its mapping's start.
        assert_eq!((anon.module, anon.offset), (2, 0x10));
        // Each block's site, the one translated twice at its one place.
        assert_eq!(site_of, HashMap::from([(0, 0), (2, 0), (1, 1), (3, 2)]));
        let sums = block_sums(blocks.len(), [&a, &b]);
        assert_eq!((sums[&0][0], sums[&1][0], sums[&1][1]), (2, 1, 2));
        a.restart();
        let after = super::sites(&blocks, [(&a, &none)], &maps).sites;
        assert!(after.is_empty());
    }

    #[test]
    fn a_block_is_split_where_another_starts_and_the_flow_between_is_kept() {
        let maps =
            crate::maps::mappings("00401000-00402000 r-xp 00001000 08:01 12 /usr/bin/prog\n");
        let piece = |at, counts: &[(usize, u64)], accesses| Piece {
            at,
            counts: counts.to_vec(),
            accesses,
        };
        let fma = [(field::DP_FMA, 2), (field::INSTRUCTIONS, 1)];
        let one = [(field::INSTRUCTIONS, 1)];
        // Block 0: an instruction before the loop, then the loop's body
        // (entered by falling through); block 1: the body, from its jump.
        let pre = Block {
            host_address: 0x401000,
            map: Some(0),
            counts: vec![],
            size: 12,
            pieces: vec![
                piece(0, &one, false),
                piece(4, &fma, true),
                piece(8, &one, false),
            ],
            ends: End::Other,
        };
        let body = Block {
            host_address: 0x401004,
            map: Some(0),
            counts: vec![],
            size: 8,
            pieces: vec![piece(0, &fma, true), piece(4, &one, false)],
            ends: End::Other,
        };
        let (r, e) = (Runs::default(), Edges::default());
        r.ran(0);
        (0..9).for_each(|_| r.ran(1));
        r.followed(0, 1, &e);
        (0..8).for_each(|_| r.followed(1, 1, &e));
        // A third block after block 1 goes past its slot, to the table.
        e.add(1, 7);
        let Written { sites, edges, .. } = sites(&[pre, body], [(&r, &e)], &maps);
        let at = |o| sites.iter().find(|s| s.offset == o).unwrap();
        assert_eq!(
            (
                at(0x1000).runs,
                at(0x1000).size,
                at(0x1000).counts.instructions
            ),
            (1, 4, 1)
        );
        // The body: 1 run by falling through, 9 from the jumps.
        assert_eq!((at(0x1004).runs, at(0x1004).counts.dp_fma_flops), (10, 20));
        let flow: Vec<_> = edges.iter().map(|e| (e.from.1, e.to.1, e.count)).collect();
        assert_eq!(flow, [(0x1000, 0x1004, 1), (0x1004, 0x1004, 9)]);
    }

    #[test]
    fn blocks_past_the_array_are_counted_all_the_same() {
        let r = Runs::default();
        let far = CAP as u32 + 5;
        r.ran(far);
        r.ran(far);
        r.accessed(far, 0, &[1, 0, 8]);
        r.accessed(far, 12, &[3]);
        let mut seen = vec![];
        r.each(CAP + 10, |id, v| seen.push((id, v)));
        let mut want = [0; D + 1];
        (want[0], want[1], want[3], want[13]) = (2, 1, 8, 3);
        assert_eq!(seen, [(far, want)]);
    }
}
