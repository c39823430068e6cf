//! The data caches of the machine, simulated from every access the program
//! makes: which level each line came from and where dirty lines went back
//! to. Private L1 and L2 per thread, one shared L3; LRU in every set; write
//! allocate, write back. An exclusive L3 (AMD's victim cache) takes what L2
//! evicts and gives up what L2 takes; otherwise L3 is filled with every line
//! L2 takes (non-inclusive: nothing is invalidated above it). Prefetchers
//! are not simulated. Set sampling: only lines whose index is a multiple of
//! `sample` are simulated, in caches of `1/sample` the sets; their traffic
//! stands for the whole (the caller scales it).

use std::sync::Mutex;

pub use carmbench_counts::protocol::{CacheSpec as Spec, Geometry};

impl Cache {
    /// Level `level` (0: L1) of `spec`, empty, with `1/sample` the sets.
    fn of(spec: &Spec, level: usize) -> Cache {
        let g = spec.levels[level];
        let sets = (g.size / spec.line / u64::from(g.ways) / spec.sample).max(1);
        Cache::new(sets as usize, g.ways as usize)
    }
}

/// What one access moved, in lines, in the order of
/// `carmbench_counts::TRAFFIC`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    /// Lines L2 gave L1 (L1's misses).
    pub l2_read: u64,
    /// Dirty lines L1 wrote back to L2.
    pub l2_write: u64,
    /// Lines L3 (or DRAM through it) gave L2.
    pub l3_read: u64,
    /// Lines L2 wrote to L3 (dirty; every victim when L3 is exclusive).
    pub l3_write: u64,
    /// Lines read from DRAM.
    pub dram_read: u64,
    /// Dirty lines written back to DRAM.
    pub dram_write: u64,
    /// Accesses that hit in L1, L2, L3.
    pub hits: [u64; 3],
}

impl Moved {
    /// As the traffic's counters (`carmbench_counts::TRAFFIC` order): lines
    /// in bytes, and both scaled up to stand for every line when one in
    /// `spec.sample` is simulated.
    pub fn values(&self, spec: &Spec) -> [u64; 9] {
        let bytes = spec.line * spec.sample;
        let lines = [
            self.l2_read,
            self.l2_write,
            self.l3_read,
            self.l3_write,
            self.dram_read,
            self.dram_write,
        ];
        let mut v = [0; 9];
        for (k, l) in lines.into_iter().enumerate() {
            v[k] = l * bytes;
        }
        for (k, h) in self.hits.into_iter().enumerate() {
            v[6 + k] = h * spec.sample;
        }
        v
    }
}

/// A way that holds no line (never `line << 1 | dirty` of a real line).
const EMPTY: u64 = u64::MAX;

/// One set-associative cache with LRU replacement. Each set keeps its lines
/// from the most recently used to the least, as `line << 1 | dirty`: a hit
/// is mostly found in the first ways, the victim is the last, and the empty
/// ways are always the last ones.
#[derive(Debug, Clone)]
pub struct Cache {
    sets: usize,
    /// `sets - 1` when `sets` is a power of two (a mask, not a division).
    mask: Option<u64>,
    ways: usize,
    lines: Vec<u64>,
}

impl Cache {
    /// A cache of `sets` × `ways` lines, empty.
    pub fn new(sets: usize, ways: usize) -> Cache {
        Cache {
            sets,
            mask: sets.is_power_of_two().then_some(sets as u64 - 1),
            ways: ways.max(1),
            lines: vec![EMPTY; sets * ways.max(1)],
        }
    }

    /// Where `line`'s set begins.
    fn set(&self, line: u64) -> usize {
        let s = match self.mask {
            Some(m) => line & m,
            None => line % self.sets as u64,
        };
        s as usize * self.ways
    }

    /// Whether `line` is here; a hit becomes the most recent of its set
    /// (its first way: where the set begins, returned) and dirty when
    /// `write`.
    #[inline(always)]
    pub fn touch(&mut self, line: u64, write: bool) -> Option<usize> {
        let s = self.set(line);
        let set = &mut self.lines[s..s + self.ways];
        let p = set.iter().position(|&e| e >> 1 == line)?;
        let e = set[p] | u64::from(write);
        // A few ways at most: a loop, not a call to memmove.
        for k in (1..=p).rev() {
            set[k] = set[k - 1];
        }
        set[0] = e;
        Some(s)
    }

