//! QEMU's plugin C API, version 1 (`include/qemu/qemu-plugin.h` of QEMU
//! 7.2), declared here for the few functions used, and the plugin's entry
//! points. QEMU resolves these symbols from its own binary when it loads
//! the plugin.

use crate::cache::{Hierarchy, Moved, Private, Spec};
use crate::classify::{self, Array, field};
use crate::process::Process;
use crate::protocol::{self, op};
use crate::tally::{Tally, Thread};
use iced_x86::InstructionInfoFactory;
use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::path::PathBuf;
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
/// `QEMU_PLUGIN_MEM_RW`.
const MEM_RW: c_int = 3;

type TbTransCb = extern "C" fn(PluginId, *mut Tb);
type VcpuUdataCb = extern "C" fn(c_uint, *mut c_void);
type MemCb = extern "C" fn(c_uint, u32, u64, *mut c_void);
type SyscallCb = extern "C" fn(PluginId, c_uint, i64, u64, u64, u64, u64, u64, u64, u64, u64);
type SyscallRetCb = extern "C" fn(PluginId, c_uint, i64, i64);
type UdataCb = extern "C" fn(PluginId, *mut c_void);

unsafe extern "C" {
    fn qemu_plugin_register_vcpu_tb_trans_cb(id: PluginId, cb: TbTransCb);
    fn qemu_plugin_register_vcpu_tb_exec_cb(
        tb: *mut Tb,
        cb: VcpuUdataCb,
        flags: c_int,
        userdata: *mut c_void,
    );
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

thread_local! {
    /// This thread's counters (kept alive by the tally).
    static MINE: Cell<*const Thread> = const { Cell::new(std::ptr::null()) };
}

fn tally() -> &'static Tally {
    TALLY.get_or_init(Tally::default)
}

/// The calling thread's counters.
fn mine() -> &'static Thread {
    MINE.with(|m| {
        if m.get().is_null() {
            // The tally keeps the Arc until exit, so the pointer stays valid.
            m.set(Arc::as_ptr(&tally().thread()));
        }
        // SAFETY: see above; never freed while QEMU runs.
        unsafe { &*m.get() }
    })
}

/// A line on standard error: carmbench reads the emulated run's. (QEMU's
/// own plugin output goes to its log, shown only with `-d plugin`.)
fn say(msg: &str) {
    eprintln!("carmbench-qemu-plugin: {msg}");
}

/// A translated block's counts, only those not zero (a block mostly counts
/// instructions and a few accesses: fewer additions each time it runs),
/// leaked: QEMU may run the block until exit.
struct Block {
    id: u32,
    counts: Vec<(usize, u64)>,
}

extern "C" fn on_block(_vcpu: c_uint, udata: *mut c_void) {
    // SAFETY: udata is the Block leaked for this block in `on_translate`.
    let b = unsafe { &*(udata as *const Block) };
    let me = mine();
    me.add_sparse(&b.counts);
    me.runs.ran(b.id);
}

/// [`on_block`], and the pair (the block before, this one) counted: the
/// control flow loops are found in.
extern "C" fn on_block_followed(_vcpu: c_uint, udata: *mut c_void) {
    // SAFETY: as in `on_block`.
    let b = unsafe { &*(udata as *const Block) };
    let me = mine();
    me.add_sparse(&b.counts);
    me.runs.ran(b.id);
    // A load and a store: only this thread writes it (no locked swap).
    let before = me.last.load(std::sync::atomic::Ordering::Relaxed);
    me.last.store(b.id, std::sync::atomic::Ordering::Relaxed);
    if before != u32::MAX {
        me.runs.followed(before, b.id, &me.edges);
    }
}

/// `udata` is the block's id: see `on_translate`.
extern "C" fn on_memory(_vcpu: c_uint, info: u32, _vaddr: u64, udata: *mut c_void) {
    // SAFETY: plain queries of the access QEMU passes in.
    let (shift, store) = unsafe {
        (
            qemu_plugin_mem_size_shift(info),
            qemu_plugin_mem_is_store(info),
        )
    };
    let mut c: Array = [0; field::N];
    let (n, bytes) = if store {
        (field::STORES, field::BYTES_STORED)
    } else {
        (field::LOADS, field::BYTES_LOADED)
    };
    c[n] = 1;
    c[bytes] = 1 << shift;
    add_dynamic(udata, &c);
}

