//! Entry points for fuzzing the readers of every document a user hands
//! carmbench: the plan, results, apps and regions parsers, and the check of
//! a results document. Each takes any bytes and must return without a
//! panic, an abort or a hang; what a document that passes its check feeds
//! downstream (the chart, comparing, predicting) must not panic either.
//! `fuzz/` runs them under libFuzzer (`scripts/fuzz.sh`); the test suite
//! runs them on the crashes found so far and on mutated seeds.

use crate::chart::{self, Filter};
use crate::compare;
use crate::config::plan::{self, PlanFile};
use crate::fleet::{NodeResult, analyse};
use crate::machine::{Machine, Source};
use crate::results::{self, Document, apps, check};
use std::sync::OnceLock;

/// The machine plans are resolved against.
fn machine() -> &'static Machine {
    static M: OnceLock<Machine> = OnceLock::new();
    M.get_or_init(|| {
        Machine::load(&Source::Synthetic(
            "pack:1 numa:1(memory=16GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:2"
                .into(),
        ))
        .expect("the fuzzing machine loads")
    })
}

/// A plan file's text, parsed and resolved.
pub fn plan(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(pf) = PlanFile::parse(text, "plan") {
        let full = PlanFile::default_plan().overlay(pf);
        if let Ok(p) = plan::resolve_with(&full, machine(), false, |_| true) {
            assert!(p.samples >= 1 && p.samples <= plan::MAX_SAMPLES);
            assert!(p.longest_seconds() / 3600.0 <= plan::MAX_RUN_HOURS);
            let _ = crate::roofs::plan::tasks_where(&p, machine(), |_| true);
        }
    }
}

/// What a checked results document feeds: the default view, the chart as
/// SVG, the HTML report, a fleet of it, comparison and ridges.
fn downstream(doc: &Document) {
    let pair = [("f".to_string(), doc.clone())];
    if let Ok(sel) = chart::select(&pair, &Filter::default(), Vec::new()) {
        let _ = chart::svg(&sel);
    }
    let _ = crate::report::html(&pair, &[]);
    let nodes: Vec<NodeResult> = (0..3)
        .map(|i| NodeResult {
            node: format!("n{i}"),
            doc: Ok(doc.clone()),
        })
        .collect();
    let _ = analyse(&nodes, 0.1);
    let _ = compare::match_roofs(&[doc, doc], true);
    let _ = compare::ridge_table(&["a".into()], &[doc]);
    for t in doc.thread_counts() {
        if let Some(m) = compare::machine_roofs(doc, t) {
            let app = apps::AppPoint {
                fma_flops: Some(5e8),
                ..apps::AppPoint::new("a", 1e9, 1e9, 1.0)
            };
            let _ = compare::predict(&app, &m, None);
        }
    }
}

/// A results file's text, parsed and checked, whole and as `fleet` reads it
/// (up to its roofs' end); what passes goes downstream.
pub fn results(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(doc) = results::parse(text, "results") {
        downstream(&doc);
    }
    let roofs = results::up_to_roofs_end(text);
    if roofs.len() < text.len()
        && let Ok(doc) = results::parse(roofs, "results")
    {
        downstream(&doc);
    }
}

/// An apps file's text, parsed and checked; its points placed.
pub fn apps(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(f) = apps::parse(text, "apps") {
        for a in &f.applications {
            assert!(a.ai().is_finite() && a.gflop_per_s().is_finite());
        }
    }
}

/// Lines of a regions record file, parsed and checked.
pub fn regions(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for line in text.lines() {
        if let Ok(r) = carmbench_regions::Record::parse_line(line) {
            let _ = check::region(&r, "regions");
        }
    }
}

/// A valid results document (the Zen 5 fixture's first roofs) whose numbers
/// `data` rewrites, checked; what passes goes downstream.
pub fn document(data: &[u8]) {
    static BASE: OnceLock<Document> = OnceLock::new();
    let base = BASE.get_or_init(|| {
        let mut d = results::parse(
            include_str!("../tests/fixtures/zen5-avx512.yaml"),
            "fixture",
        )
        .expect("the fixture loads");
        d.roofs.truncate(8);
        d.roofs.extend(
            results::parse(
                include_str!("../tests/fixtures/zen5-avx512.yaml"),
                "fixture",
            )
            .expect("the fixture loads")
            .roofs
            .into_iter()
            .filter(|r| r.op.is_some())
            .take(4),
        );
        d
    });
    let mut doc = base.clone();
    let mut bytes = data.chunks_exact(10);
    for c in &mut bytes {
        let roof = usize::from(c[0]) % doc.roofs.len();
        let value = f64::from_le_bytes(c[2..10].try_into().expect("8 bytes"));
        let r = &mut doc.roofs[roof];
        match c[1] % 12 {
            0 => r.gb_per_s = r.gb_per_s.map(|_| value),
            1 => r.gflop_per_s = r.gflop_per_s.map(|_| value),
            2 => r.per_cycle = value,
            3 => r.median = value,
            4 => r.q1 = value,
            5 => r.q3 = value,
            6 => r.cv = value,
            7 => r.clock_ghz = value,
            8 => r.theoretical_per_cycle = Some(value),
            9 => r.percent_of_theoretical = Some(value),
            10 => r.threads = (value.abs() as usize) % 1024,
            _ => {
                if let Some(s) = r.sizes.first_mut() {
                    s.bytes_per_thread = value.abs() as u64;
                }
            }
        }
    }
    if check::results(&doc, "document").is_ok() {
        for r in &doc.roofs {
            assert!(r.value().is_finite() && r.value() > 0.0 && r.per_cycle.is_finite());
        }
        downstream(&doc);
    }
}
