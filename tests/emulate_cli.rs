//! `carmbench profile --counts emulate`: programs compiled here with gcc
//! (and a Rust one using `carmbench::Region`), their flops and bytes
//! worked out by hand, counted under a real `qemu-x86_64` with the counting
//! plugin. W is exact; Q within 0.1 % of the hand count plus a fixed
//! allowance for process start-up (the loader, libc, printf); regions
//! exact. Whether QEMU is here is decided when the tests run
//! (`common::parts`): without it they are skipped with one line, and fail
//! under `CI`.

mod common;
use common::parts::Part;
use common::*;

#[path = "emulate/processes.rs"]
mod processes;
use processes::*;

#[path = "emulate/functions.rs"]
mod functions;
use functions::*;

#[path = "emulate/narrow.rs"]
mod narrow;
use narrow::*;

#[path = "emulate/traffic.rs"]
mod traffic;
use traffic::*;

#[path = "emulate/identity.rs"]
mod identity;
use identity::*;

#[path = "emulate/integer.rs"]
mod integer;
use integer::*;

#[path = "emulate/runs.rs"]
mod runs;
use runs::*;

#[path = "emulate/loops.rs"]
mod loops;
use loops::*;

#[path = "emulate/mpi.rs"]
mod mpi;
use mpi::*;

#[path = "emulate/stopping.rs"]
mod stopping;
use stopping::*;

#[path = "emulate/timeline.rs"]
mod timeline;
use timeline::*;

#[path = "emulate/advice.rs"]
mod advice;
use advice::*;

use carmbench::profile::launch::emulator::Emulator;
use carmbench::results::apps;
use carmbench_counts::Counts;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bytes a process requests before and after `main`, at most: the loader,
/// libc's start-up and exit, printf, libgomp's threads.
const START_UP: u64 = 2 << 20;

// The programs, each with its flops and bytes by hand in its comment.
const TRIAD: &str = include_str!("programs/triad.c");
const SP_TRIAD: &str = include_str!("programs/sp_triad.c");
const ADDS: &str = include_str!("programs/adds.c");
const MEMCPY: &str = include_str!("programs/memcpy.c");
const OMP_TRIAD: &str = include_str!("programs/omp_triad.c");
const REGIONS: &str = include_str!("programs/regions.c");
const SIZED: &str = include_str!("programs/sized.c");

/// The counting plugin, built once (see `common::qemu_plugin`).
fn emulator() -> Emulator {
    Emulator::find(Some(&qemu_plugin())).unwrap()
}

/// Compile `src` with gcc and `flags` into `dir/name`.
fn gcc(dir: &Path, name: &str, src: &str, flags: &[&str]) -> PathBuf {
    gcc_with(dir, name, src, flags, &[])
}

