//! `profile --timeline`: a program of three phases of known W and Q, and a
//! numpy script of three steps, each timed by the program itself; their
//! phases against those counts and time stamps.

use super::*;

const PHASES: &str = include_str!("../programs/phases.c");

/// The seconds a program printed on its standard error after `tag`.
fn stamps(stderr: &str, tag: &str) -> Vec<f64> {
    let line = (stderr.lines())
        .find(|l| l.starts_with(tag))
        .unwrap_or_else(|| panic!("no '{tag}' line in: {stderr}"));
    line.split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect()
}

/// The phase points of `program` in the apps file at `path`, in order.
fn phases_of(path: &Path, program: &str) -> Vec<apps::AppPoint> {
    let mut p: Vec<apps::AppPoint> = (apps::load(path).unwrap().applications.into_iter())
        .filter(|a| a.phase().is_some_and(|x| x.program == program))
        .collect();
    p.sort_by_key(|a| a.phase().map(|x| x.index));
    p
}

/// An FMA-bound loop, a DRAM triad, the FMA-bound loop again: three phases,
/// each with its W and Q within 2 % of the hand count and its boundaries
/// within 5 % of the run of the program's own time stamps; the phases add
/// up to the program; `plot --phases` draws them on the path between them.
pub fn three_phases_are_found_with_their_work_and_native_boundaries() {
    let dir = tmpdir("timeline");
    let exe = gcc(&dir, "phases", PHASES, &["-O2", "-g"]);
    let (n, r) = (4_000_000f64, 30f64);
    let out = emulated_profile(
        &dir,
        "apps.yaml",
        &["--timeline"],
        &[exe.to_str().unwrap(), "4000000", "30"],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let own = stamps(&stderr, "phases ");
    let p = phases_of(&dir.join("apps.yaml"), "phases");
    let names: Vec<&str> = p.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "phases: phase 1 (set)",
            "phases: phase 2 (triad)",
            "phases: phase 3 (again)"
        ],
        "{stderr}"
    );
    let hand = [
        (67.0 * n, 16.0 * n),
        (2.0 * n * r, 24.0 * n * r),
        (128.0 * n, 16.0 * n),
    ];
    for (a, (w, q)) in p.iter().zip(hand) {
        assert!(
            (a.flops / w - 1.0).abs() <= 0.02,
            "{}: W {} against {w}",
            a.name,
            a.flops
        );
        assert!(
            (a.bytes / q - 1.0).abs() <= 0.02,
            "{}: Q {} against {q}",
            a.name,
            a.bytes
        );
    }
    let run = own[3];
    for (k, a) in p.iter().enumerate().skip(1) {
        let start = a.phase().unwrap().start;
        assert!(
            (start - own[k]).abs() <= 0.05 * run,
            "{}: begins at {start:.4} s, the program says {:.4} s of {run:.4} s",
            a.name,
            own[k]
        );
    }
    let whole = apps::load(&dir.join("apps.yaml")).unwrap().applications[0].clone();
    let sum: f64 = p.iter().map(|a| a.flops).sum();
    assert!(
        (sum / whole.flops - 1.0).abs() < 1e-9,
        "{sum} against {}",
        whole.flops
    );
    let windows: usize = p.iter().map(|a| a.phase().unwrap().windows.len()).sum();
    assert_eq!(windows, 100, "the run's windows, each in one phase");
    // The chart: each phase's tooltip, and two arrows of the path.
    let chart = dir.join("chart.svg");
    let results = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/emr-xeon-2core.yaml"
    );
    let apps_path = dir.join("apps.yaml");
    let drawn = carmbench(&[
        "plot",
        results,
        "--apps",
        apps_path.to_str().unwrap(),
        "--phases",
        "-o",
        chart.to_str().unwrap(),
    ]);
    assert!(
        drawn.status.success(),
        "{}",
        String::from_utf8_lossy(&drawn.stderr)
    );
    let svg = std::fs::read_to_string(&chart).unwrap();
    for a in &p {
        assert!(
            svg.contains(&format!("{}: ", a.name)),
            "no tooltip of {}",
            a.name
        );
    }
    assert!(svg.contains("phases by number and hottest function"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A numpy script's matrix products, sorts and element-wise work (one BLAS
/// thread, its AVX kernel in both runs: QEMU emulates AVX-512 and FMA not
/// at all or slowly): a phase for each step in turn, named by its hottest
/// function, each step's time mostly within its phase (the script's stamps
/// from when its process was made, as carmbench's are).
pub fn numpy_phases_follow_the_scripts_steps() {
    let dir = tmpdir("timeline-numpy");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/programs/numpy_phases.py"
    );
    let out = emulated_profile(
        &dir,
        "apps.yaml",
        &["--timeline"],
        &[common::parts::DEBIAN_PYTHON, script],
    )
    .env("OPENBLAS_NUM_THREADS", "1")
    .env("OPENBLAS_CORETYPE", "Sandybridge")
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let own = stamps(&stderr, "steps ");
    let p = phases_of(&dir.join("apps.yaml"), "python3");
    let mut said: Vec<String> = vec![format!("the script's steps at {own:?}")];
    said.extend(p.iter().map(|a| {
        let x = a.phase().unwrap();
        format!("{} {:.3}-{:.3} AI {:.3}", a.name, x.start, x.end, a.ai())
    }));
    // The steps: (start, end, the phase's hottest function, FP work).
    let steps = [
        (own[0], own[1], "dgemm_kernel", true),
        (own[1], own[2], "_multiarray_umath", false),
        (own[2], own[3], "_multiarray_umath", true),
    ];
    let mut found = Vec::new();
    for (start, end, hottest, fp) in steps {
        let overlap = |a: &apps::AppPoint| {
            let x = a.phase().unwrap();
            (end.min(x.end) - start.max(x.start)).max(0.0)
        };
        let best = (p.iter().enumerate())
            .max_by(|a, b| overlap(a.1).total_cmp(&overlap(b.1)))
            .unwrap();
        let (k, a) = best;
        assert!(
            overlap(a) >= 0.5 * (end - start),
            "the step {start:.3}-{end:.3} s is in no one phase: {said:?}"
        );
        let name = &a.phase().unwrap().functions[0].name;
        assert!(
            name.contains(hottest),
            "{}: hottest {name}, not {hottest}: {said:?}",
            a.name
        );
        // Each phase typed by its own work: the sort's is integer work.
        let integer = a.precision.is_some_and(|q| q.is_integer());
        assert_eq!(
            !integer && a.ai() > 0.01,
            fp,
            "{}: AI {} {:?}: {said:?}",
            a.name,
            a.ai(),
            a.precision
        );
        found.push(k);
    }
    assert!(
        found.windows(2).all(|w| w[0] < w[1]),
        "phases out of order: {said:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `phases.c` as two ranks of an Open MPI job (`profile --mpi
/// --timeline`): each rank's three phases in its own native time, against
/// its own stamps, on one thread's roofs; profiled again without
/// `--timeline`, the old phases go.
pub fn each_rank_of_an_mpi_job_has_its_own_phases() {
    let dir = tmpdir("timeline-mpi");
    gcc(&dir, "phases", PHASES, &["-O2", "-g"]);
    let launch = ["mpirun", "-np", "2", "./phases", "2000000", "20"];
    let profile = |more: &[&str]| {
        let mut flags = vec!["--mpi"];
        flags.extend(more);
        emulated_profile(&dir, "apps.yaml", &flags, &launch)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .unwrap()
    };
    let out = profile(&["--timeline"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for rank in 0..2 {
        let own = stamps(&stderr, &format!("phases@{rank} "));
        let program = format!("phases/rank{rank}");
        let p = phases_of(&dir.join("apps.yaml"), &program);
        let hottest: Vec<&str> = (p.iter())
            .map(|a| a.phase().unwrap().functions[0].name.as_str())
            .collect();
        assert_eq!(hottest, ["set", "triad", "again"], "{program}: {stderr}");
        for (k, a) in p.iter().enumerate().skip(1) {
            let start = a.phase().unwrap().start;
            assert!(
                (start - own[k]).abs() <= 0.05 * own[3],
                "{}: begins at {start:.4} s, the rank says {:.4} s",
                a.name,
                own[k]
            );
            assert_eq!(a.threads, Some(1), "{}", a.name);
        }
        let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
        let rank_point = points.iter().find(|a| a.name == program).unwrap();
        let sum: f64 = p.iter().map(|a| a.flops).sum();
        assert!(
            (sum / rank_point.flops - 1.0).abs() < 1e-9,
            "{program}: {sum}"
        );
    }
    let again = profile(&[]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
    assert!(
        points.iter().all(|a| a.phase().is_none()),
        "old phases left: {points:#?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same program sleeping 0.4 s between the triad and the last loop: the
/// sleep is no phase (a wait, not work), the three phases are still there,
/// and the last begins when the program says it did, after the sleep.
pub fn a_sleep_between_two_phases_is_no_phase_of_its_own() {
    let dir = tmpdir("timeline-sleep");
    let exe = gcc(&dir, "phases", PHASES, &["-O2", "-g"]);
    let out = emulated_profile(
        &dir,
        "apps.yaml",
        &["--timeline"],
        &[exe.to_str().unwrap(), "2000000", "20", "0.4"],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let own = stamps(&stderr, "phases ");
    let p = phases_of(&dir.join("apps.yaml"), "phases");
    let said: Vec<String> = (p.iter())
        .map(|a| {
            let x = a.phase().unwrap();
            format!("{} {:.3}-{:.3}", a.name, x.start, x.end)
        })
        .collect();
    let hottest: Vec<&str> = (p.iter())
        .map(|a| a.phase().unwrap().functions[0].name.as_str())
        .collect();
    assert_eq!(hottest, ["set", "triad", "again"], "{own:?} {said:?}");
    let last = p[2].phase().unwrap().start;
    assert!(
        (last - own[2]).abs() <= 0.05 * own[3],
        "the last phase begins at {last:.3} s, the program says {:.3} s: {said:?}",
        own[2]
    );
    for a in &p {
        assert!(
            !a.advice
                .iter()
                .any(|x| x.code == carmbench::results::advice::Code::FarBelow),
            "{}: {:?}",
            a.name,
            a.advice
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two programs side by side (`sh -c './poly & ./triad & wait'`), a compute
/// loop of AI 16 and a DRAM triad of AI 0.083: QEMU slows them by unlike
/// factors, so ordered by their emulated ends their windows made a triad
/// phase, then a poly phase. Placed each by its own native samples, the
/// stretch where both ran is their sum: its intensity is neither's.
pub fn processes_side_by_side_share_their_phases_in_native_time() {
    let dir = tmpdir("timeline-side-by-side");
    gcc(
        &dir,
        "poly",
        include_str!("../programs/advice.c"),
        &["-O2", "-g"],
    );
    gcc(&dir, "triad", TRIAD, &["-O2", "-g"]);
    let out = emulated_profile(
        &dir,
        "apps.yaml",
        &["--timeline"],
        &[
            "sh",
            "-c",
            "./poly poly 512 3000 & ./triad 2000000 80 & wait",
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let p = phases_of(&dir.join("apps.yaml"), "sh");
    let said: Vec<String> = (p.iter())
        .map(|a| {
            let x = a.phase().unwrap();
            format!("{} {:.3}-{:.3} AI {:.3}", a.name, x.start, x.end, a.ai())
        })
        .collect();
    let end = p.last().map_or(0.0, |a| a.phase().unwrap().end);
    let middle = (p.iter())
        .find(|a| {
            let x = a.phase().unwrap();
            x.start <= 0.5 * end && 0.5 * end <= x.end
        })
        .unwrap_or_else(|| panic!("no phase at the middle: {said:?}"));
    assert!(
        (0.1..8.0).contains(&middle.ai()),
        "the middle's intensity is one program's: {said:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
