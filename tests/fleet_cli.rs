//! `carmbench fleet`: reports over synthetic fleets made from a real
//! results file (one node's roofs lowered: it, and only it, is flagged),
//! bad input, and a real Slurm cluster of 4 nodes on this machine
//! (scripts/slurm-local.sh) running `fleet run`.

mod common;
use common::parts::Part;
use common::*;

use carmbench::results::Document;
use serde_json::Value;
use std::path::Path;

/// Write `doc` as node `name` of the fleet in `dir`.
fn node(dir: &Path, name: &str, doc: &Document) {
    let d = dir.join("nodes").join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("carm.yaml"), serde_yaml::to_string(doc).unwrap()).unwrap();
}

/// The fixture with its values scaled by `f(roof index)`: a node's own
/// small scatter, or a slow part.
fn scaled(doc: &Document, f: impl Fn(usize, &carmbench::results::Roof) -> f64) -> Document {
    let mut d = doc.clone();
    for (i, r) in d.roofs.iter_mut().enumerate() {
        let k = f(i, r);
        r.gb_per_s = r.gb_per_s.map(|v| v * k);
        r.gflop_per_s = r.gflop_per_s.map(|v| v * k);
        r.per_cycle *= k;
        r.median *= k;
        r.q1 *= k;
        r.q3 *= k;
        r.percent_of_theoretical = r.percent_of_theoretical.map(|v| v * k);
    }
    d
}

/// A node's scatter: within ±0.6 %, different for each node and roof.
fn jitter(n: usize) -> impl Fn(usize, &carmbench::results::Roof) -> f64 {
    move |i, _| 1.0 + 0.006 * (((n * 7 + i * 13) % 11) as f64 / 5.0 - 1.0)
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(&success(out)).unwrap()
}

