//! What users launch, counted whole under a real QEMU: a name on `PATH`, a
//! `#!` script running two programs, `sh -c`, a program that forks, one
//! whose forked children run threads, Python's `subprocess` and
//! `os.system`, `system()`/`posix_spawnp()`/`execlp()`, an AVX-512 build
//! counted through its twin, and a statically linked launcher whose
//! children cannot be followed. W and Q are worked out by hand in each
//! program's comment (`tests/programs/`).

use super::*;

const FORK: &str = include_str!("../programs/fork.c");
const FORK_OMP: &str = include_str!("../programs/fork_omp.c");
const LAUNCH: &str = include_str!("../programs/launch.c");

/// W exact; Q within 2 % of the hand count (the shells' and loaders' own
/// bytes are in the sum).
fn check_sum(what: &str, c: &Counts, flops: u64, bytes: u64) {
    assert_eq!(c.flops(), flops, "{what}: W, {c:?}");
    let q = c.bytes() as f64;
    assert!(
        (q - bytes as f64).abs() <= 0.02 * bytes as f64,
        "{what}: Q {q} against {bytes} by hand, {c:?}"
    );
}

/// `carmbench profile --counts emulate -o apps.yaml -- ARGS` in `dir`, with
/// `PATH` starting at `dir`.
fn profile_in(dir: &Path, args: &[&str], more: &[&str]) -> std::process::Output {
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    emulated_profile(dir, "apps.yaml", more, args)
        .env("PATH", path)
        .output()
        .unwrap()
}

/// The point named `name` in `dir/apps.yaml`.
fn point(dir: &Path, name: &str) -> carmbench::results::apps::AppPoint {
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    f.applications
        .into_iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no point {name}"))
}

