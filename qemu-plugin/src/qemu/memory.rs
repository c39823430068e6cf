//! Memory callbacks: the accesses whose bytes are known only at run time,
//! and every access when the caches are simulated.

use super::*;

/// An access's size (as a power of two) and whether it stores, read from
/// `info` as QEMU 7.2 packs it (the memory operation's index in the low 16
/// bits, its size in bits 4-6, the direction above): two calls into QEMU
/// per access less. The first [`CHECKED`] accesses are read both ways; if
/// they ever differ (another packing), QEMU's functions are used from then on.
#[inline]
pub(super) fn meminfo(info: u32) -> (u32, bool) {
    let mine = ((info >> 4) & 7, (info >> 16) & 2 != 0);
    match DECODED.load(Ordering::Relaxed) {
        CHECKED => mine,
        checked => meminfo_checked(info, mine, checked),
    }
}

/// [`meminfo`] by QEMU's functions, compared with `mine` while fewer than
/// [`CHECKED`] accesses were.
#[cold]
#[inline(never)]
pub(super) fn meminfo_checked(info: u32, mine: (u32, bool), checked: u32) -> (u32, bool) {
    // SAFETY: plain queries of the access QEMU passes in.
    let theirs = unsafe {
        (
            qemu_plugin_mem_size_shift(info),
            qemu_plugin_mem_is_store(info),
        )
    };
    if checked < CHECKED {
        let next = if theirs == mine { checked + 1 } else { DIFFERS };
        // Lost to another thread's update: checked again next time.
        let _ = DECODED.compare_exchange(checked, next, Ordering::Relaxed, Ordering::Relaxed);
    }
    theirs
}

/// Accesses whose `info` was read both ways and agreed (see [`meminfo`]).
pub(super) static DECODED: AtomicU32 = AtomicU32::new(0);
/// See [`meminfo`].
pub(super) const CHECKED: u32 = 4096;
/// [`DECODED`] once the two readings differed.
pub(super) const DIFFERS: u32 = u32::MAX;

/// An access whose bytes are known only at run time. `udata` is the
/// block's id: see `on_translate`.
pub(super) extern "C" fn on_memory(vcpu: c_uint, info: u32, _vaddr: u64, udata: *mut c_void) {
    let (shift, store) = meminfo(info);
    // In [`crate::sites::DYNAMIC`] order: loads, stores, bytes loaded, stored.
    let me = mine(vcpu);
    let id = udata as usize as u32;
    match store {
        false => me.accessed(id, 0, &[1, 0, 1 << shift]),
        true => me.accessed(id, 1, &[1, 0, 1 << shift]),
    }
}

/// Every access of a memory instruction, when the caches are simulated:
/// the lines it moved between levels, added to the thread's counters.
/// `udata` is the block's id: see `on_translate`.
pub(super) extern "C" fn on_access(vcpu: c_uint, info: u32, vaddr: u64, udata: *mut c_void) {
    let Some(h) = CACHES.get() else { return };
    let (shift, store) = meminfo(info);
    let size = 1u64 << shift;
    // Most accesses touch one line that sampling leaves out: done here. A
    // line is simulated where it would be natively ([`crate::placement`]),
    // moved by whole pages: the same lines are sampled at either address
    // (one in a page's lines at most, `CacheSpec`).
    if h.samples(vaddr, size) {
        simulate(h, vcpu, vaddr, size, store, udata as usize as u32);
    }
}

/// [`on_access`] of a sampled line: apart, so that the accesses sampling
/// leaves out pay for no more than the test.
#[inline(never)]
pub(super) fn simulate(h: &Hierarchy, vcpu: c_uint, vaddr: u64, size: u64, store: bool, id: u32) {
    let me = mine(vcpu);
    let vaddr = tally().placement.at(&me.recent, vaddr);
    // SAFETY: this thread's own caches, in a callback that does not nest.
    let p = unsafe { me.private(|| h.private()) };
    // Most sampled accesses: one line, in L1, one counter.
    if h.l1_hit(p, vaddr, size, store) {
        me.accessed(id, crate::sites::L1_HITS, &[h.spec().sample]);
        return;
    }
    let mut m = Moved::default();
    h.access(p, vaddr, size, store, &mut m);
    me.accessed(id, crate::sites::TRAFFIC_AT, &m.values(h.spec()));
}
