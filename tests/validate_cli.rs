//! `carmbench validate` and `run --validate`: points stored and consistent,
//! clear errors for results it cannot validate.

use crate::common::*;

use carmbench::machine::isa::Isa;
use carmbench::machine::{Level, Machine, Source};
use carmbench::results::{self, Document, ValidationPoint};
use carmbench::roofline;
use std::path::Path;

/// The fixture, made to look measured on this machine.
fn fixture_here() -> Document {
    let mut d = fixture();
    let m = Machine::load(&Source::Live).unwrap();
    d.machine.topology.cpu_model = m.cpu_model.clone();
    d.machine.topology.cores = m.cores;
    d
}

/// What a point's roofs (`peak`, `band`) and the run's co-issue give it:
/// min(P, AI × B) where the core overlaps memory and FP units fully.
fn model(doc: &Document, p: &ValidationPoint, peak: f64, band: f64) -> f64 {
    let unit = carmbench::kernels::named(&p.kernel)
        .unwrap()
        .decl
        .bytes_per_iter();
    match doc
        .coissue
        .iter()
        .find(|c| c.of(p.isa, p.precision, p.mix, p.op))
    {
        Some(c) => roofline::attainable_overlapping(
            p.ai,
            peak,
            band,
            c.overlap(),
            c.issue_ns_per_byte(unit, p.clock_ghz) / p.threads as f64,
        ),
        None => roofline::attainable(p.ai, peak, band),
    }
}

fn save(doc: &Document, path: &Path) {
    std::fs::write(path, serde_yaml::to_string(doc).unwrap()).unwrap();
}

