//! QEMU's plugin C API, version 1 (`include/qemu/qemu-plugin.h` of QEMU
//! 7.2), declared here for the few functions used, and the plugin's entry
//! points. QEMU resolves these symbols from its own binary when it loads
//! the plugin.

use crate::cache::{Hierarchy, Moved, Spec};
use crate::classify::{self, Array, field};
use crate::packed::{BlockCounts, pack, unpack};
use crate::process::Process;
use crate::protocol::{self, op};
use crate::tally::{Tally, Thread};
use crate::waits::Waits;
use iced_x86::InstructionInfoFactory;
use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::path::PathBuf;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

type PluginId = u64;

#[repr(C)]
struct Tb {
    _opaque: [u8; 0],
}

#[repr(C)]
struct Insn {
    _opaque: [u8; 0],
}

/// `qemu_info_t`: the fields read here come first.
#[repr(C)]
pub struct QemuInfo {
    target_name: *const c_char,
    version_min: c_int,
    version_cur: c_int,
    system_emulation: bool,
}

/// `QEMU_PLUGIN_CB_NO_REGS`.
const CB_NO_REGS: c_int = 0;
/// `QEMU_PLUGIN_INLINE_ADD_U64`.
const INLINE_ADD_U64: c_int = 0;
/// `QEMU_PLUGIN_MEM_RW`.
const MEM_RW: c_int = 3;

type TbTransCb = extern "C" fn(PluginId, *mut Tb);
type VcpuUdataCb = extern "C" fn(c_uint, *mut c_void);
type MemCb = extern "C" fn(c_uint, u32, u64, *mut c_void);
type SyscallCb = extern "C" fn(PluginId, c_uint, i64, u64, u64, u64, u64, u64, u64, u64, u64);
type SyscallRetCb = extern "C" fn(PluginId, c_uint, i64, i64);
type UdataCb = extern "C" fn(PluginId, *mut c_void);
type ResetCb = extern "C" fn(PluginId);

unsafe extern "C" {
    fn qemu_plugin_register_vcpu_tb_trans_cb(id: PluginId, cb: TbTransCb);
    fn qemu_plugin_register_vcpu_tb_exec_cb(
        tb: *mut Tb,
        cb: VcpuUdataCb,
        flags: c_int,
        userdata: *mut c_void,
    );
    fn qemu_plugin_register_vcpu_tb_exec_inline(tb: *mut Tb, op: c_int, ptr: *mut c_void, imm: u64);
    fn qemu_plugin_reset(id: PluginId, cb: ResetCb);
    fn qemu_plugin_tb_n_insns(tb: *const Tb) -> usize;
    fn qemu_plugin_tb_get_insn(tb: *const Tb, idx: usize) -> *mut Insn;
    fn qemu_plugin_insn_data(insn: *const Insn) -> *const c_void;
    fn qemu_plugin_insn_size(insn: *const Insn) -> usize;
    fn qemu_plugin_insn_vaddr(insn: *const Insn) -> u64;
    fn qemu_plugin_insn_haddr(insn: *const Insn) -> *mut c_void;
    fn qemu_plugin_register_vcpu_mem_cb(
        insn: *mut Insn,
        cb: MemCb,
        flags: c_int,
        rw: c_int,
        userdata: *mut c_void,
    );
    fn qemu_plugin_mem_size_shift(info: u32) -> c_uint;
    fn qemu_plugin_mem_is_store(info: u32) -> bool;
    fn qemu_plugin_register_vcpu_syscall_cb(id: PluginId, cb: SyscallCb);
    fn qemu_plugin_register_vcpu_syscall_ret_cb(id: PluginId, cb: SyscallRetCb);
    fn qemu_plugin_register_atexit_cb(id: PluginId, cb: UdataCb, userdata: *mut c_void);
}

/// The API version this plugin is written for; QEMU refuses a plugin whose
/// version it does not implement.
#[unsafe(no_mangle)]
pub static qemu_plugin_version: c_int = 1;

static TALLY: OnceLock<Tally> = OnceLock::new();
/// The folder of the counts files.
static OUT: OnceLock<PathBuf> = OnceLock::new();
static PROCESS: Mutex<Option<Process>> = Mutex::new(None);
/// Set when loops are asked for (`carmbench_counts::protocol::LOOPS_ENV`).
static LOOPS: OnceLock<()> = OnceLock::new();
/// The simulated caches, when asked for (`carmbench_counts::protocol::CACHE_ENV`).
static CACHES: OnceLock<Hierarchy> = OnceLock::new();