    /// The line in the first way of the set beginning at `at` (see
    /// [`Cache::touch`]) is written.
    pub fn dirty(&mut self, at: usize) {
        self.lines[at] |= 1;
    }

    /// Put `line` in its set as the most recent: where the set begins, and
    /// the line it evicted with whether it was dirty.
    pub fn insert(&mut self, line: u64, dirty: bool) -> (usize, Option<(u64, bool)>) {
        let s = self.set(line);
        let set = &mut self.lines[s..s + self.ways];
        let last = set[set.len() - 1];
        let victim = (last != EMPTY).then_some((last >> 1, last & 1 == 1));
        for k in (1..set.len()).rev() {
            set[k] = set[k - 1];
        }
        set[0] = line << 1 | u64::from(dirty);
        (s, victim)
    }

    /// Take `line` out; whether it was dirty, if it was here.
    pub fn take(&mut self, line: u64) -> Option<bool> {
        let s = self.set(line);
        let set = &mut self.lines[s..s + self.ways];
        let p = set.iter().position(|&e| e >> 1 == line)?;
        let e = set[p];
        for k in p..set.len() - 1 {
            set[k] = set[k + 1];
        }
        set[set.len() - 1] = EMPTY;
        Some(e & 1 == 1)
    }
}

/// A thread's own levels.
pub struct Private {
    l1: Cache,
    l2: Cache,
    /// The line this thread touched last, and where it is in L1: the most
    /// recent of its set, so another access to it changes no order (most
    /// accesses of a stream go to the line before).
    last: (u64, usize),
}

/// The whole hierarchy: the shared L3 and the shape every thread's own
/// levels take.
pub struct Hierarchy {
    spec: Spec,
    l3: Mutex<Cache>,
}

impl Hierarchy {
    /// Empty caches of `spec`.
    pub fn new(spec: Spec) -> Hierarchy {
        Hierarchy {
            spec,
            l3: Mutex::new(Cache::of(&spec, 2)),
        }
    }

    /// The spec simulated.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// A new thread's L1 and L2, empty.
    pub fn private(&self) -> Private {
        Private {
            l1: Cache::of(&self.spec, 0),
            l2: Cache::of(&self.spec, 1),
            last: (EMPTY, 0),
        }
    }

    /// Whether an access of `size` bytes at `addr` touches a sampled line.
    #[inline]
    pub fn samples(&self, addr: u64, size: u64) -> bool {
        let shift = self.spec.line.trailing_zeros();
        let (first, last) = (addr >> shift, (addr + size.max(1) - 1) >> shift);
        // `sample` is a power of two.
        first & (self.spec.sample - 1) == 0 || first != last
    }

    /// An access of one sampled line that hits in L1, taken as such
    /// (most accesses); false, with nothing changed, for any other.
    #[inline(always)]
    pub fn l1_hit(&self, p: &mut Private, addr: u64, size: u64, store: bool) -> bool {
        let shift = self.spec.line.trailing_zeros();
        let first = addr >> shift;
        if first != (addr + size.max(1) - 1) >> shift {
            return false;
        }
        let line = first >> self.spec.sample.trailing_zeros();
        if p.last.0 == line {
            if store {
                p.l1.dirty(p.last.1);
            }
            return true;
        }
        match p.l1.touch(line, store) {
            Some(at) => {
                p.last = (line, at);
                true
            }
            None => false,
        }
    }

    /// An access of `size` bytes at `addr`: each line it touches that is
    /// sampled goes through the levels.
    pub fn access(&self, p: &mut Private, addr: u64, size: u64, store: bool, m: &mut Moved) {
        let shift = self.spec.line.trailing_zeros();
        let (first, last) = (addr >> shift, (addr + size.max(1) - 1) >> shift);
        for line in first..=last {
            if line & (self.spec.sample - 1) == 0 {
                // `sample` is a power of two: a shift, not a division.
                self.line(p, line >> self.spec.sample.trailing_zeros(), store, m);
            }
        }
    }

