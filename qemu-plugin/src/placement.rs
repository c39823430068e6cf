//! Mappings placed as Linux would place them, for the simulated caches
//! (`profile --traffic`). Under `qemu-x86_64` 7.2 every `mmap` gets a new,
//! higher address, even right after a `munmap` of the same size; natively
//! the kernel hands back the hole, so a program that frees and allocates
//! big buffers (every large `malloc`, every numpy temporary), or maps a file
//! again, meets warm lines where the emulated run meets cold ones. Here each
//! mapping the guest makes, anonymous or of a file, gets a place of its own
//! in a simulated address space, chosen as Linux's top-down allocator
//! chooses (the highest hole that fits), and its accesses are simulated
//! there; a mapping `mremap` moves keeps its pages' places. Everything else
//! (the program QEMU loaded, its stack, `brk`) is simulated where it is.

use std::cell::UnsafeCell;
use std::collections::BTreeMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The simulated space: above every canonical x86-64 address, so that no
/// place there is also an address simulated as it is.
const BASE: u64 = 1 << 48;
/// Its top, where Linux's `mmap_base` would be.
const TOP: u64 = BASE + (1 << 46);
/// Places are whole pages.
const PAGE: u64 = carmbench_counts::protocol::PAGE;

/// A mapping: its guest range's end and its simulated start.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Region {
    end: u64,
    at: u64,
}

#[derive(Default)]
struct Maps {
    /// Guest start → region.
    guest: BTreeMap<u64, Region>,
    /// Simulated start → end: the simulated space in use.
    used: BTreeMap<u64, u64>,
}

impl Maps {
    /// The highest hole of `len` bytes below [`TOP`], as Linux's top-down
    /// `vm_unmapped_area` finds it.
    fn place(&self, len: u64) -> u64 {
        let mut top = TOP;
        for (&start, &end) in self.used.iter().rev() {
            if top - end >= len {
                return top - len;
            }
            top = start;
        }
        // Below every mapping: 64 TiB hold any guest's.
        top.saturating_sub(len).max(BASE)
    }

    /// Whether simulated `[start, end)` is free.
    fn free(&self, start: u64, end: u64) -> bool {
        let before = self.used.range(..end).next_back();
        end <= TOP && before.is_none_or(|(_, &e)| e <= start)
    }

    /// Guest `[start, end)` taken out of every region (split where it cuts
    /// one), and their simulated space with it.
    fn cut(&mut self, start: u64, end: u64) {
        let hit: Vec<(u64, Region)> = (self.guest.range(..end))
            .rev()
            .take_while(|(_, r)| r.end > start)
            .map(|(&s, &r)| (s, r))
            .collect();
        for (s, r) in hit {
            self.guest.remove(&s);
            let sim = |g: u64| r.at + (g - s);
            let used_end = self.used.remove(&r.at).unwrap_or(sim(r.end));
            if s < start {
                self.guest.insert(
                    s,
                    Region {
                        end: start,
                        at: r.at,
                    },
                );
                self.used.insert(r.at, sim(start));
            }
            if r.end > end {
                let at = sim(end);
                self.guest.insert(end, Region { end: r.end, at });
                self.used.insert(at, used_end.max(at));
            }
        }
    }
}

/// The guest's anonymous mappings and their simulated places.
#[derive(Default)]
pub struct Placement {
    maps: RwLock<Maps>,
    /// Bumped by every change: a thread's [`Recent`] spans are good while
    /// it stands.
    generation: AtomicU64,
}

/// A range of guest addresses and what turns them into simulated ones.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: u64,
    len: u64,
    delta: u64,
}

/// A thread's last spans looked up, replaced in turn: a loop over up to 8
/// arrays finds each one's span. Only its own thread touches them.
#[derive(Default)]
pub struct Recent(UnsafeCell<Slots>);

/// The spans of a [`Recent`], good while the generation they were found
/// in stands, and the one to replace next.
#[derive(Default)]
struct Slots {
    generation: u64,
    spans: [Span; SLOTS],
    next: usize,
}

const SLOTS: usize = 8;

// SAFETY: only the owning thread reaches the contents (`Placement::at`).
unsafe impl Sync for Recent {}

fn round_up(len: u64) -> u64 {
    len.div_ceil(PAGE).saturating_mul(PAGE)
}

impl Placement {
    fn write(&self, f: impl FnOnce(&mut Maps)) {
        f(&mut self.maps.write().unwrap_or_else(|e| e.into_inner()));
        self.generation.fetch_add(1, Relaxed);
    }