thread_local! {
    /// This thread's own simulated L1 and L2.
    static PRIVATE: std::cell::RefCell<Option<Private>> = const { std::cell::RefCell::new(None) };
}

/// Every access of a memory instruction, when the caches are simulated:
/// the lines it moved between levels, added to the thread's counters.
/// `udata` is the block's id: see `on_translate`.
extern "C" fn on_access(_vcpu: c_uint, info: u32, vaddr: u64, udata: *mut c_void) {
    let Some(h) = CACHES.get() else { return };
    // SAFETY: plain queries of the access QEMU passes in.
    let (shift, store) = unsafe {
        (
            qemu_plugin_mem_size_shift(info),
            qemu_plugin_mem_is_store(info),
        )
    };
    // Most accesses touch one line that sampling leaves out: done here.
    if !h.samples(vaddr, 1 << shift) {
        return;
    }
    let mut m = Moved::default();
    PRIVATE.with(|p| {
        let mut p = p.borrow_mut();
        let p = p.get_or_insert_with(|| h.private());
        h.access(p, vaddr, 1 << shift, store, &mut m);
    });
    if m == Moved::default() {
        return;
    }
    add_dynamic(udata, &m.counts(h.spec()));
}

/// Counts a memory callback found at run time: the thread's, and its
/// block's (`udata` is the block's id) for its function's point.
fn add_dynamic(udata: *mut c_void, c: &Array) {
    let me = mine();
    me.add(c);
    me.runs
        .accessed(udata as usize as u32, crate::sites::DYNAMIC.map(|f| c[f]));
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
    let b = Box::into_raw(Box::new(Block { id, counts }));
    let cb = match loops {
        true => on_block_followed as VcpuUdataCb,
        false => on_block as VcpuUdataCb,
    };
    // SAFETY: registering a callback on this block with its counts.
    unsafe { qemu_plugin_register_vcpu_tb_exec_cb(tb, cb, CB_NO_REGS, b.cast()) };
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
    _vcpu: c_uint,
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
    if protocol::EXECS.contains(&num) {
        // The process is replaced if the exec succeeds: its counts now.
        with_process(Process::exec);
        write(false);
        return;
    }
    if protocol::SLEEPS.contains(&num) || protocol::WAITS.contains(&num) && due() {
        write(true);
    }
    if num != protocol::SYSCALL {
        return;
    }
    match op {
        op::DEFINE => tally().define(region, a3, [a4, a5, a6]),
        op::BEGIN => mine().begin(region),
        op::END => mine().end(region),
        op::FOLLOW | op::SKIPPED => {
            with_process(|p| p.preload_says(op, region, a3, [a4, a5, a6]));
        }
        _ => {}
    }
}

extern "C" fn on_syscall_return(_id: PluginId, _vcpu: c_uint, num: i64, ret: i64) {
    if protocol::EXECS.contains(&num) && ret < 0 {
        with_process(Process::exec_failed);
    } else if protocol::FORKS.contains(&num) && ret == 0 {
        // A new thread does not return here (QEMU starts it elsewhere); a
        // forked child does, with a pid of its own.
        let Some(dir) = OUT.get() else { return };
        with_process(|p| {
            if p.pid != std::process::id() {
                tally().restart(mine());
                *p = p.forked(dir);
            }
        });
    }
}

/// Whether the counts were last written [`protocol::WAIT_WRITES`] ms ago
/// or more (and taken as written now, when so).
fn due() -> bool {
    static LAST: Mutex<Option<std::time::Instant>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    let now = std::time::Instant::now();
    let wait = std::time::Duration::from_millis(protocol::WAIT_WRITES);
    match *last {
        Some(t) if now - t < wait => false,
        _ => {
            *last = Some(now);
            true
        }
    }
}

/// Write the process's counts to its file, whole (through a rename); as
/// far as they go when `partial` (the process goes on).
fn write(partial: bool) {
    // One writer at a time: threads share the temporary file.
    static WRITING: Mutex<()> = Mutex::new(());
    let _one = WRITING.lock().unwrap_or_else(|e| e.into_inner());
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
    // SAFETY: registering this plugin's callbacks.
    unsafe {
        qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
        qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
        qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_return);
        qemu_plugin_register_atexit_cb(id, on_exit, std::ptr::null_mut());
    }
    0
}
