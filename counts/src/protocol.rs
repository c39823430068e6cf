//! The contract between carmbench, the counting plugin, the preload library
//! (`follow/`) and the regions library, written once: the system call the
//! guest makes to speak to the plugin and how a name travels on it, the
//! environment variables, the counts file's name, and the caches to
//! simulate. Each side uses these items; none spells them again.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The system call a guest program makes to speak to the plugin: a number
/// no Linux kernel uses (natively it returns ENOSYS), seen by the plugin
/// with its arguments. `a1` is one of the operations below.
pub const SYSCALL: i64 = 0xCA7B;

/// The module of code in anonymous memory (a JIT's): the name the kernel's
/// perf records give it, used by the plugin too. Its offsets are from the
/// start of the mapping, which the two runs place at different addresses.
pub const ANONYMOUS: &str = "//anon";

/// The operations of [`SYSCALL`] (its first argument).
pub mod op {
    /// Part of a region's name: `a2` the region's number, `a3` the offset
    /// of the part, `a4`..`a6` 24 bytes of the name ([`super::name_parts`]).
    pub const DEFINE: u64 = 1;
    /// A region begins on this thread: `a2` its number.
    pub const BEGIN: u64 = 2;
    /// A region ends on this thread: `a2` its number.
    pub const END: u64 = 3;
    /// `a2` = 1: the next `execve` of this process (or of the child it
    /// spawns) is a followed one, QEMU started again; `a2` = 0: withdrawn.
    pub const FOLLOW: u64 = 4;
    /// Part of the name of a program about to start natively, not followed:
    /// `a3` the offset, `a4`..`a6` 24 bytes ([`super::name_parts`]).
    pub const SKIPPED: u64 = 5;
}

/// Bytes of a name one system call carries.
pub const NAME_PART: usize = 24;

/// The longest name the plugin keeps; parts beyond it are dropped.
pub const MAX_NAME: usize = 4096;

/// A name as the system calls carry it: NUL-terminated, in parts of 24
/// bytes, each part its offset and three little-endian words.
pub fn name_parts(name: &[u8]) -> Vec<(u64, [u64; 3])> {
    let mut padded = name.to_vec();
    padded.push(0);
    padded
        .chunks(NAME_PART)
        .enumerate()
        .map(|(k, part)| {
            let mut w = [0u64; 3];
            for (j, b) in part.iter().enumerate() {
                w[j / 8] |= u64::from(*b) << (8 * (j % 8));
            }
            ((k * NAME_PART) as u64, w)
        })
        .collect()
}

/// A name put together from its parts, in any order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Name(Vec<u8>);

impl Name {
    /// The part at `offset` (ignored past [`MAX_NAME`]).
    pub fn put(&mut self, offset: u64, words: [u64; 3]) {
        let at = offset as usize;
        if at > MAX_NAME {
            return;
        }
        let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if self.0.len() < at + b.len() {
            self.0.resize(at + b.len(), 0);
        }
        self.0[at..at + b.len()].copy_from_slice(&b);
    }

    /// The name, up to its NUL.
    pub fn text(&self) -> String {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(self.0.len());
        String::from_utf8_lossy(&self.0[..end]).into_owned()
    }

