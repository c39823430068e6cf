//! A point per loop (`profile --loops`), under a real QEMU: loops found in
//! the control flow the emulated run took, checked against programs whose
//! loops are counted by hand: two nests in one function, a blocked matrix
//! product at -O2 and vectorised at -O3, and a loop in a shared library.

use super::*;
use carmbench::results::apps::AppPoint;

const LOOPS: &str = include_str!("../programs/loops.c");
const MATMUL: &str = include_str!("../programs/matmul.c");
const PAGE_CROSS: &str = include_str!("../programs/page_cross.c");
const SIGPROF: &str = include_str!("../programs/sigprof.c");
const JIT: &str = include_str!("../programs/jit.c");

/// `carmbench profile --loops` of `args` in `dir`, into `dir/apps.yaml`:
/// every point.
fn loop_profile(dir: &Path, args: &[&str]) -> Vec<AppPoint> {
    let o = emulated_profile(dir, "apps.yaml", &["--loops", "20"], args)
        .output()
        .unwrap();
    success(&o);
    apps::load(&dir.join("apps.yaml")).unwrap().applications
}

/// A point's double and single precision flops, whatever it is typed.
fn fp(p: &AppPoint) -> f64 {
    p.mix.as_ref().map_or(0.0, |m| m.dp_flops + m.sp_flops)
}

/// The points of function `f`'s loops (and its rest) in `program`'s
/// profile.
fn of<'a>(points: &'a [AppPoint], program: &str, f: &str) -> Vec<&'a AppPoint> {
    let prefix = format!("{f}: ");
    points
        .iter()
        .filter(|p| p.name.starts_with(&prefix))
        .filter(|p| p.function().is_some_and(|x| x.program == program))
        .collect()
}