    /// The guest mapped `len` anonymous bytes at `guest`. A fixed mapping
    /// inside one already placed keeps its place (a program carving a
    /// reservation); elsewhere it is simulated where it is.
    pub fn mapped(&self, guest: u64, len: u64, fixed: bool) {
        let end = guest.saturating_add(round_up(len));
        self.write(|m| {
            if fixed {
                let within = m.guest.range(..=guest).next_back();
                if within.is_none_or(|(_, r)| r.end < end) {
                    m.cut(guest, end);
                }
                return;
            }
            m.cut(guest, end);
            let at = m.place(end - guest);
            m.guest.insert(guest, Region { end, at });
            m.used.insert(at, at + (end - guest));
        });
    }

    /// The guest unmapped `len` bytes at `guest`.
    pub fn unmapped(&self, guest: u64, len: u64) {
        let end = guest.saturating_add(round_up(len));
        self.write(|m| m.cut(guest, end));
    }

    /// The guest's `mremap` moved `[old, old + old_len)` to `new`, now
    /// `new_len` long. Its pages keep their place, wherever the mapping
    /// moved (Linux moves the page tables, not the pages: the caches, which
    /// hold lines by their physical address, still hold them); what it grew
    /// by is placed right after them when that space is free (as Linux
    /// grows it in place), else where the next mapping of that size would go.
    pub fn remapped(&self, old: u64, old_len: u64, new: u64, new_len: u64) {
        let (old_len, new_len) = (round_up(old_len), round_up(new_len));
        let kept = old_len.min(new_len);
        self.write(|m| {
            // The placed pieces of what stays: (offset, length, place).
            let pieces: Vec<(u64, u64, u64)> = (m.guest.range(..old + kept))
                .rev()
                .take_while(|(_, r)| r.end > old)
                .map(|(&s, r)| {
                    let (from, to) = (s.max(old), r.end.min(old + kept));
                    (from - old, to - from, r.at + (from - s))
                })
                .collect();
            m.cut(old, old + old_len);
            m.cut(new, new + new_len);
            for &(off, len, at) in &pieces {
                let start = new + off;
                m.guest.insert(
                    start,
                    Region {
                        end: start + len,
                        at,
                    },
                );
                m.used.insert(at, at + len);
            }
            let grown = new_len - kept;
            if grown == 0 {
                return;
            }
            // Grown right after its last page where that space is free.
            let last = pieces.iter().find(|p| p.0 + p.1 == kept);
            match last {
                Some(&(off, len, at)) if m.free(at + len, at + len + grown) => {
                    m.guest.insert(
                        new + off,
                        Region {
                            end: new + new_len,
                            at,
                        },
                    );
                    m.used.insert(at, at + len + grown);
                }
                _ => {
                    let more = m.place(grown);
                    m.guest.insert(
                        new + kept,
                        Region {
                            end: new + new_len,
                            at: more,
                        },
                    );
                    m.used.insert(more, more + grown);
                }
            }
        });
    }

    /// Where the access at guest `addr` is simulated (`recent`: the calling
    /// thread's own).
    #[inline]
    pub fn at(&self, recent: &Recent, addr: u64) -> u64 {
        let g = self.generation.load(Relaxed);
        // SAFETY: the calling thread's own spans (see `Recent`).
        let slots = unsafe { &mut *recent.0.get() };
        if slots.generation != g {
            *slots = Slots {
                generation: g,
                ..Slots::default()
            };
        }
        for s in &slots.spans {
            if addr.wrapping_sub(s.start) < s.len {
                return addr.wrapping_add(s.delta);
            }
        }
        let s = self.span(addr);
        slots.spans[slots.next % SLOTS] = s;
        slots.next = slots.next.wrapping_add(1);
        addr.wrapping_add(s.delta)
    }

