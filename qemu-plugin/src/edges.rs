//! Which block ran after which, on one thread, when loops are asked for:
//! the control flow carmbench finds loops in. A block's run adds one to the
//! pair (the block before it on this thread, itself) in an open-addressing
//! table of the thread's own (a load, a compare and a store in the usual
//! case; no lock), allocated from zeroed pages on the first pair; pairs
//! past it go to a map.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::Relaxed};

/// Slots of a thread's table (16 bytes each: 16 MiB of address space, the
/// pages of pairs that ran taking memory).
const CAP: usize = 1 << 20;

/// Slots looked at before a pair goes to the map.
const PROBES: usize = 16;

/// A pair (its key: `from << 32 | to`, plus one, so that 0 is a free
/// slot) and how often it ran.
#[repr(C)]
struct Slot {
    key: AtomicU64,
    count: AtomicU64,
}

/// One thread's pairs.
#[derive(Default)]
pub struct Edges {
    table: AtomicPtr<Slot>,
    more: Mutex<HashMap<u64, u64>>,
}

fn layout() -> Layout {
    Layout::array::<Slot>(CAP).expect("a fixed, valid layout")
}

impl Drop for Edges {
    fn drop(&mut self) {
        let p = *self.table.get_mut();
        if !p.is_null() {
            // SAFETY: allocated in `table` with this layout.
            unsafe { dealloc(p.cast(), layout()) };
        }
    }
}

impl Edges {
    /// The table, allocated on first use (only from the thread itself).
    fn table(&self) -> *mut Slot {
        let p = self.table.load(Relaxed);
        if !p.is_null() {
            return p;
        }
        // SAFETY: a non-zero size; all-zero bytes are valid atomics.
        let fresh = unsafe { alloc_zeroed(layout()) }.cast::<Slot>();
        self.table.store(fresh, Relaxed);
        fresh
    }

    /// Block `to` ran right after block `from` (only from the thread itself).
    pub fn add(&self, from: u32, to: u32) {
        let key = ((u64::from(from) << 32) | u64::from(to)) + 1;
        let t = self.table();
        if t.is_null() {
            return self.add_more(key);
        }
        let home = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44) as usize;
        for k in 0..PROBES {
            // SAFETY: an index below CAP into the thread's live table.
            let s = unsafe { &*t.add((home + k) & (CAP - 1)) };
            match s.key.load(Relaxed) {
                x if x == key => {
                    s.count.store(s.count.load(Relaxed) + 1, Relaxed);
                    return;
                }
                0 => {
                    s.count.store(1, Relaxed);
                    s.key.store(key, Relaxed);
                    return;
                }
                _ => {}
            }
        }
        self.add_more(key);
    }

    fn add_more(&self, key: u64) {
        *self
            .more
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_default() += 1;
    }

    /// Every pair that ran: (from, to, count).
    pub fn each(&self, mut f: impl FnMut(u32, u32, u64)) {
        let split = |key: u64| {
            let k = key - 1;
            ((k >> 32) as u32, k as u32)
        };
        let t = self.table.load(Relaxed);
        if !t.is_null() {
            for i in 0..CAP {
                // SAFETY: as in `add`.
                let s = unsafe { &*t.add(i) };
                let key = s.key.load(Relaxed);
                if key != 0 {
                    let (a, b) = split(key);
                    f(a, b, s.count.load(Relaxed));
                }
            }
        }
        for (&key, &n) in self.more.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let (a, b) = split(key);
            f(a, b, n);
        }
    }

    /// Back to none (a forked child's only thread).
    pub fn restart(&self) {
        let old = self.table.swap(std::ptr::null_mut(), Relaxed);
        if !old.is_null() {
            // SAFETY: no other thread exists in the child to read it.
            unsafe { dealloc(old.cast(), layout()) };
        }
        self.more.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_counted_in_the_table_and_past_it() {
        let e = Edges::default();
        e.add(0, 1);
        e.add(0, 1);
        e.add(1, 0);
        e.add(u32::MAX - 1, 7);
        let mut seen = Vec::new();
        e.each(|a, b, n| seen.push((a, b, n)));
        seen.sort();
        assert_eq!(seen, [(0, 1, 2), (1, 0, 1), (u32::MAX - 1, 7, 1)]);
        e.restart();
        let mut none = 0;
        e.each(|_, _, _| none += 1);
        assert_eq!(none, 0);
    }
}