/// The same, linked with `libs` (after the source, as the linker wants).
fn gcc_with(dir: &Path, name: &str, src: &str, flags: &[&str], libs: &[&str]) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let exe = dir.join(name);
    let out = Command::new("gcc")
        .args(flags)
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .args(libs)
        .arg("-lm")
        .output()
        .expect("gcc runs");
    assert!(
        out.status.success(),
        "gcc {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// `carmbench profile --counts emulate --plugin PLUGIN -o OUT MORE -- ARGS`
/// to run in `dir`: the command every profiling test starts from.
fn emulated_profile(dir: &Path, out: &str, more: &[&str], args: &[&str]) -> Command {
    let plugin = qemu_plugin();
    let mut c = Command::new(env!("CARGO_BIN_EXE_carmbench"));
    c.args(["profile", "--counts", "emulate", "--plugin"])
        .arg(&plugin)
        .args(["-o", out])
        .args(more)
        .arg("--")
        .args(args)
        .current_dir(dir);
    c
}

fn count(exe: &Path, args: &[&str]) -> carmbench::profile::launch::plugin_counts::Emulated {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    emulator().count(exe.to_str().unwrap(), &args).unwrap()
}

/// W exact; Q at least the hand count, at most 0.1 % and the start-up more.
fn check(what: &str, c: &Counts, flops: u64, bytes: u64) {
    assert_eq!(c.flops(), flops, "{what}: W, {c:?}");
    let q = c.bytes();
    assert!(
        q >= bytes && q <= bytes + bytes / 1000 + START_UP,
        "{what}: Q {q} against {bytes} by hand, {c:?}"
    );
}

fn flops_and_bytes_are_exact_for_programs_of_every_kind() {
    let dir = tmpdir("emulated");
    let (n, r) = (1_000_000u64, 10u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let args = [ns.as_str(), rs.as_str()];
    // Triad: 2 flops and 24 bytes per element and repetition; the set-up
    // stores 24 bytes per element.
    for (name, flags, fma_width) in [
        ("triad_o2", &["-O2", "-mfma"][..], "scalar"),
        ("triad_o3", &["-O3", "-mavx2", "-mfma"][..], "256"),
    ] {
        let out = count(&gcc(&dir, name, TRIAD, flags), &args);
        check(name, &out.total, 2 * n * r, 24 * n * r + 24 * n);
        assert_eq!(
            out.total.fma_flops(),
            2 * n * r,
            "{name}: every flop in an FMA"
        );
        let c = &out.total;
        match fma_width {
            "scalar" => assert!(c.fp_scalar >= n * r && c.fp_256 == 0, "{c:?}"),
            _ => assert!(c.fp_256 >= n * r / 4 && c.fp_scalar < n, "{c:?}"),
        }
    }
    // Scalar double adds: 1 flop and 8 bytes per element.
    let out = count(&gcc(&dir, "adds", ADDS, &["-O2"]), &args);
    check("adds", &out.total, n * r, 8 * n * r + 8 * n);
    assert_eq!(out.total.dp_other_flops, n * r);
    // Single precision AVX2 FMA: 2 flops and 12 bytes.
    let out = count(
        &gcc(&dir, "sp", SP_TRIAD, &["-O3", "-mavx2", "-mfma"]),
        &args,
    );
    check("sp triad", &out.total, 2 * n * r, 12 * n * r + 12 * n);
    assert_eq!(out.total.sp_fma_flops, 2 * n * r);
    assert_eq!(out.total.dp_fma_flops + out.total.dp_other_flops, 0);
    // memcpy (glibc's AVX2 copy, with rep movsb for large sizes): every
    // byte read once and written once; the set-up writes them once.
    let out = count(&gcc(&dir, "copy", MEMCPY, &["-O2"]), &args);
    check("memcpy", &out.total, 0, 2 * n * r + n);
    // Two OpenMP threads: the sums over both threads. Threads that spin at
    // the barrier would add loads: they sleep instead.
    let omp = gcc(&dir, "omp", OMP_TRIAD, &["-O2", "-mfma", "-fopenmp"]);
    let out = emulator()
        .count_with_env(
            omp.to_str().unwrap(),
            &[ns.clone(), rs.clone()],
            &[("OMP_WAIT_POLICY", "passive")],
        )
        .unwrap();
    assert!(out.threads >= 2, "{} threads", out.threads);
    check("OpenMP triad", &out.total, 2 * n * r, 24 * n * r + 24 * n);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sized region is a point per size, each with its series, size and
/// calls, its W and its bytes read and written those of its calls.
fn sized_regions_are_a_point_per_size_and_a_series() {
    let dir = tmpdir("emusized");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let exe = gcc_with(
        &dir,
        "sized",
        SIZED,
        &["-O2", "-I", include.to_str().unwrap()],
        &[
            regions_static_lib().to_str().unwrap(),
            "-lpthread",
            "-ldl",
            "-lm",
        ],
    );
    let calls = 3u64;
    let args = [exe.to_str().unwrap(), &calls.to_string()];
    let out = emulated_profile(&dir, "apps.yaml", &["--results", FIXTURE], &args)
        .output()
        .unwrap();
    success(&out);
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    let sized: Vec<&apps::AppPoint> = (f.applications.iter())
        .filter(|a| a.sized.is_some())
        .collect();
    assert_eq!(sized.len(), 3, "{:?}", f.applications);
    for n in [1000u64, 10000, 100000] {
        let name = format!("sized/daxpy n={n}");
        let p = (sized.iter())
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let s = p.sized.as_ref().unwrap();
        assert_eq!(
            (s.series.as_str(), s.n, s.calls),
            ("daxpy", n as f64, calls),
            "{name}"
        );
        assert_eq!(p.flops, (2 * n * calls) as f64, "{name}: W");
        // The library's end runs inside the region: under 1 KiB a call.
        let slack = 1024.0 * calls as f64;
        read_and_written(&f.applications, p, (16 * n * calls, 8 * n * calls), slack);
        assert!(p.seconds > 0.0, "{name}: timed natively");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `p` read and wrote these bytes (0.1 % more, and `slack` bytes for the
/// regions library's calls), and every point's bytes read and written make
/// up its bytes.
fn read_and_written(
    all: &[apps::AppPoint],
    p: &apps::AppPoint,
    (read, written): (u64, u64),
    slack: f64,
) {
    let s = p.sides.expect("bytes read and written apart");
    let (read, written) = (read as f64, written as f64);
    assert!(
        s.read >= read && s.read <= read * 1.001 + slack,
        "read {}",
        s.read
    );
    assert!(
        s.write >= written && s.write <= written * 1.001 + slack,
        "written {}",
        s.write
    );
    for p in all {
        let s = p
            .sides
            .unwrap_or_else(|| panic!("{}: no bytes read and written", p.name));
        assert_eq!(s.read + s.write, p.bytes, "{}", p.name);
    }
}

fn regions_are_counted_exactly_and_placed_at_their_intensity() {
    let dir = tmpdir("emuregions");
    let lib = regions_static_lib();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let exe = gcc_with(
        &dir,
        "regions",
        REGIONS,
        &["-O2", "-mfma", "-I", include.to_str().unwrap()],
        &[lib.to_str().unwrap(), "-lpthread", "-ldl"],
    );
    let (n, r) = (500_000u64, 4u64);
    let out = carmbench_in(
        &[
            "profile",
            "--counts",
            "emulate",
            "--plugin",
            qemu_plugin().to_str().unwrap(),
            "--results",
            FIXTURE,
            "--",
            exe.to_str().unwrap(),
            &n.to_string(),
            &r.to_string(),
        ],
        &dir,
    );
    let stdout = success(&out);
    // The program's own output once (the native run's), then carmbench's.
    assert_eq!(stdout.matches("checksum").count(), 1, "{stdout}");
    assert!(stdout.contains("counted under QEMU"), "{stdout}");
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    let point = |name: &str| {
        f.applications
            .iter()
            .find(|a| a.name == format!("regions/{name}"))
            .unwrap_or_else(|| panic!("region {name}: {:?}", f.applications))
    };
    for (name, flops, bytes) in [
        ("ai_1_16", n * r, 16 * n * r),
        ("ai_8", 128 * n * r, 16 * n * r),
        ("triad", 2 * n * r, 24 * n * r),
    ] {
        let p = point(name);
        assert_eq!(p.flops, flops as f64, "{name}: W");
        // Inside a region, only the regions library's own return and the
        // loop's set-up touch memory besides the kernel: a few bytes a call.
        assert!(
            p.bytes >= bytes as f64 && p.bytes <= bytes as f64 * 1.001,
            "{name}: Q {} against {bytes}",
            p.bytes
        );
        assert!(p.seconds > 0.0, "{name}: timed natively");
        assert!(
            p.source
                .as_deref()
                .unwrap()
                .contains(&format!("{r} call(s)"))
        );
    }
    // The triad loads two arrays and stores one.
    read_and_written(
        &f.applications,
        point("triad"),
        (16 * n * r, 8 * n * r),
        0.0,
    );
    // The two kernels of the STREAM report, at their analytic intensity.
    assert!((point("ai_1_16").ai() - 1.0 / 16.0).abs() < 1e-3 / 16.0);
    assert!((point("ai_8").ai() - 8.0).abs() < 8e-3);
    // The whole program: its regions and its set-up (24 bytes an element).
    let all = f.applications.iter().find(|a| a.name == "regions").unwrap();
    assert_eq!(all.flops, (131 * n * r) as f64);
    assert!(all.bytes >= (56 * n * r + 24 * n) as f64);
    assert_eq!(
        all.fma_flops,
        Some(2.0 * (n * r) as f64),
        "the triad's FMAs"
    );
    let mix = all.mix.as_ref().unwrap();
    assert_eq!(mix.dp_flops, all.flops);
    assert!(
        all.source
            .as_deref()
            .unwrap()
            .starts_with("emulation, qemu")
    );
    // A Rust program marking its region with carmbench::Region.
    let rust = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/examples/region_triad");
    if rust.exists() {
        let out = carmbench_in(
            &[
                "profile",
                "--counts",
                "emulate",
                "--plugin",
                qemu_plugin().to_str().unwrap(),
                "-o",
                "rust.yaml",
                "--",
                rust.to_str().unwrap(),
                &n.to_string(),
                &r.to_string(),
            ],
            &dir,
        );
        success(&out);
        let f = apps::load(&dir.join("rust.yaml")).unwrap();
        let p = f
            .applications
            .iter()
            .find(|a| a.name == "region_triad/triad")
            .unwrap();
        assert_eq!(p.flops, (2 * n * r) as f64);
        assert!(p.bytes >= (24 * n * r) as f64 && p.bytes <= (24 * n * r) as f64 * 1.001);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn what_emulation_cannot_count_is_said_in_one_line() {
    let dir = tmpdir("emubad");
    let apps_file = dir.join("apps.yaml");
    std::fs::write(&apps_file, "schema: 1\napplications: []\n").unwrap();
    let profile = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = emulated_profile(&dir, apps_file.to_str().unwrap(), &[], args);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    assert_input_error(&profile(&["./no-such-program"], &[]), &["no such program"]);
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a program").unwrap();
    assert_input_error(
        &profile(&[text.to_str().unwrap()], &[]),
        &["not executable"],
    );
    let fails = gcc(&dir, "fails", "int main(void) { return 3; }", &["-O2"]);
    assert_input_error(
        &profile(&[fails.to_str().unwrap()], &[]),
        &["exited with status 3", "no point written"],
    );
    // AVX-512, which QEMU 7.2 does not emulate.
    let wide = gcc(
        &dir,
        "wide",
        r#"#include <immintrin.h>
           #include <stdio.h>
           int main(void) { __m512d x = _mm512_set1_pd(1.0); x = _mm512_fmadd_pd(x, x, x);
                            printf("%f\n", _mm512_reduce_add_pd(x)); return 0; }"#,
        &["-O2", "-mavx512f"],
    );
    let out = profile(&[wide.to_str().unwrap()], &[]);
    if std::arch::is_x86_feature_detected!("avx512f") {
        assert_input_error(
            &out,
            &[
                "SIGILL",
                "QEMU cannot emulate",
                "--count-with PROGRAM",
                "--flops N --bytes M",
            ],
        );
    } else {
        assert_input_error(&out, &["SIGILL", "this CPU lacks", "no point written"]);
    }
    // No QEMU on the PATH.
    let ok = gcc(&dir, "ok", "int main(void) { return 0; }", &["-O2"]);
    assert_input_error(
        &profile(&[ok.to_str().unwrap()], &[("PATH", "/nonexistent")]),
        &["qemu-x86_64 is not installed", "apt-get install qemu-user"],
    );
    // A plugin for another version of QEMU's plugin API.
    let other = dir.join("libother.so");
    let st = Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&other)
        .arg("-x")
        .arg("c")
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(
                b"int qemu_plugin_version = 99; int qemu_plugin_install(void) { return 0; }\n",
            )?;
            c.wait()
        })
        .unwrap();
    assert!(st.success());
    let mut c = Command::new(env!("CARGO_BIN_EXE_carmbench"));
    c.args([
        "profile",
        "--counts",
        "emulate",
        "--plugin",
        other.to_str().unwrap(),
        "-o",
        apps_file.to_str().unwrap(),
        "--",
        ok.to_str().unwrap(),
    ]);
    assert_input_error(&c.output().unwrap(), &["did not load the counting plugin"]);
    assert_eq!(
        std::fs::read_to_string(&apps_file).unwrap(),
        "schema: 1\napplications: []\n",
        "the apps file is left as it was"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With QEMU out of `PATH`, a test that needs it is skipped with one line
/// naming it and its install command (counted as ignored, not passed); under
/// `CI` the same test fails. This binary runs itself to see both.
fn a_missing_qemu_is_skipped_in_one_line_and_fails_under_ci() {
    let empty = tmpdir("no-qemu");
    let me = std::env::current_exe().unwrap();
    let run = |ci: Option<&str>| {
        let mut c = Command::new(&me);
        c.args(["--exact", "what_emulation_cannot_count_is_said_in_one_line"])
            .env("PATH", &empty)
            .env_remove("CI");
        if let Some(v) = ci {
            c.env("CI", v);
        }
        c.output().unwrap()
    };
    let o = run(None);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let skips: Vec<&str> = out.lines().filter(|l| l.starts_with("skipped: ")).collect();
    assert_eq!(skips.len(), 1, "{out}");
    assert!(
        skips[0].contains("what_emulation_cannot_count_is_said_in_one_line")
            && skips[0].contains("QEMU")
            && skips[0].contains("apt-get install qemu-user"),
        "{out}"
    );
    assert!(out.contains("0 passed; 0 failed; 1 ignored"), "{out}");
    let o = run(Some("true"));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_ne!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("0 passed; 1 failed; 0 ignored"), "{out}");
    assert!(
        out.contains("QEMU (qemu-x86_64 with plugin support) is missing"),
        "{out}"
    );
    std::fs::remove_dir_all(&empty).unwrap();
}

fn main() -> std::process::ExitCode {
    common::parts::main(tests![
        (Part::Qemu) flops_and_bytes_are_exact_for_programs_of_every_kind,
        (Part::Qemu) regions_are_counted_exactly_and_placed_at_their_intensity,
        (Part::Qemu) sized_regions_are_a_point_per_size_and_a_series,
        (Part::Qemu) what_emulation_cannot_count_is_said_in_one_line,
        (Part::Qemu) names_on_path_scripts_and_shells_are_counted_whole,
        (Part::Qemu) forked_children_count_their_own_work_once,
        (Part::Qemu) launchers_in_c_and_python_are_followed,
        (Part::Qemu) an_avx512_build_is_counted_through_its_twin,
        (Part::Qemu) an_int8_program_is_counted_and_placed_under_the_int8_roof,
        (Part::Qemu) each_level_serves_the_working_set_that_fits_it,
        (Part::Qemu) profile_traffic_names_the_level_that_bounds_a_stream,
        (Part::Qemu, Part::Sampling) each_function_point_carries_its_own_traffic,
        (Part::Qemu) each_region_carries_its_own_traffic,
        (Part::Qemu, Part::Valgrind) the_simulated_misses_agree_with_cachegrind,
        (Part::Qemu, Part::Valgrind) buffers_freed_and_allocated_again_meet_the_lines_they_left,
        (Part::Qemu, Part::Valgrind, Part::Numpy) numpy_reads_from_dram_what_cachegrind_misses,
        (Part::Qemu, Part::Sampling) each_function_is_a_point_with_its_own_w_q_and_time,
        (Part::Qemu, Part::Sampling) stripped_code_is_named_by_file_and_offset_and_short_runs_say_so,
        (Part::Qemu, Part::Sampling) a_before_and_after_pair_draws_arrows_the_way_the_functions_moved,
        (Part::Qemu, Part::Sampling) a_kernel_chosen_by_cpu_identity_is_the_same_one_emulated,
        (Part::Qemu, Part::Sampling) a_kernel_for_a_feature_qemu_lacks_is_named_and_paired,
        (Part::Qemu, Part::Sampling, Part::Numpy) the_blas_kernel_numpy_ran_natively_is_the_one_counted,
        (Part::Qemu, Part::Sampling) integer_kernels_are_counted_exactly_and_placed_under_the_integer_roofs,
        (Part::Qemu) background_work_is_timed_with_the_work_it_did,
        (Part::Qemu) a_background_sleeper_neither_hangs_nor_goes_unsaid,
        (Part::Qemu) a_launcher_does_not_decide_the_programs_type,
        (Part::Qemu) a_refusal_names_no_cause_it_did_not_check,
        (Part::Qemu) the_emulated_run_reads_the_same_input,
        (Part::Qemu) counts_lost_to_a_full_disk_are_an_error_naming_it,
        (Part::Qemu) signals_and_timeouts_stop_the_command_and_clean_up,
        (Part::Qemu) an_unrelated_twin_is_warned_about,
        (Part::Qemu) a_program_that_runs_proc_self_exe_is_followed,
        (Part::Qemu) a_precision_the_counts_contradict_is_warned_about,
        (Part::Qemu) busy_threads_are_counted_not_the_waiting_one,
        (Part::Qemu, Part::Sampling) two_loop_nests_in_one_function_are_counted_loop_by_loop,
        (Part::Qemu, Part::Sampling) a_blocked_product_is_a_nest_of_five_at_o2_and_vectorised_at_o3,
        (Part::Qemu, Part::Sampling) a_loop_in_a_shared_library_is_a_point_of_its_own,
        (Part::Qemu) a_library_closed_before_exit_keeps_its_work_in_its_own_file,
        (Part::Qemu, Part::Mpi, Part::Sampling) an_mpi_job_is_a_point_with_a_point_per_rank_and_its_functions_spread,
        (Part::Qemu, Part::Mpi) a_crashing_rank_is_named_and_the_others_kept,
        (Part::Qemu, Part::Mpi, Part::Slurm) an_srun_job_on_a_local_slurm_is_profiled_rank_by_rank,
        (Part::Qemu, Part::Mpich) an_mpich_job_is_profiled_rank_by_rank,
        (Part::Qemu, Part::Mpi) a_launcher_carmbench_does_not_know_is_refused_in_one_line,
        (Part::Qemu, Part::Mpi) emulated_runs_and_mpi_ranks_start_with_the_signal_mask_they_would_have_had,
        (Part::Qemu) a_launcher_that_fails_itself_is_named_not_its_ranks,
        (Part::Qemu, Part::Mpi) rank_wrappers_stopped_by_the_timeout_leave_no_scratch_folder,
        (Part::Qemu) a_sigill_from_features_hidden_on_request_names_them,
        (Part::Qemu) the_emulated_run_has_no_terminal_to_wait_on,
        (Part::Qemu, Part::Sampling) each_loop_is_named_by_its_own_line,
        (Part::Qemu) an_instruction_across_a_page_makes_no_phantom_loop,
        (Part::Qemu) a_signal_handler_run_during_a_nest_leaves_its_loops_as_they_are,
        (Part::Qemu, Part::Sampling) a_jits_code_is_one_function_with_its_loops_and_its_time,
        (Part::Qemu, Part::Sampling) a_twin_builds_functions_and_loops_are_named_from_its_own_file,
        (Part::Qemu, Part::Sampling) three_phases_are_found_with_their_work_and_native_boundaries,
        (Part::Qemu, Part::Sampling, Part::Numpy) numpy_phases_follow_the_scripts_steps,
        (Part::Qemu, Part::Mpi, Part::Sampling) each_rank_of_an_mpi_job_has_its_own_phases,
        (Part::Qemu, Part::Sampling) a_sleep_between_two_phases_is_no_phase_of_its_own,
        (Part::Qemu, Part::Sampling) processes_side_by_side_share_their_phases_in_native_time,
        (Part::Qemu, Part::Sampling) a_scalar_loop_is_told_the_vector_width_and_an_unfused_one_fma,
        (Part::Qemu, Part::Sampling) a_dram_triad_is_memory_bound_and_a_brief_run_is_said,
        (Part::Qemu, Part::Sampling) an_x87_program_is_fp_with_its_x87_flops_counted_and_told_to_use_double,
        (Part::Qemu, Part::Sampling) a_program_that_runs_for_a_fixed_time_is_said_to_have_done_less_work_emulated,
        a_missing_qemu_is_skipped_in_one_line_and_fails_under_ci,
    ])
}