pub fn names_on_path_scripts_and_shells_are_counted_whole() {
    let dir = tmpdir("launched");
    let (n, r) = (1_000_000u64, 6u64);
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    gcc(&dir, "adds", ADDS, &["-O2"]);
    // A bare name, found on PATH as a shell finds it.
    let (ns, rs) = (n.to_string(), r.to_string());
    success(&profile_in(&dir, &["triad", &ns, &rs], &[]));
    let p = point(&dir, "triad");
    assert_eq!(p.flops, (2 * n * r) as f64, "triad by name");
    assert!(p.processes.is_empty(), "one process: {:?}", p.processes);
    // A #!/bin/sh script running two programs: the triad R times, the adds
    // 2R times. By hand W = 2NR + 2NR, Q = 24NR + 24N + 16NR + 8N.
    let script = dir.join("run.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncd {}\n./triad {n} {r}\n./adds {n} {}\n",
            dir.display(),
            2 * r
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (w, q) = (4 * n * r, 40 * n * r + 32 * n);
    let out = emulator().count(script.to_str().unwrap(), &[]).unwrap();
    check_sum("#! script", &out.total, w, q);
    let working: Vec<_> = out
        .processes
        .iter()
        .filter(|p| p.total.flops() > 0)
        .collect();
    assert_eq!(working.len(), 2, "{:?}", out.processes);
    assert_eq!(working[0].total.flops(), 2 * n * r);
    assert_eq!(working[1].total.flops(), 2 * n * r);
    // The same through sh -c, from the command line: the point records the
    // two programs that did the work.
    let line = format!("./triad {n} {r}; ./adds {n} {}", 2 * r);
    let o = profile_in(&dir, &["sh", "-c", &line], &["--name", "shc"]);
    let stdout = success(&o);
    assert!(stdout.contains("process(es)"), "{stdout}");
    let p = point(&dir, "shc");
    assert_eq!(p.flops, w as f64);
    assert!(
        (p.bytes - q as f64).abs() <= 0.02 * q as f64,
        "Q {}",
        p.bytes
    );
    let progs: Vec<&str> = p.processes.iter().map(|x| x.program.as_str()).collect();
    assert_eq!(progs, ["./triad", "./adds"]);
    // A command that does next to no FP work (sleep parses its argument)
    // and runs over a second: said to be suspect, not given as a result.
    let o = profile_in(&dir, &["sh", "-c", "sleep 1.2"], &[]);
    assert_input_error(&o, &["under 1 M/s", "waited the rest"]);
    // A command not on PATH, in one line.
    assert_input_error(
        &profile_in(&dir, &["no-such-command-here"], &[]),
        &["no such program on PATH"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn forked_children_count_their_own_work_once() {
    let dir = tmpdir("forked");
    let (n, r) = (1_000_000u64, 4u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let exe = gcc(&dir, "fork", FORK, &["-O2", "-mfma"]);
    let out = count(&exe, &[&ns, &rs]);
    check_sum("fork", &out.total, 6 * n * r, 72 * n * r + 48 * n);
    let w: Vec<u64> = out.processes.iter().map(|p| p.total.flops()).collect();
    assert_eq!(w, [2 * n * r, 4 * n * r], "parent, then the child alone");
    // Forked children running two OpenMP threads each.
    let exe = gcc(&dir, "fork_omp", FORK_OMP, &["-O2", "-mfma", "-fopenmp"]);
    let out = emulator()
        .count_with_env(
            exe.to_str().unwrap(),
            &[ns.clone(), rs.clone()],
            &[("OMP_NUM_THREADS", "2"), ("OMP_WAIT_POLICY", "passive")],
        )
        .unwrap();
    check_sum("forked OpenMP", &out.total, 4 * n * r, 48 * n * r + 48 * n);
    assert!(out.threads >= 2, "{} threads", out.threads);
    let working = out.processes.iter().filter(|p| p.total.flops() > 0).count();
    assert_eq!(working, 2, "{:?}", out.processes);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn launchers_in_c_and_python_are_followed() {
    let dir = tmpdir("launchers");
    let (n, r) = (1_000_000u64, 3u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    gcc(&dir, "triad", TRIAD, &["-O2", "-mfma"]);
    // system(), posix_spawnp() and execlp() of the triad: three triads.
    let launch = gcc(&dir, "launch", LAUNCH, &["-O2"]);
    let o = profile_in(&dir, &["./launch", "triad", &ns, &rs], &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    success(&o);
    assert!(!stderr.contains("warning"), "{stderr}");
    let p = point(&dir, "launch");
    assert_eq!(p.flops, (6 * n * r) as f64, "three triads");
    let q = 3 * (24 * n * r + 24 * n);
    assert!(
        (p.bytes - q as f64).abs() <= 0.02 * q as f64,
        "Q {}",
        p.bytes
    );
    // Python's subprocess (vfork and execv) and os.system (system()).
    let python = Path::new("/usr/bin/python3");
    assert!(
        python.exists(),
        "python3 is installed by scripts/setup.sh --tests"
    );
    let code = format!(
        "import subprocess, os\nos.chdir('{}')\nsubprocess.run(['./triad', '{n}', '{r}'], check=True)\nassert os.system('./triad {n} {r}') == 0\n",
        dir.display()
    );
    let out = emulator()
        .count(python.to_str().unwrap(), &["-c".into(), code])
        .unwrap();
    let w = out.total.flops() as f64;
    let want = (4 * n * r) as f64;
    assert!(
        (w - want).abs() <= 0.005 * want,
        "python: W {w} against {want}"
    );
    assert!(
        out.processes.iter().any(|p| p.program.contains("python")),
        "{:?}",
        out.processes
    );
    // Statically linked, the launcher's children start by raw system
    // calls: the triads run natively, uncounted, and the launcher is named.
    let stat = gcc(&dir, "launch_static", LAUNCH, &["-O2", "-static"]);
    let o = profile_in(&dir, &["./launch_static", "triad", &ns, &rs], &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        stderr.contains("./launch_static (pid")
            && stderr.contains("statically linked")
            && stderr.contains("not in W and Q"),
        "{stderr}"
    );
    let _ = (launch, stat);
    // Regions in the programs a shell starts: summed over both processes,
    // timed natively in both.
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let lib = regions_static_lib();
    gcc_with(
        &dir,
        "regions",
        REGIONS,
        &["-O2", "-mfma", "-I", include.to_str().unwrap()],
        &[lib.to_str().unwrap(), "-lpthread", "-ldl"],
    );
    let line = format!("./regions {n} {r} && ./regions {n} {r}");
    let o = profile_in(&dir, &["sh", "-c", &line], &["--name", "two"]);
    success(&o);
    let p = point(&dir, "two/triad");
    assert_eq!(p.flops, (2 * 2 * n * r) as f64, "the triad region of both");
    assert!(p.source.unwrap().contains(&format!("{} call(s)", 2 * r)));
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn an_avx512_build_is_counted_through_its_twin() {
    let dir = tmpdir("twin");
    let (n, r) = (1_000_000u64, 4u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let wide = gcc(
        &dir,
        "triad_v4",
        TRIAD,
        &["-O3", "-march=x86-64-v4", "-mprefer-vector-width=512"],
    );
    let v3 = gcc(&dir, "triad_v3", TRIAD, &["-O3", "-march=x86-64-v3"]);
    let v3_again = gcc(&dir, "triad_v3_twin", TRIAD, &["-O3", "-march=x86-64-v3"]);
    let twin = |cmd: &Path, with: &Path| {
        profile_in(
            &dir,
            &[cmd.to_str().unwrap(), &ns, &rs],
            &["--count-with", with.to_str().unwrap()],
        )
    };
    let here = std::arch::is_x86_feature_detected!("avx512f");
    let o = profile_in(&dir, &["./triad_v4", &ns, &rs], &[]);
    if here {
        // Runs natively; QEMU stops on it: the message names the way out.
        assert_input_error(&o, &["SIGILL", "--count-with"]);
        success(&twin(&wide, &v3));
        let p = point(&dir, "triad_v4");
        assert_eq!(p.flops, (2 * n * r) as f64);
        assert_eq!(p.counted_with.as_deref(), v3.to_str());
        assert!(p.source.unwrap().contains("twin build"));
    } else {
        // This CPU cannot run it at all: said as such.
        assert_input_error(&o, &["SIGILL", "this CPU lacks", "--count-with"]);
    }
    // The twin of a v3 program, on any machine.
    success(&twin(&v3, &v3_again));
    let p = point(&dir, "triad_v3");
    assert_eq!(p.flops, (2 * n * r) as f64);
    assert_eq!(p.counted_with.as_deref(), v3_again.to_str());
    // A twin is counted by emulation only.
    let o = profile_in(
        &dir,
        &["./triad_v3", &ns, &rs],
        &[
            "--count-with",
            "./triad_v3_twin",
            "--flops",
            "1e9",
            "--bytes",
            "1e9",
        ],
    );
    assert_input_error(&o, &["--count-with"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