    #[inline]
    fn line(&self, p: &mut Private, line: u64, store: bool, m: &mut Moved) {
        if p.last.0 == line {
            m.hits[0] += 1;
            if store {
                p.l1.dirty(p.last.1);
            }
            return;
        }
        if let Some(i) = p.l1.touch(line, store) {
            m.hits[0] += 1;
            p.last = (line, i);
            return;
        }
        // L3 is locked at most once per line, when first needed.
        let mut l3 = Shared {
            cache: &self.l3,
            held: None,
        };
        if p.l2.touch(line, false).is_some() {
            m.hits[1] += 1;
        } else {
            let dirty = self.fill_from_l3(&mut l3, line, m);
            m.l3_read += 1;
            self.put_in_l2(&mut l3, p, line, dirty, m);
        }
        m.l2_read += 1;
        let (i, victim) = p.l1.insert(line, store);
        p.last = (line, i);
        if let Some((v, true)) = victim {
            m.l2_write += 1;
            if p.l2.touch(v, true).is_none() {
                self.put_in_l2(&mut l3, p, v, true, m);
            }
        }
    }

    /// L2 missed `line`: L3 gives it (an exclusive one gives it up, with
    /// its dirt), else DRAM through L3. Whether it comes dirty.
    fn fill_from_l3(&self, l3: &mut Shared, line: u64, m: &mut Moved) -> bool {
        let l3 = l3.get();
        if self.spec.exclusive {
            return match l3.take(line) {
                Some(dirty) => {
                    m.hits[2] += 1;
                    dirty
                }
                None => {
                    m.dram_read += 1;
                    false
                }
            };
        }
        if l3.touch(line, false).is_some() {
            m.hits[2] += 1;
        } else {
            m.dram_read += 1;
            if let (_, Some((_, true))) = l3.insert(line, false) {
                m.dram_write += 1;
            }
        }
        false
    }

    /// `line` goes into L2; what it evicts goes to L3 (every victim to an
    /// exclusive L3, the dirty ones otherwise).
    fn put_in_l2(&self, l3: &mut Shared, p: &mut Private, line: u64, dirty: bool, m: &mut Moved) {
        let (_, Some((v, vdirty))) = p.l2.insert(line, dirty) else {
            return;
        };
        if !(self.spec.exclusive || vdirty) {
            return;
        }
        m.l3_write += 1;
        let l3 = l3.get();
        if !self.spec.exclusive && l3.touch(v, true).is_some() {
            return;
        }
        if let (_, Some((_, true))) = l3.insert(v, vdirty) {
            m.dram_write += 1;
        }
    }
}

/// The shared L3, locked on first use and held until dropped.
struct Shared<'a> {
    cache: &'a Mutex<Cache>,
    held: Option<std::sync::MutexGuard<'a, Cache>>,
}

