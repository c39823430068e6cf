//! The system call carmbench's regions library makes under emulation (what
//! the plugin writes is `carmbench_counts`).
//!
//! A region's name is sent once per process, 24 bytes per call, then its
//! begin and end carry only its number: no guest memory is read, so nothing
//! depends on where QEMU maps the guest. The numbers here are the regions
//! library's (`regions/src/lib.rs`); carmbench's tests check both ends.

/// The system call number: none the Linux kernel uses (natively it returns
/// ENOSYS).
pub const SYSCALL: i64 = 0xCA7B;
/// `a1`: part of a name. `a2` the region's number, `a3` the offset of the
/// part, `a4`..`a6` 24 bytes of the name (NUL-padded, little-endian).
pub const DEFINE: u64 = 1;
/// `a1`: a region begins on this thread; `a2` its number.
pub const BEGIN: u64 = 2;
/// `a1`: a region ends on this thread; `a2` its number.
pub const END: u64 = 3;
/// The preload library's operations on the same system call: an exec it
/// follows, and the name of a program it starts natively.
pub use carmbench_counts::follow::op::{FOLLOW, SKIPPED};

/// Linux x86-64's `execve` and `execveat`: the process is replaced.
pub const EXECS: [i64; 2] = [59, 322];
/// `clone`, `fork`, `vfork`, `clone3`: a new process when the pid changes
/// (QEMU runs a guest's vfork as a fork).
pub const FORKS: [i64; 4] = [56, 57, 58, 435];

#[cfg(test)]
mod tests {
    use carmbench_regions::emulated;

    #[test]
    fn the_regions_library_speaks_the_same_protocol() {
        assert_eq!(super::SYSCALL, emulated::SYSCALL);
        assert_eq!(
            (super::DEFINE, super::BEGIN, super::END),
            (emulated::DEFINE, emulated::BEGIN, emulated::END)
        );
    }
}
