//! What the signals carmbench takes while it profiles ([`crate::profile::launch::signals`])
//! and the runs it starts share: the signal mask carmbench was started
//! with, which every program it starts gets back (it would have had that
//! mask without carmbench; the standard library passes on the parent's),
//! and whether carmbench is stopping on a signal, which a run that the same
//! signal ended waits for, so that carmbench exits as stopped, not failed.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The mask before carmbench blocked the signals it takes.
static ORIGINAL: OnceLock<libc::sigset_t> = OnceLock::new();

/// Set once carmbench stops on a signal.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Set in an MPI rank's wrapper, which never stops on a signal before its
/// record is written: a run a signal ended does not wait for it.
static WRAPPER: AtomicBool = AtomicBool::new(false);

/// How long a run a signal ended waits for carmbench to take that signal:
/// the terminal sends it to both at once.
const GRACE: Duration = Duration::from_millis(500);

/// Keep `mask`, the one this process had before it blocked its signals.
pub fn keep_original(mask: libc::sigset_t) {
    let _ = ORIGINAL.set(mask);
}

/// Whether carmbench was started with SIGPIPE ignored (by `nohup`'s kind
/// of parent): read before the standard library ignores it in carmbench,
/// which then sets it back to its default in every child.
static PIPE_IGNORED: AtomicBool = AtomicBool::new(false);

extern "C" fn read_pipe_disposition() {
    // SAFETY: sigaction only reads the disposition into `old`.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
        {
            PIPE_IGNORED.store(true, Ordering::SeqCst);
        }
    }
}

/// Run before `main`, so before the standard library's start-up code.
#[used]
#[unsafe(link_section = ".init_array")]
static READ_PIPE_DISPOSITION: extern "C" fn() = read_pipe_disposition;

/// The program `cmd` starts gets the mask carmbench was started with (the
/// one it has when carmbench took no signals), and SIGPIPE ignored when
/// carmbench was started so.
pub fn restore_in(cmd: &mut Command) {
    let mask = ORIGINAL.get().copied();
    let ignore_pipe = PIPE_IGNORED.load(Ordering::SeqCst);
    // SAFETY: sigprocmask and signal are async-signal-safe, as the child
    // between fork and exec needs.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(mask) = &mask {
                libc::sigprocmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
            }
            if ignore_pipe {
                libc::signal(libc::SIGPIPE, libc::SIG_IGN);
            }
            Ok(())
        });
    }
}

/// This process is a rank's wrapper: a run a signal ended does not wait.
pub fn wrapper() {
    WRAPPER.store(true, Ordering::SeqCst);
}

/// Carmbench is stopping on a signal.
pub fn stopping() {
    STOPPING.store(true, Ordering::SeqCst);
}

/// A run ended with `status`: when a signal ended it, wait a moment for
/// carmbench to stop on it too, and then never return (carmbench exits as
/// stopped). Otherwise, or when carmbench took no signal, return.
pub fn wait_if_stopping(status: &ExitStatus) {
    let Some(s) = status.signal() else {
        return;
    };
    if WRAPPER.load(Ordering::SeqCst) {
        return;
    }
    if ![libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGKILL].contains(&s) {
        return;
    }
    let t0 = Instant::now();
    while t0.elapsed() < GRACE {
        if STOPPING.load(Ordering::SeqCst) {
            // The signal's thread exits the process.
            loop {
                std::thread::park();
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