fn the_one_slow_node_and_only_it_is_flagged_with_its_roofs() {
    let dir = tmpdir("fleet");
    let base = fixture();
    for n in 1..=8 {
        let doc = if n == 4 {
            // A bad DIMM: DRAM 30 % down, the rest as its peers.
            scaled(&base, |i, r| {
                jitter(n)(i, r)
                    * if r.level == Some(carmbench::machine::Level::Dram) {
                        0.7
                    } else {
                        1.0
                    }
            })
        } else {
            scaled(&base, jitter(n))
        };
        node(&dir, &format!("n{n}"), &doc);
    }
    let d = dir.to_str().unwrap();
    let v = json(&carmbench(&["fleet", "report", d, "--format", "json"]));
    let outliers = v["outliers"].as_array().unwrap();
    assert_eq!(outliers.len(), 1, "{outliers:?}");
    assert_eq!(outliers[0]["node"], "n4");
    let dram = base
        .roofs
        .iter()
        .filter(|r| r.level == Some(carmbench::machine::Level::Dram))
        .count();
    let roofs = outliers[0]["roofs"].as_array().unwrap();
    assert_eq!(roofs.len(), dram);
    for r in roofs {
        assert!(r["roof"].as_str().unwrap().contains("DRAM"), "{r}");
        assert!((r["below"].as_f64().unwrap() - 0.3).abs() < 0.02, "{r}");
    }
    assert_eq!(v["groups"].as_array().unwrap().len(), 1);
    assert_eq!(v["groups"][0]["nodes"].as_array().unwrap().len(), 8);
    assert_eq!(v["unreadable"].as_array().unwrap().len(), 0);
    // Text: the outlier, and the slowest node against the median node.
    let text = success(&carmbench(&["fleet", "report", d]));
    assert!(text.contains("n4 ("), "{text}");
    assert!(
        text.contains("the slowest node, n4, against the median node"),
        "{text}"
    );
    // Markdown and CSV carry it too; the chart names it.
    let md = success(&carmbench(&["fleet", "report", d, "--format", "markdown"]));
    assert!(md.contains("| n4 |"), "{md}");
    let csv = success(&carmbench(&["fleet", "report", d, "--format", "csv"]));
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("outlier,")).count(),
        dram
    );
    assert!(
        csv.lines()
            .filter(|l| l.starts_with("outlier,"))
            .all(|l| l.contains(",n4,"))
    );
    let svg = dir.join("fleet.svg");
    success(&carmbench(&[
        "fleet",
        "report",
        d,
        "-o",
        svg.to_str().unwrap(),
    ]));
    let s = std::fs::read_to_string(&svg).unwrap();
    let (drawing, tips) = s.split_once("<g class=\"tips\"").unwrap();
    let labels = drawing.lines().filter(|l| l.trim() == "n4").count();
    assert_eq!(labels, dram, "each low roof labelled");
    assert_eq!(tips.matches("<title>").count(), 8 * base.roofs.len());
    // At a looser threshold than the fall, nobody.
    let v = json(&carmbench(&[
        "fleet",
        "report",
        d,
        "--format",
        "json",
        "--threshold",
        "0.4",
    ]));
    assert!(v["outliers"].as_array().unwrap().is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn peers_are_grouped_by_cpuid_isa_and_cores_and_the_rest_is_said() {
    let dir = tmpdir("fleet-mixed");
    let base = fixture();
    for n in 1..=4 {
        node(&dir, &format!("a{n}"), &scaled(&base, jitter(n)));
    }
    // Two nodes of another generation under the same generic name (a VM's
    // "AMD EPYC"), one of them far slower: their own group, too small to judge.
    let mut other = base.clone();
    other.machine.cpuid.model += 1;
    node(&dir, "b1", &other);
    node(&dir, "b2", &scaled(&other, |_, _| 0.5));
    // The same CPU with other core counts: a group of its own too.
    let mut wide = base.clone();
    wide.machine.topology.cores = 64;
    node(&dir, "w1", &wide);
    // A run stopped after 6 roofs: read, and not counted as healthy.
    let mut cut = scaled(&base, jitter(9));
    cut.roofs.truncate(6);
    cut.interrupted = true;
    node(&dir, "a9", &cut);
    // A damaged file, and a node whose run failed.
    let bad = dir.join("nodes").join("c1");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("carm.yaml"), "schema: 1\nroofs: [").unwrap();
    let failed = dir.join("nodes").join("c2");
    std::fs::create_dir_all(&failed).unwrap();
    std::fs::write(failed.join("error.txt"), "carmbench: out of memory\n").unwrap();
    let d = dir.to_str().unwrap();
    let out = carmbench(&["fleet", "report", d, "--format", "json"]);
    // Each unreadable node is named in a warning.
    let warned = stderr(&out);
    assert!(
        warned.contains("warning: node unreadable: c1:")
            && warned.contains("warning: node unreadable: c2: carmbench: out of memory"),
        "{warned}"
    );
    let v = json(&out);
    assert_eq!(
        v["grouped_by"],
        "CPU (vendor, family, model), widest ISA measured and core count"
    );
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3, "{groups:?}");
    let names = |g: &Value| -> Vec<String> {
        g["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    let of = |n: &str| {
        groups
            .iter()
            .find(|g| names(g).contains(&n.to_string()))
            .unwrap()
    };
    assert_eq!(names(of("a1")), ["a1", "a2", "a3", "a4", "a9"]);
    assert_eq!(names(of("b1")), ["b1", "b2"]);
    assert_eq!(names(of("w1")), ["w1"]);
    assert_eq!(of("b1")["judged"], false);
    assert!(
        of("w1")["cpu"].as_str().unwrap().ends_with(", 64 cores"),
        "{}",
        of("w1")["cpu"]
    );
    assert!(
        v["outliers"].as_array().unwrap().is_empty(),
        "b2 is not judged: {}",
        v["outliers"]
    );
    let incomplete = v["incomplete"].as_array().unwrap();
    assert_eq!(incomplete.len(), 1, "{incomplete:?}");
    assert_eq!(incomplete[0]["node"], "a9");
    assert_eq!(incomplete[0]["interrupted"], true);
    assert_eq!(
        incomplete[0]["missing"].as_array().unwrap().len(),
        base.roofs.len() - 6
    );
    let unreadable = v["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 2);
    assert_eq!(unreadable[0]["node"], "c1");
    assert!(
        unreadable[0]["error"]
            .as_str()
            .unwrap()
            .contains("c1/carm.yaml")
    );
    assert_eq!(unreadable[1]["error"], "carmbench: out of memory");
    let text = success(&carmbench(&["fleet", "report", d]));
    assert!(
        text.starts_with("nodes grouped by CPU (vendor, family, model)"),
        "{text}"
    );
    assert!(
        text.contains("2 node(s): too few nodes for outlier verdicts (3 needed))"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "incomplete: a9: run interrupted after 6 roofs; {} of its group's roofs missing: ",
            base.roofs.len() - 6
        )),
        "{text}"
    );
    assert!(
        text.contains("unreadable: c2: carmbench: out of memory"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fleet none of whose nodes can be read is an error naming why, not a
/// fleet without outliers.
fn a_fleet_with_no_readable_node_is_an_error() {
    let dir = tmpdir("fleet-none");
    for (n, text) in [("n1", "schema: 1\nroofs: ["), ("n2", "")] {
        let d = dir.join("nodes").join(n);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("carm.yaml"), text).unwrap();
    }
    let out = carmbench(&["fleet", "report", dir.to_str().unwrap()]);
    assert_input_error(
        &out,
        &[
            "none of the 2 node(s)",
            "n1: results file",
            "n2: results file",
            "is empty",
        ],
    );
    assert!(out.stdout.is_empty(), "no report printed");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Node names come from folder names: Markdown shows them literally, and
/// names that are not UTF-8 stay apart.
fn node_names_are_escaped_and_kept_apart() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tmpdir("fleet-names");
    let base = fixture();
    for n in 1..=3 {
        node(&dir, &format!("n{n}"), &scaled(&base, jitter(n)));
    }
    node(&dir, "<script>x|y", &scaled(&base, |_, _| 0.5));
    for raw in [&b"bad\xff"[..], &b"bad\xfe"[..]] {
        let d = dir.join("nodes").join(std::ffi::OsStr::from_bytes(raw));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("carm.yaml"), serde_yaml::to_string(&base).unwrap()).unwrap();
    }
    let d = dir.to_str().unwrap();
    let md = success(&carmbench(&["fleet", "report", d, "--format", "markdown"]));
    assert!(!md.contains("<script>"), "{md}");
    assert!(md.contains("&lt;script&gt;x\\|y"), "{md}");
    let v = json(&carmbench(&["fleet", "report", d, "--format", "json"]));
    let mut nodes: Vec<String> = v["groups"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    nodes.sort();
    assert_eq!(nodes.len(), 6, "{nodes:?}");
    assert!(nodes.contains(&"bad\\xfe".to_string()) && nodes.contains(&"bad\\xff".to_string()));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn bad_input_is_one_line_and_exit_2() {
    let dir = tmpdir("fleet-bad");
    let d = dir.to_str().unwrap();
    assert_input_error(
        &carmbench(&["fleet", "report", d]),
        &["nodes", "fleet run -o"],
    );
    std::fs::create_dir_all(dir.join("nodes")).unwrap();
    assert_input_error(&carmbench(&["fleet", "report", d]), &["no node folders"]);
    node(&dir, "n1", &fixture());
    assert_input_error(
        &carmbench(&["fleet", "report", d, "--threshold", "10"]),
        &["--threshold 10", "0.1"],
    );
    // fleet run: which nodes; a folder with results already; no Slurm.
    let out = dir.join("new");
    let o = out.to_str().unwrap();
    let no_alloc = std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(["fleet", "run", "-o", o])
        .env_remove("SLURM_JOB_ID")
        .output()
        .unwrap();
    assert_input_error(&no_alloc, &["-N COUNT", "--nodelist", "--partition"]);
    assert_input_error(
        &carmbench(&["fleet", "run", "-N", "2", "-o", d]),
        &["already holds", "-o"],
    );
    let no_slurm = std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(["fleet", "run", "-N", "2", "-o", o])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_input_error(&no_slurm, &["Slurm is not installed here", "sinfo"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `carmbench fleet ARGS` on `cluster`.
fn fleet(cluster: &Cluster, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .arg("fleet")
        .args(args)
        .env("SLURM_CONF", &cluster.conf)
        .env_remove("SLURM_JOB_ID")
        .output()
        .unwrap()
}

fn fleet_run_on_a_real_slurm_writes_each_node_and_lists_a_failed_one() {
    let dir = tmpdir("fleet-slurm");
    let cluster = Cluster::up(dir.join("slurm"));
    // The nodes share this machine's CPUs: the plumbing, not the figures.
    let plan = [
        "--quick",
        "--isa",
        "scalar",
        "--levels",
        "L1",
        "--ops",
        "fma",
        "--threads",
        "1",
    ];
    let out = dir.join("two");
    let mut args = vec!["run", "-N", "2", "-o", out.to_str().unwrap()];
    args.extend(plan);
    let o = fleet(&cluster, &args);
    let text = success(&o);
    let mut names: Vec<String> = std::fs::read_dir(out.join("nodes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    for n in &names {
        let doc = carmbench::results::load(&out.join("nodes").join(n).join("carm.yaml")).unwrap();
        assert!(doc.plan.quick && !doc.roofs.is_empty());
    }
    assert!(text.contains("(2 node(s): too few nodes"), "{text}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fleet.json")).unwrap()).unwrap();
    assert_eq!(v["groups"][0]["nodes"].as_array().unwrap().len(), 2);
    assert!(out.join("fleet.svg").is_file());
    // Node n2 cannot write its results (a file where its folder goes): it
    // is listed with why, n1's results kept and reported.
    let out = dir.join("failing");
    std::fs::create_dir_all(out.join("nodes")).unwrap();
    std::fs::write(out.join("nodes").join("n2"), "in the way").unwrap();
    let mut args = vec!["run", "--nodelist", "n[1-2]", "-o", out.to_str().unwrap()];
    args.extend(plan);
    let o = fleet(&cluster, &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("node failed: n2"), "{err}");
    assert!(out.join("nodes/n1/carm.yaml").is_file());
    // Slurm not answering (a configuration naming no controller): one
    // line, exit 2.
    let conf = dir.join("broken.conf");
    std::fs::write(&conf, "ClusterName=broken\n").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args([
            "fleet",
            "run",
            "-N",
            "1",
            "-o",
            dir.join("none").to_str().unwrap(),
        ])
        .env("SLURM_CONF", &conf)
        .output()
        .unwrap();
    assert_input_error(&o, &["Slurm is not answering", "SLURM_CONF"]);
    drop(cluster);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn main() -> std::process::ExitCode {
    common::parts::main(tests![
        the_one_slow_node_and_only_it_is_flagged_with_its_roofs,
        peers_are_grouped_by_cpuid_isa_and_cores_and_the_rest_is_said,
        a_fleet_with_no_readable_node_is_an_error,
        node_names_are_escaped_and_kept_apart,
        bad_input_is_one_line_and_exit_2,
        (Part::Slurm) fleet_run_on_a_real_slurm_writes_each_node_and_lists_a_failed_one,
    ])
}
