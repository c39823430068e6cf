//! `carmbench plot`: labels and values in the SVG, filters, odd inputs.

use crate::common::*;

use carmbench::machine::Level;
use carmbench::results::{self, Document};
use std::path::Path;

/// An SVG chart's drawing and its tooltips (drawn last, over it).
fn split_tips(svg: &str) -> (&str, &str) {
    svg.split_once("<g class=\"tips\"")
        .expect("an SVG chart has its tooltips")
}

fn save(doc: &Document, path: &Path) {
    std::fs::write(path, serde_yaml::to_string(doc).unwrap()).unwrap();
}

#[test]
fn svg_holds_every_roof_label_and_value() {
    let dir = tmpdir("svg");
    let svg = dir.join("c.svg");
    let out = carmbench(&["plot", FIXTURE, "-o", svg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let whole = std::fs::read_to_string(&svg).unwrap();
    let (text, tips) = split_tips(&whole);
    let doc = fixture();
    let mut n = 0;
    for r in &doc.roofs {
        let shown = match (r.mix, r.op) {
            (Some(m), _) => m.name() == "2ld1st",
            (_, Some(o)) => ["fma_add", "fma", "add"].contains(&o.name()),
            _ => false,
        };
        if !shown {
            continue;
        }
        let value = format!("{:.1}", r.value());
        let label = match r.level {
            Some(l) => format!("{l} 2ld1st: {value} GB/s"),
            None => format!(": {value} GFLOP/s"),
        };
        assert!(text.contains(&label), "'{label}' in the SVG");
        // Its tooltip: value, per cycle, % of limit.
        let unit = if r.level.is_some() { "GB/s" } else { "GFLOP/s" };
        let tip = format!(
            "<title>{} {}: {value} {unit}, {:.2} ",
            r.label(),
            r.isa,
            r.per_cycle
        );
        assert!(tips.contains(&tip), "{tip}");
        if let Some(p) = r.percent_of_theoretical {
            assert!(tips.contains(&format!("{p:.1}% of limit")), "{p}");
        }
        assert!(
            text.contains(&format!("{:.1} ", r.per_cycle)),
            "per-cycle value of {}",
            r.label()
        );
        n += 1;
    }
    assert_eq!(
        n,
        2 * (4 + 3),
        "4 levels and 3 FP roofs for 1 and 2 threads"
    );
    // Each roof labelled once: beside its line or in the key, not both.
    assert_eq!(text.matches(" B/cycle").count(), 2 * 4);
    assert_eq!(text.matches(" flop/cycle").count(), 2 * 3);
    assert!(
        text.contains("AMD EPYC") && text.contains("AVX512 DP"),
        "title names CPU, ISA, precision"
    );
    assert!(text.contains("Arithmetic intensity"));
    // PNG too, with its text rendered from a real font.
    let png = dir.join("c.png");
    let out = carmbench(&[
        "plot",
        FIXTURE,
        "-o",
        png.to_str().unwrap(),
        "--threads",
        "1",
        "--mix",
        "load",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_filter_values_list_the_available_ones() {
    for (flag, value, avail) in [
        ("--isa", "sse", "avx512"),
        ("--mix", "1ld1st", "2ld1st"),
        ("--precision", "sp", "dp"),
        ("--ops", "sqrt", "fma_add"),
        ("--threads", "64", "1, 2"),
    ] {
        let out = carmbench(&["plot", FIXTURE, "-o", "/tmp/never.svg", flag, value]);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {e}");
        assert!(
            e.contains(value) && e.contains(avail),
            "{flag} {value}: {e}"
        );
        assert_eq!(e.trim_end().lines().count(), 1);
    }
}

#[test]
fn odd_results_give_a_chart_or_a_clear_error() {
    let dir = tmpdir("odd");
    let base = fixture();
    // Only one level and no compute roof: sloped line only.
    let mut one = base.clone();
    one.roofs
        .retain(|r| r.level == Some(Level::L1) && r.threads == 1);
    // Only compute roofs.
    let mut fp = base.clone();
    fp.roofs.retain(|r| r.op.is_some());
    for (name, doc) in [("one", &one), ("fp", &fp)] {
        let f = dir.join(format!("{name}.yaml"));
        save(doc, &f);
        for ext in ["svg", "png"] {
            let o = dir.join(format!("{name}.{ext}"));
            let out = carmbench(&["plot", f.to_str().unwrap(), "-o", o.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(0), "{name}.{ext}: {}", stderr(&out));
            assert!(o.metadata().unwrap().len() > 1000);
        }
    }
    // Nothing drawable, or a damaged value: clear errors.
    let mut empty = base.clone();
    empty.roofs.clear();
    let mut zero = base.clone();
    for r in &mut zero.roofs {
        r.gb_per_s = r.gb_per_s.map(|_| 0.0);
        r.gflop_per_s = r.gflop_per_s.map(|_| f64::NAN);
    }
    let mut nan = base.clone();
    nan.roofs[0].gb_per_s = Some(f64::NAN);
    for (name, doc, needle) in [
        ("empty", &empty, "no roofs"),
        ("zero", &zero, "gb_per_s is 0, it must be a positive number"),
        ("nan", &nan, "gb_per_s is NaN"),
    ] {
        let f = dir.join(format!("{name}.yaml"));
        save(doc, &f);
        let out = carmbench(&[
            "plot",
            f.to_str().unwrap(),
            "-o",
            dir.join("x.svg").to_str().unwrap(),
        ]);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {e}");
        assert!(e.contains(needle) && !e.contains("panicked"), "{name}: {e}");
    }
    // Unknown output extension, missing file.
    let out = carmbench(&["plot", FIXTURE, "-o", dir.join("c.jpg").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(".svg or .png"));
    let out = carmbench(&["plot", "/nonexistent/carm.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/carm.yaml"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn several_files_overlay_and_apps_are_drawn() {
    let dir = tmpdir("overlay");
    let apps = dir.join("apps.yaml");
    std::fs::write(
        &apps,
        "schema: 1\napplications:\n  - name: stream-triad\n    flops: 2.0e9\n    bytes: 24.0e9\n    seconds: 0.8\n  - name: dgemm\n    flops: 2.0e11\n    bytes: 1.0e10\n    seconds: 2.0\n",
    )
    .unwrap();
    let svg = dir.join("o.svg");
    let out = carmbench(&[
        "plot",
        FIXTURE,
        FIXTURE,
        "--threads",
        "1",
        "--apps",
        apps.to_str().unwrap(),
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t = std::fs::read_to_string(&svg).unwrap();
    assert!(t.contains("stream-triad") && t.contains("dgemm"));
    assert!(
        t.contains("fixtures/zen5-avx512.yaml, avx512, 1 thread"),
        "series named by file"
    );
    std::fs::write(
        &apps,
        "schema: 1\napplications:\n  - name: bad\n    flops: 0\n    bytes: 1\n    seconds: 1\n",
    )
    .unwrap();
    let out = carmbench(&[
        "plot",
        FIXTURE,
        "--apps",
        apps.to_str().unwrap(),
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("'bad'") && stderr(&out).contains("flops"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn validation_points_of_each_thread_count_have_their_own_marker() {
    let dir = tmpdir("vpoints");
    let f = dir.join("r.yaml");
    let mut doc = fixture();
    doc.validation.clear();
    let point = validation_point;
    let svg = dir.join("c.svg");
    let plot = |doc: &Document, extra: &[&str]| {
        save(doc, &f);
        let mut args = vec!["plot", f.to_str().unwrap(), "-o", svg.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = carmbench(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let whole = std::fs::read_to_string(&svg).unwrap();
        let (text, tips) = split_tips(&whole);
        let n = (
            text.matches("<circle").count(),
            text.matches("<rect").count(),
        );
        // A tooltip per validation point shown.
        for p in doc
            .validation
            .iter()
            .filter(|p| extra.is_empty() || p.threads == 1)
        {
            assert!(
                tips.contains(&format!(
                    "at {:.3} flop/byte: {:.1} GFLOP/s",
                    p.ai, p.gflop_per_s
                )),
                "{p:?}"
            );
        }
        (text.to_string(), n)
    };
    let (_, (c0, r0)) = plot(&doc, &[]);
    doc.validation = vec![point(1, 0.5), point(1, 1.0), point(2, 0.5)];
    // Both thread counts: a legend line each; circles for 1 thread (2
    // points and the legend's), squares for 2 (1 point and the legend's),
    // each drawn as a fill and a frame.
    let (both, (c, r)) = plot(&doc, &[]);
    assert!(
        both.contains("validation points, 1 thread (colour: level)"),
        "legend"
    );
    assert!(
        both.contains("validation points, 2 threads (colour: level)"),
        "legend"
    );
    assert_eq!((c - c0, r - r0), (2 * 3, 2 * 2));
    // One thread alone: one legend line, circles only.
    let (one, _) = plot(&doc, &["--threads", "1"]);
    assert!(one.contains("validation points (colour: level)"), "legend");
    assert!(!one.contains("validation points, 1 thread"));
    // A core that overlaps that mix's stores and FMAs only in part: the
    // expected values are drawn as thin lines (one segment between the two
    // 1-thread points, one in the legend), and named in the legend.
    let thin = |svg: &str| svg.matches("stroke-width=\"1\" points=").count();
    let expected = "expected where the core overlaps memory and FP units in part";
    assert!(!one.contains(expected));
    doc.coissue = vec![results::CoIssue {
        isa: carmbench::machine::isa::Isa::Avx512,
        precision: carmbench::kernels::Precision::Dp,
        mix: carmbench::kernels::Mix::TwoLdOneSt,
        op: carmbench::kernels::Op::Fma,
        j: 8,
        k: 16,
        memory_cycles: 8.0,
        fp_cycles: 8.0,
        both_cycles: 15.2,
    }];
    let (partial, _) = plot(&doc, &["--threads", "1"]);
    assert!(partial.contains(expected), "legend");
    assert_eq!(thin(&partial) - thin(&one), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plot_curve_draws_the_curve_its_caches_and_roofs_or_says_there_is_none() {
    let dir = tmpdir("curve");
    let f = dir.join("r.yaml");
    let svg = dir.join("curve.svg");
    // Without a curve: one clear line, exit 2, nothing written.
    let out = carmbench(&["plot", FIXTURE, "--curve", "-o", svg.to_str().unwrap()]);
    assert_input_error(&out, &["hold no memory curve", "carmbench run"]);
    assert!(!svg.exists());
    // Curves of the load mix from the fixture's own roof sizes, 1 thread.
    let mut doc = fixture();
    let mut points: Vec<results::CurvePoint> = doc
        .roofs
        .iter()
        .filter(|r| r.threads == 1 && r.mix == Some(carmbench::kernels::Mix::Load))
        .flat_map(|r| {
            // Files of that version kept each size's median only.
            r.sizes.iter().map(|s| results::CurvePoint {
                bytes_per_thread: s.bytes_per_thread,
                gb_per_s: s.median,
                per_cycle: s.median / r.clock_ghz,
                level: r.level.unwrap(),
            })
        })
        .collect();
    points.sort_by_key(|p| p.bytes_per_thread);
    let n = points.len();
    assert!(n >= 9, "{n} sizes in the fixture");
    let isa = doc.roofs[0].isa;
    doc.curves = vec![results::Curve {
        isa,
        mix: carmbench::kernels::Mix::Load,
        threads: 1,
        points,
    }];
    save(&doc, &f);
    let out = carmbench(&[
        "plot",
        f.to_str().unwrap(),
        "--curve",
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let whole = std::fs::read_to_string(&svg).unwrap();
    let (text, tips) = split_tips(&whole);
    assert!(text.contains("Memory curve"), "title");
    // Every cache hwloc reported, by name and size.
    for c in &doc.machine.topology.caches {
        let label = format!("{} {}", c.name, carmbench::units::human_bytes(c.size_bytes));
        assert!(text.contains(&label), "{label}");
    }
    assert!(text.contains(&format!("{isa} load, 1 thread(s)")), "legend");
    // One marker per size; a bar per 1-thread bandwidth roof of the ISA.
    assert_eq!(text.matches("<circle").count(), n);
    let roofs = doc
        .roofs
        .iter()
        .filter(|r| r.threads == 1 && r.isa == isa && r.level.is_some() && !r.sizes.is_empty())
        .count();
    assert_eq!(text.matches("stroke-width=\"6\"").count(), roofs);
    // A tooltip per size and per roof bar.
    assert_eq!(tips.matches("<title>").count(), n + roofs);
    assert!(tips.contains(" per thread (L1): "), "{tips}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The numbers of `attr="..."` in an SVG element.
fn attr(el: &str, name: &str) -> Option<f64> {
    let at = el.find(&format!(" {name}=\""))? + name.len() + 3;
    el[at..].split('"').next()?.parse().ok()
}

/// The legend and the roof key never cover a roof or a point: on the data
/// files of an Emerald Rapids Xeon and a Zen 5, every box lies clear of every
/// roof segment (sampled along its length) and every marker.
#[test]
fn no_legend_box_covers_a_roof_or_a_point() {
    let dir = tmpdir("legend");
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
    for name in ["emr-xeon-2core.yaml", "zen5-epyc-2core.yaml"] {
        let svg_path = dir.join("c.svg");
        let input = format!("{fixtures}{name}");
        success(&carmbench(&[
            "plot",
            &input,
            "-o",
            svg_path.to_str().unwrap(),
        ]));
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        let elements: Vec<&str> = svg.split('<').collect();
        // The boxes: white, nearly opaque rectangles (canvas::draw_box).
        let boxes: Vec<[f64; 4]> = elements
            .iter()
            .filter(|e| e.starts_with("rect") && e.contains("opacity=\"0.92\""))
            .map(|e| {
                let (x, y) = (attr(e, "x").unwrap(), attr(e, "y").unwrap());
                [
                    x,
                    y,
                    x + attr(e, "width").unwrap(),
                    y + attr(e, "height").unwrap(),
                ]
            })
            .collect();
        assert_eq!(boxes.len(), 2, "{name}: a legend and a key");
        let inside = |(x, y): (f64, f64), pad: f64| {
            boxes
                .iter()
                .any(|b| x > b[0] - pad && x < b[2] + pad && y > b[1] - pad && y < b[3] + pad)
        };
        let mut segments = 0;
        for e in elements
            .iter()
            .filter(|e| e.starts_with("polyline") && e.contains("stroke-width=\"3\""))
        {
            let at = e.find("points=\"").unwrap() + 8;
            let pts: Vec<(f64, f64)> = e[at..]
                .split('"')
                .next()
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            // A legend's own sample line lies inside its box.
            if pts.iter().all(|&p| inside(p, 0.0)) {
                continue;
            }
            segments += 1;
            for w in pts.windows(2) {
                for k in 0..=100 {
                    let t = f64::from(k) / 100.0;
                    let p = (
                        w[0].0 + t * (w[1].0 - w[0].0),
                        w[0].1 + t * (w[1].1 - w[0].1),
                    );
                    assert!(!inside(p, 1.0), "{name}: a box covers the roof line {e}");
                }
            }
        }
        assert!(segments >= 20, "{name}: {segments} roof segments drawn");
        let mut markers = 0;
        for e in elements.iter().filter(|e| e.starts_with("circle")) {
            let c = (attr(e, "cx").unwrap(), attr(e, "cy").unwrap());
            if inside(c, 0.0) {
                continue; // the legend's own marker
            }
            markers += 1;
            assert!(
                !inside(c, attr(e, "r").unwrap()),
                "{name}: a box covers the point {e}"
            );
        }
        assert!(markers >= 20, "{name}: {markers} markers");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn several_precisions_share_one_chart_and_the_apps_pick_them() {
    let dir = tmpdir("precisions");
    let results = with_an_int8_roof(&dir, 1000.0);
    let r = results.to_str().unwrap();
    let plot = |args: &[&str]| {
        let mut all = vec!["plot", r, "-o", "c.svg"];
        all.extend_from_slice(args);
        success(&carmbench_in(&all, &dir));
        std::fs::read_to_string(dir.join("c.svg")).unwrap()
    };
    // Both precisions' compute roofs over the same memory roofs, both units
    // on the axis, both in the title.
    let svg = plot(&["--precision", "dp,int8"]);
    for want in [
        "<title>dot int8 ",
        "<title>fma dp ",
        "<title>L1 2ld1st ",
        "Performance (GFLOP/s, GOP/s)",
        "DP + INT8",
    ] {
        assert!(svg.contains(want), "{want}");
    }
    // One precision: only its roofs.
    let svg = plot(&["--precision", "int8"]);
    assert!(svg.contains("<title>dot int8 ") && !svg.contains("<title>fma dp "));
    assert!(svg.contains("Performance (GOP/s)"));
    // Points of both kinds of work draw both without being asked.
    std::fs::write(
        dir.join("apps.yaml"),
        "schema: 3\napplications:\n  - { name: fp, flops: 2.0e9, bytes: 1.0e9, seconds: 1.0 }\n  - { name: int, flops: 8.0e9, bytes: 1.0e9, seconds: 1.0, precision: int8 }\n",
    )
    .unwrap();
    let svg = plot(&["--apps", "apps.yaml"]);
    assert!(svg.contains("<title>dot int8 ") && svg.contains("<title>fma dp "));
    // A precision the results lack is named, with what they have.
    let out = carmbench_in(&["plot", r, "--precision", "dp,bf16", "-o", "x.svg"], &dir);
    assert_input_error(&out, &["bf16", "available"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_point_with_traffic_gets_a_dot_at_each_level() {
    let dir = tmpdir("levels");
    std::fs::write(
        dir.join("apps.yaml"),
        "schema: 3\napplications:\n  - name: stream\n    flops: 1.0e9\n    bytes: 8.0e9\n    seconds: 1.0\n    traffic:\n      L2: { read: 8.0e9, write: 0 }\n      L3: { read: 8.0e9, write: 8.0e9 }\n      DRAM: { read: 4.0e9, write: 0 }\n      hits: [0, 0, 0]\n      model: simulated\n",
    )
    .unwrap();
    let out = carmbench_in(
        &["plot", FIXTURE, "--apps", "apps.yaml", "-o", "c.svg"],
        &dir,
    );
    success(&out);
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    // W over each level's bytes: L2 8e9, L3 16e9 (both ways), DRAM 4e9.
    for want in [
        "<title>stream at L2: 7.45 GiB moved, 0.125 flop/B",
        "<title>stream at L3: 14.90 GiB moved, 0.062 flop/B",
        "<title>stream at DRAM: 3.73 GiB moved, 0.250 flop/B",
        "the same at each level",
    ] {
        assert!(svg.contains(want), "{want}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn intensity_read_and_write_draw_each_side_under_its_own_roofs() {
    let dir = tmpdir("sides");
    std::fs::write(
        dir.join("apps.yaml"),
        "schema: 11\napplications:\n  - name: daxpy\n    flops: 2.0e9\n    bytes: 24.0e9\n    bytes_read: 16.0e9\n    bytes_written: 8.0e9\n    seconds: 1.0\n  - name: by-hand\n    flops: 1.0e9\n    bytes: 1.0e9\n    seconds: 1.0\n",
    )
    .unwrap();
    let plot = |side: &str| {
        let args = [
            "plot",
            FIXTURE,
            "--apps",
            "apps.yaml",
            "--intensity",
            side,
            "-o",
            "c.svg",
        ];
        let out = carmbench_in(&args, &dir);
        success(&out);
        (
            std::fs::read_to_string(dir.join("c.svg")).unwrap(),
            stderr(&out),
        )
    };
    // W over the bytes read (2/16), under the load roofs alone.
    let (svg, err) = plot("read");
    assert!(svg.contains("<title>daxpy (0.12 flop/B"), "read intensity");
    assert!(svg.contains("per byte read by the core"));
    assert!(svg.contains("<title>DRAM load ") && !svg.contains("<title>DRAM 2ld1st "));
    // A point whose bytes were given by hand is said, not drawn.
    assert!(!svg.contains("<title>by-hand"));
    assert!(
        err.contains("by-hand has no bytes read and written apart"),
        "{err}"
    );
    // W over the bytes written (2/8), under the store roofs.
    let (svg, _) = plot("write");
    assert!(svg.contains("<title>daxpy (0.25 flop/B"), "write intensity");
    assert!(svg.contains("per byte written by the core"));
    assert!(svg.contains("<title>DRAM store ") && !svg.contains("<title>DRAM load "));
    // Both together, as before.
    let out = carmbench_in(
        &["plot", FIXTURE, "--apps", "apps.yaml", "-o", "c.svg"],
        &dir,
    );
    success(&out);
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(
        svg.contains("<title>daxpy (0.083 flop/B") || svg.contains("<title>daxpy (0.08 flop/B")
    );
    let out = carmbench_in(
        &[
            "plot",
            FIXTURE,
            "--apps",
            "apps.yaml",
            "--intensity",
            "both",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("give read or write"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sized_regions_are_drawn_as_a_line_through_their_sizes() {
    let dir = tmpdir("series");
    let apps = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sized-apps.yaml"
    );
    let plot = |more: &[&str]| {
        let mut args = vec!["plot", FIXTURE, "--apps", apps, "-o", "c.svg"];
        args.extend_from_slice(more);
        carmbench_in(&args, &dir)
    };
    success(&plot(&[]));
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    // One line per series, its sizes in order; each point its own label.
    for want in [
        "<title>blas/daxpy over its sizes, n = 100000, 1000000, 4000000",
        "<title>blas/dgemv over its sizes, n = 500, 1000",
        "<title>blas/dgemm over its sizes, n = 128, 256",
        "a line through each one",
        "<title>blas/daxpy n=4000000 (",
    ] {
        assert!(svg.contains(want), "{want}");
    }
    // One series alone.
    success(&plot(&["--series", "dgemv"]));
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(svg.contains("<title>blas/dgemv over its sizes"));
    assert!(!svg.contains("<title>blas/daxpy") && !svg.contains("<title>blas ("));
    // A series the file lacks: one line naming those it has.
    let out = plot(&["--series", "fft"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("series there: daxpy, dgemm, dgemv"),
        "{}",
        stderr(&out)
    );
    // Pseudo-flops: the series again with the formula's work for its calls.
    success(&plot(&["--series", "daxpy", "--work", "daxpy=4*n"]));
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(svg.contains("<title>blas/daxpy (4*n) over its sizes, n = 100000, 1000000, 4000000"));
    // 4 n flops a call, 5 calls, over 1.2e8 bytes in 2 ms at n = 10^6.
    assert!(
        svg.contains("<title>blas/daxpy n=1000000 (4*n) (0.17 flop/B, 10.0 GFLOP/s)"),
        "pseudo point"
    );
    assert!(
        svg.contains("<title>blas/daxpy n=1000000 (0.08 flop/B, 5.0 GFLOP/s)"),
        "measured beside it"
    );
    for (bad, says) in [
        ("daxpy=2*m", "'m' is neither n"),
        (
            "fft=5*n*log2(n)",
            "--work fft=5*n*log2(n): no sized region named fft",
        ),
    ] {
        let out = plot(&["--work", bad]);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An MPI program's apps file: its point, two ranks (rank 1 with most of
/// its bytes in the MPI runtime), a region with its spread, a failed rank.
const MPI_APPS: &str = "schema: 5
applications:
  - name: solver
    flops: 3.0e9
    bytes: 6.0e9
    seconds: 2.0
    threads: 2
    mpi: { launcher: \"Open MPI's mpirun\", ranks: 2, slowest: 1, nodes: 2, failed: [{ rank: 2, why: 'was stopped by signal 11 (SIGSEGV)' }] }
  - name: solver/halo
    flops: 1.0e9
    bytes: 2.0e9
    seconds: 1.5
    spread: { seconds: { min: 0.5, median: 0.75, max: 1.0, min_rank: 0, max_rank: 1 }, work: { min: 5.0e8, median: 5.0e8, max: 5.0e8, min_rank: 0, max_rank: 1 } }
  - name: solver/rank0
    flops: 1.0e9
    bytes: 2.0e9
    seconds: 1.8
    threads: 1
    rank: { program: solver, rank: 0, host: node-a, runtime: { flops: 0.0, bytes: 1.0e8 } }
  - name: solver/rank1
    flops: 2.0e9
    bytes: 4.0e9
    seconds: 2.0
    threads: 1
    rank: { program: solver, rank: 1, host: node-b, runtime: { flops: 0.0, bytes: 2.0e9 } }
";

#[test]
fn an_mpi_programs_ranks_are_drawn_on_request_and_listed_in_the_report() {
    let dir = tmpdir("mpi-ranks");
    std::fs::write(dir.join("apps.yaml"), MPI_APPS).unwrap();
    let svg = |more: &[&str]| {
        let mut args = vec!["plot", FIXTURE, "--apps", "apps.yaml", "-o", "c.svg"];
        args.extend_from_slice(more);
        success(&carmbench_in(&args, &dir));
        std::fs::read_to_string(dir.join("c.svg")).unwrap()
    };
    let plain = svg(&[]);
    assert!(plain.contains("solver (") && !plain.contains("solver/rank1"));
    // Over two nodes: drawn per node, 0.75 of its 1.5 GFLOP/s.
    assert!(
        plain.contains("solver (0.50 flop/B, 0.8 GFLOP/s per node of 2)"),
        "{plain}"
    );
    let ranks = svg(&["--ranks"]);
    assert!(ranks.contains("solver/rank0") && ranks.contains("solver/rank1"));
    success(&carmbench_in(
        &["report", FIXTURE, "--apps", "apps.yaml", "-o", "r.html"],
        &dir,
    ));
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    let at = html.find("MPI ranks").expect("a ranks section");
    let section = &html[at..];
    for want in [
        "node-a",
        "node-b",
        "T is rank 1",
        "Rank 2 was stopped by signal 11",
    ] {
        assert!(section.contains(want), "{want}");
    }
    // Rank 1's runtime share of its Q: 2e9 of 4e9.
    assert!(section.contains(">50%<"), "{section}");
}

/// `carmbench ARGS` in `dir` with the system's fonts hidden (a mount
/// namespace with an empty `/usr/share/fonts`); `None` (said in a line)
/// where this machine makes no namespace: it needs root or user
/// namespaces, which no package brings.
fn without_fonts(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
    if !Path::new("/usr/share/fonts").exists() {
        // No fonts to hide.
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
            .args(args)
            .current_dir(dir)
            .env_remove("CARMBENCH_FONT")
            .output();
        return Some(o.unwrap());
    }
    let hide = "mount -t tmpfs none /usr/share/fonts && exec \"$@\"";
    let ns = std::process::Command::new("unshare")
        .args(["-rm", "sh", "-c", hide, "sh", "true"])
        .output();
    if !ns.is_ok_and(|o| o.status.success()) {
        println!("skipped: no user and mount namespace here (unshare -rm) to hide the fonts");
        return None;
    }
    let o = std::process::Command::new("unshare")
        .args([
            "-rm",
            "sh",
            "-c",
            hide,
            "sh",
            env!("CARGO_BIN_EXE_carmbench"),
        ])
        .args(args)
        .current_dir(dir)
        .env_remove("CARMBENCH_FONT")
        .output()
        .unwrap();
    Some(o)
}

#[test]
fn charts_and_curves_are_drawn_with_their_text_where_no_font_is_installed() {
    let dir = tmpdir("no-fonts");
    let vm = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/emr-xeon-16vcpu-vm.yaml");
    let vm = vm.to_str().unwrap();
    for (args, file) in [
        (vec!["plot", vm, "-o", "c.svg"], "c.svg"),
        (vec!["plot", vm, "-o", "c.png"], "c.png"),
        (vec!["plot", vm, "--curve", "-o", "cu.svg"], "cu.svg"),
        (vec!["plot", vm, "--curve", "-o", "cu.png"], "cu.png"),
    ] {
        let Some(o) = without_fonts(&dir, &args) else {
            return;
        };
        success(&o);
        assert!(dir.join(file).exists(), "{file}: {}", stderr(&o));
    }
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert!(
        svg.contains("<text") && svg.contains("L1"),
        "no text in the SVG"
    );
    // The PNG's text is the carried font's: the same pixels as with that
    // file named, others with another font.
    let carried = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/fonts/DejaVuSans.ttf");
    let bold = dir.join("bold.ttf");
    let base = carmbench::chart::font::CANDIDATES[0].replace(".ttf", "-Bold.ttf");
    for (font, png, same) in [
        (carried, "named.png", true),
        (bold.clone(), "bold.png", false),
    ] {
        if !same && std::fs::copy(&base, &bold).is_err() {
            continue;
        }
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
            .args(["plot", vm, "-o", png])
            .env("CARMBENCH_FONT", &font)
            .current_dir(&dir)
            .output()
            .unwrap();
        success(&o);
        let a = std::fs::read(dir.join("c.png")).unwrap();
        assert_eq!(a == std::fs::read(dir.join(png)).unwrap(), same, "{png}");
    }
    // `run` writes its charts and curve too.
    let run = [
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
        "--threads",
        "1",
        "-o",
        "r",
    ];
    success(&without_fonts(&dir, &run).unwrap());
    for f in ["carm.svg", "carm.png", "carm-curve.svg", "carm-curve.png"] {
        assert!(dir.join("r").join(f).exists(), "{f}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// 100,000 programs: the chart and the report in seconds, not the
/// minutes a label placer or an advice that scans every point for each
/// point takes (the bound is a slow machine's many times that).
#[test]
fn a_hundred_thousand_points_plot_and_report_in_seconds() {
    let dir = tmpdir("plot-100k");
    let mut text = String::from("schema: 10\napplications:\n");
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    for i in 0..100_000 {
        let (f, b, s) = (
            10f64.powf(6.0 + 5.0 * next()),
            10f64.powf(6.0 + 5.0 * next()),
            10f64.powf(-3.0 + 4.0 * next()),
        );
        text +=
            &format!("  - name: p{i}\n    flops: {f:e}\n    bytes: {b:e}\n    seconds: {s:e}\n");
    }
    std::fs::write(dir.join("apps.yaml"), text).unwrap();
    for (cmd, out) in [("plot", "c.png"), ("report", "r.html")] {
        let t = std::time::Instant::now();
        success(&carmbench_in(
            &[cmd, FIXTURE, "--apps", "apps.yaml", "-o", out],
            &dir,
        ));
        let s = t.elapsed().as_secs_f64();
        assert!(s < 60.0, "{cmd} of 100,000 points took {s:.1} s");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
