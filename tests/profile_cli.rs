//! `carmbench profile`: manual counts end to end, the no-PMU path.

use crate::common::*;

use carmbench::results::apps;
use std::path::Path;
use std::process::Command;

/// STREAM-like triad: a[i] = b[i] + s * c[i], n elements, r repetitions:
/// 2 flops and 24 bytes (two 8-byte loads, one 8-byte store) per element.
const TRIAD: &str = r#"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    printf("%f\n", a[n / 2]);
    return 0;
}
"#;

#[test]
fn manual_counts_time_and_place_a_program() {
    let dir = tmpdir("manual");
    std::fs::write(dir.join("triad.c"), TRIAD).unwrap();
    let st = Command::new("gcc")
        .args(["-O2", "-o", "triad", "triad.c"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(st.success());
    let (n, r) = (1_000_000u64, 50u64);
    let (flops, bytes) = ((2 * n * r).to_string(), (24 * n * r).to_string());
    let out = carmbench_in(
        &[
            "profile",
            "--flops",
            &flops,
            "--bytes",
            &bytes,
            "--results",
            FIXTURE,
            "--",
            "./triad",
            &n.to_string(),
            &r.to_string(),
        ],
        &dir,
    );
    let stdout = success(&out);
    assert!(
        stdout.contains("triad: AI 0.083 flop/B")
            && stdout.contains("under the DRAM")
            && stdout.contains("unknown without simulated caches (--traffic)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("% of it"),
        "how far below the roof: {stdout}"
    );
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    assert_eq!(f.applications.len(), 1);
    let p = &f.applications[0];
    assert_eq!((p.name.as_str(), p.flops, p.bytes), ("triad", 1e8, 1.2e9));
    assert_eq!(p.ai(), 1.0 / 12.0);
    assert!(p.seconds > 0.0 && p.seconds < 60.0);
    assert!(p.gflop_per_s() > 0.01 && p.gflop_per_s() < 1000.0);
    // A second point is added beside it; the same name replaces its point.
    let again = carmbench_in(
        &[
            "profile", "--flops", "1e6", "--bytes", "1e6", "--name", "other", "--", "true",
        ],
        &dir,
    );
    assert_eq!(again.status.code(), Some(0));
    let again = carmbench_in(
        &[
            "profile", "--flops", "4e6", "--bytes", "1e6", "--name", "other", "--", "true",
        ],
        &dir,
    );
    assert_eq!(again.status.code(), Some(0));
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    assert_eq!(f.applications.len(), 2);
    assert_eq!(
        f.applications
            .iter()
            .find(|a| a.name == "other")
            .unwrap()
            .flops,
        4e6
    );
    // And it goes on the chart.
    let plot = carmbench_in(
        &["plot", FIXTURE, "--apps", "apps.yaml", "-o", "c.svg"],
        &dir,
    );
    assert_eq!(plot.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(dir.join("c.svg"))
            .unwrap()
            .contains("triad")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_int8_program_is_placed_under_the_int8_roof() {
    let dir = tmpdir("int8");
    let src = include_str!("programs/int8_dot.c");
    std::fs::write(dir.join("int8_dot.c"), src).unwrap();
    let st = Command::new("gcc")
        .args(["-O2", "-o", "int8_dot", "int8_dot.c"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(st.success());
    let results = with_an_int8_roof(&dir, 1000.0);
    // By hand (tests/programs/int8_dot.c): 2 ops and 2 bytes per element
    // pair (tests/emulate/narrow.rs counts it by emulation).
    let (n, r) = (16384u64, 20000u64);
    let (ops, bytes) = ((2 * n * r).to_string(), (2 * n * r).to_string());
    let out = carmbench_in(
        &[
            "profile",
            "--flops",
            &ops,
            "--bytes",
            &bytes,
            "--precision",
            "int8",
            "--results",
            results.to_str().unwrap(),
            "--",
            "./int8_dot",
            &n.to_string(),
            &r.to_string(),
        ],
        &dir,
    );
    let stdout = success(&out);
    assert!(stdout.contains("int8_dot: AI 1.000 op/B"), "{stdout}");
    // Against the INT8 roofs: the dot product's peak or a memory roof in
    // GOP/s, never the double-precision FMA's.
    assert!(
        stdout.contains("GOP/s at this AI") && !stdout.contains("dp peak"),
        "{stdout}"
    );
    let p = &apps::load(&dir.join("apps.yaml")).unwrap().applications[0];
    assert_eq!(p.precision, Some(carmbench::kernels::Precision::Int8));
    // On the chart, under the INT8 roof (the apps' precision chosen), in ops.
    let plot = carmbench_in(
        &[
            "plot",
            results.to_str().unwrap(),
            "--apps",
            "apps.yaml",
            "-o",
            "c.svg",
        ],
        &dir,
    );
    success(&plot);
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(svg.contains("<title>dot int8 "), "the INT8 roof drawn");
    assert!(
        svg.contains("<title>int8_dot (1.00 op/B"),
        "the point in ops"
    );
    // The PMU counts FP flops: a narrow type is refused with it.
    let refused = carmbench_in(
        &[
            "profile",
            "--counts",
            "pmu",
            "--precision",
            "int8",
            "--",
            "true",
        ],
        &dir,
    );
    assert_input_error(&refused, &["--precision", "--counts emulate", "PMU"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_a_pmu_the_cause_and_the_fix_are_named() {
    let dir = tmpdir("pmu");
    let out = carmbench_in(&["profile", "--counts", "pmu", "--", "true"], &dir);
    let err = String::from_utf8_lossy(&out.stderr);
    let has_pmu = Path::new("/sys/bus/event_source/devices/cpu").exists();
    if !has_pmu {
        // The cause, and both ways around it.
        assert_input_error(
            &out,
            &["not available", "--counts emulate", "--flops N --bytes M"],
        );
        assert!(!dir.join("apps.yaml").exists(), "nothing made up");
    } else {
        // A PMU: `true` does no FP work, so there is nothing to place.
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("nothing to place"), "{err}");
        assert!(!dir.join("apps.yaml").exists(), "nothing made up");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_profile_input() {
    let dir = tmpdir("bad");
    for (args, needle) in [
        (
            vec!["profile", "--flops", "1e9", "--", "true"],
            "both --flops and --bytes",
        ),
        (
            vec!["profile", "--flops", "0", "--bytes", "1", "--", "true"],
            "positive",
        ),
        (
            vec!["profile", "--counts", "manual", "--", "true"],
            "needs --flops N and --bytes M",
        ),
        (
            vec![
                "profile", "--counts", "pmu", "--flops", "1", "--bytes", "1", "--", "true",
            ],
            "manual counts",
        ),
        (
            vec![
                "profile",
                "--flops",
                "1",
                "--bytes",
                "1",
                "--",
                "/nonexistent/x",
            ],
            "/nonexistent/x",
        ),
        (
            vec!["profile", "--timeline", "100us", "--", "true"],
            "give a window of 1ms or more, e.g. 20ms",
        ),
        (
            vec!["profile", "--timeline", "often", "--", "true"],
            "give a window such as 20ms",
        ),
        (
            vec![
                "profile",
                "--timeline",
                "--flops",
                "1",
                "--bytes",
                "1",
                "--",
                "true",
            ],
            "--timeline counts the run in windows of time, by emulation or the PMU",
        ),
    ] {
        let out = carmbench_in(&args, &dir);
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(needle), "{args:?}: {e}");
    }
    let out = carmbench_in(&["profile"], &dir);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_profiled_program_is_written_as_of_program_in_schema_6() {
    let dir = tmpdir("of-program");
    let out = carmbench_in(
        &[
            "profile", "--flops", "1e9", "--bytes", "1e9", "-o", "a.yaml", "--", "true",
        ],
        &dir,
    );
    success(&out);
    let text = std::fs::read_to_string(dir.join("a.yaml")).unwrap();
    let schema = format!("schema: {}\n", apps::APPS_SCHEMA);
    assert!(text.starts_with(&schema), "{text}");
    assert!(text.contains("\n  of: program\n"), "{text}");
    let f = apps::load(&dir.join("a.yaml")).unwrap();
    assert_eq!(f.applications[0].of.kind(), apps::Kind::Program);
    // Where its work came from, as a field.
    assert_eq!(f.applications[0].counted_by, Some(apps::CountedBy::Manual));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn counts_above_every_roof_are_called_a_counting_error() {
    let dir = tmpdir("above-roof");
    // A petaflop in the few milliseconds `true` takes: no CPU does that.
    let out = carmbench_in(
        &[
            "profile",
            "--flops",
            "1e15",
            "--bytes",
            "1e13",
            "--results",
            FIXTURE,
            "--",
            "true",
        ],
        &dir,
    );
    let stdout = success(&out);
    assert!(
        stdout.contains("  above_roof: ") && stdout.contains("a counting or timing error"),
        "{stdout}"
    );
    let p = &apps::load(&dir.join("apps.yaml")).unwrap().applications[0];
    let a = &p.advice[0];
    assert_eq!(a.code, carmbench::results::advice::Code::AboveRoof, "{p:?}");
    assert!(a.share > 1.0, "{a:?}");
    assert!(
        p.advice
            .iter()
            .all(|x| x.code != carmbench::results::advice::Code::Bound)
    );
}

/// The first CPU this process may run on.
fn a_cpu_of_ours() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = (status.lines())
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap();
    let first = list.trim().split([',', '-']).next().unwrap();
    first.to_string()
}

#[test]
fn a_run_that_mostly_slept_or_shared_its_core_is_told_so() {
    use carmbench::results::advice::Code;
    let dir = tmpdir("run-quality");
    let profile = |name: &str, cmd: &[&str]| {
        let mut args = vec![
            "profile",
            "--flops",
            "1e9",
            "--bytes",
            "1e9",
            "--results",
            FIXTURE,
            "--name",
            name,
            "--",
        ];
        args.extend(cmd);
        let out = carmbench_in(&args, &dir);
        let stdout = success(&out);
        let all = apps::load(&dir.join("apps.yaml")).unwrap().applications;
        let p = all.into_iter().find(|p| p.name == name).unwrap();
        (stdout, p)
    };
    // Asleep 0.4 s: it ran almost none of its wall time.
    let (stdout, p) = profile("sleeper", &["sleep", "0.4"]);
    let n = p.native.expect("the native run's CPU time");
    assert!(n.cpu_seconds < 0.1, "{n:?}");
    let w = p.advice.iter().find(|a| a.code == Code::MostlyWaited);
    assert!(w.is_some_and(|w| w.share > 0.7), "{:?}", p.advice);
    assert!(stdout.contains("  mostly_waited: it ran "), "{stdout}");
    // Two busy loops on one CPU: each waits for it about half the time.
    let busy = "awk 'BEGIN{for(i=0;i<2e7;i++)s+=i}'";
    let both = format!(
        "taskset -c {c} sh -c \"{busy}\" & taskset -c {c} sh -c \"{busy}\"; wait",
        c = a_cpu_of_ours()
    );
    let (stdout, p) = profile("crowded", &["sh", "-c", &both]);
    let n = p.native.expect("the native run's CPU time");
    assert!(n.waited_seconds > 0.1 * n.cpu_seconds, "{n:?}");
    let s = p.advice.iter().find(|a| a.code == Code::SharedCores);
    assert!(
        s.is_some_and(|s| s.share > 0.2 && s.gain.unwrap() > 1.2),
        "{:?}",
        p.advice
    );
    assert!(
        stdout.contains("  shared_cores: its threads waited"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