/// The process's state (set at install; replaced in a forked child).
fn with_process<T>(f: impl FnOnce(&mut Process) -> T) -> Option<T> {
    let mut p = PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    p.as_mut().map(f)
}

/// Each vCPU's counters: under user mode a vCPU is a guest thread, and its
/// index comes with every callback (a load here, where a thread-local
/// costs a call into the dynamic loader from a plugin).
static VCPUS: [AtomicPtr<Thread>; MAX_VCPUS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_VCPUS];

/// vCPUs counted through [`VCPUS`]; threads past it go through a
/// thread-local.
const MAX_VCPUS: usize = 4096;

thread_local! {
    /// This thread's counters when its vCPU index is past [`MAX_VCPUS`].
    static MINE: Cell<*const Thread> = const { Cell::new(std::ptr::null()) };
}

fn tally() -> &'static Tally {
    TALLY.get_or_init(Tally::default)
}

/// The counters of the thread running on `vcpu` (only ever called on it).
#[inline]
fn mine(vcpu: c_uint) -> &'static Thread {
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
fn thread_ends(vcpu: c_uint) {
    if let Some(slot) = VCPUS.get(vcpu as usize)
        && !slot.swap(std::ptr::null_mut(), Ordering::Relaxed).is_null()
    {
        WAITS.ends();
    }
}

/// Whether system call `num`, first argument `a1`, may wait long: a sleep,
/// or a wait other than a read of a regular file (the guest's descriptors
/// are QEMU's own under user mode).
fn waits(num: i64, a1: u64) -> bool {
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
fn waited(num: i64) -> bool {
    let skipped = num == protocol::READ && NOT_WAITING.with(|n| n.replace(false));
    !skipped && (protocol::SLEEPS.contains(&num) || protocol::WAITS.contains(&num))
}

thread_local! {
    /// Set while this thread reads a regular file (not a wait).
    static NOT_WAITING: Cell<bool> = const { Cell::new(false) };
}

/// The process's threads, running and waiting.
static WAITS: Waits = Waits::new();

/// In a forked child: only `vcpu`, the thread that forked, goes on.
fn only(vcpu: c_uint) {
    for (k, slot) in VCPUS.iter().enumerate() {
        if k != vcpu as usize {
            slot.store(std::ptr::null_mut(), Ordering::Relaxed);
        }
    }
}

/// A line on standard error: carmbench reads the emulated run's. (QEMU's
/// own plugin output goes to its log, shown only with `-d plugin`.)
fn say(msg: &str) {
    eprintln!("carmbench-qemu-plugin: {msg}");
}

/// A block of counts past [`pack`]'s reach: its id and counts, leaked.
struct Wide {
    id: u32,
    counts: BlockCounts,
}

/// Block `id` ran on `vcpu`, with its counts at `counts`.
#[inline]
fn ran(vcpu: c_uint, id: u32, counts: *const BlockCounts) -> &'static Thread {
    let me = mine(vcpu);
    if me.ran(id) {
        // SAFETY: the counts leaked in `on_translate` for this block.
        me.add(unsafe { &*counts });
    }
    me
}

extern "C" fn on_block(vcpu: c_uint, udata: *mut c_void) {
    let (id, counts) = unpack(udata);
    ran(vcpu, id, counts);
}

extern "C" fn on_block_wide(vcpu: c_uint, udata: *mut c_void) {
    // SAFETY: udata is the Wide leaked for this block in `on_translate`.
    let b = unsafe { &*(udata as *const Wide) };
    ran(vcpu, b.id, &b.counts);
}

/// [`on_block`], and the pair (the block before, this one) counted: the
/// control flow loops are found in.
extern "C" fn on_block_followed(vcpu: c_uint, udata: *mut c_void) {
    let (id, counts) = unpack(udata);
    followed(ran(vcpu, id, counts), id);
}

extern "C" fn on_block_followed_wide(vcpu: c_uint, udata: *mut c_void) {
    // SAFETY: as in `on_block_wide`.
    let b = unsafe { &*(udata as *const Wide) };
    followed(ran(vcpu, b.id, &b.counts), b.id);
}

