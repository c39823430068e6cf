//! The simulated caches (`profile --traffic`) under a real QEMU: streaming
//! kernels (`stream.c`) whose working set fits this machine's L1, L2, L3 or
//! none, sized from its own topology. Each is run twice, R and R + D times:
//! the difference, over D, is one repetition's traffic, free of start-up and
//! set-up. The repeated bytes must come from the expected level (at least
//! 90 % of the footprint per repetition) and the traffic below it stay under
//! 10 % of the footprint.

use super::*;
use carmbench::machine::{Machine, Source};
use carmbench::profile::measured::traffic;
use carmbench_counts::protocol::CacheSpec;

const STREAM: &str = include_str!("../programs/stream.c");

/// One repetition's traffic over the footprint, by counter: L2, L3 and
/// DRAM, read and write, in that order.
fn per_rep(exe: &Path, caches: &traffic::Caches, mode: &str, t: u64, n: u64, r: u64) -> [f64; 6] {
    let spec = caches.spec.to_string();
    let env = [(carmbench_counts::protocol::CACHE_ENV, spec.as_str())];
    let run = |reps: u64| {
        let args: Vec<String> = [
            mode.to_string(),
            t.to_string(),
            n.to_string(),
            reps.to_string(),
        ]
        .to_vec();
        emulator()
            .count_with_env(exe.to_str().unwrap(), &args, &env)
            .unwrap()
            .total
    };
    let (a, b) = (run(r), run(2 * r));
    let fp = (8 * n * t * r) as f64;
    let d = |x: u64, y: u64| (y as f64 - x as f64) / fp;
    [
        d(a.l2_read, b.l2_read),
        d(a.l2_write, b.l2_write),
        d(a.l3_read, b.l3_read),
        d(a.l3_write, b.l3_write),
        d(a.dram_read, b.dram_read),
        d(a.dram_write, b.dram_write),
    ]
}

