//! System calls: regions, the preload library's words, execs and forks,
//! threads created and ended, waits; and writing the counts file.

use super::*;

#[allow(clippy::too_many_arguments)]
pub(super) extern "C" fn on_syscall(
    _id: PluginId,
    vcpu: c_uint,
    num: i64,
    op: u64,
    region: u64,
    a3: u64,
    a4: u64,
    a5: u64,
    a6: u64,
    _a7: u64,
    _a8: u64,
) {
    // A new thread (`clone` sharing memory; `clone3`, whose flags are in
    // the guest's memory, always): the runs must be counted per thread.
    if num == protocol::CLONE && op & protocol::CLONE_VM != 0 || num == protocol::CLONE3 {
        leave_inline(vcpu);
    }
    if protocol::FORKS.contains(&num) {
        sampler::fork_begins();
    }
    if protocol::EXECS.contains(&num) {
        // The process is replaced if the exec succeeds: its counts now.
        with_process(Process::exec);
        write(false);
        return;
    }
    if num == protocol::EXIT_THREAD {
        thread_ends(vcpu);
    }
    if op == 0 && protocol::READS.contains(&num) {
        with_process(|p| p.read_stdin = true);
    }
    if protocol::REMAPS.contains(&num) {
        tally().remapped();
    }
    if LOOPS.get().is_some() {
        match num {
            protocol::RT_SIGACTION if region != 0 => installed(region),
            protocol::RT_SIGRETURN => handler_returns(vcpu),
            _ => {}
        }
    }
    mappings(vcpu, num, op, region, a3, a4);
    if waits(num, op) {
        // A thread seen first here (inline-counted code) counts as live.
        mine(vcpu);
        if WAITS.begins() && due() {
            write(true);
        }
    }
    if num != protocol::SYSCALL {
        return;
    }
    match op {
        op::DEFINE => tally().define(region, a3, [a4, a5, a6]),
        op::BEGIN => {
            leave_inline(vcpu);
            tally().begin(mine(vcpu), region);
        }
        op::END => tally().end(mine(vcpu), region),
        op::FOLLOW | op::SKIPPED => {
            with_process(|p| p.preload_says(op, region, a3, [a4, a5, a6]));
        }
        _ => {}
    }
}

/// Anonymous mappings as the guest makes them (a JIT's code is found from
/// its own mapping's start) and, the caches simulated, every mapping placed
/// as Linux would place it.
fn mappings(vcpu: c_uint, num: i64, op: u64, region: u64, a3: u64, a4: u64) {
    let placed = CACHES.get().is_some();
    let anonymous = a4 & protocol::MAP_ANONYMOUS != 0;
    match num {
        protocol::MMAP if anonymous || placed => {
            tally().mmap(vcpu, region, a4 & protocol::MAP_FIXED != 0, anonymous)
        }
        protocol::MUNMAP => {
            tally().munmap(op, region);
            if placed {
                tally().placement.unmapped(op, region);
            }
        }
        protocol::MREMAP if placed => tally().mremap(vcpu, op, region, a3),
        _ => {}
    }
}

/// `rt_sigaction` installs the action at guest address `act`: its handler's
/// first block gets [`on_handler`]. Already translated, it must be again:
/// QEMU is asked to drop every block (once per handler at most).
fn installed(act: u64) {
    let Some(h) = crate::signals::handler_at(tally().host(act)) else {
        return;
    };
    let at = tally().host(h);
    if tally().handlers.install(h)
        && tally().with_blocks(|b| b.iter().any(|b| b.host_address == at))
        && let Some(&id) = PLUGIN.get()
    {
        // SAFETY: this plugin's id; `on_reset` is called when it is done.
        unsafe { qemu_plugin_reset(id, on_reset) };
    }
}

/// A handler returns: the code it interrupted goes on from the block that
/// ran before it.
fn handler_returns(vcpu: c_uint) {
    let me = mine(vcpu);
    if let Some(before) = me.interrupted.returns() {
        me.last.store(before, Ordering::Relaxed);
    }
}

pub(super) extern "C" fn on_syscall_return(_id: PluginId, vcpu: c_uint, num: i64, ret: i64) {
    match num {
        protocol::MMAP => tally().mmap_returned(vcpu, ret, CACHES.get().is_some()),
        protocol::MREMAP => tally().mremap_returned(vcpu, ret),
        _ => {}
    }
    if waited(num) {
        WAITS.back();
    }
    if protocol::EXECS.contains(&num) && ret < 0 {
        with_process(Process::exec_failed);
    } else if protocol::FORKS.contains(&num) {
        // A new thread does not return here (QEMU starts it elsewhere); a
        // forked child does, with a pid of its own.
        let child = ret == 0 && with_process(|p| p.pid != std::process::id()) == Some(true);
        if child && let Some(dir) = OUT.get() {
            with_process(|p| {
                only(vcpu);
                WAITS.restart();
                tally().restart(mine(vcpu));
                *p = p.forked(dir);
            });
        }
        sampler::fork_ended(child);
    }
}

/// Whether the counts were last written [`protocol::WAIT_WRITES`] ms ago
/// or more, and [`WRITE_SHARE`] times as long ago as that write took (and
/// taken as written now, when so): a process that waits often spends at
/// most a small share of its time writing.
pub(super) fn due() -> bool {
    static LAST: Mutex<Option<std::time::Instant>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    let now = std::time::Instant::now();
    let took = std::time::Duration::from_nanos(WRITE_NS.load(Ordering::Relaxed));
    let wait = std::time::Duration::from_millis(protocol::WAIT_WRITES).max(took * WRITE_SHARE);
    match *last {
        Some(t) if now - t < wait => false,
        _ => {
            *last = Some(now);
            true
        }
    }
}

/// How long the last write took, in nanoseconds.
pub(super) static WRITE_NS: AtomicU64 = AtomicU64::new(0);

/// See [`due`].
pub(super) const WRITE_SHARE: u32 = 20;

/// Write the process's counts to its file, whole (through a rename); as
/// far as they go when `partial` (the process goes on).
pub(super) fn write(partial: bool) {
    // One writer at a time: threads share the temporary file.
    static WRITING: Mutex<()> = Mutex::new(());
    let _one = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let start = std::time::Instant::now();
    // The last window: what ran since the timeline's last snapshot.
    tally().snapshot(crate::timeline::monotonic_ns());
    let Some((path, text)) = with_process(|p| {
        let mut out = tally().output(p);
        out.partial = partial;
        (
            p.file.clone(),
            serde_json::to_string(&out).unwrap_or_default(),
        )
    }) else {
        return;
    };
    let tmp = path.with_extension("tmp");
    let written = quietly(|| std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, &path)));
    let took = start.elapsed().as_nanos().min(u64::MAX as u128) as u64;
    WRITE_NS.store(took, Ordering::Relaxed);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        // carmbench reads this line (`protocol::WRITE_FAILED`) to say why.
        say(&format!(
            "{} {}: {e}",
            carmbench_counts::protocol::WRITE_FAILED,
            path.display()
        ));
    }
}

/// Run `f` (a write) with SIGXFSZ held back from this thread and dropped
/// after: a write past the file size limit fails with EFBIG alone. Let
/// through, QEMU would hand the signal to the guest and restart its system
/// call, and with it this write, for ever.
pub(super) fn quietly<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: signal masks of this thread, built here; sigtimedwait with a
    // zero timeout only takes a signal already pending.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGXFSZ);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        let out = f();
        let zero = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        while libc::sigtimedwait(&set, std::ptr::null_mut(), &zero) == libc::SIGXFSZ {}
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        out
    }
}
