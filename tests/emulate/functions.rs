//! A point per function (`profile --functions`), under a real QEMU and real
//! sampling: `functions.c` has three functions of known W and Q (a chain of
//! multiply-adds, a copy, and a triad in the shared library it links) and
//! times each itself; the test compares the function points with both.

use super::*;

const FUNCTIONS: &str = include_str!("../programs/functions.c");
const FUNCTIONS_LIB: &str = include_str!("../programs/functions_lib.c");
const DLOPENED: &str = include_str!("../programs/dlopened.c");
const BAD_NAME: &str = include_str!("../programs/bad_name.c");

/// The program and its library, built in `dir`; `strip`ped when asked.
fn build(dir: &Path, stripped: bool) -> PathBuf {
    build_as(dir, "functions", "-O2", stripped)
}

/// The program and its library, for the loop tests.
pub fn build_for_loops(dir: &Path) -> PathBuf {
    build(dir, false)
}

/// `functions_lib.c` built as `dir/libcarmfn.so`.
fn library(dir: &Path) -> PathBuf {
    let lib_c = dir.join("functions_lib.c");
    std::fs::write(&lib_c, FUNCTIONS_LIB).unwrap();
    let lib = dir.join("libcarmfn.so");
    let st = Command::new("gcc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&lib_c)
        .status()
        .unwrap();
    assert!(st.success());
    lib
}

/// The program and its library, the program named `name` and built at
/// `opt`.
fn build_as(dir: &Path, name: &str, opt: &str, stripped: bool) -> PathBuf {
    library(dir);
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    let ldir = format!("-L{}", dir.display());
    let exe = gcc_with(
        dir,
        name,
        FUNCTIONS,
        &[opt, "-g"],
        &[&ldir, "-lcarmfn", &rpath],
    );
    if stripped {
        assert!(Command::new("strip").arg(&exe).status().unwrap().success());
    }
    exe
}

/// `carmbench profile --functions` of `exe N R` into `dir/out`: its output.
fn profile_functions(dir: &Path, exe: &Path, n: &str, r: &str, out: &str) -> std::process::Output {
    emulated_profile(dir, out, &["--functions"], &[exe.to_str().unwrap(), n, r])
        .output()
        .unwrap()
}

/// The three seconds the program printed: compute, triad, copy.
fn own_times(stderr: &str) -> [f64; 3] {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("seconds compute"))
        .expect("the program's times");
    let w: Vec<f64> = line
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    [w[0], w[1], w[2]]
}

fn near(what: &str, got: f64, want: f64, within: f64) {
    assert!(
        (got - want).abs() <= within * want,
        "{what}: {got} against {want} by hand"
    );
}

