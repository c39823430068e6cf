//! What `profile` runs natively, needing nothing beside Rust and gcc: the
//! signal mask a program starts with, the timeout and Ctrl-C that stop it,
//! scripts the kernel cannot follow, arguments that are not UTF-8,
//! sleepers left behind, ranks stopped by their launcher, threads at once.
//! The emulated runs' are in `emulate/stopping.rs` and `emulate/runs.rs`.

use crate::common::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The program that writes the signal state it started with.
pub const SIGSTATE: &str = include_str!("programs/sigstate.c");

/// `carmbench profile --flops 1e6 --bytes 1e6 -- COMMAND` in `dir`.
fn manual(dir: &Path, command: &[&str]) -> std::process::Output {
    let mut a = vec!["profile", "--flops", "1e6", "--bytes", "1e6", "--"];
    a.extend(command);
    carmbench_in(&a, dir)
}

/// Program `name` of source `src`, built in `dir` at -O1.
fn built(dir: &Path, name: &str, src: &str) -> PathBuf {
    let c = format!("{name}.c");
    std::fs::write(dir.join(&c), src).unwrap();
    let st = Command::new("gcc")
        .args(["-O1", "-o", name, &c])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success());
    dir.join(name)
}

/// `sigstate` built in `dir`.
pub fn sigstate(dir: &Path) -> PathBuf {
    built(dir, "sigstate", SIGSTATE)
}

/// `spin` (busy for the seconds it is given) built in `dir`.
fn spin(dir: &Path) {
    built(dir, "spin", include_str!("programs/spin.c"));
}

/// The lines `sigstate` wrote to `f`, the file then removed.
pub fn states(f: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(f).unwrap_or_default();
    let _ = std::fs::remove_file(f);
    text.lines().map(String::from).collect()
}

