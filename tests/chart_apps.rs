//! The chart of a profile reads at a glance (issue 47), checked on the SVG:
//! twenty functions, ten of them of one long-named library, crowded
//! together; the run's validation points left out unless asked; no two
//! labels alike, none over another.

use crate::common::*;

use carmbench::results;
use carmbench::results::apps::{self, AppPoint, FunctionInfo, Of};
use std::path::Path;

/// A results file with validation points, in `dir`.
fn with_validation(dir: &Path) -> std::path::PathBuf {
    let mut doc = fixture();
    doc.validation = (1..=6)
        .map(|k| validation_point(1, 0.1 * k as f64))
        .collect();
    let f = dir.join("r.yaml");
    results::save(&doc, &f, results::DocFormat::Yaml).unwrap();
    f
}

/// A program and twenty functions, close together.
fn crowded(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("apps.yaml");
    let mut points = vec![AppPoint::new("app", 4e10, 2e10, 1.0)];
    for k in 0..20u32 {
        let name = match k < 10 {
            true => format!("_multiarray_umath.cpython-311-x86_64-linux-gnu.so+0x6{k:03x}0"),
            false => format!("kernel_number_{k}"),
        };
        let share = 0.02 + 0.01 * f64::from(k % 7);
        let ai = 0.5 + 0.02 * f64::from(k);
        points.push(AppPoint {
            of: Of::Function(FunctionInfo {
                program: "app".into(),
                module: "lib.so".into(),
                share,
                samples: 100,
                location: None,
                counted_as: None,
                ran_only: None,
            }),
            ..AppPoint::new(name, ai * 1e9, 1e9, share)
        });
    }
    apps::add_points(&f, points).unwrap();
    f
}

/// The texts of an SVG: (x, y, anchor, vertical shift, content).
fn texts(svg: &str) -> Vec<(i32, i32, String, String, String)> {
    let mut out = Vec::new();
    for part in svg.split("<text ").skip(1) {
        let (attrs, rest) = part.split_once('>').unwrap();
        let content = rest.split("</text>").next().unwrap().trim().to_string();
        let attr = |n: &str| {
            attrs
                .split_once(&format!("{n}=\""))
                .and_then(|(_, r)| r.split_once('"'))
                .map_or(String::new(), |(v, _)| v.to_string())
        };
        let num = |n: &str| attr(n).parse::<f64>().unwrap_or(0.0) as i32;
        out.push((num("x"), num("y"), attr("text-anchor"), attr("dy"), content));
    }
    out
}

/// The box a label takes, as the chart reckons it (17 px type, 0.56 of it a
/// character, 1.25 of it a line), from its anchor.
fn label_box(t: &(i32, i32, String, String, String)) -> (i32, i32, i32, i32) {
    let w = (t.4.chars().count() as f64 * 17.0 * 0.56) as i32;
    let h = 21;
    let x0 = match t.2.as_str() {
        "end" => t.0 - w,
        "middle" => t.0 - w / 2,
        _ => t.0,
    };
    (x0, t.1 - h / 2, x0 + w, t.1 + h / 2)
}

