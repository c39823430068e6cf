//! Ctrl-C, SIGTERM and SIGHUP while a command is profiled: the command's
//! processes are stopped (natively and under QEMU), the scratch folders
//! removed, what was stopped said, and carmbench exits 128 + the signal.
//! Nothing is written: a point of half a run would be wrong.
//!
//! The signals are blocked in every thread and taken by one that waits for
//! them (`sigwait`), so no handler runs at an awkward moment; programs
//! carmbench starts get the mask carmbench was started with back
//! ([`super::mask`]): the standard library would pass on the blocked one.

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
    super::mask::keep_original(original);
    std::thread::spawn(move || {
        loop {
            let mut got = 0;
            // SAFETY: waits for one of the blocked signals.
            if unsafe { libc::sigwait(&set, &mut got) } == 0 {
                stopped_by(got);
            }
        }
    });
}

/// Stop everything this run started and exit.
fn stopped_by(signal: libc::c_int) -> ! {
    super::mask::stopping();
    let stopped = super::tree::stop_all();
    crate::files::remove_scratch();
    let name = SIGNALS
        .iter()
        .find(|(s, _)| *s == signal)
        .map_or("a signal", |(_, n)| n);
    eprintln!(
        "carmbench: stopped by {name}: stopped {}; removed the scratch folders; nothing written",
        super::tree::list(&stopped)
    );
    std::process::exit(128 + signal)
}
