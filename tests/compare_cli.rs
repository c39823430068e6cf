//! `carmbench compare` and `carmbench predict` on two different machines.

use crate::common::*;

use carmbench::compare::{self, Threads, machine_roofs, ridges};
use carmbench::machine::Level;
use carmbench::machine::isa::Isa;
use carmbench::results::{self, Document};
use std::path::Path;

const ZEN5: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/zen5-avx512.yaml"
);
const BDW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/broadwell-l4-avx2.yaml"
);

fn load(p: &str) -> Document {
    results::load(Path::new(p)).unwrap()
}

#[test]
fn roofs_match_across_machines_with_ratios_and_missing_ones_kept() {
    let (z, b) = (load(ZEN5), load(BDW));
    // Strict: ISA is part of the match, so AVX-512 and AVX2 roofs never share a row.
    let strict = compare::match_roofs(&[&z, &b], false);
    assert_eq!(strict.len(), z.roofs.len() + b.roofs.len());
    assert!(
        strict
            .iter()
            .all(|r| r.cells.iter().filter(|c| c.is_some()).count() == 1)
    );
    // No ISA in common: the command then compares each file at its widest.
    assert!(!compare::share_an_isa(&[&z, &b]));
    assert!(compare::share_an_isa(&[&z, &z]));
    let out = carmbench(&["compare", ZEN5, BDW]);
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(e.contains("share no ISA"), "{e}");
    let l1 = o.lines().find(|l| l.contains("L1 2ld1st")).unwrap();
    assert!(!l1.contains("missing"), "{l1}");
    // Each file's widest ISA.
    let rows = compare::match_roofs(&[&z, &b], true);
    let row = |thr: Threads, label: &str| {
        rows.iter()
            .find(|r| r.key.threads == thr && r.key.label() == label)
            .unwrap()
    };
    let l1 = row(Threads::One, "L1 2ld1st");
    let (a, c) = (l1.cells[0].unwrap(), l1.cells[1].unwrap());
    assert_eq!((a.isa, c.isa), (Isa::Avx512, Isa::Avx2));
    assert_eq!(a.ratio, Some(1.0));
    assert!((c.ratio.unwrap() - c.value / a.value).abs() < 1e-12);
    // The extra level of one machine is shown, missing in the other.
    let l4 = row(Threads::One, "L4 load");
    assert!(l4.cells[0].is_none() && l4.cells[1].is_some() && l4.cells[1].unwrap().ratio.is_none());
    // Each machine's all-core roofs side by side (2 and 4 threads).
    let all = row(Threads::All, "fma dp");
    let (a, c) = (all.cells[0].unwrap(), all.cells[1].unwrap());
    assert_eq!((a.threads, c.threads), (2, 4));
    assert_eq!(c.per_thread(), c.value / 4.0);
    // Hierarchy order: L1 before L4 before DRAM.
    let pos = |l: &str| {
        rows.iter()
            .position(|r| r.key.threads == Threads::One && r.key.label() == l)
            .unwrap()
    };
    assert!(pos("L1 load") < pos("L4 load") && pos("L4 load") < pos("DRAM load"));
    // Ridge points: top FP roof over each level's bandwidth.
    let m = machine_roofs(&b, 1).unwrap();
    let r = ridges(&m);
    assert_eq!(r.len(), 5);
    let peak = m.peak.unwrap().1;
    for (ridge, (l2, bw)) in r.iter().zip(&m.levels) {
        assert_eq!(ridge.level, *l2);
        assert!((ridge.ai - peak / bw).abs() < 1e-12);
    }
}

