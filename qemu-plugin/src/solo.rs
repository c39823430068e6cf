//! Block runs counted without a callback while a process has one thread.
//!
//! A callback per block run costs QEMU a call out of its generated code; an
//! inline add to a counter costs a few instructions, but QEMU's inline adds
//! are not atomic, so two threads running a block would lose runs. So a
//! block translated while the process has one thread, no region has begun
//! and loops are not asked for counts its runs with an inline add into
//! [`Solo`]'s array, whose runs all belong to that one thread. When a
//! thread is about to be created or a region begins, new blocks get
//! callbacks and the plugin asks QEMU for a reset: QEMU flushes every
//! translated block with no vCPU running, so no inline add runs again, and
//! the callbacks are registered anew (`qemu/mod.rs`: `on_reset`). From then on
//! the array is fixed; its sum is taken once there.

use crate::classify::{Array, field};
use crate::edges::Edges;
use crate::sites::{Block, Runs};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering::Relaxed};

/// The runs counted inline, and the state of the switch to callbacks; `T`
/// is a thread's record (so this module needs none of its own).
#[derive(Default)]
pub struct Solo<T> {
    /// The inline-counted runs, by block id (only the runs are used).
    pub runs: Runs,
    /// No pairs of blocks are counted inline: an empty table for `sites`.
    pub edges: Edges,
    /// Set once new blocks must get callbacks.
    left: AtomicBool,
    /// The thread that was alone when the process left inline counting:
    /// only compared, never read.
    owner: AtomicPtr<T>,
    /// The array's sum once no inline add can run again.
    settled: Mutex<Option<Array>>,
}

impl<T> Solo<T> {
    /// Whether a block translated now may count its runs inline.
    pub fn inline(&self) -> bool {
        !self.left.load(Relaxed)
    }

    /// The address QEMU adds a run of block `id` to, if it has one.
    pub fn counter(&self, id: u32) -> Option<*mut u64> {
        self.runs.counter(id)
    }

    /// New blocks get callbacks from now on; `me` is the one thread there
    /// is. True the first time: the caller asks QEMU for the reset.
    pub fn leave(&self, me: &T) -> bool {
        if self.left.swap(true, Relaxed) {
            return false;
        }
        self.owner.store(std::ptr::from_ref(me).cast_mut(), Relaxed);
        true
    }

    /// QEMU's reset is done (no vCPU runs): the array no longer changes.
    pub fn settle(&self, blocks: &[Block]) {
        *self.settled.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.runs.total(blocks));
    }

    /// Whether `t` is the thread the inline runs belong to: the owner, or
    /// with none named, the first thread.
    pub fn belongs_to(&self, t: &T, first: bool) -> bool {
        let owner = self.owner.load(Relaxed);
        match owner.is_null() {
            true => first,
            false => std::ptr::eq(owner, t),
        }
    }

    /// The inline runs' counts now, for the regions of their thread: the
    /// settled sum, else summed now (only between a region's beginning and
    /// the reset that follows it).
    pub fn now(&self, blocks: &[Block]) -> Array {
        let settled = self.settled.lock().unwrap_or_else(|e| e.into_inner());
        match *settled {
            Some(a) => a,
            None => self.runs.total(blocks),
        }
    }

    /// In a forked child: its own runs from zero. QEMU's generated code
    /// adds to these very addresses, so they are zeroed where they are.
    pub fn restart(&self, blocks: usize) {
        self.runs.zero(blocks);
        let mut settled = self.settled.lock().unwrap_or_else(|e| e.into_inner());
        if settled.is_some() {
            *settled = Some([0; field::N]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::Thread;

    #[test]
    fn inline_runs_belong_to_the_thread_that_was_alone_and_settle() {
        let solo = Solo::<Thread>::default();
        let blocks = vec![Block {
            counts: vec![(field::DP_FMA, 4)],
            ..Block::default()
        }];
        let (a, b) = (Thread::default(), Thread::default());
        assert!(solo.inline());
        assert!(solo.belongs_to(&a, true) && !solo.belongs_to(&b, false));
        // QEMU's generated code adds to the counter.
        let c = solo.counter(0).unwrap();
        // SAFETY: the counter of block 0, alive with `solo`.
        unsafe { *c += 3 };
        assert_eq!(solo.now(&blocks)[field::DP_FMA], 12);
        assert!(solo.leave(&b) && !solo.leave(&a));
        assert!(!solo.inline());
        assert!(solo.belongs_to(&b, false) && !solo.belongs_to(&a, true));
        solo.settle(&blocks);
        unsafe { *c += 1 };
        assert_eq!(solo.now(&blocks)[field::DP_FMA], 12, "settled");
        solo.restart(blocks.len());
        assert_eq!(solo.now(&blocks)[field::DP_FMA], 0);
        assert_eq!(solo.runs.total(&blocks)[field::DP_FMA], 0);
    }
}