    /// The span holding `addr`: its region, or the gap between two.
    #[inline(never)]
    fn span(&self, addr: u64) -> Span {
        let m = self.maps.read().unwrap_or_else(|e| e.into_inner());
        let below = m.guest.range(..=addr).next_back();
        if let Some((&s, r)) = below.filter(|(_, r)| addr < r.end) {
            return Span {
                start: s,
                len: r.end - s,
                delta: r.at.wrapping_sub(s),
            };
        }
        let start = below.map_or(0, |(_, r)| r.end);
        let end = m.guest.range(addr..).next().map_or(u64::MAX, |(&s, _)| s);
        Span {
            start,
            len: end - start,
            delta: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_hole_left_by_an_unmap_is_given_to_the_next_mapping_that_fits() {
        let p = Placement::default();
        let r = Recent::default();
        // QEMU's addresses: each mapping higher than the last.
        p.mapped(0x7000_0000, 4 * MIB, false);
        let first = p.at(&r, 0x7000_0040);
        assert!(first >= BASE);
        p.unmapped(0x7000_0000, 4 * MIB);
        // Unmapped: simulated where it is.
        assert_eq!(p.at(&r, 0x7000_0040), 0x7000_0040);
        for k in 1..5 {
            let g = 0x7000_0000 + k * 4 * MIB;
            p.mapped(g, 4 * MIB, false);
            assert_eq!(p.at(&r, g + 0x40), first, "round {k}");
            p.unmapped(g, 4 * MIB);
        }
        // A smaller one takes the top of the hole, as Linux's does.
        p.mapped(0x9000_0000, MIB, false);
        assert_eq!(p.at(&r, 0x9000_0000), first - 0x40 + 3 * MIB);
    }

    #[test]
    fn mappings_side_by_side_get_places_side_by_side_below_the_top() {
        let p = Placement::default();
        let r = Recent::default();
        p.mapped(0x1000_0000, 8192, false);
        p.mapped(0x2000_0000, 5000, false);
        assert_eq!(p.at(&r, 0x1000_0000), TOP - 8192);
        // Rounded up to pages, right below.
        assert_eq!(p.at(&r, 0x2000_0000), TOP - 8192 - 8192);
        assert_eq!(p.at(&r, 0x2000_1387), TOP - 16384 + 0x1387);
        // Other addresses: where they are.
        assert_eq!(p.at(&r, 0x5555_0000), 0x5555_0000);
    }

    #[test]
    fn a_partial_unmap_keeps_the_rest_where_it_was() {
        let p = Placement::default();
        let r = Recent::default();
        p.mapped(0x1000_0000, 16 * PAGE, false);
        let at = p.at(&r, 0x1000_0000);
        p.unmapped(0x1000_0000 + 4 * PAGE, 4 * PAGE);
        assert_eq!(p.at(&r, 0x1000_0000 + PAGE), at + PAGE);
        assert_eq!(p.at(&r, 0x1000_0000 + 4 * PAGE), 0x1000_0000 + 4 * PAGE);
        assert_eq!(p.at(&r, 0x1000_0000 + 9 * PAGE), at + 9 * PAGE);
        // The hole is found again by a mapping that fits it.
        p.mapped(0x3000_0000, 4 * PAGE, false);
        assert_eq!(p.at(&r, 0x3000_0000), at + 4 * PAGE);
        // A fixed mapping inside a placed one keeps the place.
        p.mapped(0x1000_0000 + 10 * PAGE, 2 * PAGE, true);
        assert_eq!(p.at(&r, 0x1000_0000 + 10 * PAGE), at + 10 * PAGE);
    }

    #[test]
    fn a_loop_over_three_arrays_looks_each_up_once() {
        let p = Placement::default();
        let r = Recent::default();
        // Three 40 MB arrays, 610 spans of 64 KiB apart (a Fibonacci
        // number: a multiplicative hash of the 64 KiB put them together).
        let len = 9766 * PAGE;
        let a = 0x40_0000_0000u64;
        for k in 0..3 {
            p.mapped(a + k * len, len, false);
        }
        // SAFETY: no other reference to them here.
        let looked = |r: &Recent| unsafe { (*r.0.get()).next };
        for i in 0..100_000 {
            for k in [1, 2, 0] {
                p.at(&r, a + k * len + 8 * i);
            }
        }
        assert_eq!(looked(&r), 3);
    }

    #[test]
    fn a_remap_keeps_its_pages_places_and_grows_in_place_when_it_can() {
        let p = Placement::default();
        let r = Recent::default();
        p.mapped(0x1000_0000, 4 * PAGE, false);
        let at = p.at(&r, 0x1000_0000);
        // The topmost cannot grow upwards: moved, its pages keep their
        // places and the 4 pages it grew by go below the next free top.
        p.remapped(0x1000_0000, 4 * PAGE, 0x4000_0000, 8 * PAGE);
        assert_eq!(p.at(&r, 0x4000_0000 + PAGE), at + PAGE);
        assert_eq!(p.at(&r, 0x4000_0000 + 5 * PAGE), at - 4 * PAGE + PAGE);
        assert_eq!(p.at(&r, 0x1000_0000), 0x1000_0000);
        // Shrinking keeps the place; what it gave back is simulated as it is.
        p.remapped(0x4000_0000, 8 * PAGE, 0x4000_0000, 2 * PAGE);
        assert_eq!(p.at(&r, 0x4000_0000 + PAGE), at + PAGE);
        assert_eq!(p.at(&r, 0x4000_0000 + 3 * PAGE), 0x4000_0000 + 3 * PAGE);
        // Room after it now: it grows in place, moved or not.
        p.remapped(0x4000_0000, 2 * PAGE, 0x6000_0000, 4 * PAGE);
        assert_eq!(p.at(&r, 0x6000_0000), at);
        assert_eq!(p.at(&r, 0x6000_0000 + 3 * PAGE), at + 3 * PAGE);
    }
}
