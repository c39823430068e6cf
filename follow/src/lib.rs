//! A preload library for the programs `carmbench profile` counts under
//! QEMU: every program they start runs under QEMU with the counting plugin
//! too, so that `sh -c`, scripts, `make` and launchers are counted whole.
//!
//! Under `qemu-user` a guest's `execve` starts the new program natively,
//! uncounted. Given to the guest only (`-E LD_PRELOAD=`), this library
//! defines the exec and spawn functions a program calls (glibc's own call
//! its internal `__execve`, which a preload cannot see) and turns each into
//! an exec of QEMU with the plugin and itself, built by
//! [`carmbench_counts::follow`], the rules carmbench uses for the first
//! process. Before that exec it tells the plugin (a system call no kernel
//! has) that the exec is followed; a program it cannot follow (set-user-ID,
//! another machine's ELF) starts natively and the plugin is told its name,
//! so that carmbench can say what was not counted.
//!
//! The configuration is read when the library loads: a program that clears
//! its environment before an exec is still followed.

use carmbench_counts::follow::{self, Config, Launch, Refused};
use carmbench_counts::protocol::{self, op};
use libc::{c_char, c_int, pid_t};
use std::ffi::{CStr, CString, OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::sync::OnceLock;

static CONFIG: OnceLock<Option<Config>> = OnceLock::new();

fn config() -> Option<&'static Config> {
    CONFIG
        .get_or_init(|| std::env::var_os(follow::CONFIG_ENV).and_then(|v| Config::decode(&v)))
        .as_ref()
}

/// Read the configuration when the library loads, before the program can
/// change its environment.
extern "C" fn at_load() {
    let _ = config();
}

#[used]
#[unsafe(link_section = ".init_array")]
static AT_LOAD: extern "C" fn() = at_load;

fn tell(what: u64, a2: u64, a3: u64, w: [u64; 3]) {
    // SAFETY: a system call number no kernel has: natively ENOSYS, under
    // QEMU read by the plugin.
    unsafe { libc::syscall(protocol::SYSCALL, what, a2, a3, w[0], w[1], w[2]) };
}

/// The plugin is told the next exec is (`true`) or is no longer followed.
fn announce(on: bool) {
    tell(op::FOLLOW, u64::from(on), 0, [0; 3]);
}

/// The plugin is told the name of a program about to start natively.
fn name_skipped(path: &OsStr) {
    for (offset, w) in protocol::name_parts(path.as_bytes()) {
        tell(op::SKIPPED, 0, offset, w);
    }
}

/// A NULL-terminated C array as byte strings.
///
/// # Safety
/// `p` is NULL or a NULL-terminated array of C strings.
unsafe fn strings<'a>(p: *const *const c_char) -> Vec<&'a CStr> {
    let mut v = Vec::new();
    if p.is_null() {
        return v;
    }
    for k in 0.. {
        // SAFETY: the caller's contract.
        let s = unsafe { *p.add(k) };
        if s.is_null() {
            break;
        }
        // SAFETY: as above.
        v.push(unsafe { CStr::from_ptr(s) });
    }
    v
}

/// Owned C strings and the NULL-terminated array pointing into them.
struct CArray {
    _owned: Vec<CString>,
    ptrs: Vec<*const c_char>,
}

impl CArray {
    fn new(items: impl IntoIterator<Item = OsString>) -> CArray {
        let owned: Vec<CString> = items
            .into_iter()
            .filter_map(|s| CString::new(s.into_vec()).ok())
            .collect();
        let mut ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        CArray {
            _owned: owned,
            ptrs,
        }
    }
    fn as_ptr(&self) -> *const *const c_char {
        self.ptrs.as_ptr()
    }
}

/// How a program is started.
enum Plan {
    /// Under QEMU: its argv and environment.
    Follow(CArray, CArray),
    /// Natively, as asked (the plugin told why when it matters).
    Native,
    /// Refused as the kernel refuses it.
    Fail(c_int),
}

