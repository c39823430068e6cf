//! Damaged documents are refused where they are read, by every command
//! that reads them: one line naming the file, the entry and the field,
//! exit status 2, nothing written.

use crate::common::*;

use carmbench::results::{self, Document};
use std::path::Path;

/// The fixture with `damage` done, written as YAML text to `path`.
fn write_damaged(path: &Path, damage: impl Fn(&mut Document)) {
    let mut d = fixture();
    damage(&mut d);
    std::fs::write(path, serde_yaml::to_string(&d).unwrap()).unwrap();
}

#[test]
fn damaged_results_files_are_refused_by_every_reader() {
    let dir = tmpdir("damaged");
    let f = dir.join("r.yaml");
    let fs = f.to_str().unwrap();
    let other = dir.join("other.yaml");
    std::fs::copy(FIXTURE, &other).unwrap();
    for (damage, field) in [
        (
            (|d: &mut Document| d.roofs[0].gb_per_s = Some(-5.0)) as fn(&mut Document),
            "gb_per_s is -5",
        ),
        (|d| d.roofs[0].gb_per_s = Some(f64::NAN), "gb_per_s is NaN"),
        (
            |d| d.roofs[0].paced_gb_per_s = Some(0.0),
            "paced_gb_per_s is 0",
        ),
        (
            |d| {
                d.roofs[0].gb_per_s = Some(1e308);
                d.roofs[0].per_cycle = f64::INFINITY;
            },
            "per_cycle is inf",
        ),
    ] {
        write_damaged(&f, damage);
        let readers: [Vec<&str>; 5] = [
            vec!["plot", fs, "-o", "c.svg"],
            vec!["predict", "--flops", "1e9", "--bytes", "1e9", "--on", fs],
            vec!["compare", other.to_str().unwrap(), fs],
            vec!["validate", fs],
            vec!["plot", other.to_str().unwrap(), fs],
        ];
        for args in readers {
            let out = carmbench_in(&args, &dir);
            assert_input_error(&out, &["r.yaml", "roof L1 load avx512 1 thread(s)", field]);
        }
        assert!(!dir.join("c.svg").exists(), "no chart of a damaged file");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_apps_files_and_plans_are_refused() {
    let dir = tmpdir("damapps");
    let apps = dir.join("apps.yaml");
    for (text, needle) in [
        (
            "schema: 1\napplications:\n  - {name: a, flops: .nan, bytes: 1, seconds: 1}\n",
            "application 'a': flops is NaN",
        ),
        (
            "schema: 1\napplications:\n  - {name: a, flops: 1, bytes: 1, seconds: 1, fma_flops: 5}\n",
            "fma_flops is 5, above flops",
        ),
        (
            "schema: 1\napplications:\n  - {name: a, flops: 1, bytes: 1, seconds: 1, threads: 0}\n",
            "threads is 0",
        ),
        ("schema: 99\napplications: []\n", "schema 99"),
    ] {
        std::fs::write(&apps, text).unwrap();
        for args in [
            vec!["plot", FIXTURE, "--apps", "apps.yaml", "-o", "c.svg"],
            vec!["predict", "--app", "apps.yaml", "--on", FIXTURE],
        ] {
            assert_input_error(&carmbench_in(&args, &dir), &["apps.yaml", needle]);
        }
    }
    // A plan out of bounds stops before anything is measured.
    let plan = dir.join("plan.yaml");
    for (text, needle) in [
        (
            "samples: 1000000000000\n",
            "plan.yaml': 'samples' is 1000000000000; give 1 to 1000",
        ),
        (
            "sizes_per_level: 1000\n",
            "plan.yaml': 'sizes_per_level' is 1000; give 1 to 64",
        ),
        (
            "min_sample_ms: 1e9\n",
            "plan.yaml': 'min_sample_ms' is 1000000000; give more than 0 and at most 1000 ms",
        ),
        (
            "samples: 1000\nmin_sample_ms: 1000\nsizes_per_level: 64\n",
            "hours",
        ),
    ] {
        std::fs::write(&plan, text).unwrap();
        let out = carmbench_in(&["run", "--config", "plan.yaml", "-o", "out"], &dir);
        assert_input_error(&out, &[needle]);
        assert!(!dir.join("out").join("carm.yaml").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_regions_record_is_refused() {
    let dir = tmpdir("damregions");
    // A "program" writing a region record with a negative time where the
    // regions library would.
    let prog = dir.join("prog.sh");
    std::fs::write(
        &prog,
        "#!/bin/sh\necho '{\"name\":\"r\",\"seconds\":-1.0,\"calls\":1,\"counts\":{}}' >> \"$CARMBENCH_REGIONS_OUT\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = carmbench_in(
        &[
            "profile",
            "--flops",
            "1e6",
            "--bytes",
            "1e6",
            "--",
            prog.to_str().unwrap(),
        ],
        &dir,
    );
    assert_input_error(&out, &["regions record", "region 'r': seconds is -1"]);
    assert!(!dir.join("apps.yaml").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_results_file_written_by_run_passes_its_check() {
    let dir = tmpdir("roundtrip");
    let out = carmbench(&[
        "run",
        "--quick",
        "--isa",
        "scalar",
        "--levels",
        "L1",
        "--mixes",
        "load,2ld1st",
        "--ops",
        "fma",
        "--threads",
        "1",
        "--validate",
        "-o",
        dir.to_str().unwrap(),
    ]);
    success(&out);
    let text = std::fs::read_to_string(dir.join("carm.yaml")).unwrap();
    let d = results::parse(&text, "run's results").unwrap();
    assert!(!d.roofs.is_empty() && !d.validation.is_empty());
    results::check::results(&d, "run's results").unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