#[test]
fn a_profile_chart_has_its_points_labelled_apart_and_no_validation_points() {
    let dir = tmpdir("chart-apps");
    let results = with_validation(&dir);
    let apps = crowded(&dir);
    let (r, a) = (results.to_str().unwrap(), apps.to_str().unwrap());
    success(&carmbench_in(
        &["plot", r, "--apps", a, "-o", "c.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(!svg.contains("validation points"), "the legend lists them");
    assert!(!svg.contains(", expected "), "a validation point's tip");
    // Asked for, they are there.
    success(&carmbench_in(
        &["plot", r, "--apps", a, "--validation", "-o", "v.svg"],
        &dir,
    ));
    let with = std::fs::read_to_string(dir.join("v.svg")).unwrap();
    assert!(with.contains("validation points"));
    // The labels in the plot (left of the legend panel).
    let all = texts(&svg);
    let labels: Vec<_> = all
        .iter()
        .filter(|t| t.0 < 1600 && (t.4.contains("multiarr") || t.4.contains("kernel_number")))
        .collect();
    assert!(labels.len() >= 5, "{labels:#?}");
    // Roof labels drawn in the plot too: no point's label over one.
    let roofs: Vec<_> = all
        .iter()
        .filter(|t| t.0 < 1600 && (t.4.contains("GFLOP/s,") || t.4.contains("GB/s,")))
        .collect();
    for (i, a) in labels.iter().enumerate() {
        for b in labels[i + 1..].iter().chain(&roofs) {
            assert_ne!(a.4, b.4, "two labels read the same");
            let (p, q) = (label_box(a), label_box(b));
            let apart = p.2 <= q.0 || q.2 <= p.0 || p.3 <= q.1 || q.3 <= p.1;
            assert!(apart, "{a:?} over {b:?}");
        }
    }
    // The library's functions keep what tells them apart: their offsets.
    assert!(labels.iter().any(|t| t.4.contains("+0x6")), "{labels:#?}");
    // The legend lists the largest discs with their share, and the key.
    assert!(svg.contains("disc area = share of the time"));
    assert!(all.iter().any(|t| t.0 >= 1600 && t.4.ends_with(" %")));
    // The report draws the machine's chart with its validation points and
    // the applications' without; its rows find their points.
    success(&carmbench_in(
        &["report", r, "--apps", a, "-o", "r.html"],
        &dir,
    ));
    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(page.contains("Applications on the roofs"));
    assert!(page.contains("data-point=\"kernel_number_10\""));
    assert!(page.matches("circle cx").count() >= 21);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn thousands_of_points_keep_the_roofs_readable() {
    let dir = tmpdir("chart-many");
    // 5,000 programs spread over the chart: AI 0.01 to 100, 0.1 to 100 G/s.
    let points: Vec<AppPoint> = (0..5000u32)
        .map(|k| {
            let ai = 10f64.powf(-2.0 + 4.0 * f64::from(k % 100) / 99.0);
            let rate = 10f64.powf(-1.0 + 3.0 * f64::from(k / 100) / 49.0);
            AppPoint::new(format!("p{k}"), rate * 1e9, rate * 1e9 / ai, 1.0)
        })
        .collect();
    let apps = dir.join("apps.yaml");
    apps::add_points(&apps, points).unwrap();
    success(&carmbench_in(
        &["plot", FIXTURE, "--apps", "apps.yaml", "-o", "c.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    let all = texts(&svg);
    let named: Vec<_> = (all.iter())
        .filter(|t| t.0 < 1600 && t.4.starts_with('p') && t.4.contains(" G"))
        .collect();
    assert!(
        !named.is_empty() && named.len() < 300,
        "{} names drawn",
        named.len()
    );
    // Every point keeps its name in its tooltip.
    assert!(svg.contains("p4999 ("), "the last point's tooltip");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_program_points_to_the_roof_that_limits_it_and_the_report_says_what_to_do() {
    use carmbench::results::placement::place;
    let dir = tmpdir("chart-limits");
    // A program at a fifth of its roof at AI 0.2, and a function of it
    // (no arrow: the tables say the function's).
    let mut p = AppPoint::new("slowapp", 2e9, 1e10, 1.0);
    let (roof, at) = place(&fixture(), &p).unwrap().roof.unwrap();
    p.seconds = p.gflop_per_s() / (0.2 * at);
    let gain = at / p.gflop_per_s();
    let mut f = AppPoint::new("hot_fn", 1e9, 1e10, p.seconds / 2.0);
    f.of = Of::Function(FunctionInfo::new("slowapp", "slowapp", 0.5, 20));
    apps::add_points(&dir.join("apps.yaml"), vec![p, f]).unwrap();
    success(&carmbench_in(
        &["plot", FIXTURE, "--apps", "apps.yaml", "-o", "c.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    let tip = format!("slowapp: up to {gain:.2}x reaching the {roof}");
    assert!(svg.contains(&tip), "no arrow's tip '{tip}'");
    assert!(!svg.contains("hot_fn: up to"), "a function's arrow");
    // Its speed-up beside the head, in the plot.
    let label = format!("{gain:.1}x");
    assert!(
        texts(&svg).iter().any(|t| t.0 < 1600 && t.4 == label),
        "no label {label}"
    );
    // The report's rows: the program's reasons and the function's few
    // samples, in words.
    success(&carmbench_in(
        &["report", FIXTURE, "--apps", "apps.yaml", "-o", "r.html"],
        &dir,
    ));
    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(page.contains("What to do next"), "no advice column");
    assert!(
        page.contains(
            "<code>level_unknown</code> under the DRAM 2ld1st roof at its intensity, 20% of it"
        ),
        "{page}"
    );
    assert!(
        page.contains("<code>short_run</code> too short"),
        "the function's"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
