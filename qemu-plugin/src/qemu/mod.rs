//! The plugin's entry points: install, and the callbacks QEMU calls. Its
//! parts: QEMU's C API ([`ffi`]), the guest's threads ([`threads`]),
//! translated blocks ([`blocks`]), memory accesses ([`memory`]) and system
//! calls with the counts file's writing ([`syscalls`]).

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

mod blocks;
mod ffi;
mod memory;
mod sampler;
mod syscalls;
mod threads;

use blocks::*;
use ffi::*;
use memory::*;
use syscalls::*;
use threads::*;

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

fn tally() -> &'static Tally {
    TALLY.get_or_init(Tally::default)
}

/// A line on standard error: carmbench reads the emulated run's. (QEMU's
/// own plugin output goes to its log, shown only with `-d plugin`.)
fn say(msg: &str) {
    eprintln!("carmbench-qemu-plugin: {msg}");
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
    if let Ok(keep) = std::env::var(carmbench_counts::protocol::TIMELINE_ENV) {
        match keep.parse::<usize>() {
            Ok(k) if k > 0 => sampler::start(k),
            _ => {
                say(&format!(
                    "{}={keep}: give a number of windows",
                    carmbench_counts::protocol::TIMELINE_ENV
                ));
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