/// Block `id` ran after the one `me` ran last.
fn followed(me: &Thread, id: u32) {
    // A load and a store: only this thread writes it (no locked swap).
    let before = me.last.load(Ordering::Relaxed);
    me.last.store(id, Ordering::Relaxed);
    if before != u32::MAX {
        me.runs.followed(before, id, &me.edges);
    }
}

/// An access's size (as a power of two) and whether it stores, read from
/// `info` as QEMU 7.2 packs it (the memory operation's index in the low 16
/// bits, its size in bits 4-6, the direction above): two calls into QEMU
/// per access less. The first [`CHECKED`] accesses are read both ways; if
/// they ever differ (another packing), QEMU's functions are used from then on.
#[inline]
fn meminfo(info: u32) -> (u32, bool) {
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
fn meminfo_checked(info: u32, mine: (u32, bool), checked: u32) -> (u32, bool) {
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
static DECODED: AtomicU32 = AtomicU32::new(0);
/// See [`meminfo`].
const CHECKED: u32 = 4096;
/// [`DECODED`] once the two readings differed.
const DIFFERS: u32 = u32::MAX;

/// An access whose bytes are known only at run time. `udata` is the
/// block's id: see `on_translate`.
extern "C" fn on_memory(vcpu: c_uint, info: u32, _vaddr: u64, udata: *mut c_void) {
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
extern "C" fn on_access(vcpu: c_uint, info: u32, vaddr: u64, udata: *mut c_void) {
    let Some(h) = CACHES.get() else { return };
    let (shift, store) = meminfo(info);
    let size = 1u64 << shift;
    // Most accesses touch one line that sampling leaves out: done here.
    if h.samples(vaddr, size) {
        simulate(h, vcpu, vaddr, size, store, udata as usize as u32);
    }
}

/// [`on_access`] of a sampled line: apart, so that the accesses sampling
/// leaves out pay for no more than the test.
#[inline(never)]
fn simulate(h: &Hierarchy, vcpu: c_uint, vaddr: u64, size: u64, store: bool, id: u32) {
    let me = mine(vcpu);
    // SAFETY: this thread's own caches, in a callback that does not nest.
    let p = unsafe { me.private(|| h.private()) };
    if h.l1_hit(p, vaddr, size, store) {
        me.accessed(id, crate::sites::L1_HITS, &[h.spec().sample]);
        return;
    }
    let mut m = Moved::default();
    h.access(p, vaddr, size, store, &mut m);
    if m.only_l1_hits() {
        // Most sampled accesses: one counter.
        me.accessed(id, crate::sites::L1_HITS, &[m.hits[0] * h.spec().sample]);
    } else {
        me.accessed(id, crate::sites::TRAFFIC_AT, &m.values(h.spec()));
    }
}

thread_local! {
    static DECODER_INFO: std::cell::RefCell<InstructionInfoFactory> =
        std::cell::RefCell::new(InstructionInfoFactory::new());
}

extern "C" fn on_translate(_id: PluginId, tb: *mut Tb) {
    let mut block: Array = [0; field::N];
    // SAFETY: QEMU's handles, valid for this callback.
    let n = unsafe { qemu_plugin_tb_n_insns(tb) };
    // The block's place: the host address of its code (the guest's under
    // user mode, offset by QEMU's guest base), found in /proc/self/maps.
    let host_address = match n {
        0 => 0,
        // SAFETY: as above.
        _ => unsafe {
            let first = qemu_plugin_tb_get_insn(tb, 0);
            let h = qemu_plugin_insn_haddr(first) as u64;
            if h == 0 {
                qemu_plugin_insn_vaddr(first)
            } else {
                h
            }
        },
    };
    let mut dynamic = Vec::new();
    let mut accessing = Vec::new();
    let loops = LOOPS.get().is_some();
    let mut pieces = Vec::new();
    let (mut first_ip, mut end_ip) = (0, 0);
    let mut ends = carmbench_counts::End::Other;
    for k in 0..n {
        // SAFETY: as above; the data spans the instruction's size.
        let (insn, bytes, ip) = unsafe {
            let insn = qemu_plugin_tb_get_insn(tb, k);
            let data = qemu_plugin_insn_data(insn) as *const u8;
            let size = qemu_plugin_insn_size(insn);
            (
                insn,
                std::slice::from_raw_parts(data, size).to_vec(),
                qemu_plugin_insn_vaddr(insn),
            )
        };
        let i = DECODER_INFO.with(|f| classify::decode(&bytes, ip, &mut f.borrow_mut()));
        for (s, x) in block.iter_mut().zip(i.counts) {
            *s += x;
        }
        let accesses = i.dynamic || i.counts[field::LOADS] + i.counts[field::STORES] > 0;
        if i.dynamic {
            dynamic.push(insn);
        }
        if accesses {
            accessing.push(insn);
        }
        if k == 0 {
            first_ip = ip;
        }
        end_ip = ip + bytes.len() as u64;
        ends = i.ends;
        if loops {
            pieces.push(crate::sites::Piece {
                at: ip - first_ip,
                counts: sparse(&i.counts),
                accesses: accesses && (i.dynamic || CACHES.get().is_some()),
            });
        }
    }
    let counts = sparse(&block);
    let id = tally().block(crate::sites::Block {
        host_address,
        counts: counts.clone(),
        size: end_ip - first_ip,
        pieces,
        ends,
    });
    if CACHES.get().is_some() {
        for insn in accessing {
            // SAFETY: registering a callback on an instruction of this block.
            unsafe {
                qemu_plugin_register_vcpu_mem_cb(
                    insn,
                    on_access,
                    CB_NO_REGS,
                    MEM_RW,
                    id as usize as *mut c_void,
                )
            };
        }
    }
    for insn in dynamic {
        // SAFETY: registering a callback on an instruction of this block.
        unsafe {
            qemu_plugin_register_vcpu_mem_cb(
                insn,
                on_memory,
                CB_NO_REGS,
                MEM_RW,
                id as usize as *mut c_void,
            )
        };
    }
    if !loops
        && tally().solo.inline()
        && let Some(counter) = tally().solo.counter(id)
    {
        // SAFETY: an inline add on this block to a counter that lives until
        // exit.
        unsafe { qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64, counter.cast(), 1) };
        return;
    }
    let leaked = Box::into_raw(Box::new(counts));
    let (cb, udata) = match pack(id, leaked) {
        Some(word) => {
            let cb = match loops {
                true => on_block_followed as VcpuUdataCb,
                false => on_block as VcpuUdataCb,
            };
            (cb, word as *mut c_void)
        }
        None => {
            // SAFETY: made just above, not shared.
            let counts = *unsafe { Box::from_raw(leaked) };
            let cb = match loops {
                true => on_block_followed_wide as VcpuUdataCb,
                false => on_block_wide as VcpuUdataCb,
            };
            (cb, Box::into_raw(Box::new(Wide { id, counts })).cast())
        }
    };
    // SAFETY: registering a callback on this block with its counts.
    unsafe { qemu_plugin_register_vcpu_tb_exec_cb(tb, cb, CB_NO_REGS, udata) };
}

/// The counters that are not zero, as (field, value) pairs.
fn sparse(c: &Array) -> Vec<(usize, u64)> {
    (c.iter().enumerate())
        .filter(|(_, v)| **v > 0)
        .map(|(i, v)| (i, *v))
        .collect()
}

#[allow(clippy::too_many_arguments)]
extern "C" fn on_syscall(
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
    if protocol::EXECS.contains(&num) {
        // The process is replaced if the exec succeeds: its counts now.
        with_process(Process::exec);
        write(false);
        return;
    }
    if num == protocol::EXIT_THREAD {
        thread_ends(vcpu);
    }
    if waits(num, op) {
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

extern "C" fn on_syscall_return(_id: PluginId, vcpu: c_uint, num: i64, ret: i64) {
    if waited(num) {
        WAITS.back();
    }
    if protocol::EXECS.contains(&num) && ret < 0 {
        with_process(Process::exec_failed);
    } else if protocol::FORKS.contains(&num) && ret == 0 {
        // A new thread does not return here (QEMU starts it elsewhere); a
        // forked child does, with a pid of its own.
        let Some(dir) = OUT.get() else { return };
        with_process(|p| {
            if p.pid != std::process::id() {
                only(vcpu);
                WAITS.restart();
                tally().restart(mine(vcpu));
                *p = p.forked(dir);
            }
        });
    }
}

/// Whether the counts were last written [`protocol::WAIT_WRITES`] ms ago
/// or more, and [`WRITE_SHARE`] times as long ago as that write took (and
/// taken as written now, when so): a process that waits often spends at
/// most a small share of its time writing.
fn due() -> bool {
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
static WRITE_NS: AtomicU64 = AtomicU64::new(0);

/// See [`due`].
const WRITE_SHARE: u32 = 20;

/// Write the process's counts to its file, whole (through a rename); as
/// far as they go when `partial` (the process goes on).
fn write(partial: bool) {
    // One writer at a time: threads share the temporary file.
    static WRITING: Mutex<()> = Mutex::new(());
    let _one = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let start = std::time::Instant::now();
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
fn quietly<T>(f: impl FnOnce() -> T) -> T {
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

extern "C" fn on_exit(_id: PluginId, _udata: *mut c_void) {
    write(false);
}

/// Called by QEMU when it loads the plugin: checks the API version and the
/// target, reads `out=DIR`, registers the callbacks. Non-zero refuses.
///
/// # Safety
/// QEMU passes a valid `info` and `argc` NUL-terminated strings in `argv`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn qemu_plugin_install(
    id: PluginId,
    info: *const QemuInfo,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    // SAFETY: see the function's contract.
    let info = unsafe { &*info };
    if info.version_min > qemu_plugin_version || info.version_cur < qemu_plugin_version {
        say(&format!(
            "plugin API version {} is not among QEMU's ({}..{})",
            qemu_plugin_version, info.version_min, info.version_cur
        ));
        return 1;
    }
    // SAFETY: QEMU's target name string.
    let target = unsafe { CStr::from_ptr(info.target_name) }.to_string_lossy();
    if target != "x86_64" || info.system_emulation {
        say(&format!(
            "counts x86-64 user-mode programs, not target {target}"
        ));
        return 1;
    }
    for k in 0..usize::try_from(argc).unwrap_or(0) {
        // SAFETY: argc strings.
        let arg = unsafe { CStr::from_ptr(*argv.add(k)) }.to_string_lossy();
        if let Some(p) = arg.strip_prefix("out=") {
            let _ = OUT.set(PathBuf::from(p));
        } else {
            say(&format!("unknown argument '{arg}'; give out=DIR"));
            return 1;
        }
    }
    let Some(dir) = OUT.get() else {
        say("no output folder; give out=DIR");
        return 1;
    };
    if !dir.is_dir() {
        say(&format!("the output folder {} is missing", dir.display()));
        return 1;
    }
    if std::env::var_os(carmbench_counts::protocol::LOOPS_ENV).is_some() {
        let _ = LOOPS.set(());
    }
    if let Ok(spec) = std::env::var(carmbench_counts::protocol::CACHE_ENV) {
        match spec.parse::<Spec>() {
            Ok(s) => {
                let _ = CACHES.set(Hierarchy::new(s));
            }
            Err(why) => {
                say(&why);
                return 1;
            }
        }
    }
    let program = std::env::var(carmbench_counts::protocol::PROGRAM_ENV).unwrap_or_default();
    *PROCESS.lock().unwrap_or_else(|e| e.into_inner()) = Some(Process::start(dir, program));
    let _ = PLUGIN.set(id);
    register(id);
    0
}

/// This plugin's id, as QEMU gave it at install.
static PLUGIN: OnceLock<PluginId> = OnceLock::new();

/// Register this plugin's callbacks (at install, and again after a reset).
fn register(id: PluginId) {
    // SAFETY: registering this plugin's callbacks.
    unsafe {
        qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
        qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
        qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_return);
        qemu_plugin_register_atexit_cb(id, on_exit, std::ptr::null_mut());
    }
}

/// New blocks get callbacks from now on (a thread is about to be created,
/// or a region begins: see [`crate::solo`]); the first time, QEMU is asked
/// to drop every block translated so far.
fn leave_inline(vcpu: c_uint) {
    if tally().solo.leave(mine(vcpu))
        && let Some(&id) = PLUGIN.get()
    {
        // SAFETY: this plugin's id; `on_reset` is called when it is done.
        unsafe { qemu_plugin_reset(id, on_reset) };
    }
}

/// QEMU dropped every translated block and this plugin's callbacks, with no
/// vCPU running: the callbacks again, and the inline runs settled.
extern "C" fn on_reset(id: PluginId) {
    register(id);
    tally().with_blocks(|b| tally().solo.settle(b));
}
