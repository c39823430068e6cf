//! Every document is checked when it is read: each number finite and in its
//! range, each entry whole. A document that fails says, on one line, which
//! file, which entry (a roof by its level, mix or op, ISA and threads) and
//! which field, and how to mend it; nothing downstream then meets a NaN, a
//! negative bandwidth or an infinite rate.

pub use super::entry::{Entry, POINT_RANGE};
use super::{CoIssue, Curve, Document, Roof, SweepSummary, ValidationPoint};
use crate::error::Result;
use crate::kernels::Kind;

/// How to mend a damaged results file.
const RESULTS_FIX: &str = "the file is damaged: restore it or measure again with `carmbench run`";

fn roof_entry(r: &Roof) -> String {
    format!("roof {} {} {} thread(s)", r.label(), r.isa, r.threads)
}

fn check_roof(doc: &str, r: &Roof, m: &crate::machine::Machine) -> Result<()> {
    let e = Entry::new(doc, roof_entry(r), RESULTS_FIX);
    e.at_least("threads", r.threads as u64, 1)?;
    // One thread per core, on a level the machine has.
    if r.threads > m.cores {
        return Err(e.fail(
            "threads",
            r.threads,
            &format!("more than the machine's {} cores", m.cores),
        ));
    }
    if let Some(crate::machine::Level::Cache(d)) = r.level
        && !m.caches.iter().any(|c| c.depth == usize::from(d))
    {
        return Err(e.fail(
            "level",
            format!("L{d}"),
            "a cache level the machine's topology does not have",
        ));
    }
    let value = match r.kind {
        Kind::Bandwidth => {
            e.present("level", r.level)?;
            e.present("mix", r.mix)?;
            let v = e.present("gb_per_s", r.gb_per_s)?;
            e.positive("gb_per_s", v)?;
            if let Some(p) = r.paced_gb_per_s {
                e.positive("paced_gb_per_s", p)?;
            }
            v
        }
        Kind::Compute => {
            e.present("op", r.op)?;
            e.present("precision", r.precision)?;
            let v = e.present("gflop_per_s", r.gflop_per_s)?;
            e.positive("gflop_per_s", v)?;
            v
        }
        Kind::Validation => {
            return Err(e.fail("kind", "validation", "roofs are bandwidth or compute"));
        }
    };
    check_figures(&e, r, value)?;
    if let Some(t) = r.seconds {
        e.positive("seconds", t)?;
    }
    check_sizes(&e, r)
}

/// The roof's per-cycle figure, quartiles and limit agree with its value.
fn check_figures(e: &Entry, r: &Roof, value: f64) -> Result<()> {
    e.positive("clock_ghz", r.clock_ghz)?;
    e.positive("per_cycle", r.per_cycle)?;
    e.agrees(
        "per_cycle",
        r.per_cycle,
        value / r.clock_ghz,
        "the value over the clock",
    )?;
    for (f, v) in [("median", r.median), ("q1", r.q1), ("q3", r.q3)] {
        e.non_negative(f, v)?;
    }
    e.ordered(("q1", r.q1), ("median", r.median))?;
    e.ordered(("median", r.median), ("q3", r.q3))?;
    e.non_negative("cv", r.cv)?;
    e.non_negative("clock_drift", r.clock_drift)?;
    if let Some(t) = r.theoretical_per_cycle {
        e.positive("theoretical_per_cycle", t)?;
        if let Some(p) = r.percent_of_theoretical {
            e.positive("percent_of_theoretical", p)?;
            e.agrees(
                "percent_of_theoretical",
                p,
                100.0 * r.per_cycle / t,
                "per_cycle over theoretical_per_cycle",
            )?;
        }
    }
    Ok(())
}