    /// Whether no part arrived.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Between a sized region's name and its size in the name the regions
/// library gives it (`carmbench_region_begin_n`): a control character no
/// region name has, so that each size of a name is a region of its own in
/// every run and counter, and carmbench takes them apart again.
pub const SIZE_MARK: char = '\u{1f}';

/// The region name of `name` at size `n`.
pub fn sized_name(name: &str, n: f64) -> String {
    format!("{name}{SIZE_MARK}{n}")
}

/// A region name taken apart: the name, and its size when it is a sized
/// region's (a size that does not read as a number is part of the name).
pub fn split_sized(region: &str) -> (&str, Option<f64>) {
    match region.rsplit_once(SIZE_MARK) {
        Some((name, n)) => match n.parse::<f64>() {
            Ok(n) if n.is_finite() => (name, Some(n)),
            _ => (region, None),
        },
        None => (region, None),
    }
}

/// In the guest's environment: the preload library's configuration
/// (`follow::Config`), so that it starts the next process the same way.
pub const CONFIG_ENV: &str = "CARMBENCH_FOLLOW";
/// In the host QEMU's environment only (removed from the guest's): the
/// program it runs, named in the plugin's output.
pub const PROGRAM_ENV: &str = "CARMBENCH_PROGRAM";
/// In QEMU's environment (QEMU hands it to the guest, so it reaches every
/// program the command starts): the caches to simulate, a [`CacheSpec`].
pub const CACHE_ENV: &str = "CARMBENCH_CACHE";

/// The page the simulated caches' memory is placed by, bytes.
pub const PAGE: u64 = 4096;
/// In QEMU's environment: set (to anything), the plugin records the
/// control flow between blocks and splits blocks where another starts, for
/// carmbench to find loops.
pub const LOOPS_ENV: &str = "CARMBENCH_LOOPS";

/// In QEMU's environment: the fewest windows of a process's run the plugin
/// keeps for `profile --timeline` (a number); unset, it keeps none. It
/// snapshots the counts on a timer, and halves their number (two windows
/// joined into one, the timer's period doubled) whenever it holds twice
/// this many, so a run of any length ends with between this and twice as
/// many.
pub const TIMELINE_ENV: &str = "CARMBENCH_TIMELINE";

/// What the plugin says on QEMU's standard error when a process's counts
/// cannot be written, before the file and the system's reason.
pub const WRITE_FAILED: &str = "cannot write counts to";

/// The counts file of one process: `process.PID.K.json` in the plugin's
/// folder (K: a pid is reused by the program an exec starts, and may be
/// reused by the system later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CountsFile {
    /// The process.
    pub pid: u32,
    /// The programs one pid ran before it, in turn.
    pub k: u64,
}

impl CountsFile {
    /// The file's name.
    pub fn file_name(&self) -> String {
        format!("process.{}.{}.json", self.pid, self.k)
    }

    /// The counts file a name is, if it is one.
    pub fn parse(name: &str) -> Option<CountsFile> {
        let rest = name.strip_prefix("process.")?.strip_suffix(".json")?;
        let (pid, k) = rest.split_once('.')?;
        Some(CountsFile {
            pid: pid.parse().ok()?,
            k: k.parse().ok()?,
        })
    }

    /// A file of `pid` in `dir` no other process has taken, made empty (an
    /// empty file at the end means the process never wrote its counts).
    pub fn create(dir: &Path, pid: u32) -> PathBuf {
        for k in 0..=10_000 {
            let p = dir.join(CountsFile { pid, k }.file_name());
            let made = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&p);
            if made.is_ok() || !dir.is_dir() {
                return p;
            }
        }
        dir.join(CountsFile { pid, k: 0 }.file_name())
    }
}

/// One simulated cache level's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Capacity, bytes.
    pub size: u64,
    /// Ways (1 to 1024).
    pub ways: u32,
}

/// The caches the plugin simulates (`profile --traffic`), as
/// `LINE:L1SIZE/WAYS:L2SIZE/WAYS:L3SIZE/WAYS:excl|nine:SAMPLE` in
/// [`CACHE_ENV`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSpec {
    /// Line size, bytes (a power of two).
    pub line: u64,
    /// L1d, L2, L3.
    pub levels: [Geometry; 3],
    /// Whether L3 holds only what L2 evicted (`excl`, AMD's victim cache);
    /// else it takes every line L2 takes and evicts on its own (`nine`:
    /// non-inclusive, non-exclusive).
    pub exclusive: bool,
    /// Every how many lines one is simulated (a power of two; 1: all).
    pub sample: u64,
}

impl fmt::Display for CacheSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.line)?;
        for g in &self.levels {
            write!(f, ":{}/{}", g.size, g.ways)?;
        }
        let policy = if self.exclusive { "excl" } else { "nine" };
        write!(f, ":{policy}:{}", self.sample)
    }
}