/// The program itself when `path` is `/proc/self/exe` (or its own pid's):
/// QEMU answers a guest's `readlink` of it with the guest's program, but
/// the host QEMU started with that path would load itself.
fn own_exe(path: &CStr) -> Option<std::path::PathBuf> {
    let p = path.to_bytes();
    let mine = format!("/proc/{}/exe", std::process::id());
    if p != b"/proc/self/exe" && p != mine.as_bytes() {
        return None;
    }
    std::fs::read_link("/proc/self/exe").ok()
}

/// How to start `path` with `argv` and `envp` (the caller's arrays).
///
/// # Safety
/// `argv` and `envp` are NULL or NULL-terminated arrays of C strings.
unsafe fn plan(path: &CStr, argv: *const *const c_char, envp: *const *const c_char) -> Plan {
    let Some(cfg) = config() else {
        return Plan::Native;
    };
    let own = own_exe(path);
    let file = own
        .as_deref()
        .unwrap_or_else(|| Path::new(OsStr::from_bytes(path.to_bytes())));
    if !follow::executable(file) {
        // The kernel's own error (ENOENT, EACCES, ...).
        return Plan::Native;
    }
    let launch: Launch = match follow::resolve(file, false) {
        Ok(l) if !follow::privileged(file) => l,
        Ok(_) | Err(Refused::Foreign(_)) => {
            name_skipped(file.as_os_str());
            return Plan::Native;
        }
        Err(Refused::NotExecutable(_)) => return Plan::Fail(libc::ENOEXEC),
        Err(Refused::Io(..)) => return Plan::Native,
    };
    // SAFETY: the caller's contract.
    let (args, env) = unsafe { (strings(argv), strings(envp)) };
    fn os(c: &CStr) -> &OsStr {
        OsStr::from_bytes(c.to_bytes())
    }
    let argv0 = args.first().map_or(file.as_os_str(), |a| os(a));
    let rest: Vec<&OsStr> = args.iter().skip(1).map(|a| os(a)).collect();
    let preload = b"LD_PRELOAD=";
    let config = format!("{}=", follow::CONFIG_ENV);
    let program = format!("{}=", follow::PROGRAM_ENV);
    let theirs = env
        .iter()
        .find_map(|e| e.to_bytes().strip_prefix(preload))
        .map(OsStr::from_bytes)
        .filter(|t| *t != cfg.preload.as_os_str());
    let host_argv = cfg.command(&launch, argv0, &rest, theirs);
    // QEMU itself runs without the guest's preload; it names the program
    // to the plugin.
    let mut host_env: Vec<OsString> = env
        .iter()
        .map(|e| e.to_bytes())
        .filter(|e| {
            !e.starts_with(preload)
                && !e.starts_with(config.as_bytes())
                && !e.starts_with(program.as_bytes())
        })
        .map(|e| OsStr::from_bytes(e).to_os_string())
        .collect();
    let mut named = OsString::from(program);
    named.push(file.as_os_str());
    host_env.push(named);
    Plan::Follow(CArray::new(host_argv), CArray::new(host_env))
}

/// `execl`, `execlp` and `execle`: variadic, so written in C
/// (`variadic.c`), and exported here, where the cdylib's exports are
/// decided, as jumps that leave the caller's registers and stack (its
/// variadic arguments) as they were.
macro_rules! variadic {
    ($($name:ident => $c:ident),*) => {$(
        unsafe extern "C" {
            fn $c();
        }
        #[doc = concat!("`", stringify!($name), "`, followed (`variadic.c`).")]
        #[unsafe(no_mangle)]
        #[unsafe(naked)]
        pub extern "C" fn $name() {
            #[cfg(target_arch = "x86_64")]
            core::arch::naked_asm!("jmp {}", sym $c);
            #[cfg(target_arch = "aarch64")]
            core::arch::naked_asm!("b {}", sym $c);
        }
    )*};
}

variadic!(
    execl => carmbench_follow_execl,
    execlp => carmbench_follow_execlp,
    execle => carmbench_follow_execle
);

fn set_errno(e: c_int) {
    // SAFETY: this thread's errno.
    unsafe { *libc::__errno_location() = e };
}

fn errno() -> c_int {
    // SAFETY: this thread's errno.
    unsafe { *libc::__errno_location() }
}

