//! What an emulated run does with the program it is given, under a real
//! QEMU: background work timed with the work it did, sleepers left behind,
//! launchers, the same standard input as the native run, a full disk, an
//! unrelated twin, a program that runs itself again, a precision the
//! counts contradict, threads that wait.

use super::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

const STDIN_SUM: &str = include_str!("../programs/stdin_sum.c");
const SELF_EXEC: &str = include_str!("../programs/self_exec.c");
const WORKERS: &str = include_str!("../programs/workers.c");

/// `carmbench profile --counts emulate -o apps.yaml MORE -- ARGS` in `dir`.
fn profile(dir: &Path, more: &[&str], args: &[&str]) -> std::process::Output {
    emulated_profile(dir, "apps.yaml", more, args)
        .output()
        .unwrap()
}

fn point(dir: &Path, name: &str) -> apps::AppPoint {
    apps::load(&dir.join("apps.yaml"))
        .unwrap()
        .applications
        .into_iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no point {name}"))
}

/// Processes whose command line holds `tag`: what a test left running.
pub fn running(tag: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(tag) && !cmd.contains("carmbench") {
            found.push(cmd);
        }
    }
    found
}

pub fn background_work_is_timed_with_the_work_it_did() {
    let dir = tmpdir("d01");
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    success(&profile(&dir, &[], &["./triad", "4000000", "20"]));
    let alone = point(&dir, "triad");
    // The shell ends at once; its background child does all the work.
    let line = "./triad 4000000 20 > /dev/null &";
    let o = profile(&dir, &["--name", "bg"], &["sh", "-c", line]);
    success(&o);
    // Its counts are whole: not cut short (minor: "killed by a signal").
    assert!(!stderr(&o).contains("signal"), "{}", stderr(&o));
    let bg = point(&dir, "bg");
    assert_eq!(bg.flops, alone.flops);
    assert!(
        bg.seconds >= 0.5 * alone.seconds,
        "T {} s for work that takes {} s",
        bg.seconds,
        alone.seconds
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_background_sleeper_neither_hangs_nor_goes_unsaid() {
    let dir = tmpdir("d02");
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    let t0 = Instant::now();
    // A sleep this test alone starts, to be found by its argument.
    let nap = format!("sleep 30.{}", std::process::id() % 997);
    let line = format!("./triad 100000 2; {nap} & echo x");
    // Into files: the native sleeper holds what it was given, as it would
    // hold a terminal, and the test does not wait for it.
    let (out, err) = (dir.join("out"), dir.join("err"));
    let status = emulated_profile(&dir, "apps.yaml", &[], &["sh", "-c", &line])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .status()
        .unwrap();
    let took = t0.elapsed();
    let err = std::fs::read_to_string(&err).unwrap();
    assert!(status.success(), "{err}");
    assert!(took < Duration::from_secs(15), "took {took:?}: {err}");
    assert!(
        err.contains("left running") && err.contains("sleep"),
        "{err}"
    );
    assert!(!err.contains("killed by a signal"), "{err}");
    // The triad's, and the few flops sleep parses its argument with (its
    // counts written as it began to sleep).
    let w = point(&dir, "sh").flops;
    assert!((400_000.0..400_100.0).contains(&w), "W {w}");
    // The native sleeper is the user's (left running); the emulated one
    // is stopped.
    let left = running(&nap);
    assert_eq!(left.len(), 1, "{left:?}");
    let _ = Command::new("pkill")
        .args(["-f", &format!("^{nap}")])
        .status();
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_launcher_does_not_decide_the_programs_type() {
    let dir = tmpdir("d05");
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    // A shell launcher that works on strings, as pyenv's shims do, then
    // starts the program that does the work.
    let shim = dir.join("shim");
    std::fs::write(
        &shim,
        "#!/bin/bash\nx=\nfor i in $(seq 300); do x=\"${x}ab\"; y=${x//a/c}; done\nexec ./triad 300000 4\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    success(&profile(&dir, &[], &["./shim"]));
    let p = point(&dir, "shim");
    assert_eq!(p.flops, 2.4e6);
    assert!(p.precision.is_none(), "typed {:?}", p.precision);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_refusal_names_no_cause_it_did_not_check() {
    let dir = tmpdir("d07");
    let o = profile(&dir, &[], &["sh", "-c", "sleep 1.2"]);
    let err = stderr(&o);
    assert!(!err.contains("could not follow"), "{err}");
    // Integer code is placed, not refused.
    let data = dir.join("data");
    let text: String = (0..200_000).map(|k| format!("line {k}\n")).collect();
    std::fs::write(&data, text).unwrap();
    let o = profile(&dir, &[], &["gzip", "-c", data.to_str().unwrap()]);
    success(&o);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn the_emulated_run_reads_the_same_input() {
    let dir = tmpdir("d08");
    gcc(&dir, "stdin_sum", STDIN_SUM, &["-O2", "-mfma"]);
    let nums = dir.join("nums");
    let text: String = (0..20_000).map(|k| format!("{k}\n")).collect();
    std::fs::write(&nums, &text).unwrap();
    // From a file.
    let o = emulated_profile(&dir, "apps.yaml", &[], &["./stdin_sum", "10"])
        .stdin(std::fs::File::open(&nums).unwrap())
        .output()
        .unwrap();
    success(&o);
    assert_eq!(point(&dir, "stdin_sum").flops, 3.0 * 10.0 * 20_000.0);
    // From a pipe.
    let mut c = emulated_profile(
        &dir,
        "apps.yaml",
        &["--name", "piped"],
        &["./stdin_sum", "10"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut pipe = c.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = pipe.write_all(text.as_bytes());
    });
    let o = c.wait_with_output().unwrap();
    writer.join().unwrap();
    success(&o);
    assert_eq!(point(&dir, "piped").flops, 3.0 * 10.0 * 20_000.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn counts_lost_to_a_full_disk_are_an_error_naming_it() {
    let dir = tmpdir("d09");
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    let scratch = dir.join("tmp");
    std::fs::create_dir(&scratch).unwrap();
    // Files may not grow past 4 KiB: a counts file cannot be written
    // (SIGXFSZ ignored, as a full disk's ENOSPC, the write fails).
    let plugin = qemu_plugin();
    let line = format!(
        "trap '' XFSZ; ulimit -f 8; exec {} profile --counts emulate --plugin {} -o apps.yaml --functions -- sh -c './triad 100000 1; ./triad 100000 1'",
        env!("CARGO_BIN_EXE_carmbench"),
        plugin.display()
    );
    let o = Command::new("bash")
        .args(["-c", &line])
        .current_dir(&dir)
        .env("TMPDIR", &scratch)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("File too large") && err.contains("counts"),
        "{err}"
    );
    assert!(!err.contains("killed by a signal"), "{err}");
    assert!(!dir.join("apps.yaml").exists(), "a point was written");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn an_unrelated_twin_is_warned_about() {
    let dir = tmpdir("d13");
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    gcc(&dir, "adds", ADDS, &["-O2"]);
    let o = profile(
        &dir,
        &["--count-with", "/bin/true"],
        &["./triad", "4000000", "10"],
    );
    let err = stderr(&o);
    success(&o);
    assert!(
        err.contains("--count-with") && err.contains("twin"),
        "{err}"
    );
    // A twin built from the same source is not warned about.
    gcc(&dir, "triad_v3", TRIAD, &["-O3", "-march=x86-64-v3"]);
    let o = profile(
        &dir,
        &["--count-with", "./triad_v3"],
        &["./triad", "4000000", "10"],
    );
    assert!(!stderr(&o).contains("twin"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_program_that_runs_proc_self_exe_is_followed() {
    let dir = tmpdir("d14");
    gcc(&dir, "self_exec", SELF_EXEC, &["-O2", "-mfma"]);
    success(&profile(&dir, &[], &["./self_exec", "1000000", "3"]));
    assert_eq!(point(&dir, "self_exec").flops, 6e6);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_precision_the_counts_contradict_is_warned_about() {
    let dir = tmpdir("d16");
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    let o = profile(&dir, &["--precision", "sp"], &["./triad", "1000000", "3"]);
    let err = stderr(&o);
    success(&o);
    assert!(
        err.contains("--precision sp") && err.contains("dp"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn busy_threads_are_counted_not_the_waiting_one() {
    let dir = tmpdir("minor-threads");
    gcc(&dir, "workers", WORKERS, &["-O2", "-mfma", "-pthread"]);
    success(&profile(&dir, &[], &["./workers", "2000000", "5"]));
    assert_eq!(point(&dir, "workers").threads, Some(2));
    // The main thread worked before it waited in pthread_join (a run long
    // enough for the native looks to tell): still two,
    // and no run said to have mostly waited.
    success(&profile(
        &dir,
        &[],
        &["./workers", "2000000", "100", "init"],
    ));
    let p = point(&dir, "workers");
    assert_eq!(p.threads, Some(2));
    let waited = carmbench::results::advice::Code::MostlyWaited;
    assert!(!p.advice.iter().any(|a| a.code == waited), "{:?}", p.advice);
    std::fs::remove_dir_all(&dir).unwrap();
}
