//! The points `profile` writes and what reads them back, needing nothing
//! beside Rust: one program's functions beside another's, profiles writing
//! one apps file at once, a point without its roofs, read-only and linked
//! apps files, names, the report's figures; refusals made before the
//! command runs. Those under emulation are in `emulate/runs.rs`.

use crate::common::*;

use carmbench::results::apps::{self, AppPoint, FunctionInfo, Of};
use std::path::Path;
use std::process::{Command, Stdio};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `carmbench profile --flops 1e6 --bytes 1e6 MORE -- COMMAND` in `dir`.
fn manual(dir: &Path, more: &[&str], command: &[&str]) -> std::process::Output {
    let mut a = vec!["profile", "--flops", "1e6", "--bytes", "1e6"];
    a.extend(more);
    a.push("--");
    a.extend(command);
    carmbench_in(&a, dir)
}

fn function(name: &str, program: &str) -> AppPoint {
    AppPoint {
        of: Of::Function(FunctionInfo {
            program: program.into(),
            module: "m".into(),
            share: 0.5,
            samples: 100,
            location: None,
            counted_as: None,
            ran_only: None,
        }),
        ..AppPoint::new(name, 1e9, 1e9, 0.5)
    }
}

#[test]
fn one_programs_functions_leave_anothers_of_the_same_name() {
    let dir = tmpdir("d03");
    let f = dir.join("apps.yaml");
    apps::add_points(
        &f,
        vec![AppPoint::new("a", 1e9, 1e9, 1.0), function("compute", "a")],
    )
    .unwrap();
    apps::add_points(
        &f,
        vec![AppPoint::new("b", 1e9, 1e9, 1.0), function("compute", "b")],
    )
    .unwrap();
    let got = apps::load(&f).unwrap().applications;
    let of = |p: &str| {
        got.iter()
            .filter(|a| a.name == "compute" && a.function().is_some_and(|x| x.program == p))
            .count()
    };
    assert_eq!((of("a"), of("b")), (1, 1), "{got:#?}");
    // The same program again replaces its own.
    apps::add_points(
        &f,
        vec![AppPoint::new("a", 2e9, 1e9, 1.0), function("compute", "a")],
    )
    .unwrap();
    let got = apps::load(&f).unwrap().applications;
    assert_eq!(got.len(), 4, "{got:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn profiles_writing_one_apps_file_at_once_lose_no_point() {
    let dir = tmpdir("d04");
    let f = dir.join("apps.yaml");
    // A large file takes long to read and write: the window a race needs.
    let many: Vec<AppPoint> = (0..6000)
        .map(|k| AppPoint::new(format!("old{k}"), 1e9, 1e9, 1.0))
        .collect();
    apps::add_points(&f, many).unwrap();
    let children: Vec<_> = (0..6)
        .map(|k| {
            Command::new(env!("CARGO_BIN_EXE_carmbench"))
                .args(["profile", "--flops", "1e6", "--bytes", "1e6", "--name"])
                .arg(format!("new{k}"))
                .args(["-o", s(&f), "--", "true"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let got = apps::load(&f).unwrap().applications;
    for k in 0..6 {
        assert!(
            got.iter().any(|a| a.name == format!("new{k}")),
            "new{k} lost"
        );
    }
    assert_eq!(got.len(), 6006);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An apps file with one INT8 point, for results without INT8 roofs.
fn int8_apps(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("int8.yaml");
    let p = AppPoint {
        precision: Some(carmbench::kernels::Precision::Int8),
        ..AppPoint::new("dot", 4e9, 1e9, 0.5)
    };
    apps::add_points(&f, vec![p, function("kernel", "dot")]).unwrap();
    f
}

#[test]
fn a_point_without_its_roofs_is_said_not_placed_wrongly() {
    let dir = tmpdir("d06");
    let f = int8_apps(&dir);
    // The fixture has DP roofs only.
    let o = carmbench_in(&["predict", "--app", s(&f), "--on", FIXTURE], &dir);
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(text.contains("no int8 roofs"), "predict: {text}");
    let o = carmbench_in(&["report", FIXTURE, "--apps", s(&f), "-o", "r.html"], &dir);
    success(&o);
    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(!page.contains("above every roof"), "report");
    assert!(page.contains("no int8 roofs"), "report");
    let o = carmbench_in(&["plot", FIXTURE, "--apps", s(&f), "-o", "c.svg"], &dir);
    success(&o);
    assert!(stderr(&o).contains("int8"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_sampling_rate_that_leaves_too_few_sets_is_refused() {
    let dir = tmpdir("d11");
    let marker = dir.join("ran");
    for rate in ["65536", "1048576"] {
        let o = carmbench_in(
            &[
                "profile",
                "--counts",
                "emulate",
                "--traffic",
                "--traffic-sample",
                rate,
                "--results",
                FIXTURE,
                "--",
                "/usr/bin/touch",
                s(&marker),
            ],
            &dir,
        );
        assert_input_error(&o, &["--traffic-sample", rate, "at most"]);
        assert!(!marker.exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_first_core_past_every_core_is_refused_not_a_panic() {
    let o = carmbench(&[
        "kernel",
        "avx2_load",
        "--first-core",
        "18446744073709551615",
    ]);
    assert_input_error(&o, &["--first-core"]);
}

#[test]
fn a_read_only_or_linked_apps_file_keeps_what_it_is() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tmpdir("d15");
    let ro = dir.join("ro.yaml");
    apps::add_points(&ro, vec![AppPoint::new("x", 1e9, 1e9, 1.0)]).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read_to_string(&ro).unwrap();
    let o = manual(&dir, &["-o", s(&ro)], &["true"]);
    assert_input_error(&o, &["read-only"]);
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), before);
    assert_eq!(std::fs::metadata(&ro).unwrap().mode() & 0o777, 0o444);
    // A link: its target gets the point, the link stays a link.
    let target = dir.join("target.yaml");
    apps::add_points(&target, vec![AppPoint::new("x", 1e9, 1e9, 1.0)]).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.join("link.yaml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    success(&manual(&dir, &["-o", s(&link), "--name", "y"], &["true"]));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let names: Vec<String> = apps::load(&target)
        .unwrap()
        .applications
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names, ["x", "y"]);
    assert_eq!(std::fs::metadata(&target).unwrap().mode() & 0o777, 0o640);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_name_is_refused_before_the_command_runs() {
    let dir = tmpdir("minor-name");
    let marker = dir.join("ran");
    for bad in ["", "two\nlines"] {
        let o = manual(&dir, &["--name", bad], &["/usr/bin/touch", s(&marker)]);
        assert_input_error(&o, &["--name"]);
        assert!(!marker.exists(), "the command ran");
    }
    // Beyond the issue: an output that is a link to itself.
    let lp = dir.join("loop.yaml");
    std::os::unix::fs::symlink(&lp, &lp).unwrap();
    assert_input_error(&manual(&dir, &["-o", s(&lp)], &["true"]), &["leads back"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_draw_hint_quotes_paths_with_spaces() {
    let dir = tmpdir("minor-hint");
    let o = manual(&dir, &["-o", "my apps.yaml"], &["true"]);
    let out = success(&o);
    assert!(out.contains("--apps 'my apps.yaml'"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn duplicate_names_in_the_earlier_profile_are_said() {
    let dir = tmpdir("minor-before");
    let before = dir.join("before.yaml");
    std::fs::write(
        &before,
        "schema: 3\napplications:\n- {name: a, flops: 1e9, bytes: 1e9, seconds: 1}\n- {name: a, flops: 2e9, bytes: 1e9, seconds: 1}\n",
    )
    .unwrap();
    let after = dir.join("after.yaml");
    apps::add_points(&after, vec![AppPoint::new("a", 1e9, 1e9, 0.5)]).unwrap();
    let o = carmbench_in(
        &[
            "plot",
            FIXTURE,
            "--apps",
            s(&after),
            "--before",
            s(&before),
            "-o",
            "m.svg",
        ],
        &dir,
    );
    success(&o);
    assert!(stderr(&o).contains("twice"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_function_without_bytes_reads_no_nan_in_the_report() {
    let dir = tmpdir("minor-nan");
    let f = dir.join("apps.yaml");
    let mut p = function("spin", "prog");
    p.bytes = 0.0;
    apps::add_points(&f, vec![AppPoint::new("prog", 1e9, 1e9, 1.0), p]).unwrap();
    success(&carmbench_in(
        &["report", FIXTURE, "--apps", s(&f), "-o", "r.html"],
        &dir,
    ));
    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(
        !page.contains("NaN") && !page.contains("inf"),
        "NaN or inf in the page"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_script_without_its_line_or_a_foreign_program_is_named_for_what_it_is() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmpdir("minor-exec");
    let script = dir.join("script");
    std::fs::write(&script, "echo hi\n").unwrap();
    let foreign = dir.join("arm");
    let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
    elf.resize(64, 0);
    elf[18] = 183; // EM_AARCH64
    std::fs::write(&foreign, elf).unwrap();
    for f in [&script, &foreign] {
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let o = manual(&dir, &[], &[s(&script)]);
    assert_input_error(&o, &["#!"]);
    assert!(!stderr(&o).contains("os error"), "{}", stderr(&o));
    let o = manual(&dir, &[], &[s(&foreign)]);
    assert_input_error(&o, &["another machine"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
