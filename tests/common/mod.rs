//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run the carmbench binary.
pub fn carmbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(args)
        .output()
        .unwrap()
}

/// Run the carmbench binary in `dir`.
pub fn carmbench_in(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A fresh, empty temporary directory for one test.
pub fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("carmbench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A run that must succeed: exit status 0 (else fail showing its standard
/// error); its standard output as text.
pub fn success(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "exit 0, stderr: {}", stderr(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Bad input: exit status 2, one line naming the problem, no panic.
pub fn assert_input_error(out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "exit 2, stderr: {err}");
    assert!(!err.contains("panicked"), "no panic: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("carmbench: error: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "'{n}' in: {err}");
    }
}