/// Its kernel, its sizes and its plateau.
fn check_sizes(e: &Entry, r: &Roof) -> Result<()> {
    if r.kernel.trim().is_empty() {
        return Err(e.fail(
            "kernel",
            "empty",
            "it names the kernel that measured the roof",
        ));
    }
    for s in &r.sizes {
        e.at_least("sizes.bytes_per_thread", s.bytes_per_thread, 1)?;
        e.non_negative("sizes.value", s.value)?;
        e.non_negative("sizes.median", s.median)?;
        e.non_negative("sizes.cv", s.cv)?;
    }
    if let Some([lo, hi]) = r.plateau {
        e.at_least("plateau", lo, 1)?;
        e.ordered(("plateau's first size", lo as f64), ("its last", hi as f64))?;
        if let Some(k) = r.knee_bytes {
            e.at_least("knee_bytes", k, hi.saturating_add(1))?;
        }
    } else if let Some(k) = r.knee_bytes {
        return Err(e.fail("knee_bytes", k, "a knee comes with the plateau before it"));
    }
    Ok(())
}

fn check_curve(doc: &str, c: &Curve) -> Result<()> {
    let e = Entry::new(
        doc,
        format!("curve {} {} {} thread(s)", c.mix, c.isa, c.threads),
        RESULTS_FIX,
    );
    e.at_least("threads", c.threads as u64, 1)?;
    for p in &c.points {
        e.at_least("points.bytes_per_thread", p.bytes_per_thread, 1)?;
        e.positive("points.gb_per_s", p.gb_per_s)?;
        e.positive("points.per_cycle", p.per_cycle)?;
    }
    Ok(())
}

fn check_sweep(doc: &str, s: &SweepSummary) -> Result<()> {
    let e = Entry::new(
        doc,
        format!(
            "sweep {} {} {} {} {} thread(s)",
            s.level, s.mix, s.op, s.isa, s.threads
        ),
        RESULTS_FIX,
    );
    e.at_least("threads", s.threads as u64, 1)?;
    e.at_least("points", s.points as u64, 1)?;
    e.positive("ridge", s.ridge)?;
    e.non_negative("median_abs_deviation", s.median_abs_deviation)?;
    e.positive("worst_ai", s.worst_ai)?;
    e.finite("worst_deviation", s.worst_deviation)?;
    e.positive("threshold", s.threshold)?;
    for (f, v) in [
        ("overlap", s.overlap),
        ("moved", s.moved),
        ("moved_during", s.moved_during),
    ] {
        if let Some(v) = v {
            e.finite(f, v)?;
        }
    }
    Ok(())
}

fn check_coissue(doc: &str, c: &CoIssue) -> Result<()> {
    let e = Entry::new(
        doc,
        format!("coissue {} {} {} {}", c.mix, c.op, c.isa, c.precision),
        RESULTS_FIX,
    );
    e.at_least("j", u64::from(c.j), 1)?;
    e.at_least("k", u64::from(c.k), 1)?;
    e.positive("memory_cycles", c.memory_cycles)?;
    e.positive("fp_cycles", c.fp_cycles)?;
    e.positive("both_cycles", c.both_cycles)?;
    Ok(())
}

fn check_point(doc: &str, p: &ValidationPoint) -> Result<()> {
    let e = Entry::new(
        doc,
        format!(
            "validation point {} {} {} {} {} thread(s) at AI {}",
            p.level, p.mix, p.op, p.isa, p.threads, p.ai
        ),
        RESULTS_FIX,
    );
    e.at_least("threads", p.threads as u64, 1)?;
    e.at_least("j", u64::from(p.j), 1)?;
    e.at_least("k", u64::from(p.k), 1)?;
    e.at_least("bytes_per_thread", p.bytes_per_thread, 1)?;
    e.positive("ai", p.ai)?;
    e.positive("gflop_per_s", p.gflop_per_s)?;
    e.positive("expected_gflop_per_s", p.expected_gflop_per_s)?;
    // Files of earlier versions have no clock (0).
    e.non_negative("clock_ghz", p.clock_ghz)?;
    e.agrees(
        "deviation",
        p.deviation,
        crate::roofline::deviation(p.gflop_per_s, p.expected_gflop_per_s),
        "the measured and expected values",
    )?;
    if let Some(o) = p.overlap {
        e.finite("overlap", o)?;
    }
    if let Some(b) = p.reference_gb_per_s {
        e.positive("reference_gb_per_s", b)?;
    }
    Ok(())
}