/// The system call itself (the plugin sees it; glibc's wrapper is ours).
///
/// # Safety
/// As `execve(2)`.
unsafe fn raw_execve(
    path: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { libc::syscall(libc::SYS_execve, path, argv, envp) as c_int }
}

/// `execve`, followed.
///
/// # Safety
/// As `execve(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn execve(
    path: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    if path.is_null() {
        set_errno(libc::EFAULT);
        return -1;
    }
    // SAFETY: the caller's contract.
    match unsafe { plan(CStr::from_ptr(path), argv, envp) } {
        Plan::Follow(a, e) => {
            announce(true);
            let qemu = a.ptrs[0];
            // SAFETY: arrays built above, NULL-terminated.
            let r = unsafe { raw_execve(qemu, a.as_ptr(), e.as_ptr()) };
            let keep = errno();
            announce(false);
            set_errno(keep);
            r
        }
        Plan::Native => unsafe { raw_execve(path, argv, envp) },
        Plan::Fail(e) => {
            set_errno(e);
            -1
        }
    }
}

fn environ() -> *const *const c_char {
    unsafe extern "C" {
        static environ: *const *const c_char;
    }
    // SAFETY: glibc's environment pointer, read once.
    unsafe { environ }
}

/// `execv`, followed.
///
/// # Safety
/// As `execv(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn execv(path: *const c_char, argv: *const *const c_char) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { execve(path, argv, environ()) }
}

/// The program `file` names, looked up on the caller's `PATH` as `execvp`
/// does.
///
/// # Safety
/// `file` is a C string.
unsafe fn search(file: *const c_char) -> Option<CString> {
    // SAFETY: the caller's contract.
    let name = OsStr::from_bytes(unsafe { CStr::from_ptr(file) }.to_bytes());
    let found = follow::search(name, std::env::var_os("PATH").as_deref())?;
    CString::new(found.into_os_string().into_vec()).ok()
}

/// `execvpe`, followed; a file neither ELF nor `#!` runs under `/bin/sh`,
/// as glibc's does.
///
/// # Safety
/// As `execvpe(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn execvpe(
    file: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    if file.is_null() {
        set_errno(libc::EFAULT);
        return -1;
    }
    // SAFETY: the caller's contract.
    let Some(path) = (unsafe { search(file) }) else {
        set_errno(libc::ENOENT);
        return -1;
    };
    // SAFETY: as above.
    let r = unsafe { execve(path.as_ptr(), argv, envp) };
    if errno() != libc::ENOEXEC {
        return r;
    }
    // SAFETY: as above.
    let mut sh: Vec<*const c_char> = vec![c"/bin/sh".as_ptr(), path.as_ptr()];
    sh.extend(unsafe { strings(argv) }.iter().skip(1).map(|a| a.as_ptr()));
    sh.push(std::ptr::null());
    // SAFETY: a NULL-terminated array of C strings that live here.
    unsafe { execve(c"/bin/sh".as_ptr(), sh.as_ptr(), envp) }
}

/// `execvp`, followed.
///
/// # Safety
/// As `execvp(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn execvp(file: *const c_char, argv: *const *const c_char) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { execvpe(file, argv, environ()) }
}

type SpawnFn = unsafe extern "C" fn(
    *mut pid_t,
    *const c_char,
    *const libc::posix_spawn_file_actions_t,
    *const libc::posix_spawnattr_t,
    *const *const c_char,
    *const *const c_char,
) -> c_int;

/// glibc's `posix_spawn`, which starts `path` itself.
fn real_spawn() -> Option<SpawnFn> {
    static F: OnceLock<usize> = OnceLock::new();
    let f = *F.get_or_init(|| {
        // SAFETY: looking up the next definition of a libc function.
        unsafe { libc::dlsym(libc::RTLD_NEXT, c"posix_spawn".as_ptr()) as usize }
    });
    // SAFETY: glibc's posix_spawn has this signature.
    (f != 0).then(|| unsafe { std::mem::transmute::<usize, SpawnFn>(f) })
}

