//! Bad input: exit status 2, one line naming the problem, no panic.

use crate::common::{carmbench, success, tmpdir};
fn assert_input_error(out: &Output, needles: &[&str]) {
    crate::common::assert_input_error(out, needles);
    assert!(out.stdout.is_empty(), "nothing on stdout");
}

use carmbench::machine::Source;
use carmbench::output::topology::TopologyReport;
use std::process::Output;

#[test]
fn unknown_format() {
    assert_input_error(
        &carmbench(&["topology", "--format", "xml"]),
        &["--format", "'xml'", "json"],
    );
}

#[test]
fn missing_xml_file() {
    let out = carmbench(&["topology", "--topology-xml", "/nonexistent/topo.xml"]);
    assert_input_error(&out, &["/nonexistent/topo.xml", "does not exist", "lstopo"]);
}

#[test]
fn malformed_xml_file() {
    let dir = std::env::temp_dir().join(format!("carmbench-bad-xml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.xml");
    std::fs::write(&f, "<topology><object type=").unwrap();
    let out = carmbench(&["topology", "--topology-xml", f.to_str().unwrap()]);
    assert_input_error(&out, &["bad.xml", "lstopo"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn invalid_synthetic_string() {
    assert_input_error(
        &carmbench(&["topology", "--synthetic", "pack:2 bogus:3"]),
        &["synthetic", "bogus:3"],
    );
}

#[test]
fn a_topology_without_cache_sizes_is_explained() {
    // A saved topology whose L2 lost its sizes: the sizing rule has nothing
    // to size with, and says which cache and what to give.
    let xml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/topologies/zen5-epyc-2core.xml"
    ))
    .unwrap();
    let sizeless = xml
        .lines()
        .map(|l| {
            if l.contains("type=\"L2Cache\"") {
                let (head, tail) = l.split_once("cache_size=\"").unwrap();
                let (_, rest) = tail.split_once('"').unwrap();
                format!("{head}cache_size=\"0\"{rest}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(sizeless, xml);
    let dir = std::env::temp_dir().join(format!("carmbench-sizeless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("sizeless.xml");
    std::fs::write(&f, sizeless).unwrap();
    assert_input_error(
        &carmbench(&["topology", "--topology-xml", f.to_str().unwrap()]),
        &["no size for the L2 cache", "give sizes"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // A topology without any cache is valid: DRAM only.
    let out = carmbench(&["topology", "--synthetic", "pack:1 core:2 pu:1"]);
    let text = success(&out);
    assert!(text.contains("DRAM") && !text.contains("L1"), "{text}");
}

#[test]
fn unknown_subcommand() {
    assert_input_error(&carmbench(&["frobnicate"]), &["frobnicate"]);
}

#[test]
fn topology_json_of_this_machine() {
    let out = carmbench(&["topology", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let caches = v["machine"]["caches"].as_array().unwrap();
    assert!(caches.len() >= 2);
    assert!(
        caches
            .iter()
            .all(|c| c["cores_sharing"].as_u64().unwrap() >= 1)
    );
    let ranges = v["buffer_ranges"].as_array().unwrap();
    assert_eq!(ranges[0]["threads"], 1);
    assert_eq!(
        ranges[0]["levels"].as_array().unwrap().len(),
        caches.len() + 1
    );
    let ghz = v["clock"]["measured"]["ghz"]["median"].as_f64().unwrap();
    assert!(ghz > 0.8 && ghz < 7.0);
    assert!(
        v["isa"]["benchmarked"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i == "scalar")
    );
}

#[test]
fn topology_yaml_round_trips() {
    let out = carmbench(&[
        "topology",
        "--synthetic",
        "pack:1 l3:1(size=8MiB) core:4 l2:1(size=512KiB) l1d:1(size=32KiB) pu:2",
        "--format",
        "yaml",
    ]);
    let text = success(&out);
    // Read back into the report type and written again: the same text.
    let back: TopologyReport = serde_yaml::from_str(&text).unwrap();
    assert_eq!(serde_yaml::to_string(&back).unwrap(), text);
    assert_eq!(back.machine.cores, 4);
    assert_eq!(back.machine.caches.len(), 3);
    assert_eq!(back.buffer_ranges.len(), 2, "1 thread and all cores");
    assert!(back.clock.is_none(), "no clock for a loaded topology");
    // And it is the report of that topology.
    let direct = TopologyReport::of(&Source::Synthetic(
        "pack:1 l3:1(size=8MiB) core:4 l2:1(size=512KiB) l1d:1(size=32KiB) pu:2".into(),
    ))
    .unwrap();
    assert_eq!(serde_yaml::to_string(&direct).unwrap(), text);
}

#[test]
fn numbers_out_of_range_on_the_command_line_are_named() {
    for (args, needles) in [
        (
            vec!["kernel", "avx2_load", "--bytes", "900GiB"],
            &["more than half the memory available"][..],
        ),
        (
            vec!["kernel", "avx2_load", "--samples", "0"],
            &["--samples is 0"][..],
        ),
        (
            vec!["kernel", "avx2_load", "--min-ms", "1e9"],
            &["--min-ms is"][..],
        ),
        (
            vec!["kernel", "scalar_load", "--first-core", "4096"],
            &["--first-core 4096 with --threads 1 needs cores 4096 to 4096"][..],
        ),
        (
            vec!["kernel", "avx2_dp_v_load_fma", "--shape", "0,4"],
            &["--shape takes two counts from 1 to 256"][..],
        ),
        (
            vec!["profile", "--access-bytes", "0", "--", "true"],
            &["--access-bytes is 0"][..],
        ),
        (
            vec!["profile", "--threads", "0", "--", "true"],
            &["--threads is 0"][..],
        ),
        (
            vec![
                "predict",
                "--flops",
                "1",
                "--bytes",
                "1",
                "--fma-flops",
                "5",
                "--on",
                "x.yaml",
            ],
            &["--fma-flops is 5"][..],
        ),
        (vec!["validate", "--threshold=-3"], &["--threshold"][..]),
    ] {
        assert_input_error(&carmbench(&args), needles);
    }
}

#[test]
fn gpu_flags_name_what_is_missing_or_wrong_in_one_line() {
    let dir = tmpdir("gpu-flags");
    let o = dir.to_str().unwrap();
    if carmbench::gpu::driver::driver_present() {
        // A machine with a driver: a GPU it does not have.
        let out = carmbench(&["run", "--gpu", "99", "-o", o]);
        assert_input_error(&out, &["--gpu", "no GPU 99"]);
    } else {
        // No driver (CI's machines): the cause and the fix, nothing written.
        let out = carmbench(&["run", "--gpu", "-o", o]);
        assert_input_error(&out, &["--gpu", "libcuda", "LD_LIBRARY_PATH"]);
        assert!(!dir.join("carm.yaml").exists());
    }
    let out = carmbench(&["run", "--gpu", "one", "-o", o]);
    assert_input_error(&out, &["'one' is not a GPU number"]);
    let out = carmbench(&["run", "--gpu", "--no-gpu", "-o", o]);
    assert_eq!(out.status.code(), Some(2));
}

/// A driver library lacking a function carmbench calls: one line, no
/// panic's message or backtrace, in `run --gpu` and in `topology`.
#[test]
fn a_cuda_driver_lacking_a_function_is_one_line_not_a_panic() {
    let dir = tmpdir("gpu-old-driver");
    std::fs::write(dir.join("c.c"), "int cuInit(unsigned f) { return 0; }\n").unwrap();
    let built = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o", "libcuda.so", "c.c"])
        .current_dir(&dir)
        .status();
    if !built.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "gcc could not build a library"
        );
        println!(
            "skipped: a_cuda_driver_lacking_a_function: gcc is not installed (apt-get install gcc)"
        );
        return;
    }
    let with_it = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
            .args(args)
            .env("LD_LIBRARY_PATH", &dir)
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap()
    };
    let out = with_it(&["run", "--gpu", "-o", dir.join("out").to_str().unwrap()]);
    assert_input_error(&out, &["--gpu", "lacks a function"]);
    let out = with_it(&["topology"]);
    let (text, err) = (success(&out), crate::common::stderr(&out));
    assert!(!err.contains("panicked") && err.trim().is_empty(), "{err}");
    assert!(
        text.contains("GPUs         none seen: the CUDA driver lacks a function"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
