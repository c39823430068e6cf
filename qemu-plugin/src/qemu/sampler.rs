//! The timeline's own thread (`profile --timeline`): a snapshot of the
//! counts on a timer, kept clear of forks.

use super::*;
use crate::timeline::{FIRST_PERIOD_NS, Windows, monotonic_ns};
use std::sync::atomic::Ordering::SeqCst;

/// Guest threads in a fork now: no snapshot begins, as a lock a snapshot
/// held at the fork would stay held in the child, with no thread to free
/// it.
static FORKING: AtomicU32 = AtomicU32::new(0);
/// Set while a snapshot is under way.
static TAKING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Set once a timeline is asked for.
static ON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Windows from now, at least `keep` of them, and the thread that takes
/// them.
pub(super) fn start(keep: usize) {
    *tally().timeline.lock().unwrap_or_else(|e| e.into_inner()) =
        Some(Windows::new(keep, monotonic_ns()));
    ON.store(true, SeqCst);
    spawn();
}

/// The thread, started with every signal blocked: the guest's signals go
/// to QEMU's threads, whose handlers expect a vCPU.
fn spawn() {
    // SAFETY: this thread's signal mask, set and put back around the spawn
    // (the new thread inherits the full one).
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        let spawned = std::thread::Builder::new()
            .name("carmbench-timeline".into())
            .spawn(run);
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if let Err(e) = spawned {
            say(&format!("no timeline: its thread could not start ({e})"));
        }
    }
}

fn run() {
    let mut period = FIRST_PERIOD_NS;
    loop {
        std::thread::sleep(std::time::Duration::from_nanos(period));
        TAKING.store(true, SeqCst);
        if FORKING.load(SeqCst) == 0
            && let Some(p) = tally().snapshot(monotonic_ns())
        {
            period = p;
        }
        TAKING.store(false, SeqCst);
    }
}

/// A guest thread is about to fork (or make a thread): a snapshot under
/// way ends first, and none begins until it returns.
pub(super) fn fork_begins() {
    if ON.load(SeqCst) {
        FORKING.fetch_add(1, SeqCst);
        while TAKING.load(SeqCst) {
            std::thread::yield_now();
        }
    }
}

/// The fork returned; `child`: in the new process, which has no timeline
/// thread and only the one guest thread.
pub(super) fn fork_ended(child: bool) {
    if !ON.load(SeqCst) {
        return;
    }
    match child {
        true => {
            FORKING.store(0, SeqCst);
            TAKING.store(false, SeqCst);
            spawn();
        }
        false => {
            let _ = FORKING.fetch_update(SeqCst, SeqCst, |n| n.checked_sub(1));
        }
    }
}
