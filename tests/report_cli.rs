//! `carmbench report`: one self-contained page of one or more results
//! files, and bad input that leaves a page already there as it was.

use crate::common::*;

use carmbench::results::Document;
use std::path::Path;

fn save(doc: &Document, path: &Path) {
    std::fs::write(path, serde_yaml::to_string(doc).unwrap()).unwrap();
}

/// The page's text between `<tag` and the end of that element.
fn element<'a>(page: &'a str, open: &str) -> &'a str {
    let start = page
        .find(open)
        .unwrap_or_else(|| panic!("{open} in the page"));
    let close = format!(
        "</{}>",
        open.trim_start_matches('<')
            .split([' ', '>'])
            .next()
            .unwrap()
    );
    let end = page[start..].find(&close).unwrap() + start;
    &page[start..end]
}

#[test]
fn a_page_holds_machine_charts_every_roof_validation_and_apps() {
    let dir = tmpdir("report");
    let (html, doc, said) = rich_report(&dir);
    assert!(said.contains("wrote"));
    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: no script, style sheet, image or font from elsewhere;
    // the inline scripts are the function table's sort and the hover that
    // finds a row's point on the chart.
    for outside in [
        "<script src",
        "<link",
        "src=",
        "url(",
        "@import",
        "https://",
    ] {
        assert!(!page.contains(outside), "{outside}");
    }
    assert_eq!(page.matches("<script").count(), 2);
    assert!(page.len() < 1 << 20, "{} bytes", page.len());
    // The machine, with each cache.
    let machine = element(&page, "<section class=\"machine\"");
    assert!(machine.contains(&doc.cpu_name()));
    for c in &doc.machine.topology.caches {
        assert!(
            machine.contains(&format!("<td>{}</td>", c.name)),
            "{}",
            c.name
        );
    }
    // The CARM chart and the memory curve, inline, with tooltips.
    assert!(element(&page, "<section class=\"carm\"").contains("<svg"));
    let curve = element(&page, "<section class=\"curve\"");
    assert!(curve.contains("<svg") && curve.contains("<title>"));
    // Every roof in the table with its value and per-cycle value.
    let roofs = element(&page, "<table class=\"roofs\"");
    assert_eq!(roofs.matches("<tr>").count(), doc.roofs.len() + 1);
    for r in &doc.roofs {
        let unit = if r.level.is_some() { "GB/s" } else { "GFLOP/s" };
        assert!(
            roofs.contains(&format!("{:.1} {unit}", r.value())),
            "{}",
            r.label()
        );
        assert!(roofs.contains(&format!("{:.2} {}", r.per_cycle, r.unit_per_cycle())));
    }
    // Each flag's meaning once.
    for f in doc.roofs.iter().flat_map(|r| &r.flags) {
        assert!(page.contains(f.meaning()), "{f:?}");
    }
    // Validation: a row per sweep, the failure with its cause.
    let validation = element(&page, "<section class=\"validation\"");
    assert_eq!(
        validation.matches("<tr>").count() - validation.matches("<thead>").count(),
        doc.sweeps.len()
    );
    assert_eq!(validation.matches("class=\"failed\"").count(), 1);
    assert!(validation.contains("points sit above the memory roof"));
    assert!(page.contains("do not overlap on this core: 8.0 + 8.0 cycles take 15.2"));
    assert!(page.contains("with vector work beside the loads") && page.contains("(+25%)"));
    // Applications, their names as text, each placed under a roof.
    let apps = element(&page, "<section class=\"apps\"");
    assert!(apps.contains("stream-triad"));
    assert!(apps.contains("&lt;b&gt;dgemm&lt;/b&gt; &amp; co") && !apps.contains("<b>dgemm"));
    assert_eq!(apps.matches(" thread(s), ").count(), 2);
    // The functions in their own table, hottest first; one without
    // arithmetic placed by its bandwidth (8 GB/s against the level roofs);
    // one on few samples marked.
    let funcs = element(&page, "<section class=\"functions\"");
    let order: Vec<usize> = ["kernel_a", "pack", ">rest<"]
        .iter()
        .map(|n| funcs.find(n).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(
        funcs.contains(" bandwidth ") && funcs.contains("20.0%*"),
        "{funcs}"
    );
    assert!(!apps.contains("kernel_a"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn several_files_are_compared_on_one_page() {
    let dir = tmpdir("report2");
    let (a, b) = (dir.join("a.yaml"), dir.join("b.yaml"));
    let doc = rich_fixture();
    save(&doc, &a);
    let mut slower = doc.clone();
    for r in &mut slower.roofs {
        r.per_cycle /= 2.0;
        r.gb_per_s = r.gb_per_s.map(|v| v / 2.0);
        r.gflop_per_s = r.gflop_per_s.map(|v| v / 2.0);
        r.percent_of_theoretical = r.percent_of_theoretical.map(|v| v / 2.0);
    }
    save(&slower, &b);
    let out = carmbench(&["report", a.to_str().unwrap(), b.to_str().unwrap()]);
    success(&out);
    // Beside the first file by default.
    let page = std::fs::read_to_string(dir.join("carm.html")).unwrap();
    let compare = element(&page, "<section class=\"compare\"");
    assert!(compare.contains("a.yaml") && compare.contains("b.yaml"));
    assert!(
        compare.contains("<td class=\"n\">0.50</td>"),
        "ratios to the first"
    );
    // The overlaid chart names both files; each file has its own sections.
    assert!(
        element(&page, "<section class=\"carm\"")
            .matches("a.yaml")
            .count()
            >= 1
    );
    assert_eq!(page.matches("<section class=\"roofs\"").count(), 2);
    assert!(page.contains("Roofs: ") && page.contains("Machine: "));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_leaves_the_page_there_as_it_was() {
    let dir = tmpdir("report-bad");
    let html = dir.join("carm.html");
    std::fs::write(&html, "old").unwrap();
    let h = html.to_str().unwrap();
    let f = dir.join("r.yaml");
    save(&rich_fixture(), &f);
    let fs = f.to_str().unwrap();
    let missing = dir.join("missing.yaml");
    assert_input_error(
        &carmbench(&["report", missing.to_str().unwrap(), "-o", h]),
        &["missing.yaml"],
    );
    let damaged = dir.join("damaged.yaml");
    std::fs::write(
        &damaged,
        std::fs::read_to_string(&f)
            .unwrap()
            .replace("per_cycle: ", "per_cycle: -"),
    )
    .unwrap();
    assert_input_error(
        &carmbench(&["report", damaged.to_str().unwrap(), "-o", h]),
        &["damaged.yaml", "per_cycle"],
    );
    let apps = dir.join("apps.yaml");
    std::fs::write(
        &apps,
        "schema: 1\napplications:\n  - name: x\n    flops: -1\n    bytes: 1\n    seconds: 1\n",
    )
    .unwrap();
    assert_input_error(
        &carmbench(&["report", fs, "--apps", apps.to_str().unwrap(), "-o", h]),
        &["apps.yaml", "flops"],
    );
    // A folder in the way of the page: it cannot be written there.
    let taken = dir.join("taken.html");
    std::fs::create_dir(&taken).unwrap();
    assert_input_error(
        &carmbench(&["report", fs, "-o", taken.to_str().unwrap()]),
        &["taken.html", "-o"],
    );
    // A folder that does not exist yet is made.
    let new = dir.join("new/dir/carm.html");
    success(&carmbench(&["report", fs, "-o", new.to_str().unwrap()]));
    assert!(new.is_file());
    assert_eq!(std::fs::read_to_string(&html).unwrap(), "old");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn points_of_int8_work_are_drawn_under_the_int8_roofs() {
    let dir = tmpdir("report-int8");
    let results = with_an_int8_roof(&dir, 1000.0);
    std::fs::write(
        dir.join("apps.yaml"),
        "schema: 3\napplications:\n  - { name: int, flops: 8.0e9, bytes: 1.0e9, seconds: 1.0, precision: int8 }\n",
    )
    .unwrap();
    let out = carmbench_in(
        &[
            "report",
            results.to_str().unwrap(),
            "--apps",
            "apps.yaml",
            "-o",
            "r.html",
        ],
        &dir,
    );
    success(&out);
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    // The chart's INT8 roof and the point in ops; the DP roofs beside them
    // only when a point is of DP work.
    assert!(html.contains("<title>dot int8 "), "the INT8 roof drawn");
    assert!(html.contains("<title>int (8.00 op/B"), "the point in ops");
    assert!(!html.contains("<title>fma dp "));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_level_that_bounds_a_point_with_traffic_is_named() {
    let dir = tmpdir("report-traffic");
    std::fs::write(
        dir.join("apps.yaml"),
        "schema: 3\napplications:\n  - name: stream\n    flops: 1.0e9\n    bytes: 8.0e9\n    seconds: 1.0\n    traffic:\n      L2: { read: 8.0e9, write: 0 }\n      L3: { read: 8.0e9, write: 0 }\n      DRAM: { read: 8.0e9, write: 0 }\n      hits: [0, 0, 0]\n      model: simulated caches, no prefetcher simulated\n",
    )
    .unwrap();
    let out = carmbench_in(
        &["report", FIXTURE, "--apps", "apps.yaml", "-o", "r.html"],
        &dir,
    );
    success(&out);
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    // 1 GFLOP/s at AI 0.125 everywhere: 23 % of the DRAM roof (35.2 GB/s)
    // in requested bytes, 17 % of it in the bytes its own kernel moves
    // there (4/3 of them: its store's line read, then written back); nearer
    // its roof than any other level's dot.
    assert!(
        html.contains("DRAM 2ld1st roof (by its DRAM bytes)") && html.contains(">17%<"),
        "{html}"
    );
    assert!(html.contains("17 % of its roof"), "{html}");
    assert!(html.contains("no prefetcher simulated"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn points_with_their_bytes_read_and_written_get_both_rooflines() {
    let dir = tmpdir("report-sides");
    let write = |body: &str| std::fs::write(dir.join("apps.yaml"), body).unwrap();
    let report = || {
        let args = ["report", FIXTURE, "--apps", "apps.yaml", "-o", "r.html"];
        success(&carmbench_in(&args, &dir));
        std::fs::read_to_string(dir.join("r.html")).unwrap()
    };
    write(
        "schema: 11\napplications:\n  - { name: daxpy, flops: 2.0e9, bytes: 24.0e9, bytes_read: 16.0e9, bytes_written: 8.0e9, seconds: 1.0 }\n",
    );
    let html = report();
    // The table's read and write intensities, and a chart of each side
    // under its own roofs.
    assert!(html.contains("AI read / written") && html.contains(">0.125 / 0.250<"));
    assert!(html.contains("Reads and writes apart"));
    assert!(
        html.contains("<title>daxpy (0.12 flop/B") && html.contains("<title>daxpy (0.25 flop/B")
    );
    assert!(html.contains("<title>DRAM load ") && html.contains("<title>DRAM store "));
    // Counts given by hand: neither chart, the cell says so.
    write(
        "schema: 11\napplications:\n  - { name: daxpy, flops: 2.0e9, bytes: 24.0e9, seconds: 1.0 }\n",
    );
    let html = report();
    assert!(!html.contains("Reads and writes apart") && html.contains(">-<"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sized_regions_are_listed_by_series_in_size_order() {
    let dir = tmpdir("report-series");
    let apps = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sized-apps.yaml"
    );
    let args = ["report", FIXTURE, "--apps", apps, "-o", "r.html"];
    success(&carmbench_in(&args, &dir));
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(html.contains("<h2>Sized regions</h2>"));
    let rows: Vec<usize> = ["100000", "1000000", "4000000"]
        .iter()
        .map(|n| {
            let cell = format!("<td>blas/daxpy</td><td class=\"n\">{n}</td><td class=\"n\">5</td>");
            html.find(&cell).unwrap_or_else(|| panic!("daxpy at {n}"))
        })
        .collect();
    assert!(
        rows.windows(2).all(|w| w[0] < w[1]),
        "sizes in order: {rows:?}"
    );
    assert!(html.contains("<td>blas/dgemm</td><td class=\"n\">256</td>"));
    // Pseudo-flops: the series again with the formula's work, in the table
    // and on the chart; a series the file lacks is one line.
    let args = [
        "report",
        FIXTURE,
        "--apps",
        apps,
        "--work",
        "dgemm=2*n^3",
        "-o",
        "r.html",
    ];
    success(&carmbench_in(&args, &dir));
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(
        html.contains("<td>blas/dgemm (2*n^3)</td><td class=\"n\">256</td>"),
        "pseudo rows"
    );
    assert!(html.contains("<title>blas/dgemm (2*n^3) over its sizes, n = 128, 256"));
    let args = [
        "report", FIXTURE, "--apps", apps, "--work", "fft=n", "-o", "r.html",
    ];
    let out = carmbench_in(&args, &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("series there: daxpy, dgemm, dgemv"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