pub fn two_loop_nests_in_one_function_are_counted_loop_by_loop() {
    let dir = tmpdir("loops-two");
    gcc(&dir, "loops", LOOPS, &["-O2", "-mfma", "-g"]);
    // Each nest some 30 ms natively or more: both are sampled.
    let (m, r1, n, r2) = (1024u64, 100_000u64, 4_000_000u64, 5u64);
    let args = [m, r1, n, r2].map(|x| x.to_string());
    let mut cmd = vec!["./loops"];
    cmd.extend(args.iter().map(String::as_str));
    let points = loop_profile(&dir, &cmd);
    let compute = of(&points, "loops", "compute");
    let inner: Vec<&&AppPoint> = compute
        .iter()
        .filter(|p| p.loop_info().is_some_and(|l| l.depth == 2))
        .collect();
    assert_eq!(inner.len(), 2, "{compute:#?}");
    // Each inner loop: W exact, Q within 1 %, trips and entries exact.
    for (trips, entries, elements) in [(m, r1, m * r1), (n, r2, n * r2)] {
        let p = inner
            .iter()
            .find(|p| p.loop_info().unwrap().entries == entries)
            .unwrap_or_else(|| panic!("no loop of {entries} entries: {inner:#?}"));
        let l = p.loop_info().unwrap();
        assert_eq!(l.iterations, trips * entries, "{l:?}");
        assert_eq!(l.trip_count(), trips as f64);
        assert_eq!(p.flops, (2 * elements) as f64, "{}", p.name);
        let q = (24 * elements) as f64;
        assert!((p.bytes - q).abs() <= 0.01 * q, "{}: Q {}", p.name, p.bytes);
        assert!(l.line.as_deref().is_some_and(|x| x.starts_with("loops.c:")));
        assert!(l.parent.is_some());
        // Scalar FMAs: the note says so.
        let note = carmbench::output::profile::loop_note(p, l);
        assert!(
            note.contains("scalar 100%") && note.contains("FMA 100%"),
            "{note}"
        );
    }
    // The loops and the rest of the function sum to its W.
    let w: f64 = compute.iter().map(|p| fp(p)).sum();
    assert_eq!(w, (2 * m * r1 + 2 * n * r2) as f64);
    // Drawn and reported like functions.
    let o = carmbench_in(
        &["plot", FIXTURE, "--apps", "apps.yaml", "-o", "l.svg"],
        &dir,
    );
    success(&o);
    let o = carmbench_in(
        &["report", FIXTURE, "--apps", "apps.yaml", "-o", "r.html"],
        &dir,
    );
    success(&o);
    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(page.contains("compute: loop at loops.c:"), "report");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_blocked_product_is_a_nest_of_five_at_o2_and_vectorised_at_o3() {
    let dir = tmpdir("loops-matmul");
    // n = 8 k + 3: the vectorised loop leaves a remainder of 3. Large
    // enough that the -O3 build runs some 30 ms natively: sampled.
    let n = 771u64;
    let flops = 2 * n * n * n;
    for (name, flags) in [
        ("mm2", &["-O2", "-g"][..]),
        ("mm3", &["-O3", "-mavx2", "-mfma", "-g"][..]),
    ] {
        gcc(&dir, name, MATMUL, flags);
        let exe = format!("./{name}");
        let points = loop_profile(&dir, &[&exe, &n.to_string()]);
        let product = of(&points, name, "product");
        let w: f64 = product.iter().map(|p| fp(p)).sum();
        assert_eq!(w, flops as f64, "{name}: the loops and the rest");
        let deepest = product
            .iter()
            .filter_map(|p| Some((*p, p.loop_info()?)))
            .max_by_key(|(_, l)| l.depth)
            .unwrap();
        let (p, l) = deepest;
        assert_eq!(l.depth, 5, "{name}: {product:#?}");
        assert_eq!(l.entries, n * n, "{name}");
        match name {
            // Scalar: every flop in the innermost loop, n trips.
            "mm2" => {
                assert_eq!(p.flops, flops as f64);
                assert_eq!(l.iterations, n * n * n);
                // b[k][j] and c[i][j] read, c[i][j] written: 24 bytes.
                let q = (24 * n * n * n) as f64;
                assert!((p.bytes - q).abs() <= 0.01 * q, "Q {}", p.bytes);
            }
            // Four doubles an iteration, n / 4 of them; the remainder's
            // 3 elements run in the loop around it.
            _ => {
                assert_eq!(l.iterations, n * n * (n / 4));
                assert_eq!(p.flops, (8 * l.iterations) as f64);
                let mix = p.mix.as_ref().unwrap();
                assert_eq!(mix.fp_256, l.iterations as f64, "{mix:?}");
                // Four of each: 96 bytes an iteration.
                let q = (96 * l.iterations) as f64;
                assert!((p.bytes - q).abs() <= 0.01 * q, "Q {}", p.bytes);
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_loop_in_a_shared_library_is_a_point_of_its_own() {
    let dir = tmpdir("loops-lib");
    let exe = super::functions::build_for_loops(&dir);
    // Long enough natively (triad some 30 ms) for the loop to be sampled:
    // a function no sample fell in goes to the rest.
    let (n, r) = (200_000u64, 600u64);
    let points = loop_profile(
        &dir,
        &[exe.to_str().unwrap(), &n.to_string(), &r.to_string()],
    );
    let triad = of(&points, "functions", "triad");
    let p = triad
        .iter()
        .find(|p| p.loop_info().is_some())
        .unwrap_or_else(|| panic!("{points:#?}"));
    let l = p.loop_info().unwrap();
    assert_eq!(p.function().unwrap().module, "libcarmfn.so");
    assert_eq!((l.iterations, l.entries), (n * r, r));
    assert_eq!(p.flops, (2 * n * r) as f64);
    let q = (24 * n * r) as f64;
    assert!((p.bytes - q).abs() <= 0.01 * q, "Q {}", p.bytes);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn each_loop_is_named_by_its_own_line() {
    let dir = tmpdir("loops-lines");
    gcc(&dir, "loops", LOOPS, &["-O2", "-mfma", "-g"]);
    let args = ["./loops", "1024", "100000", "4000000", "5"];
    let points = loop_profile(&dir, &args);
    let compute = of(&points, "loops", "compute");
    let mut lines: Vec<(usize, String)> = (compute.iter())
        .filter_map(|p| p.loop_info())
        .map(|l| (l.depth, l.line.clone().unwrap_or_default()))
        .collect();
    lines.sort();
    // loops.c: the outer `for`s on lines 12 and 14, the inner on 13 and 15.
    let want = [
        (1, "loops.c:12"),
        (1, "loops.c:14"),
        (2, "loops.c:13"),
        (2, "loops.c:15"),
    ];
    let want: Vec<(usize, String)> = want.iter().map(|(d, l)| (*d, l.to_string())).collect();
    assert_eq!(lines, want, "{compute:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn an_instruction_across_a_page_makes_no_phantom_loop() {
    let dir = tmpdir("loops-page");
    gcc(&dir, "page_cross", PAGE_CROSS, &["-O1", "-g"]);
    let (n, r) = (200_000u64, 100u64);
    let (n_s, r_s) = (n.to_string(), r.to_string());
    let points = loop_profile(&dir, &["./page_cross", &n_s, &r_s]);
    // The program's one loop, neither a second one inside it nor any in the
    // straight-line function (the C library's own loops are shown when a
    // sample falls in them).
    let loops: Vec<&AppPoint> = (points.iter())
        .filter(|p| p.loop_info().is_some())
        .filter(|p| p.function().is_some_and(|f| f.module == "page_cross"))
        .collect();
    assert_eq!(loops.len(), 1, "{loops:#?}");
    let l = loops[0].loop_info().unwrap();
    assert_eq!((l.depth, l.entries, l.iterations), (1, r, n * r), "{l:?}");
    assert_eq!(loops[0].flops, (2 * n * r) as f64);
    // straight() is seldom sampled, so its loops seldom shown: its places
    // in the plugin's own output instead. Each of its instructions ran
    // once, those across a page too (some cut before their displacement,
    // not at the page's end).
    let exe = dir.join("page_cross");
    let loops_on = [(carmbench_counts::protocol::LOOPS_ENV, "1")];
    let e = emulator().count_with_env(exe.to_str().unwrap(), &["1".into(), "1".into()], &loops_on);
    let e = e.unwrap();
    let p = &e.processes[0];
    let module = p
        .modules
        .iter()
        .position(|m| m.ends_with("/page_cross"))
        .unwrap() as u32;
    let listed = crate::integer::disassembly(&exe, "straight");
    let (first, last) = (listed[0].addr, listed[listed.len() - 1].addr);
    let sites: Vec<_> = (p.sites.iter())
        .filter(|s| s.module == module && (first..=last).contains(&s.offset))
        .collect();
    let twice: Vec<_> = sites
        .iter()
        .filter(|s| s.runs != 1)
        .map(|s| s.offset)
        .collect();
    assert!(twice.is_empty(), "places run other than once: {twice:x?}");
    let ran: u64 = sites.iter().map(|s| s.counts.instructions).sum();
    assert_eq!(ran, listed.len() as u64);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_signal_handler_run_during_a_nest_leaves_its_loops_as_they_are() {
    let dir = tmpdir("loops-signal");
    gcc(&dir, "sigprof", SIGPROF, &["-O1", "-g"]);
    // Short inner loops: many signals come between the outer block and the
    // inner header, each an entry the flow must keep.
    let (n, r) = (10u64, 2_000_000u64);
    let (n_s, r_s) = (n.to_string(), r.to_string());
    let o = emulated_profile(
        &dir,
        "apps.yaml",
        &["--loops", "20"],
        &["./sigprof", &n_s, &r_s],
    )
    .output()
    .unwrap();
    // Signals came natively (the emulated run, some 30x as long, gets more;
    // its output is not shown).
    assert!(success(&o).contains("signals: yes"));
    let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
    let nest = of(&points, "sigprof", "nest");
    let mut loops: Vec<_> = nest.iter().filter_map(|p| p.loop_info()).collect();
    loops.sort_by_key(|l| l.depth);
    let shape: Vec<_> = (loops.iter())
        .map(|l| (l.depth, l.entries, l.iterations, l.irreducible))
        .collect();
    assert_eq!(shape, [(1, 1, r, false), (2, r, n * r, false)], "{nest:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_twin_builds_functions_and_loops_are_named_from_its_own_file() {
    let dir = tmpdir("loops-twin");
    gcc(&dir, "loops", LOOPS, &["-O2", "-mfma", "-g"]);
    // The same source, laid out elsewhere in its file.
    let st = Command::new("gcc")
        .args(["-O2", "-mfma", "-g", "-falign-functions=4096", "-o", "twin"])
        .args(["loops.c", "-lm"])
        .current_dir(&dir)
        .status();
    assert!(st.unwrap().success());
    let (m, r1, n, r2) = (1024u64, 100_000u64, 4_000_000u64, 5u64);
    let args = [m, r1, n, r2].map(|x| x.to_string());
    let mut cmd = vec!["./loops"];
    cmd.extend(args.iter().map(String::as_str));
    let more = ["--loops", "20", "--count-with", "./twin"];
    let o = emulated_profile(&dir, "apps.yaml", &more, &cmd)
        .output()
        .unwrap();
    success(&o);
    let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
    let compute = of(&points, "loops", "compute");
    // The function's work is the twin's, all of it, and its loops are found
    // and named by their lines.
    let w: f64 = compute.iter().map(|p| fp(p)).sum();
    assert_eq!(w, (2 * m * r1 + 2 * n * r2) as f64, "{compute:#?}");
    let mut lines: Vec<String> = (compute.iter())
        .filter_map(|p| p.loop_info())
        .filter(|l| l.depth == 2)
        .map(|l| l.line.clone().unwrap_or_default())
        .collect();
    lines.sort();
    assert_eq!(lines, ["loops.c:13", "loops.c:15"], "{compute:#?}");
    // The native samples in the nests are theirs, matched by line.
    let in_loops: f64 = (compute.iter())
        .filter(|p| p.loop_info().is_some())
        .map(|p| p.seconds)
        .sum();
    let all: f64 = compute.iter().map(|p| p.seconds).sum();
    assert!(in_loops > 0.8 * all, "{in_loops} of {all} s: {compute:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn a_jits_code_is_one_function_with_its_loops_and_its_time() {
    let dir = tmpdir("loops-jit");
    gcc(&dir, "jit", JIT, &["-O1"]);
    let (n, r) = (1_000_000u64, 100u64);
    let (n_s, r_s) = (n.to_string(), r.to_string());
    let points = loop_profile(&dir, &["./jit", &n_s, &r_s]);
    let jitted = of(&points, "jit", "[code in anonymous memory]");
    // Its work and its loop, found in the same place as the native run's
    // samples (both runs put it at other addresses).
    let w: f64 = jitted.iter().map(|p| fp(p)).sum();
    assert_eq!(w, (2 * n * r) as f64, "{points:#?}");
    let l = (jitted.iter().find_map(|p| p.loop_info()))
        .unwrap_or_else(|| panic!("no loop: {jitted:#?}"));
    assert_eq!((l.depth, l.entries, l.iterations), (1, r, n * r), "{l:?}");
    let all: f64 = points.iter().skip(1).map(|p| p.seconds).sum();
    let in_loop: f64 = (jitted.iter())
        .filter(|p| p.loop_info().is_some())
        .map(|p| p.seconds)
        .sum();
    assert!(in_loop > 0.8 * all, "{in_loop} of {all} s: {points:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