pub fn each_level_serves_the_working_set_that_fits_it() {
    let dir = tmpdir("traffic");
    let exe = gcc(&dir, "stream", STREAM, &["-O2", "-fopenmp"]);
    let m = Machine::load(&Source::Live).unwrap();
    let caches = traffic::caches(&m, traffic::SAMPLE).unwrap();
    let size = |d: usize| m.caches.iter().find(|c| c.depth == d).unwrap().size_bytes;
    let (l1, l2, l3) = (size(1), size(2), size(3));
    // Half of L1, half of L2, half of L3 (above L2), three times L3; more
    // repetitions where they are cheap.
    for (level, bytes, reps) in [
        (1, l1 / 2, 400),
        (2, l2 / 2, 40),
        (3, (l3 / 2).max(2 * l2), 4),
        (4, 3 * l3, 2),
    ] {
        let t = per_rep(&exe, &caches, "read", 1, bytes / 8, reps);
        let what = format!("a {bytes}-byte working set: {t:?}");
        // Below the level that serves it: under 10 % of the footprint.
        let below: f64 = t[2 * (level - 1).min(3)..].iter().sum();
        if level < 4 {
            assert!(below < 0.10, "below L{level}, {what}");
        }
        // From it: at least 90 % (L1's own hits are not traffic).
        if level > 1 {
            assert!(t[2 * (level - 2)] >= 0.90, "from level {level}, {what}");
        }
    }
    // A write-only stream that fits L3: every line written back to L2 each
    // time, and on to L3.
    let t = per_rep(&exe, &caches, "write", 1, (l3 / 2).max(2 * l2) / 8, 4);
    assert!(t[1] >= 0.90 && t[3] >= 0.90, "write-backs: {t:?}");
    // Two threads, each on its own 60 % of an L2: their private L2s hold
    // both (one shared L2 could not), so nearly nothing comes from L3.
    let n = l2 * 6 / 10 / 8;
    let t = per_rep(&exe, &caches, "read", 2, n, 20);
    assert!(t[0] >= 0.90 && t[2] < 0.10, "two threads: {t:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn profile_traffic_names_the_level_that_bounds_a_stream() {
    let dir = tmpdir("traffic-profile");
    gcc(&dir, "stream", STREAM, &["-O2", "-fopenmp"]);
    // The caches simulated are those of the results' machine.
    let doc = fixture();
    let l3 = (doc.machine.topology.caches.iter())
        .find(|c| c.depth == 3)
        .unwrap()
        .size_bytes;
    let n = (3 * l3 / 8).to_string();
    let out = emulated_profile(
        &dir,
        "apps.yaml",
        &["--traffic", "--results", FIXTURE],
        &["./stream", "read", "1", &n, "2"],
    )
    .output()
    .unwrap();
    let stdout = success(&out);
    assert!(stdout.contains("  traffic: L1 "), "{stdout}");
    assert!(stdout.contains("no prefetcher simulated"), "{stdout}");
    // One verdict, from its own bytes: DRAM's, which serves the stream;
    // each level's dot against its roof on the traffic line.
    assert!(
        stdout.contains("by each level's own bytes the DRAM") && stdout.contains("% of its roof"),
        "{stdout}"
    );
    assert!(!stdout.contains("bound by"), "{stdout}");
    let p = &apps::load(&dir.join("apps.yaml")).unwrap().applications[0];
    let t = p.traffic.as_ref().expect("traffic in the apps file");
    // Three passes over the array (set-up and two sums) from DRAM.
    let fp = (3 * l3) as f64;
    assert!(t.dram.read >= 2.7 * fp && t.dram.read <= 3.3 * fp, "{t:?}");
    assert!(t.model.contains("L3"), "{t:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn each_function_point_carries_its_own_traffic() {
    let dir = tmpdir("traffic-functions");
    gcc(&dir, "stream", STREAM, &["-O2", "-fopenmp", "-g"]);
    let m = Machine::load(&Source::Live).unwrap();
    let l3 = m.caches.iter().find(|c| c.depth == 3).unwrap().size_bytes;
    let n = (2 * l3 / 8).to_string();
    let out = emulated_profile(
        &dir,
        "apps.yaml",
        &["--traffic", "--functions", "3"],
        &["./stream", "read", "1", &n, "4"],
    )
    .output()
    .unwrap();
    let stdout = success(&out);
    let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
    let program = points[0].traffic.as_ref().expect("the program's traffic");
    let functions: Vec<_> = points.iter().filter(|p| p.function().is_some()).collect();
    assert!(!functions.is_empty(), "{stdout}");
    // The functions (and the rest) share out the program's traffic exactly.
    let sum: f64 = (functions.iter())
        .filter_map(|p| p.traffic.as_ref())
        .map(|t| t.dram.read)
        .sum();
    assert_eq!(sum, program.dram.read, "{points:?}");
    // The loop's function moved most of it.
    let top = (functions.iter())
        .filter_map(|p| p.traffic.as_ref())
        .map(|t| t.dram.read)
        .fold(0.0, f64::max);
    assert!(top >= 0.8 * program.dram.read, "{points:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn each_region_carries_its_own_traffic() {
    let dir = tmpdir("traffic-regions");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let exe = gcc_with(
        &dir,
        "regions",
        include_str!("../programs/regions.c"),
        &["-O2", "-mfma", "-I", include.to_str().unwrap()],
        &[regions_static_lib().to_str().unwrap(), "-lpthread", "-ldl"],
    );
    // Three arrays of n doubles that fit the results' machine's L3 (the
    // Zen 5 fixture: 32 MiB), not its L2.
    let (n, r) = (500_000u64, 4u64);
    let out = emulated_profile(
        &dir,
        "apps.yaml",
        &["--traffic", "--traffic-sample", "1", "--results", FIXTURE],
        &[exe.to_str().unwrap(), &n.to_string(), &r.to_string()],
    )
    .output()
    .unwrap();
    let stdout = success(&out);
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    let triad = (f.applications.iter())
        .find(|a| a.name == "regions/triad")
        .unwrap_or_else(|| panic!("{stdout}"));
    let t = triad.traffic.as_ref().expect("the region's traffic");
    // Each call reads b and c and fills a: 24 n bytes from L3, nearly
    // nothing from DRAM.
    let want = (24 * n * r) as f64;
    assert!(
        t.l3.read >= 0.9 * want && t.l3.read <= 1.1 * want,
        "{t:?} against {want}"
    );
    assert!(t.dram.read < 0.1 * want, "{t:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Cachegrind's D1 misses and last-level data misses of `exe args`, its
/// caches set to `spec`'s L1 and L3.
fn cachegrind(exe: &Path, args: &[&str], spec: &CacheSpec, env: &[(&str, &str)]) -> (u64, u64) {
    let geometry = |k: usize| {
        let g = spec.levels[k];
        format!("{},{},{}", g.size, g.ways, spec.line)
    };
    let o = Command::new("valgrind")
        .args(["--tool=cachegrind", "--cache-sim=yes"])
        .arg("--cachegrind-out-file=/dev/null")
        .arg(format!("--D1={}", geometry(0)))
        .arg(format!("--LL={}", geometry(2)))
        .arg(exe)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // "==PID== D1  misses:   314,913  ( 251,883 rd + 63,030 wr)"
    let total = |label: &str| -> u64 {
        let line = err
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no '{label}' in {err}"));
        let after = &line[line.find(':').unwrap() + 1..];
        let first = after.split_whitespace().next().unwrap();
        first.replace(',', "").parse().unwrap()
    };
    (total("D1  misses:"), total("LLd misses:"))
}

/// The counts of `exe args` under the plugin, its caches simulated as `spec`.
fn simulated(exe: &Path, args: &[&str], spec: &CacheSpec) -> Counts {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let env = spec.to_string();
    emulator()
        .count_with_env(
            exe.to_str().unwrap(),
            &args,
            &[(carmbench_counts::protocol::CACHE_ENV, env.as_str())],
        )
        .unwrap()
        .total
}

/// Every line simulated (`--traffic-sample 1`), with cachegrind's caches
/// as L1 and L3 (its two-level model has no L2): the lines L1 missed and
/// those read from DRAM within 2 % of cachegrind's D1 and last-level data
/// misses, on a stream twice the last level and a blocked matrix product
/// that reuses its blocks from L1 and its matrices from L3.
pub fn the_simulated_misses_agree_with_cachegrind() {
    let dir = tmpdir("cachegrind");
    let stream = gcc(&dir, "stream", STREAM, &["-O2", "-fopenmp"]);
    let matmul = gcc(
        &dir,
        "matmul",
        include_str!("../programs/matmul.c"),
        &["-O2"],
    );
    let spec: CacheSpec = "64:32768/8:262144/8:2097152/16:nine:1".parse().unwrap();
    for (exe, args) in [
        (&stream, &["read", "1", "500000", "4"][..]),
        (&matmul, &["300"][..]),
    ] {
        let ours = simulated(exe, args, &spec);
        let (l1, dram) = (ours.l2_read / spec.line, ours.dram_read / spec.line);
        let (d1, ll) = cachegrind(exe, args, &spec, &[]);
        let what = format!("{} {args:?}", exe.display());
        for (name, got, want) in [("L1 misses", l1, d1), ("DRAM reads", dram, ll)] {
            let r = got as f64 / want as f64;
            assert!(
                (r - 1.0).abs() <= 0.02,
                "{what}: {name} {got} against cachegrind's {want}"
            );
        }
        // Neither is trivial: the product's L1 misses are ~100 times its
        // last-level ones.
        assert!(d1 > 300_000 && ll > 30_000, "{what}: {d1} {ll}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A program that frees and allocates a 4 MiB buffer 8 times: natively each
/// round gets the address the first got (the program counts them), and the
/// simulation places each round's mapping in the hole the round before
/// left (QEMU gives it a new address), so the rounds meet warm lines: DRAM
/// reads near one round's lines, not eight, and within 3 % of cachegrind's
/// last-level misses, with Intel's non-inclusive L3 and AMD's victim one.
pub fn buffers_freed_and_allocated_again_meet_the_lines_they_left() {
    let dir = tmpdir("reuse");
    let exe = gcc(&dir, "reuse", include_str!("../programs/reuse.c"), &["-O2"]);
    let (n, r) = (524_288u64, 8u64);
    let round = n * 8 / 64;
    // Buffers of malloc, a file's and a memfd's mappings mapped again:
    // natively in the same place each round, as cachegrind sees them.
    for how in ["malloc", "file", "memfd"] {
        let args = [n.to_string(), r.to_string(), how.to_string()];
        let native = Command::new(&exe).args(&args).output().unwrap();
        let said = String::from_utf8_lossy(&native.stdout).into_owned();
        assert!(
            said.contains(&format!("same address {r} of {r}")),
            "{how}: {said}"
        );
        for model in ["nine", "excl"] {
            let spec: CacheSpec = format!("64:32768/8:262144/8:8388608/16:{model}:1")
                .parse()
                .unwrap();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let dram = simulated(&exe, &args, &spec).dram_read / spec.line;
            assert!(
                dram < 2 * round,
                "{how}, {model}: {dram} lines, one round is {round}"
            );
            let (_, ll) = cachegrind(&exe, &args, &spec, &[]);
            let ratio = dram as f64 / ll as f64;
            assert!(
                (ratio - 1.0).abs() <= 0.03,
                "{how}, {model}: {dram} against cachegrind's {ll}"
            );
        }
    }
    // A mapping mremap moves between two places: its pages move with it,
    // warm (cachegrind, which knows addresses, not pages, misses them).
    let args = [n.to_string(), r.to_string(), "mremap".to_string()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let spec: CacheSpec = "64:32768/8:262144/8:8388608/16:nine:1".parse().unwrap();
    let dram = simulated(&exe, &args, &spec).dram_read / spec.line;
    assert!(
        dram < 2 * round,
        "mremap: {dram} lines, one round is {round}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A numpy script of matrix products, FFTs and sorts at n = 400, one BLAS
/// thread, every temporary of 128 KiB or more mapped and unmapped (glibc's
/// fixed `mmap_threshold`: Valgrind caps its guest's `brk` at 8 MB, past
/// which glibc's heap takes mapped chunks neither a native run nor QEMU
/// takes; docs/profile.md): DRAM reads within 3 % of cachegrind's
/// last-level data misses with the same L1d and last level.
pub fn numpy_reads_from_dram_what_cachegrind_misses() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/programs/numpy_reuse.py");
    let exe = Path::new(common::parts::DEBIAN_PYTHON);
    let env = [
        ("OPENBLAS_NUM_THREADS", "1"),
        ("PYTHONHASHSEED", "0"),
        ("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=131072"),
    ];
    // An Emerald Rapids' L1d, L2 and 160 MiB L3 (cachegrind's sets are a
    // power of two), a Zen 3's with its 32 MiB L3, which the script's 35 MB
    // overflow; each with Intel's non-inclusive L3 and AMD's victim one.
    for caches in [
        "49152/12:2097152/16:167772160/20",
        "32768/8:524288/8:33554432/16",
    ] {
        let specs: [CacheSpec; 2] =
            ["nine", "excl"].map(|m| format!("64:{caches}:{m}:1").parse().unwrap());
        let (_, ll) = cachegrind(exe, &[script], &specs[0], &env);
        for spec in specs {
            let caches = spec.to_string();
            let mut with = env.to_vec();
            with.push((carmbench_counts::protocol::CACHE_ENV, caches.as_str()));
            let ours = emulator()
                .count_with_env(exe.to_str().unwrap(), &[script.to_string()], &with)
                .unwrap()
                .total;
            let dram = ours.dram_read / spec.line;
            assert!(
                (dram as f64 / ll as f64 - 1.0).abs() <= 0.03,
                "{caches}: {dram} lines read from DRAM against cachegrind's {ll} last-level misses"
            );
        }
    }
}
