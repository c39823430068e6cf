//! `carmbench profile --gpu` end to end without a GPU: a stand-in `ncu`
//! on `PATH` runs the program and writes Nsight Compute's output recorded
//! on an H100 (`tests/fixtures/ncu/`) where the real one would.

use crate::common::*;

use carmbench::results::apps;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A folder holding an `ncu` that writes `csv` (or `text`) to its
/// `--log-file`, runs the program and exits with its status (or `exit`).
fn fake_ncu(dir: &Path, text: &str, exit: Option<i32>) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(dir.join("ncu.out"), text).unwrap();
    let ending = match exit {
        Some(c) => format!("exit {c}"),
        None => "exec \"$@\"".into(),
    };
    let script = format!(
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in\n  --csv) shift;;\n  --log-file) log=$2; shift 2;;\n  --*) shift 2;;\n  *) break;;\nesac; done\ncp '{}' \"$log\"\n{ending}\n",
        dir.join("ncu.out").display()
    );
    let ncu = bin.join("ncu");
    std::fs::write(&ncu, script).unwrap();
    Command::new("chmod").arg("+x").arg(&ncu).status().unwrap();
    bin
}

fn profile_gpu(dir: &Path, path: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(["profile", "--gpu", "-o", "apps.yaml"])
        .args(extra)
        .args(["--", "sh", "-c", "echo the program ran"])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("CUDA_HOME")
        .output()
        .unwrap()
}

fn recorded(name: &str) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    std::fs::read_to_string(format!("{dir}/ncu/{name}.csv")).unwrap()
}

const H100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gpu/h100.yaml");
const CPU: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/emr-xeon-16vcpu-vm.yaml"
);

/// carmbench with `args` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A folder where the recorded `intensity` program was profiled on the
/// H100 (`apps.yaml`), what `profile` printed checked.
fn profiled(tag: &str) -> PathBuf {
    let dir = tmpdir(tag);
    let bin = fake_ncu(&dir, &recorded("intensity"), None);
    let o = profile_gpu(
        &dir,
        &format!("{}:/usr/bin:/bin", bin.display()),
        &["--results", H100],
    );
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{out}{err}");
    // The program's own output reaches the user.
    assert!(out.contains("the program ran"), "{out}");
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    let names: Vec<&str> = f.applications.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["intensity<1>", "intensity<8>", "intensity<64>", "sh (GPU)"]
    );
    let k = f.applications[2].kernel().expect("a kernel's point");
    assert_eq!((k.gpu.as_str(), k.launches), ("NVIDIA H100 80GB HBM3", 5));
    assert!(
        k.kernel
            .as_deref()
            .unwrap()
            .starts_with("void intensity<64>(")
    );
    // Konstantinidis's bound on that H100, beside each kernel.
    for (name, bound) in [("intensity<8>", "memory"), ("intensity<64>", "compute")] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        assert!(line.contains(&format!("{bound} bound")), "{line}");
    }
    dir
}

