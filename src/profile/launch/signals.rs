//! Ctrl-C, SIGTERM and SIGHUP while a command is profiled: the command's
//! processes are stopped (natively and under QEMU), the scratch folders
//! removed, what was stopped said, and carmbench exits 128 + the signal.
//! Nothing is written: a point of half a run would be wrong.
//!
//! The signals are blocked in every thread and taken by one that waits for
//! them (`sigwait`), so no handler runs at an awkward moment; programs
//! carmbench starts get the mask carmbench was started with back
//! ([`crate::profile::launch::mask`]): the standard library would pass on the blocked one.
//!
//! An MPI rank's wrapper (`mpi-rank`) is stopped by its launcher when
//! another rank fails: it stops its program too, but writes the rank's
//! record first (a rank that had finished keeps its run), then exits.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

/// The rank this process wraps, when it is an `mpi-rank` wrapper.
static RANK: OnceLock<u32> = OnceLock::new();

/// The signal that stopped a rank's wrapper, 0 for none yet.
static PENDING: AtomicI32 = AtomicI32::new(0);

/// The signals that stop a profile.
const SIGNALS: [(libc::c_int, &str); 3] = [
    (libc::SIGINT, "Ctrl-C (SIGINT)"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGHUP, "SIGHUP"),
];

/// Take the signals from now on (call before any other thread starts).
pub fn catch() {
    // SAFETY: a signal set built and handed to the kernel; no handler.
    let (set, original) = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut original: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for (s, _) in SIGNALS {
            libc::sigaddset(&mut set, s);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut original);
        (set, original)
    };
    crate::profile::launch::mask::keep_original(original);
    std::thread::spawn(move || {
        loop {
            let mut got = 0;
            // SAFETY: waits for one of the blocked signals.
            if unsafe { libc::sigwait(&set, &mut got) } != 0 {
                continue;
            }
            match RANK.get() {
                Some(_) => {
                    PENDING.store(got, Ordering::SeqCst);
                    stop_rank();
                }
                None => stopped_by(got),
            }
        }
    });
}

/// [`catch`] for the wrapper of `rank`: a signal stops its program, and
/// [`exit_if_stopped`] exits once the rank's record is written.
pub fn catch_for_rank(rank: u32) {
    let _ = RANK.set(rank);
    crate::profile::launch::mask::wrapper();
    catch();
}

/// Stop a rank's program as carmbench stops any (SIGTERM, SIGKILL a moment
/// later), leaving its end to the run that waits for it.
fn stop_rank() {
    crate::profile::launch::tree::signal_all(libc::SIGTERM);
    std::thread::sleep(std::time::Duration::from_millis(500));
    crate::profile::launch::tree::signal_all(libc::SIGKILL);
}

/// Exit 128 + the signal when one stopped this rank's wrapper.
pub fn exit_if_stopped() {
    let (signal, Some(rank)) = (PENDING.load(Ordering::SeqCst), RANK.get()) else {
        return;
    };
    if signal == 0 {
        return;
    }
    eprintln!(
        "carmbench mpi-rank: rank {rank} stopped by {} (its launcher stops the job): its program stopped, its record written",
        name(signal)
    );
    std::process::exit(128 + signal)
}

fn name(signal: libc::c_int) -> &'static str {
    (SIGNALS.iter())
        .find(|(s, _)| *s == signal)
        .map_or("a signal", |(_, n)| n)
}

/// Stop everything this run started and exit.
fn stopped_by(signal: libc::c_int) -> ! {
    crate::profile::launch::mask::stopping();
    let stopped = crate::profile::launch::tree::stop_all();
    crate::files::remove_scratch();
    eprintln!(
        "carmbench: stopped by {}: stopped {}; removed the scratch folders; nothing written",
        name(signal),
        crate::profile::ground::warnings::list(&stopped)
    );
    std::process::exit(128 + signal)
}