#[test]
fn run_validate_stores_a_full_sweep() {
    let dir = tmpdir("e2e");
    let d = dir.to_str().unwrap();
    let out = carmbench(&[
        "run",
        "--quick",
        "--validate",
        "--isa",
        "scalar",
        "--levels",
        "L1,L3",
        "--mixes",
        "2ld1st",
        "--ops",
        "fma",
        "--threads",
        "1",
        "-o",
        d,
    ]);
    let stdout = success(&out);
    assert!(
        stdout.contains("validation: scalar dp 2ld1st") && stdout.contains("median |dev|"),
        "{stdout}"
    );
    let doc = results::load(&dir.join("carm.yaml")).unwrap();
    // Each sweep's summary and verdict, as printed.
    assert_eq!(doc.sweeps.len(), 2, "L1 and L3");
    for s in &doc.sweeps {
        assert_eq!((s.isa, s.threads, s.points > 0), (Isa::Scalar, 1, true));
        assert!(stdout.contains(&s.verdict.to_string()), "{stdout}");
        assert_eq!(
            s.points,
            doc.validation.iter().filter(|p| p.level == s.level).count()
        );
    }
    // The co-issue of the one validated kernel, measured at L1.
    assert_eq!(doc.coissue.len(), 1, "{:?}", doc.coissue);
    // Both take the memory part's cycles or more: half, on two shared cores.
    assert!(doc.coissue[0].both_cycles >= doc.coissue[0].memory_cycles * 0.5);
    // L3 (shared, off the core clock): compared with its roof's kernel
    // measured around the sweep, which each point records.
    let l3: Vec<_> = doc
        .validation
        .iter()
        .filter(|p| p.level == Level::L3)
        .collect();
    assert!(l3.len() >= 12, "{} L3 points", l3.len());
    let fma0 = doc.roofs.iter().find(|r| r.op.is_some()).unwrap();
    for p in &l3 {
        let b = p
            .reference_gb_per_s
            .expect("L3 points carry their reference");
        assert!(b > 0.0);
        let exp = model(&doc, p, fma0.per_cycle * p.clock_ghz, b);
        assert!((p.expected_gflop_per_s - exp).abs() < 1e-9 * exp, "{p:?}");
    }
    assert!(stdout.contains("B vs roof"), "{stdout}");
    let pts: Vec<_> = doc
        .validation
        .iter()
        .filter(|p| p.level == Level::L1)
        .cloned()
        .collect();
    assert!(pts.len() >= 12, "{} points", pts.len());
    let fma = doc.roofs.iter().find(|r| r.op.is_some()).unwrap();
    let bw = doc
        .roofs
        .iter()
        .find(|r| r.level == Some(Level::L1))
        .unwrap();
    let ridge = fma.per_cycle / bw.per_cycle;
    assert!(pts.iter().map(|p| p.ai).fold(f64::INFINITY, f64::min) <= 1.0 / 32.0 + 1e-12);
    assert!(pts.iter().map(|p| p.ai).fold(0.0, f64::max) >= 32.0);
    assert!(
        pts.iter().filter(|p| p.ai < ridge).count() >= 3,
        "3 points under the slope"
    );
    assert!(
        pts.iter().filter(|p| p.ai >= ridge).count() >= 3,
        "3 points under the flat roof"
    );
    let k = carmbench::kernels::KERNELS
        .iter()
        .find(|k| k.decl.name == pts[0].kernel)
        .unwrap();
    for p in &pts {
        assert_eq!((p.level, p.threads), (Level::L1, 1));
        assert_eq!(p.reference_gb_per_s, None);
        // AI exact from the declaration and the shape.
        let shape = carmbench::kernels::Shape { j: p.j, k: p.k };
        assert_eq!(p.ai, k.decl.intensity(shape));
        // Expected from the FP and L1 roofs per cycle at the point's clock
        // and the co-issue.
        let (fp, b) = (fma.per_cycle * p.clock_ghz, bw.per_cycle * p.clock_ghz);
        let exp = model(&doc, p, fp, b);
        assert!((p.expected_gflop_per_s - exp).abs() < 1e-9 * exp, "{p:?}");
        assert!((p.deviation - (p.gflop_per_s - exp) / exp).abs() < 1e-12);
        assert!(p.gflop_per_s > 0.0);
        // Overlap only near the ridge, against min(P, AI × B).
        let plain = roofline::attainable(p.ai, fp, b);
        let near = p.ai >= ridge / 2.0 && p.ai <= ridge * 2.0;
        assert_eq!(p.overlap.is_some(), near, "{p:?}");
        if let Some(o) = p.overlap {
            let serial = 1.0 / (1.0 / fp + 1.0 / (p.ai * b));
            let want = (1.0 / serial - 1.0 / p.gflop_per_s) / (1.0 / serial - 1.0 / plain);
            assert!((o - want).abs() < 1e-9, "{o} vs {want}");
        }
    }
    assert!(
        pts.iter().any(|p| p.overlap.is_some()),
        "points near the ridge"
    );
    assert!(
        std::fs::read_to_string(dir.join("carm.svg"))
            .unwrap()
            .contains("validation points")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn results_it_cannot_validate_are_refused_clearly() {
    let dir = tmpdir("bad");
    let f = dir.join("r.yaml");
    let fs = f.to_str().unwrap();
    // A level the plan lists but whose roofs are missing.
    let mut no_l3 = fixture_here();
    no_l3.roofs.retain(|r| r.level != Some(Level::L3));
    save(&no_l3, &f);
    assert_input_error(&carmbench(&["validate", fs]), &["no L3 load", "--levels"]);
    assert_input_error(
        &carmbench(&["validate", fs, "--mixes", "2ld1st"]),
        &["no L3 2ld1st", "--levels"],
    );
    // No compute roof at all.
    let mut no_fp = fixture_here();
    no_fp.roofs.retain(|r| r.op.is_none());
    save(&no_fp, &f);
    assert_input_error(&carmbench(&["validate", fs]), &["no compute roof", "--ops"]);
    // Another machine.
    let mut other = fixture_here();
    other.machine.topology.cpu_model = Some("Imaginary CPU 9000".into());
    save(&other, &f);
    assert_input_error(
        &carmbench(&["validate", fs]),
        &["Imaginary CPU 9000", "not on this machine"],
    );
    // Kernels that do not exist.
    save(&fixture_here(), &f);
    assert_input_error(
        &carmbench(&["validate", fs, "--mixes", "store"]),
        &["load and 2ld1st", "'store'"],
    );
    assert_input_error(
        &carmbench(&["validate", fs, "--ops", "div"]),
        &["fma and addmul", "'div'"],
    );
    assert_input_error(
        &carmbench(&["validate", dir.join("none.yaml").to_str().unwrap()]),
        &["none.yaml"],
    );
    // Nothing was written over the input on error.
    assert_eq!(results::load(&f).unwrap().validation.len(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_validate_without_the_roofs_it_needs_stops_before_measuring() {
    let dir = tmpdir("novalidate");
    let d = dir.to_str().unwrap();
    for (flag, value) in [("--ops", "add"), ("--mixes", "store")] {
        let out = carmbench(&["run", "--validate", "--quick", flag, value, "-o", d]);
        assert_input_error(&out, &["--validate needs", "--mixes load,2ld1st --ops fma"]);
        assert!(!dir.join("carm.yaml").exists(), "nothing measured");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
