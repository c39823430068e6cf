//! Signal handlers in the control flow (loops asked for). A handler runs
//! between two blocks of the code it interrupts; the block that code
//! resumes with follows the block before the handler, not the handler's
//! `rt_sigreturn`, or a loop entered just as a signal came would lose that
//! entry.

use std::collections::HashSet;
use std::sync::Mutex;

/// The guest addresses of the handlers the guest installed.
#[derive(Default)]
pub struct Handlers(Mutex<HashSet<u64>>);

impl Handlers {
    /// `at` installed as a handler (0 and 1 are `SIG_DFL` and `SIG_IGN`,
    /// no code): whether it is new.
    pub fn install(&self, at: u64) -> bool {
        at > 1 && self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(at)
    }

    /// Whether code at `at` is a handler's first.
    pub fn contains(&self, at: u64) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&at)
    }
}

/// On one thread, the block that ran last as each handler still running
/// began, the innermost last.
#[derive(Default)]
pub struct Interrupted(Mutex<Vec<u32>>);

impl Interrupted {
    /// Handlers left by `siglongjmp` never return: the oldest beyond this
    /// many are dropped.
    const MOST: usize = 64;

    /// A handler begins, `last` the block that ran before it.
    pub fn begins(&self, last: u32) {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        v.push(last);
        if v.len() > Self::MOST {
            v.remove(0);
        }
    }

    /// The innermost handler returns: the block its code ran last.
    pub fn returns(&self) -> Option<u32> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }
}

/// The handler `act` installs: the first word of the guest's `struct
/// sigaction` at host address `act`, read without trusting the pointer (a
/// bad one reads nothing, as the kernel would refuse it).
pub fn handler_at(act: u64) -> Option<u64> {
    let mut word = [0u8; 8];
    let local = libc::iovec {
        iov_base: word.as_mut_ptr().cast(),
        iov_len: 8,
    };
    let remote = libc::iovec {
        iov_base: act as *mut libc::c_void,
        iov_len: 8,
    };
    // SAFETY: reads this process's memory through the kernel, which checks
    // the remote range; the local one is `word`.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    (n == 8).then(|| u64::from_le_bytes(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handlers_are_code_and_each_is_new_once() {
        let h = Handlers::default();
        assert!(!h.install(0) && !h.install(1));
        assert!(h.install(0x4010));
        assert!(!h.install(0x4010));
        assert!(h.contains(0x4010) && !h.contains(0x4011));
    }

    #[test]
    fn a_handler_returns_to_the_block_before_it_innermost_first() {
        let i = Interrupted::default();
        i.begins(7);
        i.begins(9);
        assert_eq!(i.returns(), Some(9));
        assert_eq!(i.returns(), Some(7));
        assert_eq!(i.returns(), None);
        // Handlers that never returned: only the latest are kept.
        (0..100).for_each(|k| i.begins(k));
        assert_eq!(i.returns(), Some(99));
        assert_eq!(i.0.lock().unwrap().len(), Interrupted::MOST - 1);
        assert_eq!(i.0.lock().unwrap()[0], 100 - Interrupted::MOST as u32);
    }

    #[test]
    fn a_sigaction_is_read_from_memory_and_a_bad_pointer_reads_nothing() {
        let act: [u64; 4] = [0x4010, 4, 0, 0];
        assert_eq!(handler_at(act.as_ptr() as u64), Some(0x4010));
        assert_eq!(handler_at(8), None);
    }
}
