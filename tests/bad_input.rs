//! Bad input, one test a kind, found by about 390 bad-input probes: every
//! one is one line and exit status 2 with nothing written lost, or shown
//! right. The fleet's are in `fleet_cli.rs`, Ctrl-C's in `run_cli.rs`.

use crate::common::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The fixture: a Zen 5 with roofs of 1 and 2 threads, AVX-512 only.
fn zen5() -> &'static str {
    FIXTURE
}

/// An apps file with one point.
fn apps_file(dir: &Path, name: &str, body: &str) -> PathBuf {
    let f = dir.join(name);
    std::fs::write(&f, format!("schema: 1\napplications:\n- {body}\n")).unwrap();
    f
}

/// Run carmbench, killed after `limit`: a hang fails the test instead of
/// stalling the suite.
fn within(limit: Duration, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("carmbench {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Bad input, and nothing on standard output before the error.
fn refused(out: &Output, needles: &[&str]) {
    assert_input_error(out, needles);
    assert!(
        out.stdout.is_empty(),
        "printed before the error: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `carmbench profile --counts manual --flops W --bytes Q OPTIONS -- COMMAND`.
fn profile(w: &str, q: &str, options: &[&str], command: &[&str]) -> Output {
    let mut a = vec!["profile", "--counts", "manual", "--flops", w, "--bytes", q];
    a.extend(options);
    a.push("--");
    a.extend(command);
    carmbench(&a)
}

#[test]
fn profile_results_that_cannot_be_read_are_refused_before_the_program_runs() {
    let dir = tmpdir("d04");
    let marker = dir.join("ran");
    let out = dir.join("apps.yaml");
    let damaged = dir.join("damaged.yaml");
    std::fs::write(&damaged, "schema: 1\nroofs: [").unwrap();
    for (results, needle) in [
        (dir.join("missing.yaml"), "missing.yaml"),
        (damaged.clone(), "damaged.yaml"),
    ] {
        let o = profile(
            "1e9",
            "1e9",
            &["--results", s(&results), "-o", s(&out)],
            &["/usr/bin/touch", s(&marker)],
        );
        refused(&o, &[needle]);
        assert!(!marker.exists(), "the program did not run");
        assert!(!out.exists(), "no apps file");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn thread_counts_and_files_asked_for_are_used_or_said() {
    let dir = tmpdir("d05");
    // predict --app uses each application's threads; one not measured is said.
    let two = apps_file(
        &dir,
        "two.yaml",
        "{name: t2, flops: 1.0e9, bytes: 1.0e9, seconds: 1.0, threads: 2}",
    );
    let text = success(&carmbench(&["predict", "--app", s(&two), "--on", zen5()]));
    assert!(text.contains("avx512, 2 thr)"), "{text}");
    let eight = apps_file(
        &dir,
        "eight.yaml",
        "{name: t8, flops: 1.0e9, bytes: 1.0e9, seconds: 1.0, threads: 8}",
    );
    let text = success(&carmbench(&["predict", "--app", s(&eight), "--on", zen5()]));
    assert!(
        text.contains("2 thr (it ran 8 thread(s), which were not measured))"),
        "{text}"
    );
    refused(
        &carmbench(&[
            "predict",
            "--app",
            s(&two),
            "--fma-flops",
            "1",
            "--on",
            zen5(),
        ]),
        &["--fma-flops goes with --flops and --bytes"],
    );
    // report and plot say when an application's threads were not measured.
    let html = dir.join("r.html");
    success(&carmbench(&[
        "report",
        zen5(),
        "--apps",
        s(&eight),
        "-o",
        s(&html),
    ]));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("its 8 thread(s) were not measured"), "report");
    let o = carmbench(&[
        "plot",
        zen5(),
        "--apps",
        s(&eight),
        "-o",
        s(&dir.join("c.svg")),
    ]);
    assert!(
        stderr(&o).contains("t8 ran 8 thread(s), whose roofs are not drawn"),
        "{}",
        stderr(&o)
    );
    // plot A B: a file without the ISA or thread count asked for is named.
    let mut one_thread = carmbench::results::load(Path::new(zen5())).unwrap();
    one_thread.roofs.retain(|r| r.threads == 1);
    let one = dir.join("one-thread.yaml");
    std::fs::write(&one, serde_yaml::to_string(&one_thread).unwrap()).unwrap();
    refused(
        &carmbench(&[
            "plot",
            zen5(),
            s(&one),
            "--threads",
            "2",
            "-o",
            s(&dir.join("x.svg")),
        ]),
        &[
            "one-thread.yaml has no avx512 roofs with 2 thread(s)",
            "avx512 with 1 thread(s)",
        ],
    );
    let mut other = carmbench::results::load(Path::new(zen5())).unwrap();
    for r in &mut other.roofs {
        r.isa = carmbench::machine::isa::Isa::Avx2;
    }
    let avx2 = dir.join("avx2.yaml");
    std::fs::write(&avx2, serde_yaml::to_string(&other).unwrap()).unwrap();
    refused(
        &carmbench(&[
            "plot",
            zen5(),
            s(&avx2),
            "--isa",
            "avx512",
            "-o",
            s(&dir.join("x.svg")),
        ]),
        &[
            "avx2.yaml has no avx512 roofs with 1 thread(s)",
            "avx2 with 1, 2 thread(s)",
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flags_that_would_change_nothing_are_refused() {
    let dir = tmpdir("d05-flags");
    // compare: flags that would change nothing.
    refused(
        &carmbench(&["compare", zen5(), zen5(), "--threads", "99"]),
        &["--threads chooses the roofs of the chart"],
    );
    refused(
        &carmbench(&[
            "compare",
            zen5(),
            zen5(),
            "--threads",
            "99",
            "-o",
            s(&dir.join("x.svg")),
        ]),
        &["no roofs with 99 thread(s)", "it has 1, 2"],
    );
    refused(
        &carmbench(&["compare", zen5(), zen5(), "--ai", "1"]),
        &["--ai is for the quadrant chart; add --quadrant"],
    );
    // kernel --shape on a kernel without one; profile --threads past the machine.
    refused(
        &carmbench(&["kernel", "scalar_load", "--shape", "2,2"]),
        &["--shape is for the validation kernels"],
    );
    refused(
        &profile(
            "1",
            "1",
            &["--threads", "100000", "-o", s(&dir.join("a.yaml"))],
            &["/bin/true"],
        ),
        &["--threads is 100000", "hardware threads"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_results_checker_refuses_levels_and_threads_the_machine_lacks() {
    let dir = tmpdir("d06");
    let mut d = carmbench::results::load(Path::new(zen5())).unwrap();
    let i = d.roofs.iter().position(|r| r.level.is_some()).unwrap();
    d.roofs[i].level = Some(carmbench::machine::Level::Cache(7));
    let f = dir.join("l7.yaml");
    std::fs::write(&f, serde_yaml::to_string(&d).unwrap()).unwrap();
    refused(
        &carmbench(&["plot", s(&f)]),
        &["level is L7", "does not have"],
    );
    let mut d = carmbench::results::load(Path::new(zen5())).unwrap();
    d.roofs[0].threads = 64;
    std::fs::write(&f, serde_yaml::to_string(&d).unwrap()).unwrap();
    refused(
        &carmbench(&["plot", s(&f)]),
        &["threads is 64", "more than the machine's 2 cores"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn counts_whose_ratio_overflows_are_refused_not_drawn_forever() {
    let dir = tmpdir("d07");
    let limit = Duration::from_secs(10);
    for body in [
        "{name: tiny, flops: 1.0e9, bytes: 1.0e-300, seconds: 1.0}",
        "{name: fast, flops: 1.0e308, bytes: 1.0e9, seconds: 1.0e-10}",
    ] {
        let apps = apps_file(&dir, "apps.yaml", body);
        for args in [
            vec![
                "plot",
                zen5(),
                "--apps",
                s(&apps),
                "-o",
                s(&dir.join("c.svg")),
            ],
            vec![
                "report",
                zen5(),
                "--apps",
                s(&apps),
                "-o",
                s(&dir.join("r.html")),
            ],
            vec!["predict", "--app", s(&apps), "--on", zen5()],
        ] {
            refused(&within(limit, &args), &["cannot be right"]);
        }
    }
    let apps = dir.join("manual.yaml");
    refused(
        &within(
            limit,
            &[
                "profile",
                "--counts",
                "manual",
                "--flops",
                "1e308",
                "--bytes",
                "1e-300",
                "-o",
                s(&apps),
                "--",
                "/bin/true",
            ],
        ),
        &["--flops / --bytes is", "cannot be right"],
    );
    assert!(!apps.exists());
    refused(
        &within(
            limit,
            &[
                "predict",
                "--flops",
                "1e308",
                "--bytes",
                "1e-300",
                "--on",
                zen5(),
            ],
        ),
        &["cannot be right"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn deep_flow_nesting_is_refused_before_parsing() {
    let dir = tmpdir("d08");
    let deep = dir.join("deep.yaml");
    std::fs::write(&deep, "[".repeat(400_000)).unwrap();
    let limit = Duration::from_secs(5);
    refused(
        &within(limit, &["plot", s(&deep), "-o", s(&dir.join("c.svg"))]),
        &["more than 64 deep"],
    );
    refused(
        &within(limit, &["predict", "--app", s(&deep), "--on", zen5()]),
        &["more than 64 deep"],
    );
    // One such node file does not stall a fleet report.
    for (n, text) in [
        ("n1", std::fs::read_to_string(zen5()).unwrap()),
        ("n2", "[".repeat(400_000)),
    ] {
        let d = dir.join("fleet/nodes").join(n);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("carm.yaml"), text).unwrap();
    }
    let o = within(limit, &["fleet", "report", s(&dir.join("fleet"))]);
    assert!(stderr(&o).contains("n2: results file"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_synthetic_topology_past_any_machine_is_refused_at_once() {
    let o = within(
        Duration::from_secs(5),
        &[
            "topology",
            "--synthetic",
            "pack:1 core:10000 l1d:1(size=32KiB) pu:1",
        ],
    );
    refused(&o, &["10000 hardware threads", "at most 4096"]);
}

#[test]
fn an_output_never_replaces_an_input_nor_takes_another_format() {
    let dir = tmpdir("d10");
    let results = dir.join("carm.yaml");
    std::fs::copy(zen5(), &results).unwrap();
    let before = std::fs::read(&results).unwrap();
    refused(
        &carmbench(&["report", s(&results), "-o", s(&results)]),
        &["-o", "this writes an HTML page"],
    );
    refused(
        &carmbench(&["plot", s(&results), "-o", s(&results)]),
        &["this writes a chart"],
    );
    // The same file by another name is still the input.
    let html_named = dir.join("page.html");
    std::fs::copy(zen5(), &html_named).unwrap();
    refused(
        &carmbench(&[
            "report",
            s(&html_named),
            "-o",
            s(&dir.join(".").join("page.html")),
        ]),
        &["is an input of this command"],
    );
    refused(
        &carmbench(&["report", s(&results), "-o", s(&dir.join("r.png"))]),
        &["HTML page (.html)"],
    );
    assert!(!dir.join("r.png").exists());
    assert_eq!(std::fs::read(&results).unwrap(), before);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn profile_outputs_are_checked_before_the_program_runs() {
    let dir = tmpdir("d12");
    let marker = dir.join("ran");
    let in_the_way = dir.join("file");
    std::fs::write(&in_the_way, "x").unwrap();
    let damaged = dir.join("damaged.yaml");
    std::fs::write(&damaged, "schema: 1\napplications: [{name: x}]\n").unwrap();
    for (o, needle) in [
        (dir.clone(), "this writes a YAML file"),
        (in_the_way.join("apps.yaml"), "it is a file, not a folder"),
        (damaged.clone(), "damaged.yaml"),
    ] {
        let out = profile(
            "1e9",
            "1e9",
            &["-o", s(&o)],
            &["/usr/bin/touch", s(&marker)],
        );
        refused(&out, &[needle]);
        assert!(!marker.exists(), "the program did not run");
    }
    // A missing folder is made, as for every output.
    let nested = dir.join("new/apps.yaml");
    success(&profile(
        "1e9",
        "1e9",
        &["--results", zen5(), "-o", s(&nested)],
        &["/bin/true"],
    ));
    assert!(nested.is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn messages_name_the_real_cause() {
    let dir = tmpdir("d13");
    // A byte-order mark is read past.
    let bom = dir.join("bom.yaml");
    let mut text = vec![0xef, 0xbb, 0xbf];
    text.extend(std::fs::read(zen5()).unwrap());
    std::fs::write(&bom, text).unwrap();
    success(&carmbench(&[
        "plot",
        s(&bom),
        "-o",
        s(&dir.join("bom.svg")),
    ]));
    let f = dir.join("f.yaml");
    std::fs::write(&f, "schema: \"one\"\n").unwrap();
    refused(
        &carmbench(&["plot", s(&f)]),
        &["has schema one, not a version number"],
    );
    let apps = apps_file(
        &dir,
        "apps.yaml",
        "{name: a, flops: 1.0, bytes: 1.0, seconds: 1.0}",
    );
    refused(
        &carmbench(&["plot", s(&apps)]),
        &["is an apps file", "give it with --apps"],
    );
    refused(&profile("1", "1", &[], &[s(&dir)]), &["it is a folder"]);
    // The range a size error names is in units it reads.
    let o = carmbench(&["kernel", "scalar_load", "--bytes", "1PiB"]);
    refused(&o, &["more than half the memory"]);
    refused(
        &carmbench(&["kernel", "scalar_load", "--bytes", "0"]),
        &["1 B to 1 PiB"],
    );
    let plan = dir.join("plan.yaml");
    std::fs::write(&plan, "samples: 100000\n").unwrap();
    refused(
        &carmbench(&["run", "--config", s(&plan), "-o", s(&dir.join("out"))]),
        &["plan.yaml", "'samples' is 100000"],
    );
    // Huge values in scientific notation, not 300 digits.
    let huge = apps_file(
        &dir,
        "huge.yaml",
        "{name: h, flops: 1.0e308, bytes: 1.0e308, seconds: -1.0e300}",
    );
    let o = carmbench(&["plot", zen5(), "--apps", s(&huge)]);
    refused(&o, &["seconds is -1e300"]);
    assert!(stderr(&o).len() < 300, "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn outputs_are_checked_before_any_table_and_refused_alike() {
    let dir = tmpdir("d14");
    let in_the_way = dir.join("file");
    std::fs::write(&in_the_way, "x").unwrap();
    let pdf = dir.join("x.pdf");
    refused(
        &carmbench(&["compare", zen5(), zen5(), "-o", s(&pdf)]),
        &["this writes a chart"],
    );
    let fleet = dir.join("fleet");
    let node = fleet.join("nodes/n1");
    std::fs::create_dir_all(&node).unwrap();
    std::fs::copy(zen5(), node.join("carm.yaml")).unwrap();
    refused(
        &carmbench(&["fleet", "report", s(&fleet), "-o", s(&pdf)]),
        &["this writes a chart"],
    );
    // An output whose folder cannot be made: exit 2 from every command.
    let blocked = in_the_way.join("out");
    let chart = s(&blocked.join("c.svg")).to_string();
    let page = s(&blocked.join("r.html")).to_string();
    for args in [
        vec!["plot", zen5(), "-o", &chart],
        vec!["compare", zen5(), zen5(), "-o", &chart],
        vec!["report", zen5(), "-o", &page],
        vec!["fleet", "report", s(&fleet), "-o", &chart],
        vec!["run", "--quick", "-o", s(&blocked)],
    ] {
        refused(&carmbench(&args), &["cannot write into", "give another"]);
    }
    // A missing folder is made by every command.
    let made = dir.join("a/b/c.svg");
    success(&carmbench(&["plot", zen5(), "-o", s(&made)]));
    assert!(made.is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn inputs_are_bounded() {
    let dir = tmpdir("d15");
    let limit = Duration::from_secs(10);
    refused(
        &within(limit, &["plot", "/dev/zero", "-o", s(&dir.join("c.svg"))]),
        &["larger than 32 MiB"],
    );
    let big = dir.join("big.yaml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(200 << 20).unwrap();
    refused(
        &within(limit, &["report", s(&big), "-o", s(&dir.join("r.html"))]),
        &["larger than 32 MiB"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