#[test]
fn compare_formats_and_charts() {
    let dir = tmpdir("fmt");
    let text = carmbench(&["compare", ZEN5, BDW, "--best-isa"]);
    let t = String::from_utf8_lossy(&text.stdout);
    assert_eq!(text.status.code(), Some(0));
    assert!(
        t.contains("missing") && t.contains("L4 load") && t.contains("ridge points"),
        "{t}"
    );
    let md =
        String::from_utf8_lossy(&carmbench(&["compare", ZEN5, BDW, "--format", "markdown"]).stdout)
            .into_owned();
    assert!(
        md.lines()
            .next()
            .unwrap()
            .starts_with("| threads | ISA | roof | unit |")
    );
    assert!(md.contains("|---|"));
    let csv =
        String::from_utf8_lossy(&carmbench(&["compare", ZEN5, BDW, "--format", "csv"]).stdout)
            .into_owned();
    let cols = csv.lines().next().unwrap().split(',').count();
    assert!(
        csv.lines().all(|l| l.split(',').count() == cols),
        "rectangular CSV"
    );
    let json = carmbench(&["compare", ZEN5, BDW, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert!(v["roofs"].as_array().unwrap().len() > 40);
    // Overlaid chart and quadrant chart.
    let chart = dir.join("c.svg");
    let q = dir.join("q.svg");
    let out = carmbench(&[
        "compare",
        ZEN5,
        BDW,
        "--threads",
        "1",
        "-o",
        chart.to_str().unwrap(),
        "--quadrant",
        "--ai",
        "0.25,2,8",
        "--quadrant-output",
        q.to_str().unwrap(),
    ]);
    let so = success(&out);
    let c = std::fs::read_to_string(&chart).unwrap();
    assert!(
        c.contains("avx512, 1 thread") && c.contains("avx2, 1 thread"),
        "each machine with its own ISA"
    );
    let qs = std::fs::read_to_string(&q).unwrap();
    assert!(qs.contains("AI = 0.25") && qs.contains("AI = 8") && qs.contains("L4"));
    // Verdicts follow ai x B < P.
    let z = machine_roofs(&load(ZEN5), 1).unwrap();
    let dram = z.levels.iter().find(|l| l.0 == Level::Dram).unwrap().1;
    let p = z.peak.unwrap().1;
    let want = if 2.0 * dram < p {
        "AI 2: memory bound"
    } else {
        "AI 2: compute bound"
    };
    assert!(
        so.lines()
            .any(|l| l.contains("zen5-avx512.yaml DRAM") && l.contains(want)),
        "{so}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn predict_on_known_numbers() {
    let b = machine_roofs(&load(BDW), 1).unwrap();
    let dram = b.levels.iter().find(|l| l.0 == Level::Dram).unwrap().1;
    // 1e8 flops over 1.2e9 bytes: memory bound on DRAM: T = Q / B.
    let out = carmbench(&[
        "predict", "--flops", "1e8", "--bytes", "1.2e9", "--level", "DRAM", "--on", BDW,
    ]);
    let s = success(&out);
    let t = 1.2e9 / (dram * 1e9);
    assert!(
        s.contains(&format!("{t:.4e} s")) && s.contains("memory (DRAM"),
        "{s}"
    );
    // FMA share adjusts the peak: 80 % FMA at 52.8, 20 % at the ADD/MUL roof (26.4).
    let out = carmbench(&[
        "predict",
        "--flops",
        "2e10",
        "--bytes",
        "1e9",
        "--fma-flops",
        "1.6e10",
        "--level",
        "L1",
        "--on",
        BDW,
        "--from",
        ZEN5,
    ]);
    let s = String::from_utf8_lossy(&out.stdout);
    let peak = 2e10 / (1.6e10 / (b.fma.unwrap()) + 0.4e10 / b.addmul.unwrap());
    assert!(s.contains(&format!("{:.2} GFLOP/s", peak)), "{s}");
    assert!(s.contains("expected speedup"), "{s}");
}

#[test]
fn files_it_cannot_read_are_refused() {
    let dir = tmpdir("bad");
    let f = dir.join("old.yaml");
    std::fs::write(&f, "schema: 0\nroofs: []\n").unwrap();
    let out = carmbench(&["compare", ZEN5, f.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(e.contains("schema 0") && e.contains("schema 1"), "{e}");
    std::fs::write(&f, "").unwrap();
    let out = carmbench(&["compare", ZEN5, f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
    let out = carmbench(&[
        "predict",
        "--flops",
        "1",
        "--bytes",
        "1",
        "--on",
        f.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = carmbench(&["predict", "--flops", "1", "--on", ZEN5]);
    assert_eq!(out.status.code(), Some(2));
    let out = carmbench(&[
        "predict", "--flops", "1", "--bytes", "1", "--level", "L9", "--on", ZEN5,
    ]);
    // Refused before any line of the prediction is printed.
    assert_input_error(&out, &["--on has no L9 roof", "it has L1"]);
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = carmbench(&["compare", ZEN5]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn machines_of_different_sizes_show_their_all_core_roofs_side_by_side() {
    let fixture = |f: &str| format!("{}/tests/fixtures/{f}", env!("CARGO_MANIFEST_DIR"));
    let (two, vm) = (
        fixture("emr-xeon-2core-int.yaml"),
        fixture("emr-xeon-16vcpu-vm.yaml"),
    );
    let out = success(&carmbench(&["compare", &two, &vm]));
    // Both named as sold, with their core family and all-core thread count.
    let heads: Vec<&str> = out.lines().take(2).collect();
    for (h, n) in heads.iter().zip([2, 16]) {
        assert!(h.contains("Emerald Rapids, sapphire_rapids cores"), "{h}");
        assert!(h.contains(&format!("all = {n} thread(s)")), "{h}");
    }
    // Every all-core row has both machines' values, and their ratio.
    let all: Vec<&str> = out.lines().filter(|l| l.starts_with("all ")).collect();
    assert!(all.len() >= 20, "{out}");
    for l in &all {
        assert!(!l.contains("missing"), "{l}");
    }
    let fma = all.iter().find(|l| l.contains("fma dp")).unwrap();
    let v: Vec<f64> = fma
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    // [1] value, per thread, per cycle, ratio; [2] the same.
    assert_eq!(v.len(), 8, "{fma}");
    assert!(
        (v[1] - v[0] / 2.0).abs() < 0.1 && (v[5] - v[4] / 16.0).abs() < 0.1,
        "{fma}"
    );
    assert!((v[7] - v[4] / v[0]).abs() < 0.01, "{fma}");
}

const H100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gpu/h100.yaml");
const H100_AGAIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/gpu/h100-run2.yaml"
);

#[test]
fn gpus_compare_roof_by_roof_and_sit_beside_the_cpu_in_the_quadrant_split() {
    // Two runs of one H100: every roof matched, ratios near 1.
    let out = carmbench(&["compare", H100, H100_AGAIN]);
    let o = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{o}");
    let wgmma = o
        .lines()
        .find(|l| l.trim_start().starts_with("wgmma bf16"))
        .expect("a wgmma row");
    assert_eq!(wgmma.matches(" x1.00").count(), 2, "{wgmma}");
    assert!(
        !o.contains("share no ISA"),
        "no CPU table for files without CPU roofs: {o}"
    );
    // A CPU's file and a GPU's: both in the quadrant split, the GPU's levels its own.
    let dir = tmpdir("gpu-quadrant");
    let q = dir.join("q.svg");
    let out = carmbench(&[
        "compare",
        ZEN5,
        H100,
        "--quadrant",
        "--quadrant-output",
        q.to_str().unwrap(),
    ]);
    let o = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{o}");
    assert!(
        o.contains("gpu/h100.yaml GPU 0 HBM: 3413.1 GB/s, peak 33468.2 GFLOP/s"),
        "{o}"
    );
    assert!(o.contains("gpu/h100.yaml GPU 0 shared:"), "{o}");
    assert!(
        o.lines()
            .any(|l| l.contains("zen5-avx512") && l.contains(" DRAM: ")),
        "{o}"
    );
    let svg = std::fs::read_to_string(&q).unwrap();
    assert!(
        svg.contains(">HBM<") || svg.contains("HBM"),
        "the GPU's levels are labelled"
    );
}
