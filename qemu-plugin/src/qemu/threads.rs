//! The guest's threads: each one's counters, found by its vCPU index, and
//! whether all of them wait (when the counts are written).

use super::*;

/// Each vCPU's counters: under user mode a vCPU is a guest thread, and its
/// index comes with every callback (a load here, where a thread-local
/// costs a call into the dynamic loader from a plugin).
pub(super) static VCPUS: [AtomicPtr<Thread>; MAX_VCPUS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_VCPUS];

/// vCPUs counted through [`VCPUS`]; threads past it go through a
/// thread-local.
pub(super) const MAX_VCPUS: usize = 4096;

thread_local! {
    /// This thread's counters when its vCPU index is past [`MAX_VCPUS`].
    pub(super) static MINE: Cell<*const Thread> = const { Cell::new(std::ptr::null()) };
}

/// The counters of the thread running on `vcpu` (only ever called on it).
#[inline]
pub(super) fn mine(vcpu: c_uint) -> &'static Thread {
    let Some(slot) = VCPUS.get(vcpu as usize) else {
        return MINE.with(|m| {
            if m.get().is_null() {
                m.set(Arc::as_ptr(&tally().thread()));
                WAITS.starts();
            }
            // SAFETY: the tally keeps every thread's Arc until exit.
            unsafe { &*m.get() }
        });
    };
    let mut p = slot.load(Ordering::Relaxed);
    if p.is_null() {
        p = Arc::as_ptr(&tally().thread()).cast_mut();
        slot.store(p, Ordering::Relaxed);
        WAITS.starts();
    }
    // SAFETY: as above.
    unsafe { &*p }
}

/// The thread on `vcpu` ends: a thread that gets its index next counts
/// apart (its counters stay in the tally).
pub(super) fn thread_ends(vcpu: c_uint) {
    if let Some(slot) = VCPUS.get(vcpu as usize)
        && !slot.swap(std::ptr::null_mut(), Ordering::Relaxed).is_null()
    {
        WAITS.ends();
    }
}

/// Whether system call `num`, first argument `a1`, may wait long: a sleep,
/// or a wait other than a read of a regular file (the guest's descriptors
/// are QEMU's own under user mode).
pub(super) fn waits(num: i64, a1: u64) -> bool {
    if protocol::SLEEPS.contains(&num) {
        return true;
    }
    if !protocol::WAITS.contains(&num) {
        return false;
    }
    if num != protocol::READ {
        return true;
    }
    // SAFETY: fstat of a descriptor into a zeroed stat of our own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let regular = i32::try_from(a1).is_ok_and(|fd| unsafe { libc::fstat(fd, &mut st) } == 0)
        && st.st_mode & libc::S_IFMT == libc::S_IFREG;
    if regular {
        NOT_WAITING.with(|n| n.set(true));
    }
    !regular
}

/// Whether the system call `num` now returning was counted by [`waits`].
pub(super) fn waited(num: i64) -> bool {
    let skipped = num == protocol::READ && NOT_WAITING.with(|n| n.replace(false));
    !skipped && (protocol::SLEEPS.contains(&num) || protocol::WAITS.contains(&num))
}

thread_local! {
    /// Set while this thread reads a regular file (not a wait).
    pub(super) static NOT_WAITING: Cell<bool> = const { Cell::new(false) };
}

/// The process's threads, running and waiting.
pub(super) static WAITS: Waits = Waits::new();

/// In a forked child: only `vcpu`, the thread that forked, goes on.
pub(super) fn only(vcpu: c_uint) {
    for (k, slot) in VCPUS.iter().enumerate() {
        if k != vcpu as usize {
            slot.store(std::ptr::null_mut(), Ordering::Relaxed);
        }
    }
}