impl FromStr for CacheSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<CacheSpec, String> {
        let bad = || {
            format!(
                "{CACHE_ENV}={s}: give LINE:L1SIZE/WAYS:L2SIZE/WAYS:L3SIZE/WAYS:excl|nine:SAMPLE"
            )
        };
        let f: Vec<&str> = s.split(':').collect();
        let [line, l1, l2, l3, policy, sample] = f.as_slice() else {
            return Err(bad());
        };
        let num = |x: &str| x.parse::<u64>().map_err(|_| bad());
        let level = |x: &str| -> Result<Geometry, String> {
            let (size, ways) = x.split_once('/').ok_or_else(bad)?;
            Ok(Geometry {
                size: num(size)?,
                ways: num(ways)?.clamp(1, 1 << 10) as u32,
            })
        };
        let spec = CacheSpec {
            line: num(line)?,
            levels: [level(l1)?, level(l2)?, level(l3)?],
            exclusive: match *policy {
                "excl" => true,
                "nine" => false,
                _ => return Err(bad()),
            },
            sample: num(sample)?,
        };
        let pow2 = |x: u64| x.is_power_of_two();
        if !pow2(spec.line) || !pow2(spec.sample) || spec.levels.iter().any(|g| g.size < spec.line)
        {
            return Err(bad());
        }
        // At most a page's lines: memory moves by whole pages when it is
        // placed as natively, and the lines sampled stay the same.
        if spec.sample.saturating_mul(spec.line) > PAGE {
            return Err(format!(
                "{CACHE_ENV}={s}: one line in {} at most (a page's lines)",
                PAGE / spec.line
            ));
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sized_regions_name_holds_its_size_exactly() {
        for n in [1e5, 4e6, 500.0, 0.1, 2f64.powi(20), 1.0 / 3.0] {
            let s = sized_name("daxpy", n);
            assert_eq!(split_sized(&s), ("daxpy", Some(n)));
        }
        assert_eq!(split_sized("triad"), ("triad", None));
        let odd = format!("a{SIZE_MARK}b");
        assert_eq!(split_sized(&odd), (odd.as_str(), None));
    }

    #[test]
    fn names_travel_in_parts_and_come_back_in_any_order() {
        let long = "/usr/local/sbin/a-setuid-program-with-a-long-name";
        let parts = name_parts(long.as_bytes());
        assert_eq!(parts.len(), long.len() / NAME_PART + 1);
        let mut n = Name::default();
        for (offset, w) in parts.iter().rev() {
            n.put(*offset, *w);
        }
        assert_eq!(n.text(), long);
        let mut far = Name::default();
        far.put(MAX_NAME as u64 + 24, [1, 2, 3]);
        assert!(far.is_empty());
    }

    #[test]
    fn counts_file_names_round_trip_and_are_each_new() {
        let f = CountsFile { pid: 42, k: 3 };
        assert_eq!(f.file_name(), "process.42.3.json");
        assert_eq!(CountsFile::parse(&f.file_name()), Some(f));
        for bad in ["process.42.json", "process.x.1.json", "regions.jsonl"] {
            assert_eq!(CountsFile::parse(bad), None, "{bad}");
        }
        let dir = std::env::temp_dir().join(format!("carmbench-protocol-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (CountsFile::create(&dir, 7), CountsFile::create(&dir, 7));
        assert_ne!(a, b);
        assert!(a.exists() && b.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cache_spec_round_trips_or_is_refused() {
        let text = "64:32768/8:1048576/8:33554432/16:excl:1";
        let s: CacheSpec = text.parse().unwrap();
        assert_eq!(s.levels[2].size, 32 << 20);
        assert!(s.exclusive);
        assert_eq!(s.to_string(), text);
        for bad in [
            "64:1/8",
            "63:32768/8:1048576/8:33554432/16:excl:1",
            "64:32768/8:1048576/8:33554432/16:lru:1",
            "64:32768/8:1048576/8:33554432/16:nine:3",
        ] {
            assert!(bad.parse::<CacheSpec>().is_err(), "{bad}");
        }
        // One line in a page's 64 at most: memory is placed by pages.
        assert!(
            "64:65536/4:1048576/8:33554432/16:nine:64"
                .parse::<CacheSpec>()
                .is_ok()
        );
        let e = "64:65536/4:1048576/8:33554432/16:nine:128".parse::<CacheSpec>();
        assert!(e.unwrap_err().contains("one line in 64 at most"));
    }
}