/// Check a results document read from `doc` (its name in errors).
pub fn results(d: &Document, doc: &str) -> Result<()> {
    let m = Entry::new(doc, "machine", RESULTS_FIX);
    let t = &d.machine.topology;
    m.at_least("cores", t.cores as u64, 1)?;
    m.at_least("hardware_threads", t.hardware_threads as u64, 1)?;
    for c in &t.caches {
        let e = Entry::new(doc, format!("machine cache {}", c.name), RESULTS_FIX);
        e.at_least("depth", c.depth as u64, 1)?;
        e.at_least("size_bytes", c.size_bytes, 1)?;
        e.at_least("cores_sharing", c.cores_sharing as u64, 1)?;
        e.at_least("instances", c.instances as u64, 1)?;
    }
    m.positive(
        "clock.measured.ghz.max",
        d.machine.clock.measured.core_ghz(),
    )?;
    m.non_negative("clock.tsc_ghz", d.machine.clock.tsc_ghz)?;
    if let Some(e) = &d.machine.effective_cores {
        m.at_least("effective_cores.threads", e.threads as u64, 2)?;
        m.positive("effective_cores.cores", e.cores)?;
    }
    let p = Entry::new(doc, "plan", RESULTS_FIX);
    for &t in &d.plan.threads {
        p.at_least("threads", t as u64, 1)?;
    }
    p.at_least("samples", d.plan.samples as u64, 1)?;
    p.at_least("sizes_per_level", d.plan.sizes_per_level as u64, 1)?;
    p.positive("min_sample_ms", d.plan.min_sample_ms)?;
    for tr in &d.buffer_ranges {
        for r in &tr.levels {
            let e = Entry::new(
                doc,
                format!("buffer range {} {} thread(s)", r.level, tr.threads),
                RESULTS_FIX,
            );
            e.at_least("threads", tr.threads as u64, 1)?;
            e.at_least("min_bytes", r.min_bytes, 1)?;
            e.ordered(
                ("min_bytes", r.min_bytes as f64),
                ("max_bytes", r.max_bytes as f64),
            )?;
        }
    }
    for r in &d.roofs {
        check_roof(doc, r, t)?;
    }
    for v in &d.validation {
        check_point(doc, v)?;
    }
    for c in &d.curves {
        check_curve(doc, c)?;
    }
    for c in &d.coissue {
        check_coissue(doc, c)?;
    }
    for s in &d.sweeps {
        check_sweep(doc, s)?;
    }
    for g in &d.gpus {
        check_gpu(doc, g)?;
    }
    Ok(())
}

fn check_gpu(doc: &str, g: &crate::results::gpu::GpuResults) -> Result<()> {
    let d = &g.device;
    let m = Entry::new(doc, format!("GPU {}", d.index), RESULTS_FIX);
    m.at_least("device.sms", u64::from(d.sms), 1)?;
    for r in &g.roofs {
        let e = Entry::new(
            doc,
            format!("GPU {} roof {}", d.index, r.label()),
            RESULTS_FIX,
        );
        e.positive("value", r.value)?;
        e.positive("clock_ghz", r.clock_ghz)?;
        e.positive("per_sm_cycle", r.per_sm_cycle)?;
        e.at_least("samples", r.samples as u64, 1)?;
    }
    for s in &g.validation {
        let e = Entry::new(
            doc,
            format!("GPU {} validation {} {}", d.index, s.level, s.ty),
            RESULTS_FIX,
        );
        for p in &s.points {
            e.positive("points.ai", p.ai)?;
            e.positive("points.expected", p.expected)?;
        }
    }
    Ok(())
}

