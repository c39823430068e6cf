//! How emulated runs and MPI ranks start and stop, under a real QEMU and
//! Open MPI: the signal mask they start with, signals and timeouts that
//! stop them and leave nothing behind, a launcher that fails, a SIGILL from
//! hidden features, no terminal to wait on.

use super::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

const SIGSTATE: &str = include_str!("../programs/sigstate.c");
const TTY: &str = include_str!("../programs/tty.c");

/// The lines the `sigstate` program wrote to `f`, the file then removed.
fn states(f: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(f).unwrap_or_default();
    let _ = std::fs::remove_file(f);
    text.lines().map(String::from).collect()
}

pub fn emulated_runs_and_mpi_ranks_start_with_the_signal_mask_they_would_have_had() {
    let dir = tmpdir("sigmask-emu");
    let exe = gcc(&dir, "sigstate", SIGSTATE, &["-O1"]);
    let f = dir.join("state");
    let (exe_s, f_s) = (exe.to_str().unwrap(), f.to_str().unwrap());
    assert!(Command::new(&exe).arg(&f).status().unwrap().success());
    let alone = states(&f);
    assert_eq!(alone.len(), 1, "{alone:?}");
    // The native run and the emulated one.
    let out = emulated_profile(&dir, "a.yaml", &[], &[exe_s, f_s])
        .output()
        .unwrap();
    success(&out);
    assert_eq!(states(&f), [alone[0].clone(), alone[0].clone()]);
    // Each rank of an MPI job, as the launcher alone starts it.
    {
        let root = [
            ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
            ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        ];
        let launch = ["mpirun", "-np", "1", exe_s, f_s];
        let st = Command::new(launch[0])
            .args(&launch[1..])
            .envs(root)
            .status();
        assert!(st.unwrap().success());
        let launched = states(&f);
        assert_eq!(launched.len(), 1, "{launched:?}");
        let out = emulated_profile(&dir, "m.yaml", &["--mpi"], &launch)
            .envs(root)
            .output()
            .unwrap();
        success(&out);
        assert_eq!(states(&f), [launched[0].clone(), launched[0].clone()]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_launcher_that_fails_itself_is_named_not_its_ranks() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmpdir("launcher-fails");
    let exe = gcc(&dir, "sigstate", SIGSTATE, &["-O1"]);
    // An Open MPI launcher (by its name) that cannot reach its hosts.
    let launcher = dir.join("mpirun.openmpi");
    std::fs::write(
        &launcher,
        "#!/bin/sh\necho 'mpirun: cannot reach host node-x' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (l, e) = (launcher.to_str().unwrap(), exe.to_str().unwrap());
    let out = emulated_profile(&dir, "a.yaml", &["--mpi"], &[l, "-np", "2", e, "state"])
        .output()
        .unwrap();
    // The launcher's own message above carmbench's one line.
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let last = err.lines().last().unwrap_or_default();
    for needle in [
        "exited with status 1",
        "started no rank",
        "launch itself failed",
    ] {
        assert!(last.contains(needle), "{err}");
    }
    assert!(!err.contains("stopped before its end"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn rank_wrappers_stopped_by_the_timeout_leave_no_scratch_folder() {
    let dir = tmpdir("mpi-timeout");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = emulated_profile(
        &dir,
        "a.yaml",
        &["--mpi", "--timeout", "3s"],
        &["mpirun", "-np", "2", "sleep", "60"],
    )
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    .env("TMPDIR", &tmp)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // Open MPI keeps its own session folder in TMPDIR: only carmbench's
    // are looked for.
    let left: Vec<String> = (std::fs::read_dir(&tmp).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("carmbench"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let hidden: Vec<String> = (std::fs::read_dir(&dir).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".carmbench"))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A program that uses AVX2 and FMA without asking the CPU.
const FMA_ALWAYS: &str = r#"
#include <immintrin.h>
#include <stdio.h>
int main(void) {
    __m256d a = _mm256_set1_pd(1.5), b = _mm256_set1_pd(2.0), c = _mm256_setzero_pd();
    for (int i = 0; i < 1000; i++) c = _mm256_fmadd_pd(a, b, c);
    double out[4];
    _mm256_storeu_pd(out, c);
    printf("%f\n", out[0]);
    return 0;
}
"#;

pub fn a_sigill_from_features_hidden_on_request_names_them() {
    let dir = tmpdir("sigill-hidden");
    let exe = gcc(&dir, "fma_always", FMA_ALWAYS, &["-O1", "-mavx2", "-mfma"]);
    let more = ["--emulate-without", "avx2,fma"];
    let out = emulated_profile(&dir, "a.yaml", &more, &[exe.to_str().unwrap()])
        .output()
        .unwrap();
    let here =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    match here {
        // The native run goes, the emulated one stops where it was asked to.
        true => {
            assert_input_error(&out, &["SIGILL", "--emulate-without hid avx2, fma"]);
            assert!(!stderr(&out).contains("AVX-512"), "{}", stderr(&out));
        }
        // Without them here, the native run stops first, and says so.
        false => assert_input_error(&out, &["SIGILL", "this CPU lacks"]),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn the_emulated_run_has_no_terminal_to_wait_on() {
    let dir = tmpdir("tty");
    gcc(&dir, "tty", TTY, &["-O1"]);
    let out = dir.join("t.out");
    // carmbench on a terminal of its own (a pseudo-terminal `script` opens).
    let on_a_terminal = |more: &str| {
        let line = format!(
            "'{}' profile --counts emulate --plugin '{}' -o a.yaml -- ./tty '{}' {more}",
            env!("CARGO_BIN_EXE_carmbench"),
            qemu_plugin().display(),
            out.display()
        );
        let o = Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .current_dir(&dir)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("script (util-linux) runs");
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success(), "{said}");
        said
    };
    // A program that never reads its input is not told its input was lost.
    let said = on_a_terminal("");
    assert!(!said.contains("cannot be read twice"), "{said}");
    // The native run has the terminal, the emulated one none (a read of
    // /dev/tty would wait for the user to type again).
    assert_eq!(states(&out), ["tty: yes", "tty: no"]);
    // One that reads it is.
    let said = on_a_terminal("read");
    assert!(said.contains("cannot be read twice"), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `carmbench profile` of a long triad (a tag in its arguments to find it
/// by), in `dir` with its own temp folder, started for a signal.
fn long_profile(dir: &Path, tag: &str, more: &[&str]) -> std::process::Child {
    let scratch = dir.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    emulated_profile(dir, "apps.yaml", more, &["./triad", "30000000", "400", tag])
        .env("TMPDIR", &scratch)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// After a signal or a timeout: nothing of the command left, no scratch.
fn nothing_left(dir: &Path, tag: &str) {
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(running(tag), Vec::<String>::new(), "left running");
    let left: Vec<_> = std::fs::read_dir(dir.join("tmp")).unwrap().collect();
    assert!(left.is_empty(), "scratch left: {left:?}");
}

pub fn signals_and_timeouts_stop_the_command_and_clean_up() {
    let dir = tmpdir("d10");
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    for (signal, code, tag) in [
        (libc::SIGTERM, 143, "d10-term"),
        (libc::SIGINT, 130, "d10-int"),
    ] {
        let c = long_profile(&dir, tag, &[]);
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(c.id() as i32, signal) };
        let t0 = Instant::now();
        let o = c.wait_with_output().unwrap();
        assert!(t0.elapsed() < Duration::from_secs(8), "{:?}", t0.elapsed());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{err}");
        assert!(err.contains("stopped"), "{err}");
        nothing_left(&dir, tag);
    }
    let t0 = Instant::now();
    let o = long_profile(&dir, "d10-timeout", &["--timeout", "1s"])
        .wait_with_output()
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert_input_error(&o, &["--timeout", "1s"]);
    nothing_left(&dir, "d10-timeout");
    std::fs::remove_dir_all(&dir).unwrap();
}
