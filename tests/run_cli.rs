//! `carmbench run` end to end: results document, bad input, Ctrl-C.

use crate::common::*;

use carmbench::config::limits;
use carmbench::machine::{Machine, Source};
use carmbench::results::{self, SCHEMA};
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn quick_run_writes_a_versioned_document() {
    let dir = tmpdir("run");
    let d = dir.to_str().unwrap();
    let out = carmbench(&[
        "run",
        "--quick",
        "--isa",
        "scalar,best",
        "--levels",
        "L1,L2",
        "--mixes",
        "load,2ld1st",
        "--ops",
        "fma,add",
        "--precision",
        "dp",
        "--threads",
        "1",
        "-o",
        d,
    ]);
    let stdout = success(&out);
    assert!(
        stdout.contains("L1 2ld1st") && stdout.contains("fma dp") && stdout.contains("wrote"),
        "{stdout}"
    );
    let doc = results::load(&dir.join("carm.yaml")).unwrap();
    assert_eq!(doc.schema, SCHEMA);
    assert!(!doc.interrupted);
    assert_eq!(doc.plan.threads, vec![1]);
    assert!(doc.plan.quick);
    let isas = doc.plan.isa.len();
    assert_eq!(
        doc.roofs.len(),
        isas * (2 * 2 + 2),
        "levels × mixes + ops, per ISA"
    );
    let uarch = limits::detect();
    for r in &doc.roofs {
        assert!(r.per_cycle > 0.0 && r.median > 0.0, "{r:?}");
        assert!(r.clock_ghz > 0.5, "{r:?}");
        // Two sizes per level (--quick), the roof at its plateau among them.
        if r.level.is_some() {
            assert_eq!(r.sizes.len(), 2, "{r:?}");
            let v: Vec<f64> = r.sizes.iter().map(|s| s.value).collect();
            assert!(
                r.value() >= v[0].min(v[1]) && r.value() <= v[0].max(v[1]),
                "{r:?}"
            );
            let [lo, hi] = r.plateau.expect("a plateau");
            assert!(r.sizes.iter().any(|s| s.bytes_per_thread == lo));
            assert!(r.sizes.iter().any(|s| s.bytes_per_thread == hi));
        }
        // A % of the limit exactly where this CPU's row of the limits table
        // gives one (none on a CPU the table does not list).
        let k = carmbench::kernels::named(&r.kernel).unwrap();
        let limit = uarch.as_ref().and_then(|u| u.per_cycle(&k.decl, r.level));
        assert_eq!(
            r.theoretical_per_cycle,
            limit.map(|l| l * r.threads as f64),
            "{r:?}"
        );
        assert_eq!(r.gb_per_s.is_some(), r.level.is_some());
        assert_eq!(r.gflop_per_s.is_some(), r.op.is_some());
        let expect = r.value() / r.clock_ghz;
        assert!(
            (r.per_cycle - expect).abs() < 1e-9 * expect.max(1.0),
            "per_cycle = value / clock"
        );
        if let (Some(t), Some(p)) = (r.theoretical_per_cycle, r.percent_of_theoretical) {
            assert!((p - 100.0 * r.per_cycle / t).abs() < 1e-9);
        }
    }
    // The memory curve of each ISA and mix, and the page beside the results.
    assert_eq!(doc.curves.len(), isas * 2, "{:?}", doc.curves);
    for f in ["carm.svg", "carm-curve.svg", "carm.html"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    assert!(stdout.contains("carm.html"), "{stdout}");
    // Also JSON on request, next to the YAML.
    let out = carmbench(&[
        "run",
        "--quick",
        "--isa",
        "scalar",
        "--levels",
        "L1",
        "--mixes",
        "load",
        "--ops",
        "none",
        "--threads",
        "1",
        "--format",
        "json",
        "-o",
        d,
    ]);
    success(&out);
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("carm.json")).unwrap()).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["roofs"][0]["mix"], "load");
    assert_eq!(v["roofs"][0]["level"], "L1");
    assert!(
        dir.join("carm.yaml").exists(),
        "the YAML written before is kept"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn narrow_types_are_measured_with_their_own_ops_where_the_cpu_has_them() {
    use carmbench::kernels::{KERNELS, Kind, Precision};
    let dir = tmpdir("narrow");
    let d = dir.to_str().unwrap();
    let out = carmbench(&[
        "run",
        "--quick",
        "--isa",
        "all",
        "--levels",
        "L1",
        "--mixes",
        "load",
        "--ops",
        "fma",
        "--precision",
        "int8,int16,bf16,fp16,int32",
        "--threads",
        "1",
        "-o",
        d,
    ]);
    success(&out);
    let doc = results::load(&dir.join("carm.yaml")).unwrap();
    let narrow: Vec<_> = KERNELS
        .iter()
        .filter(|k| k.decl.kind == Kind::Compute)
        .filter(|k| {
            k.decl
                .precision
                .is_some_and(|p| doc.plan.precision.contains(&p))
        })
        .filter(|k| k.decl.precision.is_some_and(|p| p.own_ops().is_some()))
        .filter(|k| doc.plan.isa.contains(&k.decl.isa))
        .collect();
    for k in &narrow {
        let roof = doc.roofs.iter().find(|r| r.kernel == k.decl.name);
        // Measured where this CPU runs it, else left out and said.
        assert_eq!(roof.is_some(), k.runnable(), "{}", k.decl.name);
        if let Some(r) = roof {
            assert!(r.per_cycle > 0.0, "{r:?}");
            let p = r.precision.unwrap();
            assert_eq!(r.unit(), if p.is_integer() { "GOP/s" } else { "GFLOP/s" });
        }
    }
    // Only their own ops: no FMA of INT8, no dot product of dp.
    for r in doc.roofs.iter().filter(|r| r.kind == Kind::Compute) {
        let p = r.precision.unwrap();
        assert!(p.own_ops().unwrap().contains(&r.op.unwrap()), "{r:?}");
        assert!(p != Precision::Dp);
    }
    // The INT32 add on AVX2 is there on every x86-64 machine the tests run on.
    #[cfg(target_arch = "x86_64")]
    assert!(doc.roofs.iter().any(|r| r.kernel == "avx2_int32_add"));
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let dir = tmpdir("bad");
    let d = dir.to_str().unwrap();
    let precious = dir.join("carm.yaml");
    std::fs::write(&precious, "earlier results\n").unwrap();
    let cores = std::thread::available_parallelism().unwrap().get();
    let too_many = (cores + 1).to_string();
    assert_input_error(
        &carmbench(&["run", "--isa", "avx1024", "-o", d]),
        &["unknown ISA 'avx1024'", "avx512"],
    );
    assert_input_error(
        &carmbench(&["run", "--threads", &too_many, "-o", d]),
        &["threads", "cores"],
    );
    assert_input_error(
        &carmbench(&["run", "--levels", "L7", "-o", d]),
        &["no level 'L7'", "DRAM"],
    );
    assert_input_error(
        &carmbench(&["run", "--mixes", "triad", "-o", d]),
        &["unknown mix 'triad'"],
    );
    let cfg = dir.join("plan.yaml");
    std::fs::write(&cfg, "samples: 3\nthreads: [1\n").unwrap();
    assert_input_error(
        &carmbench(&["run", "--config", cfg.to_str().unwrap(), "-o", d]),
        &["plan.yaml", "line"],
    );
    std::fs::write(&cfg, "sampels: 3\n").unwrap();
    assert_input_error(
        &carmbench(&["run", "--config", cfg.to_str().unwrap(), "-o", d]),
        &["line 1", "sampels"],
    );
    assert_input_error(
        &carmbench(&["run", "--config", "/nonexistent.yaml", "-o", d]),
        &["/nonexistent.yaml"],
    );
    assert_input_error(
        &carmbench(&["run", "-o", precious.to_str().unwrap()]),
        &["it is a file, not a folder", "give another -o"],
    );
    if !std::arch::is_x86_feature_detected!("avx512f") {
        assert_input_error(
            &carmbench(&["run", "--isa", "avx512", "-o", d]),
            &["cannot run avx512"],
        );
    }
    assert_eq!(
        std::fs::read_to_string(&precious).unwrap(),
        "earlier results\n",
        "nothing written is lost"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `carmbench run` into `dir`, stopped with Ctrl-C after 6 s.
fn interrupted_run(dir: &Path) -> std::process::Output {
    let child = Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args([
            "run",
            "--isa",
            "all",
            "--precision",
            "dp,sp",
            "-o",
            dir.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough for a few roofs on two cores busy with other tests (2.5 s
    // was not), far shorter than the whole plan (minutes).
    std::thread::sleep(std::time::Duration::from_millis(6000));
    // SAFETY: plain kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait_with_output().unwrap()
}

#[test]
fn ctrl_c_saves_the_roofs_measured_so_far() {
    let dir = tmpdir("int");
    let out = interrupted_run(&dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let doc = results::load(&dir.join("carm.yaml")).unwrap();
    assert!(doc.interrupted);
    assert!(!doc.roofs.is_empty(), "some roofs were measured");
    let machine = Machine::load(&Source::Live).unwrap();
    let planned = carmbench::roofs::plan::tasks(&doc.plan, &machine)
        .unwrap()
        .0
        .len();
    assert!(
        doc.roofs.len() < planned,
        "{} of {planned}",
        doc.roofs.len()
    );
    // Into a folder holding a complete run: that run and its chart are
    // kept; the partial one goes beside them.
    let complete = std::fs::read_to_string(FIXTURE).unwrap();
    std::fs::write(dir.join("carm.yaml"), &complete).unwrap();
    std::fs::write(dir.join("carm.svg"), "<svg/>").unwrap();
    let out = interrupted_run(&dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("carm.partial.yaml") && err.contains("are kept"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("carm.yaml")).unwrap(),
        complete
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("carm.svg")).unwrap(),
        "<svg/>"
    );
    assert!(
        results::load(&dir.join("carm.partial.yaml"))
            .unwrap()
            .interrupted
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn results_load_refuses_other_schemas_and_empty_files() {
    let dir = tmpdir("schema");
    let f = dir.join("r.yaml");
    std::fs::write(&f, "schema: 99\nroofs: []\n").unwrap();
    let e = results::load(&f).unwrap_err().to_string();
    assert!(e.contains("schema 99") && e.contains("schema 1"), "{e}");
    std::fs::write(&f, "").unwrap();
    assert!(results::load(&f).unwrap_err().to_string().contains("empty"));
    std::fs::write(&f, "roofs: []\n").unwrap();
    assert!(
        results::load(&f)
            .unwrap_err()
            .to_string()
            .contains("not a carmbench results file")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A cgroup of its own with a CPU quota of `quota_us` per 100 ms (v1's cpu
/// controller, else v2's) that a shell can join; `None` where the tests
/// cannot make one.
fn cgroup_with_quota(tag: &str, quota_us: u64) -> Option<std::path::PathBuf> {
    let v1 = Path::new("/sys/fs/cgroup/cpu");
    let v2 = Path::new("/sys/fs/cgroup");
    let name = format!("carmbench-{tag}-{}", std::process::id());
    if v1.join("cpu.cfs_quota_us").exists() {
        let g = v1.join(&name);
        std::fs::create_dir(&g).ok()?;
        std::fs::write(g.join("cpu.cfs_period_us"), "100000").ok()?;
        std::fs::write(g.join("cpu.cfs_quota_us"), quota_us.to_string()).ok()?;
        return Some(g);
    }
    let controllers = std::fs::read_to_string(v2.join("cgroup.subtree_control")).ok()?;
    if !controllers.split_whitespace().any(|c| c == "cpu") {
        return None;
    }
    let g = v2.join(&name);
    std::fs::create_dir(&g).ok()?;
    std::fs::write(g.join("cpu.max"), format!("{quota_us} 100000")).ok()?;
    Some(g)
}

#[test]
fn under_a_quota_below_one_cpu_the_quota_is_said_and_the_limits_stay_the_hardware_s() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let Some(g) = (cores >= 2)
        .then(|| cgroup_with_quota("quota", 50_000))
        .flatten()
    else {
        // A cgroup of one's own needs root and a writable cpu controller.
        let why =
            "no cgroup with a CPU quota can be made here (root, a writable cpu controller, 2 CPUs)";
        assert!(std::env::var_os("CI").is_none(), "{why}");
        println!("skipped: {why}");
        return;
    };
    let dir = tmpdir("quota");
    let line = format!(
        "echo $$ > '{}/cgroup.procs' && exec '{}' run --quick --isa scalar --levels L1 --mixes load --ops add --precision dp --threads 1,2 -o '{}'",
        g.display(),
        env!("CARGO_BIN_EXE_carmbench"),
        dir.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &line])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir(&g);
    let stdout = success(&out);
    assert!(
        stdout.contains("CPU quota gives 0.50 cores' worth of time to 2 threads")
            && stdout.contains("the limits are the hardware's"),
        "{stdout}"
    );
    let doc = results::load(&dir.join("carm.yaml")).unwrap();
    let e = doc
        .machine
        .effective_cores
        .as_ref()
        .expect("the cores' worth recorded");
    assert_eq!((e.threads, e.cores), (2, 0.5));
    // Each roof's limit is its threads' whole cores' (short samples run at
    // a core's speed), and none is passed by more than the clock's noise.
    let per_core =
        |r: &carmbench::results::Roof| r.theoretical_per_cycle.map(|t| t / r.threads as f64);
    for r in doc.roofs.iter().filter(|r| r.threads == 2) {
        let alone = (doc.roofs.iter())
            .find(|o| o.threads == 1 && o.kernel == r.kernel)
            .expect("its 1-thread roof");
        assert_eq!(per_core(r), per_core(alone), "{}", r.kernel);
    }
    // The roofs sit at their hardware limits (the quota's scaling put them
    // at 200-400 %); a loaded machine's clock probes, throttled by the
    // quota, read a few % low (up to 108 % seen on CI), and a roof above
    // its limit by more than its spread is said.
    let mut pcts: Vec<f64> = (doc.roofs.iter())
        .map(|r| r.percent_of_theoretical.unwrap_or(0.0))
        .collect();
    pcts.sort_by(f64::total_cmp);
    assert!(pcts[pcts.len() / 2] <= 125.0, "{pcts:?}");
    for r in &doc.roofs {
        let pct = r.percent_of_theoretical.unwrap_or(0.0);
        // Above its limit by more than its samples' spread: flagged.
        let said = r
            .flags
            .contains(&carmbench::results::Flag::AboveTheoretical);
        let by_chance = !carmbench::config::limits::above(pct, r.cv);
        assert!(
            pct <= 125.0 && (pct <= 103.0 || said || by_chance),
            "{} {} thread(s): {pct:.1} % (cv {:.3}), not flagged",
            r.kernel,
            r.threads,
            r.cv
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn under_taskset_the_run_uses_the_cores_its_mask_leaves_and_says_so() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let taskset = std::process::Command::new("taskset")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if cores < 2 || !taskset {
        let why = "taskset (util-linux) and 2 CPUs are needed to narrow the mask";
        assert!(std::env::var_os("CI").is_none(), "{why}");
        println!("skipped: {why}");
        return;
    }
    let dir = tmpdir("taskset");
    // The last CPU this process may use: the run must measure on it alone.
    let out = std::process::Command::new("taskset")
        .args(["-c", &(cores - 1).to_string()])
        .arg(env!("CARGO_BIN_EXE_carmbench"))
        .args([
            "run",
            "--quick",
            "--isa",
            "scalar",
            "--levels",
            "L1",
            "--mixes",
            "load",
            "--ops",
            "add",
            "--precision",
            "dp",
            "-o",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = success(&out);
    let doc = results::load(&dir.join("carm.yaml")).unwrap();
    let t = &doc.machine.topology;
    assert_eq!(t.cores, 1, "{stdout}");
    assert!(t.cores_of.is_some_and(|n| n >= 2), "{:?}", t.cores_of);
    assert!(
        stdout.contains("1 of the machine's") && stdout.contains("affinity mask"),
        "{stdout}"
    );
    assert!(doc.roofs.iter().all(|r| r.threads == 1), "{:?}", doc.roofs);
    std::fs::remove_dir_all(&dir).unwrap();
}