#[test]
fn a_program_starts_with_the_signal_mask_it_would_have_had() {
    let dir = tmpdir("sigmask");
    let exe = sigstate(&dir);
    let f = dir.join("state");
    // Without carmbench: what this test's children start with.
    assert!(Command::new(&exe).arg(&f).status().unwrap().success());
    let alone = states(&f);
    assert_eq!(alone.len(), 1);
    let out = manual(&dir, &[exe.to_str().unwrap(), f.to_str().unwrap()]);
    success(&out);
    assert_eq!(states(&f), alone, "natively under carmbench");
    // Started by a parent that ignores SIGPIPE and SIGHUP (as nohup does).
    let ignoring = |cmd: &str| {
        let line = format!("trap '' PIPE HUP; exec {cmd} '{}'", f.display());
        let st = Command::new("sh")
            .args(["-c", &line])
            .current_dir(&dir)
            .status();
        assert!(st.unwrap().success());
        states(&f)
    };
    let alone = ignoring(&format!("'{}'", exe.display()));
    // The trap took (a test run in the background ignores INT and QUIT too).
    let ignored = alone[0].split("ignored=").nth(1).unwrap_or_default();
    let ignored: Vec<&str> = ignored.split(',').collect();
    assert!(
        ignored.contains(&"HUP") && ignored.contains(&"PIPE"),
        "{alone:?}"
    );
    let under = format!(
        "'{}' profile --flops 1e6 --bytes 1e6 -- '{}'",
        env!("CARGO_BIN_EXE_carmbench"),
        exe.display()
    );
    assert_eq!(ignoring(&under), alone, "under carmbench, from that parent");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_program_stopped_by_timeout_ends_when_timeout_stops_it() {
    let dir = tmpdir("sigtimeout");
    let t0 = Instant::now();
    let out = manual(&dir, &["timeout", "0.3", "sleep", "20"]);
    let took = t0.elapsed();
    // timeout's own status (124): no point, and no 20 s wait for sleep.
    assert_input_error(&out, &["status 124"]);
    assert!(took < Duration::from_secs(10), "{took:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_during_the_native_run_exits_130_as_stopped() {
    use std::os::unix::process::CommandExt;
    let dir = tmpdir("sigint");
    // Three times: the terminal's Ctrl-C reaches carmbench and the program
    // at once, and either may see it first.
    for _ in 0..3 {
        let child = Command::new(env!("CARGO_BIN_EXE_carmbench"))
            .args([
                "profile", "--flops", "1e6", "--bytes", "1e6", "--", "sleep", "20",
            ])
            .current_dir(&dir)
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(700));
        // SAFETY: kill(2) on the process group of our own child, as a
        // terminal sends Ctrl-C to its foreground group.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{err}");
        assert!(err.contains("stopped by Ctrl-C"), "{err}");
    }
    assert!(!dir.join("apps.yaml").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_script_whose_shebang_the_kernel_cannot_follow_is_named_for_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmpdir("shebang");
    let crlf = dir.join("crlf.sh");
    std::fs::write(&crlf, "#!/bin/sh\r\necho hi\r\n").unwrap();
    let missing = dir.join("missing.sh");
    std::fs::write(&missing, "#!/no/such/interpreter\necho hi\n").unwrap();
    for f in [&crlf, &missing] {
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let profile = |script: &Path| manual(&dir, &[script.to_str().unwrap()]);
    assert_input_error(&profile(&crlf), &["#! line", "carriage return", "sed -i"]);
    assert_input_error(&profile(&missing), &["#! line", "/no/such/interpreter"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_background_sleeper_that_ends_soon_does_not_stretch_t() {
    let dir = tmpdir("sleeper");
    // The shell ends at once; the sleeper it leaves waits, then ends.
    // It ends within carmbench's wait for idle processes (0.5 s).
    let out = manual(&dir, &["sh", "-c", "sleep 0.45 & true"]);
    success(&out);
    let f = carmbench::results::apps::load(&dir.join("apps.yaml")).unwrap();
    let t = f.applications[0].seconds;
    assert!(t < 0.35, "T {t} s: the sleeper's wait was taken as work");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_program_and_arguments_that_are_not_utf8_run_as_given() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tmpdir("not-utf8");
    // A program named in Latin-1 (a link to cp), copying a file whose name
    // is not UTF-8 either.
    let prog = OsStr::from_bytes(b"./k\xf6pi");
    std::os::unix::fs::symlink("/bin/cp", dir.join(prog)).unwrap();
    let (from, to) = (OsStr::from_bytes(b"a\xe9"), OsStr::from_bytes(b"b\xe9"));
    std::fs::write(dir.join(from), "x").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(["profile", "--flops", "1e6", "--bytes", "1e6", "--"])
        .args([prog, from, to])
        .current_dir(&dir)
        .output()
        .unwrap();
    success(&out);
    assert_eq!(std::fs::read_to_string(dir.join(to)).unwrap(), "x");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rank's wrapper (`carmbench mpi-rank`, as a launcher starts it) of
/// `sh -c script`, stopped by SIGTERM a second in: its exit status, its
/// messages and its record's failure, if it wrote one.
fn rank_stopped(dir: &Path, script: &str) -> (Option<i32>, String, Option<Option<String>>) {
    let child = Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(["mpi-rank", "--dir"])
        .arg(dir)
        .args(["--mode", "time", "--", "sh", "-c", script])
        .env("OMPI_COMM_WORLD_RANK", "3")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    // SAFETY: a signal to the wrapper this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    let record = dir.join("rank-3.json");
    let failed = std::fs::read_to_string(&record).ok().map(|t| {
        let r: carmbench::profile::launch::rank::RankRun = serde_json::from_str(&t).unwrap();
        r.failed
    });
    let _ = std::fs::remove_file(record);
    (o.status.code(), stderr(&o), failed)
}

#[test]
fn a_rank_stopped_by_its_launcher_writes_its_record_first() {
    let dir = tmpdir("rank-stopped");
    // A program that ends well when told to (as one that had finished).
    let (code, err, failed) = rank_stopped(&dir, "trap 'exit 0' TERM; sleep 30 & wait");
    assert_eq!(code, Some(128 + libc::SIGTERM), "{err}");
    assert_eq!(failed, Some(None), "{err}");
    // The job goes on: no message says nothing is written.
    assert!(
        err.contains("rank 3") && !err.contains("nothing written"),
        "{err}"
    );
    // One stopped in its work: its record says so.
    let (code, err, failed) = rank_stopped(&dir, "sleep 30");
    assert_eq!(code, Some(128 + libc::SIGTERM), "{err}");
    let why = failed.flatten().unwrap_or_default();
    assert!(
        why.contains("SIGTERM") || why.contains("signal 15"),
        "{why}: {err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn single_threaded_processes_at_once_are_placed_as_that_many_threads() {
    let dir = tmpdir("at-once");
    spin(&dir);
    let threads = |script: &str| {
        success(&manual(&dir, &["sh", "-c", script]));
        let apps = carmbench::results::apps::load(&dir.join("apps.yaml")).unwrap();
        let _ = std::fs::remove_file(dir.join("apps.yaml"));
        apps.applications[0].threads
    };
    // Two at once, then one after the other.
    assert_eq!(threads("./spin 0.6 & ./spin 0.6 & wait"), Some(2));
    assert_eq!(threads("./spin 0.3; ./spin 0.3"), None);
    std::fs::remove_dir_all(&dir).unwrap();
}