/// Check a region's record from the regions library's file `doc`.
pub fn region(r: &carmbench_regions::Record, doc: &str) -> Result<()> {
    let e = Entry::new(
        doc,
        format!("region '{}'", r.name),
        "the program's regions library wrote a damaged record: link the regions library of this carmbench",
    );
    if r.name.is_empty() {
        return Err(e.fail("name", "empty", "each region needs a name"));
    }
    e.non_negative("seconds", r.seconds)?;
    e.at_least("calls", r.calls, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fixture;

    /// The error for the fixture with `damage` done to it.
    fn damaged(damage: impl Fn(&mut Document)) -> String {
        let mut d = fixture();
        damage(&mut d);
        results(&d, "results file 'r.yaml'")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn the_fixture_passes() {
        results(&fixture(), "f").unwrap();
    }

    #[test]
    fn damaged_roofs_are_named_with_their_field() {
        let e = damaged(|d| d.roofs[0].gb_per_s = Some(-5.0));
        assert!(
            e.starts_with("results file 'r.yaml': roof L1 load avx512 1 thread(s): gb_per_s is -5, it must be a positive number"),
            "{e}"
        );
        assert!(e.contains("carmbench run"), "{e}");
        assert!(damaged(|d| d.roofs[0].gb_per_s = Some(f64::NAN)).contains("gb_per_s is NaN"));
        let e = damaged(|d| {
            d.roofs[0].gb_per_s = Some(1e308);
            d.roofs[0].per_cycle = f64::INFINITY;
        });
        assert!(e.contains("per_cycle is inf"), "{e}");
        let e = damaged(|d| d.roofs[0].gb_per_s = Some(1e308));
        assert!(
            e.contains("per_cycle is") && e.contains("the value over the clock"),
            "{e}"
        );
        assert!(damaged(|d| d.roofs[0].cv = -0.1).contains("cv is -0.1"));
        let e = damaged(|d| d.roofs[0].q1 = d.roofs[0].q3 * 2.0);
        assert!(e.contains("q1 is") && e.contains("above median"), "{e}");
        assert!(
            damaged(|d| d.roofs[0].threads = 0).contains("threads is 0, it must be at least 1")
        );
        assert!(damaged(|d| d.roofs[0].clock_ghz = 0.0).contains("clock_ghz is 0"));
        assert!(damaged(|d| d.roofs[0].seconds = Some(-1.0)).contains("seconds is -1"));
        let e = damaged(|d| {
            let r = &mut d.roofs[0];
            r.percent_of_theoretical = r.percent_of_theoretical.map(|p| p * 2.0);
        });
        assert!(e.contains("percent_of_theoretical"), "{e}");
        assert!(
            damaged(|d| d.roofs[0].sizes[0].bytes_per_thread = 0)
                .contains("sizes.bytes_per_thread is 0")
        );
        assert!(damaged(|d| d.roofs[0].level = None).contains("level is missing"));
        let fma = |d: &mut Document| d.roofs.iter().position(|r| r.op.is_some()).unwrap();
        let e = damaged(|d| {
            let i = fma(d);
            d.roofs[i].gflop_per_s = None;
        });
        assert!(
            e.contains("fma dp avx512") || e.contains("dp avx512"),
            "{e}"
        );
        assert!(e.contains("gflop_per_s is missing"), "{e}");
    }

    #[test]
    fn the_machine_plan_and_ranges_are_checked_too() {
        assert!(damaged(|d| d.machine.topology.cores = 0).contains("machine: cores is 0"));
        assert!(
            damaged(|d| d.machine.topology.caches[0].size_bytes = 0)
                .contains("machine cache L1d: size_bytes is 0")
        );
        assert!(damaged(|d| d.plan.samples = 0).contains("plan: samples is 0"));
        assert!(
            damaged(|d| d.plan.min_sample_ms = f64::NAN).contains("plan: min_sample_ms is NaN")
        );
        let e = damaged(|d| {
            let r = &mut d.buffer_ranges[0].levels[0];
            r.min_bytes = r.max_bytes * 2;
        });
        assert!(e.contains("buffer range L1 1 thread(s): min_bytes"), "{e}");
    }

    #[test]
    fn validation_points_and_regions_are_checked() {
        let mut d = fixture();
        let p = ValidationPoint {
            level: crate::machine::Level::L1,
            isa: crate::machine::isa::Isa::Avx512,
            precision: crate::kernels::Precision::Dp,
            threads: 1,
            mix: crate::kernels::Mix::Load,
            op: crate::kernels::Op::Fma,
            kernel: "k".into(),
            j: 1,
            k: 1,
            bytes_per_thread: 1024,
            ai: 0.5,
            gflop_per_s: 90.0,
            expected_gflop_per_s: 100.0,
            clock_ghz: 4.0,
            deviation: -0.1,
            overlap: None,
            reference_gb_per_s: None,
        };
        d.validation = vec![p.clone()];
        results(&d, "f").unwrap();
        d.validation[0].deviation = 0.3;
        let e = results(&d, "f").unwrap_err().to_string();
        assert!(
            e.contains(
                "validation point L1 load fma avx512 1 thread(s) at AI 0.5: deviation is 0.3"
            ),
            "{e}"
        );
        d.validation[0] = ValidationPoint { j: 0, ..p };
        assert!(results(&d, "f").unwrap_err().to_string().contains("j is 0"));
    }

    #[test]
    fn plateaus_curves_and_coissue_are_checked() {
        use crate::kernels::{Mix, Op, Precision};
        use crate::machine::{Level, isa::Isa};
        let mut d = fixture();
        let i = d.roofs.iter().position(|r| r.level.is_some()).unwrap();
        d.roofs[i].plateau = Some([4096, 8192]);
        d.roofs[i].knee_bytes = Some(16384);
        let point = crate::results::CurvePoint {
            bytes_per_thread: 4096,
            gb_per_s: 100.0,
            per_cycle: 25.0,
            level: Level::L1,
        };
        d.curves = vec![Curve {
            isa: Isa::Avx2,
            mix: Mix::Load,
            threads: 1,
            points: vec![point.clone()],
        }];
        let co = CoIssue::zen5_stores_beside_fmas(Isa::Avx2);
        d.coissue = vec![co.clone()];
        results(&d, "f").unwrap();
        let err = |d: &Document| results(d, "f").unwrap_err().to_string();
        let mut bad = d.clone();
        bad.roofs[i].plateau = Some([8192, 4096]);
        assert!(err(&bad).contains("plateau's first size is 8192, above its last"));
        let mut bad = d.clone();
        bad.roofs[i].knee_bytes = Some(8192);
        assert!(err(&bad).contains("knee_bytes is 8192, it must be at least 8193"));
        let mut bad = d.clone();
        bad.roofs[i].plateau = None;
        assert!(err(&bad).contains("a knee comes with the plateau"));
        let mut bad = d.clone();
        bad.curves[0].points[0].gb_per_s = f64::NAN;
        assert!(err(&bad).contains("curve load avx2 1 thread(s): points.gb_per_s is NaN"));
        let sweep = SweepSummary {
            level: Level::L1,
            isa: Isa::Avx2,
            precision: Precision::Dp,
            threads: 1,
            mix: Mix::TwoLdOneSt,
            op: Op::Fma,
            ridge: 0.25,
            points: 14,
            sloped: 5,
            flat: 9,
            median_abs_deviation: 0.02,
            worst_ai: 0.03125,
            worst_deviation: 0.12,
            overlap: Some(0.38),
            moved: None,
            moved_during: None,
            threshold: 0.1,
            verdict: crate::results::verdict::Verdict::Holds,
        };
        d.sweeps = vec![sweep];
        results(&d, "f").unwrap();
        let mut bad = d.clone();
        bad.sweeps[0].median_abs_deviation = f64::INFINITY;
        assert!(
            err(&bad).contains("sweep L1 2ld1st fma avx2 1 thread(s): median_abs_deviation is inf")
        );
        let mut bad = d.clone();
        bad.coissue[0].both_cycles = -1.0;
        assert!(err(&bad).contains("coissue 2ld1st fma avx2 dp: both_cycles is -1"));

        let rec = carmbench_regions::Record {
            name: "r".into(),
            seconds: f64::NAN,
            calls: 1,
            ..Default::default()
        };
        assert!(
            region(&rec, "regions")
                .unwrap_err()
                .to_string()
                .contains("region 'r': seconds is NaN")
        );
    }
}
