//! The system calls the plugin watches: carmbench's own
//! ([`carmbench_counts::protocol`], from the regions library and the
//! preload library), and Linux's that replace or copy a process.

pub use carmbench_counts::protocol::{SYSCALL, op};

/// Linux x86-64's `execve` and `execveat`: the process is replaced.
pub const EXECS: [i64; 2] = [59, 322];
/// `clone`, `fork`, `vfork`, `clone3`: a new process when the pid changes
/// (QEMU runs a guest's vfork as a fork).
pub const FORKS: [i64; 4] = [56, 57, 58, 435];