pub fn each_function_is_a_point_with_its_own_w_q_and_time() {
    let dir = tmpdir("functions");
    let exe = build(&dir, false);
    let (n, r) = (2_000_000u64, 30u64);
    let out = profile_functions(&dir, &exe, &n.to_string(), &r.to_string(), "apps.yaml");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}\n{stdout}");
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    let whole = f
        .applications
        .iter()
        .find(|a| a.function().is_none())
        .unwrap();
    let funcs: Vec<_> = f
        .applications
        .iter()
        .filter(|a| a.function().is_some())
        .collect();
    let get = |name: &str| {
        *funcs
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("no point for {name}: {stdout}"))
    };
    let (n, r) = (n as f64, r as f64);
    let compute = get("compute");
    near("compute W", compute.flops, 64.0 * (n / 16.0) * r, 0.005);
    near("compute Q", compute.bytes, 16.0 * (n / 16.0) * r, 0.02);
    let triad = get("triad");
    near("triad W", triad.flops, 2.0 * n * r, 0.005);
    near("triad Q", triad.bytes, 24.0 * n * r, 0.02);
    assert_eq!(triad.function().unwrap().module, "libcarmfn.so");
    assert_eq!(compute.function().unwrap().module, "functions");
    // Built with -g: where it starts in the source, from DWARF.
    let at = compute.function().unwrap().location.clone();
    assert!(
        at.as_deref().is_some_and(|l| l.starts_with("functions.c:")),
        "{at:?}"
    );
    let copy = get("copy");
    // No flop: its work is its loop's integer ops, under the integer roofs.
    let flops_of = |a: &apps::AppPoint| a.mix.as_ref().map_or(0.0, |m| m.dp_flops + m.sp_flops);
    assert_eq!(flops_of(copy), 0.0);
    assert_eq!(copy.precision, Some(carmbench::kernels::Precision::Int));
    near("copy Q", copy.bytes, 16.0 * n * r, 0.02);
    // The functions (with the rest) are the whole program, exactly: its
    // flops (the functions of FP work have them as W) and bytes.
    assert_eq!(
        whole.precision, None,
        "FP code: its loops' indices do not make it integer code"
    );
    let sum = |f: &dyn Fn(&apps::AppPoint) -> f64| funcs.iter().map(|a| f(a)).sum::<f64>();
    assert_eq!(sum(&flops_of), whole.flops);
    assert_eq!(sum(&|a| a.bytes), whole.bytes);
    // Time shares among the three, as the samples and the program's own
    // clock see them, within 10 points.
    let own = own_times(&stderr);
    let sampled = [compute.seconds, triad.seconds, copy.seconds];
    let (so, ss) = (own.iter().sum::<f64>(), sampled.iter().sum::<f64>());
    for (k, name) in ["compute", "triad", "copy"].iter().enumerate() {
        let (a, b) = (sampled[k] / ss, own[k] / so);
        assert!(
            (a - b).abs() <= 0.10,
            "{name}: share {a:.3} sampled, {b:.3} timed: {stdout}"
        );
    }
    assert!(stdout.contains("functions of functions") && stdout.contains("triad (libcarmfn.so)"));
    // Run by a shell that forks and execs it: the child's functions, their
    // work and their time, found all the same.
    let line = format!("{} 1000000 20; true", exe.display());
    let o = emulated_profile(
        &dir,
        "child.yaml",
        &["--functions", "--name", "sh"],
        &["sh", "-c", &line],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let child = apps::load(&dir.join("child.yaml")).unwrap();
    let compute = child
        .applications
        .iter()
        .find(|a| a.name == "compute")
        .expect("compute, in the shell's child");
    near(
        "compute W in a child",
        compute.flops,
        64.0 * (1e6 / 16.0) * 20.0,
        0.005,
    );
    let f = compute.function().unwrap();
    assert!(
        f.program == "sh" && f.module == "functions" && f.share > 0.1,
        "{f:?}"
    );
}

