//! The process QEMU runs, as the counts file names it: its pid, parent and
//! program, the file it writes (one per process, so that a forked child and
//! the program an exec starts never write over another's counts), and the
//! programs it started that ran natively, uncounted.
//!
//! Under `qemu-user` a guest's `fork` is a host fork: the child inherits
//! the plugin's counters and must start from zero ([`crate::tally::Tally::
//! restart`]) and write a file of its own. A guest's `execve` replaces the
//! process before QEMU's exit callbacks run: the counts are written then.

use carmbench_counts::protocol::{CountsFile, Name, op};
use std::path::{Path, PathBuf};

/// What one process is and what it has said about the programs it starts.
#[derive(Debug, Default)]
pub struct Process {
    /// Its pid (the host's: QEMU runs one host process per guest process).
    pub pid: u32,
    /// Its parent's pid when it started.
    pub parent: u32,
    /// The program.
    pub program: String,
    /// Its counts file.
    pub file: PathBuf,
    /// Programs it started natively: names, empty when not known.
    pub skipped: Vec<String>,
    /// The preload library announced that the next exec starts QEMU again.
    announced: bool,
    /// The name of a program the preload is about to start natively.
    pending: Name,
    /// The last exec was counted as skipped (taken back if it fails).
    skipped_last: bool,
    /// An exec is under way: the process ends by running another program.
    pub replaced: bool,
    /// It read its standard input.
    pub read_stdin: bool,
}

impl Process {
    /// The process now running, writing into `dir`.
    pub fn start(dir: &Path, program: String) -> Process {
        let pid = std::process::id();
        Process {
            pid,
            parent: std::os::unix::process::parent_id(),
            program,
            file: CountsFile::create(dir, pid),
            ..Process::default()
        }
    }

    /// After a fork, in the child: a process of its own, same program,
    /// nothing skipped yet; an announcement made for the child (a spawn)
    /// stays.
    pub fn forked(&self, dir: &Path) -> Process {
        let mut p = Process::start(dir, self.program.clone());
        p.announced = self.announced;
        p
    }

    /// One of the preload's operations ([`op`]).
    pub fn preload_says(&mut self, what: u64, a2: u64, offset: u64, bytes: [u64; 3]) {
        match what {
            op::FOLLOW => self.announced = a2 != 0,
            op::SKIPPED => self.pending.put(offset, bytes),
            _ => {}
        }
    }

    /// An exec begins: followed when announced, else a program that will
    /// run natively (named when the preload said which).
    pub fn exec(&mut self) {
        self.replaced = true;
        self.skipped_last = !self.announced;
        if !self.announced {
            self.skipped.push(self.pending.text());
        }
        self.announced = false;
        self.pending = Name::default();
    }

    /// The exec failed: the process goes on and started nothing.
    pub fn exec_failed(&mut self) {
        self.replaced = false;
        if std::mem::take(&mut self.skipped_last) {
            self.skipped.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carmbench_counts::protocol::name_parts;

    #[test]
    fn execs_are_followed_when_announced_and_named_when_skipped() {
        let dir = std::env::temp_dir().join(format!("carmbench-plugin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut p = Process::start(&dir, "/bin/sh".into());
        assert!(p.file.starts_with(&dir) && p.file.exists());
        // Two processes of one pid (an exec) get two files.
        assert_ne!(Process::start(&dir, "x".into()).file, p.file);
        p.preload_says(op::FOLLOW, 1, 0, [0; 3]);
        p.exec();
        assert!(p.skipped.is_empty());
        // Not announced: skipped, by the name the preload sent in parts.
        let long = "/usr/local/sbin/a-setuid-program";
        for (offset, w) in name_parts(long.as_bytes()).into_iter().rev() {
            p.preload_says(op::SKIPPED, 0, offset, w);
        }
        p.exec();
        assert_eq!(p.skipped, [long.to_string()]);
        // A raw exec the preload never saw; it fails: taken back.
        p.exec();
        assert_eq!(p.skipped.len(), 2);
        p.exec_failed();
        assert_eq!(p.skipped.len(), 1);
        // A spawn announced in the parent is followed in the child.
        p.preload_says(op::FOLLOW, 1, 0, [0; 3]);
        let mut child = p.forked(&dir);
        child.exec();
        assert!(child.skipped.is_empty());
        p.preload_says(op::FOLLOW, 0, 0, [0; 3]);
        p.exec();
        assert_eq!(p.skipped, [long.to_string(), String::new()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