impl Shared<'_> {
    fn get(&mut self) -> &mut Cache {
        let cache = self.cache;
        self.held
            .get_or_insert_with(|| cache.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(l1: u64, l2: u64, l3: u64, exclusive: bool) -> Spec {
        Spec {
            line: 64,
            levels: [
                Geometry { size: l1, ways: 2 },
                Geometry { size: l2, ways: 4 },
                Geometry { size: l3, ways: 8 },
            ],
            exclusive,
            sample: 1,
        }
    }

    #[test]
    fn the_last_line_filter_changes_nothing() {
        // A mix of repeated lines, strides and stores over 4 × L3.
        // Two hierarchies: the L3 is shared by a hierarchy's threads.
        let (h, g) = (
            Hierarchy::new(spec(512, 2048, 8192, false)),
            Hierarchy::new(spec(512, 2048, 8192, false)),
        );
        let (mut p, mut q) = (h.private(), g.private());
        let (mut a, mut b) = (Moved::default(), Moved::default());
        let mut x = 12345u64;
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let addr = (x >> 33) % (4 * 8192);
            let store = x & (1 << 20) != 0;
            for _ in 0..1 + (x >> 60) {
                h.access(&mut p, addr, 8, store, &mut a);
                q.last = (EMPTY, 0);
                g.access(&mut q, addr, 8, store, &mut b);
            }
        }
        assert_eq!(a, b);
        assert!(a.hits[0] > 0 && a.dram_write > 0, "{a:?}");
    }

    #[test]
    fn lru_evicts_the_least_recently_used_way() {
        let mut c = Cache::new(1, 2);
        assert_eq!(c.insert(1, false), (0, None));
        assert_eq!(c.insert(2, true), (0, None));
        assert_eq!(c.touch(1, false), Some(0));
        // 2 is now the least recent: it goes, dirty.
        assert_eq!(c.insert(3, false), (0, Some((2, true))));
        assert!(c.touch(1, false).is_some() && c.touch(3, false).is_some());
        assert!(c.touch(2, false).is_none());
        assert_eq!(c.take(3), Some(false));
        assert_eq!(c.take(3), None);
    }

    #[test]
    fn lines_of_one_set_conflict_while_the_cache_has_room() {
        // 2 ways, 2 sets of 64-byte lines: lines 0, 2, 4 all map to set 0.
        let h = Hierarchy::new(spec(256, 1 << 20, 1 << 22, false));
        let mut p = h.private();
        let mut m = Moved::default();
        for _ in 0..10 {
            for line in [0u64, 2, 4] {
                h.access(&mut p, line * 64, 8, false, &mut m);
            }
        }
        // Three lines in two ways: every access misses L1 (LRU), though
        // half the cache (set 1) is empty; L2 holds them all.
        assert_eq!(m.hits[0], 0);
        assert_eq!(m.l2_read, 30);
        assert_eq!((m.l3_read, m.dram_read), (3, 3));
        assert_eq!(m.hits[1], 27);
    }

    #[test]
    fn stores_write_back_at_each_level_and_an_access_spans_lines() {
        // A store stream of 64 lines through L1 (4 lines) and L2 (8 lines)
        // and L3 (16 lines): each line dirty, written back all the way.
        let h = Hierarchy::new(spec(256, 512, 1024, false));
        let mut p = h.private();
        let mut m = Moved::default();
        for line in 0..64u64 {
            h.access(&mut p, line * 64, 64, true, &mut m);
        }
        assert_eq!((m.l2_read, m.l3_read, m.dram_read), (64, 64, 64));
        // All but what each level still holds went back down.
        assert_eq!(m.l2_write, 64 - 4);
        assert!(m.dram_write >= 64 - 16 - 8 - 4, "{m:?}");
        // An 8-byte access across a line boundary touches two lines.
        let mut m = Moved::default();
        h.access(&mut p, 10 * 64 + 60, 8, false, &mut m);
        assert_eq!(m.l2_read + m.hits[0], 2);
    }

    #[test]
    fn an_exclusive_l3_holds_what_l2_evicts_and_gives_it_back() {
        // L2 of 4 lines (1 set of 4 ways), L3 of 8 (1 set of 8 ways).
        let mut s = spec(128, 256, 512, true);
        s.levels[0].ways = 2;
        s.levels[1].ways = 4;
        s.levels[2].ways = 8;
        let h = Hierarchy::new(s);
        let mut p = h.private();
        let mut m = Moved::default();
        // Six lines: L2 keeps four, L3 the two L2 evicted.
        for line in 0..6u64 {
            h.access(&mut p, line * 64, 8, false, &mut m);
        }
        assert_eq!((m.dram_read, m.l3_write), (6, 2));
        // Lines 0 and 1 come back from L3 (hits there), not from DRAM, and
        // leave it: L2's victims take their place.
        let mut m = Moved::default();
        for line in 0..2u64 {
            h.access(&mut p, line * 64, 8, false, &mut m);
        }
        assert_eq!(
            (m.hits[2], m.dram_read, m.l3_read, m.l3_write),
            (2, 0, 2, 2)
        );
        // A non-exclusive L3 of the same size keeps its copies: clean L2
        // victims are not written.
        let h = Hierarchy::new(Spec {
            exclusive: false,
            ..s
        });
        let mut p = h.private();
        let mut m = Moved::default();
        for line in 0..6u64 {
            h.access(&mut p, line * 64, 8, false, &mut m);
        }
        assert_eq!((m.dram_read, m.l3_write), (6, 0));
    }

    #[test]
    fn sampling_simulates_one_line_in_k_in_smaller_caches() {
        let full = Hierarchy::new(spec(1024, 8192, 65536, false));
        let sampled = Hierarchy::new(Spec {
            sample: 4,
            ..spec(1024, 8192, 65536, false)
        });
        let (mut pf, mut ps) = (full.private(), sampled.private());
        let (mut mf, mut ms) = (Moved::default(), Moved::default());
        // A 4 KiB working set, fits L2 not L1, read 10 times.
        for _ in 0..10 {
            for line in 0..64u64 {
                full.access(&mut pf, line * 64, 8, false, &mut mf);
                sampled.access(&mut ps, line * 64, 8, false, &mut ms);
            }
        }
        assert_eq!(mf.l2_read, 640);
        assert_eq!(ms.l2_read * 4, mf.l2_read);
        assert_eq!(ms.dram_read * 4, mf.dram_read);
    }
}