pub fn stripped_code_is_named_by_file_and_offset_and_short_runs_say_so() {
    let dir = tmpdir("functions-stripped");
    let exe = build(&dir, true);
    let out = profile_functions(&dir, &exe, "2000000", "10", "apps.yaml");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let f = apps::load(&dir.join("apps.yaml")).unwrap();
    let names: Vec<&str> = f
        .applications
        .iter()
        .filter(|a| a.function().is_some())
        .map(|a| a.name.as_str())
        .collect();
    // The library's exported triad keeps its name; the program's own
    // functions are named by their start in the file.
    assert!(names.contains(&"triad"), "{names:?}");
    let by_offset = names
        .iter()
        .filter(|n| n.starts_with("functions+0x"))
        .count();
    assert!(by_offset >= 2, "{names:?}");
    assert!(!names.contains(&"compute"));
    // A function whose name is not UTF-8: named with U+FFFD in place of the
    // bad byte, its W and Q its own.
    let bad = gcc(&dir, "bad_name", BAD_NAME, &["-O2"]);
    let o = emulated_profile(
        &dir,
        "bad.yaml",
        &["--functions"],
        &[bad.to_str().unwrap(), "1000000", "100"],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let b = apps::load(&dir.join("bad.yaml")).unwrap();
    let work = b
        .applications
        .iter()
        .find(|a| a.name == "w\u{FFFD}rk")
        .unwrap_or_else(|| {
            panic!(
                "{:?}",
                b.applications.iter().map(|a| &a.name).collect::<Vec<_>>()
            )
        });
    near("w\u{FFFD}rk W", work.flops, 2.0 * 1e6 * 100.0, 0.005);
    // A run too short to sample: one line, the program's point written.
    let short = profile_functions(&dir, &exe, "64", "1", "short.yaml");
    let stderr = String::from_utf8_lossy(&short.stderr);
    assert!(short.status.success(), "{stderr}");
    assert_eq!(stderr.matches("too briefly").count(), 1, "{stderr}");
    let s = apps::load(&dir.join("short.yaml")).unwrap();
    assert_eq!(s.applications.len(), 1);
    assert!(s.applications[0].function().is_none());
}

/// (x, y) pairs of an SVG `points` attribute.
fn svg_points(attr: &str) -> Vec<(f64, f64)> {
    attr.split_whitespace()
        .filter_map(|p| {
            let (x, y) = p.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

/// The value of attribute `name` in an SVG element's text.
fn attr<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let at = element.find(&format!(" {name}=\""))? + name.len() + 3;
    element[at..].split('"').next()
}

pub fn a_before_and_after_pair_draws_arrows_the_way_the_functions_moved() {
    let dir = tmpdir("functions-moved");
    // Before: unoptimised, compute keeps its value on the stack (more bytes,
    // slower); after: -O2, in a register.
    let before = build_as(&dir, "functions_O0", "-O0", false);
    let after = build_as(&dir, "functions", "-O2", false);
    for (exe, out) in [(&before, "before.yaml"), (&after, "after.yaml")] {
        let o = emulated_profile(
            &dir,
            out,
            &["--functions", "--name", "fn"],
            &[exe.to_str().unwrap(), "1000000", "20"],
        )
        .output()
        .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zen5-epyc-2core.yaml");
    let o = Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .arg("plot")
        .arg(&results)
        .args([
            "--apps",
            "after.yaml",
            "--before",
            "before.yaml",
            "-o",
            "moved.svg",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The table: compute got faster, and denser (fewer bytes per flop).
    let row = table.lines().find(|l| l.starts_with("compute")).unwrap();
    let ratios: Vec<f64> = row
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('×')?.parse().ok())
        .collect();
    assert_eq!(ratios.len(), 3, "{row}");
    assert!(
        ratios[0] < 1.0 && ratios[1] > 1.0 && ratios[2] > 1.0,
        "{row}"
    );
    assert!(table.lines().any(|l| l.starts_with("triad")), "{table}");
    // The chart: compute's arrow ends at its disc, coming from the left and
    // from below (SVG's y grows downwards).
    let svg = std::fs::read_to_string(dir.join("moved.svg")).unwrap();
    let disc = svg
        .split("<circle")
        .find(|c| c.contains("<title>compute in fn"))
        .expect("compute's disc");
    let (cx, cy): (f64, f64) = (
        attr(disc, "cx").unwrap().parse().unwrap(),
        attr(disc, "cy").unwrap().parse().unwrap(),
    );
    let arrows: Vec<Vec<(f64, f64)>> = svg
        .split("<polyline")
        .filter(|p| attr(p, "stroke") == Some("#444444"))
        .filter_map(|p| attr(p, "points").map(svg_points))
        .collect();
    let shaft = arrows
        .iter()
        .filter(|pts| pts.len() == 2)
        .find(|pts| {
            (pts[1].0 - cx).abs() <= 1.5 && (pts[1].1 - cy).abs() <= 1.5 && pts[0] != pts[1]
        })
        .unwrap_or_else(|| panic!("no arrow ends at compute's disc ({cx}, {cy}): {arrows:?}"));
    assert!(shaft[0].0 < cx && shaft[0].1 > cy, "{shaft:?}");
}

pub fn a_library_closed_before_exit_keeps_its_work_in_its_own_file() {
    let dir = tmpdir("dlclosed");
    let lib = library(&dir);
    let exe = gcc_with(&dir, "dlopened", DLOPENED, &["-O2"], &["-ldl"]);
    let (n, r) = (100_000u64, 20u64);
    let args = [
        lib.to_str().unwrap(),
        &n.to_string(),
        &r.to_string(),
        "libm.so.6",
    ];
    let out = count(&exe, &args);
    let p = &out.processes[0];
    let module = (p.modules.iter())
        .position(|m| m.ends_with("libcarmfn.so"))
        .unwrap_or_else(|| panic!("the closed library is not among {:?}", p.modules));
    let flops: u64 = (p.sites.iter())
        .filter(|s| s.module == module as u32)
        .map(|s| s.counts.flops())
        .sum();
    assert_eq!(flops, 2 * n * r);
    // Nothing of it fell to code in no file.
    let anonymous: u64 = (p.sites.iter())
        .filter(|s| s.module == carmbench_counts::Site::ANONYMOUS)
        .map(|s| s.counts.flops())
        .sum();
    assert_eq!(anonymous, 0);
}