/// `posix_spawn`, followed: the child is told (before the spawn, in the
/// parent whose state it inherits) that its exec is followed.
///
/// # Safety
/// As `posix_spawn(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn posix_spawn(
    pid: *mut pid_t,
    path: *const c_char,
    actions: *const libc::posix_spawn_file_actions_t,
    attr: *const libc::posix_spawnattr_t,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    let Some(spawn) = real_spawn() else {
        return libc::ENOSYS;
    };
    if path.is_null() {
        return libc::EFAULT;
    }
    // SAFETY: the caller's contract.
    match unsafe { plan(CStr::from_ptr(path), argv, envp) } {
        Plan::Follow(a, e) => {
            announce(true);
            // SAFETY: arrays built above, NULL-terminated.
            let r = unsafe { spawn(pid, a.ptrs[0], actions, attr, a.as_ptr(), e.as_ptr()) };
            announce(false);
            r
        }
        // SAFETY: the caller's contract.
        Plan::Native => unsafe { spawn(pid, path, actions, attr, argv, envp) },
        Plan::Fail(e) => e,
    }
}

/// `posix_spawnp`, followed.
///
/// # Safety
/// As `posix_spawnp(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn posix_spawnp(
    pid: *mut pid_t,
    file: *const c_char,
    actions: *const libc::posix_spawn_file_actions_t,
    attr: *const libc::posix_spawnattr_t,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    if file.is_null() {
        return libc::EFAULT;
    }
    // SAFETY: the caller's contract.
    match unsafe { search(file) } {
        // SAFETY: as above.
        Some(path) => unsafe { posix_spawn(pid, path.as_ptr(), actions, attr, argv, envp) },
        None => libc::ENOENT,
    }
}

/// `system`, followed: `/bin/sh -c COMMAND` started with [`posix_spawn`],
/// with the signal handling POSIX gives `system` (SIGINT and SIGQUIT
/// ignored and SIGCHLD blocked in the caller while it waits).
///
/// # Safety
/// As `system(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn system(command: *const c_char) -> c_int {
    if command.is_null() {
        return 1;
    }
    // SAFETY: plain libc calls on structures that live on this stack.
    unsafe {
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        let (mut old_int, mut old_quit): (libc::sigaction, libc::sigaction) =
            (std::mem::zeroed(), std::mem::zeroed());
        libc::sigaction(libc::SIGINT, &ignore, &mut old_int);
        libc::sigaction(libc::SIGQUIT, &ignore, &mut old_quit);
        let (mut chld, mut old_mask): (libc::sigset_t, libc::sigset_t) =
            (std::mem::zeroed(), std::mem::zeroed());
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
        libc::sigprocmask(libc::SIG_BLOCK, &chld, &mut old_mask);

        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        libc::posix_spawnattr_init(&mut attr);
        let mut defaults: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut defaults);
        for (sig, old) in [(libc::SIGINT, &old_int), (libc::SIGQUIT, &old_quit)] {
            if old.sa_sigaction != libc::SIG_IGN {
                libc::sigaddset(&mut defaults, sig);
            }
        }
        libc::posix_spawnattr_setsigdefault(&mut attr, &defaults);
        libc::posix_spawnattr_setsigmask(&mut attr, &old_mask);
        libc::posix_spawnattr_setflags(
            &mut attr,
            (libc::POSIX_SPAWN_SETSIGDEF | libc::POSIX_SPAWN_SETSIGMASK) as libc::c_short,
        );
        let argv = [c"sh".as_ptr(), c"-c".as_ptr(), command, std::ptr::null()];
        let mut pid: pid_t = 0;
        let r = posix_spawn(
            &mut pid,
            c"/bin/sh".as_ptr(),
            std::ptr::null(),
            &attr,
            argv.as_ptr(),
            environ(),
        );
        libc::posix_spawnattr_destroy(&mut attr);
        let mut status: c_int = 127 << 8;
        if r == 0 {
            while libc::waitpid(pid, &mut status, 0) < 0 {
                if errno() != libc::EINTR {
                    status = -1;
                    break;
                }
            }
        }
        libc::sigaction(libc::SIGINT, &old_int, std::ptr::null_mut());
        libc::sigaction(libc::SIGQUIT, &old_quit, std::ptr::null_mut());
        libc::sigprocmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut());
        status
    }
}
