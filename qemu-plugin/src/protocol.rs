//! The system calls the plugin watches: carmbench's own
//! ([`carmbench_counts::protocol`], from the regions library and the
//! preload library), and Linux's that replace or copy a process.

pub use carmbench_counts::protocol::{SYSCALL, op};

/// Linux x86-64's `execve` and `execveat`: the process is replaced.
pub const EXECS: [i64; 2] = [59, 322];
/// `clone`, `fork`, `vfork`, `clone3`: a new process when the pid changes
/// (QEMU runs a guest's vfork as a fork).
pub const FORKS: [i64; 4] = [56, 57, 58, 435];

/// `clone`, and its flag for a child sharing the memory (a thread).
pub const CLONE: i64 = 56;
pub const CLONE_VM: u64 = 0x100;
/// `clone3`: its flags are in a structure in the caller's memory.
pub const CLONE3: i64 = 435;
/// `mmap`, `munmap`, `mremap`: the file mappings a block's code is found
/// in may change.
pub const REMAPS: [i64; 3] = [9, 11, 25];

/// Linux x86-64's reads of one descriptor, their first argument:
/// `read`, `pread64`, `readv`, `preadv`, `preadv2`.
pub const READS: [i64; 5] = [0, 17, 19, 295, 327];
/// `mmap` (with its flag for memory backed by no file) and `munmap`.
pub const MMAP: i64 = 9;
pub const MAP_ANONYMOUS: u64 = 0x20;
pub const MUNMAP: i64 = 11;

/// `mremap`.
pub const MREMAP: i64 = 25;

/// `mmap`'s flags that put the mapping where the program says
/// (`MAP_FIXED`, `MAP_FIXED_NOREPLACE`).
pub const MAP_FIXED: u64 = 0x10 | 0x10_0000;
/// `exit`: a thread ends (`exit_group` ends the process).
pub const EXIT_THREAD: i64 = 60;

/// `rt_sigaction` (its second argument the new action, if any).
pub const RT_SIGACTION: i64 = 13;

/// `rt_sigreturn`: a signal handler returns.
pub const RT_SIGRETURN: i64 = 15;
/// `pause`, `nanosleep`, `clock_nanosleep`: a thread that sleeps. When
/// every thread of a process sleeps or waits, its counts are written
/// (marked partial), so that a process stopped there (a `sleep &` the
/// command left) still has them: QEMU runs no exit callback for a process a
/// signal ends. See `waits.rs`.
pub const SLEEPS: [i64; 3] = [34, 35, 230];
/// System calls a thread may wait in for long (`read`, `poll`, `select`,
/// `wait4`, `waitid`, `futex`, `epoll_wait`, `accept`, ...): as
/// [`SLEEPS`], the counts written at most every [`WAIT_WRITES`]
/// milliseconds.
pub const WAITS: [i64; 13] = [0, 7, 23, 43, 61, 202, 232, 247, 270, 271, 281, 288, 441];
/// `read`, among [`WAITS`] unless it reads a regular file.
pub const READ: i64 = 0;
/// See [`WAITS`].
pub const WAIT_WRITES: u64 = 200;