#[test]
fn each_kernel_is_a_point_under_the_gpu_it_ran_on() {
    let dir = profiled("profile-gpu");
    // Kernels are not placed under the CPU's roofs.
    assert!(
        apps::load_placeable(&dir.join("apps.yaml"))
            .unwrap()
            .is_empty()
    );
    // Predicted on the H100 they ran on: Konstantinidis and the plain roofline
    // beside the time measured; on results without a GPU, one line.
    let o = run(&dir, &["predict", "--app", "apps.yaml", "--on", H100]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    let k64 = out.split("intensity<64>").nth(1).unwrap();
    assert!(
        k64.contains("Konstantinidis") && k64.contains("compute bound"),
        "{out}"
    );
    assert!(k64.contains("measured there"), "{out}");
    let o = run(&dir, &["predict", "--app", "apps.yaml", "--on", CPU]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no GPU roofs"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kernels_are_drawn_reported_and_split_by_quadrant_with_their_gpu() {
    let dir = profiled("profile-gpu-drawn");
    // Drawn on the H100's chart beside the CPU's (a run that measured both).
    let yaml = |p: &str| -> serde_yaml::Value {
        serde_yaml::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let mut both = yaml(CPU);
    both["gpus"] = yaml(H100)["gpus"].clone();
    std::fs::write(dir.join("both.yaml"), serde_yaml::to_string(&both).unwrap()).unwrap();
    let o = run(
        &dir,
        &["plot", "both.yaml", "--apps", "apps.yaml", "-o", "c.svg"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let gpu = std::fs::read_to_string(dir.join("c-gpu0.svg")).unwrap();
    assert!(gpu.contains("intensity&lt;64&gt;") || gpu.contains("intensity<64>"));
    let cpu_chart = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(
        !cpu_chart.contains("intensity&lt;"),
        "a kernel on the CPU's chart"
    );
    // The report lists them apart, with the seed's bound on that GPU.
    let o = run(
        &dir,
        &["report", "both.yaml", "--apps", "apps.yaml", "-o", "r.html"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    let kernels = html
        .split("GPU kernels")
        .nth(1)
        .expect("a section of GPU kernels");
    assert!(kernels.contains("intensity&lt;64&gt;") && kernels.contains("compute bound"));
    assert!(
        !html.contains("Applications on the roofs"),
        "kernels on the CPU's roofs"
    );
    // The quadrant split: the CPU's and the GPU's levels, a half-line per kernel.
    let o = run(
        &dir,
        &["compare", CPU, H100, "--quadrant", "--apps", "apps.yaml"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    let hbm = out
        .lines()
        .find(|l| l.contains("GPU 0 HBM"))
        .expect("the H100's HBM");
    assert!(
        hbm.contains("intensity<1> (AI 0.743): memory bound"),
        "{hbm}"
    );
    assert!(
        hbm.contains("intensity<64> (AI 31.952): compute bound"),
        "{hbm}"
    );
    let svg = std::fs::read_to_string(dir.join("quadrant.svg")).unwrap();
    assert!(
        svg.contains("intensity&lt;8&gt; (AI 4.213)"),
        "no half-line of intensity<8>"
    );
    // Profiled again after a change: the kernel's arrow on the GPU's chart,
    // none on the CPU's.
    let mut old = apps::load(&dir.join("apps.yaml")).unwrap();
    old.applications[2].seconds *= 2.0;
    std::fs::write(dir.join("old.yaml"), serde_yaml::to_string(&old).unwrap()).unwrap();
    let args = [
        "plot",
        "both.yaml",
        "--apps",
        "apps.yaml",
        "--before",
        "old.yaml",
    ];
    let o = run(&dir, &[&args[..], &["-o", "d.svg"]].concat());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("intensity<64>"), "{out}");
    let arrow = "#444444";
    let gpu = std::fs::read_to_string(dir.join("d-gpu0.svg")).unwrap();
    assert!(gpu.contains(arrow), "no arrow on the GPU's chart");
    let cpu = std::fs::read_to_string(dir.join("d.svg")).unwrap();
    assert!(!cpu.contains(arrow), "a kernel's arrow on the CPU's chart");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_ncu_or_its_counters_one_line_names_the_fix() {
    let dir = tmpdir("profile-gpu-missing");
    let o = profile_gpu(&dir, "/usr/bin:/bin", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    if !Path::new("/usr/local/cuda/bin/ncu").exists() {
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("ncu is not on PATH") && err.lines().count() == 1,
            "{err}"
        );
    }
    let denied = "==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.\n";
    let bin = fake_ncu(&dir, denied, Some(1));
    let o = profile_gpu(&dir, &format!("{}:/usr/bin:/bin", bin.display()), &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("NVreg_RestrictProfilingToAdminUsers=0"),
        "{err}"
    );
    assert!(!dir.join("apps.yaml").exists());
    // Asked with CPU counts: refused before anything runs.
    let o = profile_gpu(&dir, "/usr/bin:/bin", &["--flops", "1"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gpu_results_alone_are_drawn_and_kernels_without_their_gpu_are_said() {
    let dir = profiled("profile-gpu-alone");
    // Results of the H100 alone: its chart, with the kernels.
    let o = run(&dir, &["plot", H100, "--apps", "apps.yaml", "-o", "g.svg"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(dir.join("g.svg")).unwrap();
    assert!(svg.contains("intensity&lt;64&gt;") || svg.contains("intensity<64>"));
    let o = run(&dir, &["plot", H100, "-o", "bare.svg"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The CPU's results: its chart, and the kernels not drawn said.
    let o = run(&dir, &["plot", CPU, "--apps", "apps.yaml", "-o", "c.svg"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("4 GPU kernel point(s)") && err.contains("hold no GPU roofs"),
        "{err}"
    );
    // --from of CPU results with kernels: said, not ignored.
    let o = run(
        &dir,
        &["predict", "--app", "apps.yaml", "--on", H100, "--from", CPU],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("places the CPU points only (it holds no GPU roofs either)"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_program_under_nsight_compute_keeps_to_the_timeout_and_stops_with_carmbench() {
    let dir = tmpdir("profile-gpu-stop");
    let bin = fake_ncu(&dir, &recorded("triad"), None);
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let program = ["sh", "-c", "echo $$ > pid; exec sleep 30"];
    let gone = |dir: &Path| {
        let pid = std::fs::read_to_string(dir.join("pid")).unwrap();
        !Path::new(&format!("/proc/{}", pid.trim())).exists()
    };
    // --timeout: one line, the program stopped, nothing written.
    let t = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args([
            "profile",
            "--gpu",
            "--timeout",
            "1s",
            "-o",
            "apps.yaml",
            "--",
        ])
        .args(program)
        .current_dir(&dir)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_input_error(&o, &["--timeout 1s", "Nsight Compute"]);
    assert!(t.elapsed().as_secs_f64() < 15.0, "{:?}", t.elapsed());
    assert!(gone(&dir) && !dir.join("apps.yaml").exists());
    // SIGTERM to carmbench: the program goes too.
    std::fs::remove_file(dir.join("pid")).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(["profile", "--gpu", "-o", "apps.yaml", "--"])
        .args(program)
        .current_dir(&dir)
        .env("PATH", &path)
        .spawn()
        .unwrap();
    while !dir.join("pid").exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: a signal to the carmbench started above.
    unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
    let st = c.wait().unwrap();
    assert_eq!(st.code(), Some(128 + libc::SIGTERM), "{st:?}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(gone(&dir), "the program under ncu still runs");
    // --counts has nothing to do with --gpu: refused.
    let o = run(
        &dir,
        &["profile", "--gpu", "--counts", "emulate", "--", "true"],
    );
    assert_input_error(&o, &["--gpu", "--counts"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
