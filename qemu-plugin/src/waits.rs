//! Whether a process is idle: every thread of it in a system call that may
//! wait long. The plugin writes a process's counts when it becomes idle
//! (QEMU runs no exit callback for a process a signal ends, so a process
//! stopped while it waits keeps them), not each time one thread of a busy
//! process waits for another: a write costs the more the more code ran.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Live threads, and those in a waiting system call.
#[derive(Default)]
pub struct Waits {
    live: AtomicUsize,
    waiting: AtomicUsize,
}

impl Waits {
    /// None yet.
    pub const fn new() -> Waits {
        Waits {
            live: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
        }
    }

    /// A thread runs its first code here.
    pub fn starts(&self) {
        self.live.fetch_add(1, Relaxed);
    }

    /// A thread ends.
    pub fn ends(&self) {
        let _ = (self.live).fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1));
    }

    /// A thread begins to wait: whether every live thread now waits.
    pub fn begins(&self) -> bool {
        let waiting = self.waiting.fetch_add(1, Relaxed) + 1;
        waiting >= self.live.load(Relaxed)
    }

    /// A thread is back from its wait.
    pub fn back(&self) {
        let _ = (self.waiting).fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1));
    }

    /// In a forked child: its one thread, running.
    pub fn restart(&self) {
        self.live.store(1, Relaxed);
        self.waiting.store(0, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_idle_when_its_last_running_thread_waits() {
        let w = Waits::default();
        w.starts();
        w.starts();
        assert!(!w.begins(), "one of two waits");
        assert!(w.begins(), "both wait");
        w.back();
        w.ends();
        w.back();
        assert!(w.begins(), "the one left waits");
        w.restart();
        assert!(w.begins());
    }
}
