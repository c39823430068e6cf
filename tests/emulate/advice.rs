//! `profile`'s advice on programs of known instruction mix: a scalar loop,
//! the same vectorised without FMA, a DRAM triad, a run too short for its
//! samples (tests/programs/advice.c).

use super::*;
use carmbench::results::advice::{Advice, Code};

const ADVICE: &str = include_str!("../programs/advice.c");

/// Emerald Rapids' roofs: AVX-512 (8 doubles), FMA twice the rate of adds
/// and multiplies.
const EMR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/emr-xeon-2core.yaml"
);

/// The program's point's advice after `profile --results <results>` of
/// `args`, with `more` flags.
fn advice_of(dir: &Path, results: &str, more: &[&str], args: &[&str]) -> (Vec<Advice>, String) {
    let mut flags = vec!["--results", results];
    flags.extend(more);
    let out = emulated_profile(dir, "apps.yaml", &flags, args)
        .output()
        .unwrap();
    let stdout = success(&out);
    let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
    let name = args[0].trim_start_matches("./");
    let p = (points.into_iter())
        .find(|p| p.name == name && p.function().is_none())
        .unwrap();
    (p.advice, stdout)
}

fn find(a: &[Advice], code: Code) -> Option<&Advice> {
    a.iter().find(|x| x.code == code)
}

/// `-O2 -fno-tree-vectorize`: scalar, unfused: scalar_fp with a gain of
/// the vector width (AVX-512's 8 doubles) and no_fma; vectorised for AVX2
/// without FMA: no_fma near 2, and scalar_fp the 2 of 256 bits against 512.
/// Each in words in `profile`'s output.
pub fn a_scalar_loop_is_told_the_vector_width_and_an_unfused_one_fma() {
    let dir = tmpdir("advice-compute");
    let scalar = ["-O2", "-g", "-fno-tree-vectorize"];
    gcc(&dir, "scalar", ADVICE, &scalar);
    gcc(&dir, "avx2", ADVICE, &["-O3", "-g", "-mavx2", "-mno-fma"]);
    let (a, stdout) = advice_of(&dir, EMR, &[], &["./scalar", "poly", "512", "3000"]);
    assert_eq!(a[0].code, Code::Bound, "{a:?}");
    let s = find(&a, Code::ScalarFp).unwrap_or_else(|| panic!("{a:?}"));
    assert!(
        s.share > 0.99 && (s.gain.unwrap() - 8.0).abs() < 0.05,
        "{a:?}"
    );
    let f = find(&a, Code::NoFma).unwrap_or_else(|| panic!("{a:?}"));
    assert!(
        f.share > 0.99 && (1.8..=2.2).contains(&f.gain.unwrap()),
        "{a:?}"
    );
    assert!(find(&a, Code::MemoryBound).is_none(), "AI 16: {a:?}");
    assert!(
        stdout.contains("  scalar_fp: 100% of its FP work"),
        "{stdout}"
    );
    assert!(stdout.contains("  no_fma: 100% of its flops"), "{stdout}");
    let (a, _) = advice_of(&dir, EMR, &[], &["./avx2", "poly", "512", "8000"]);
    let f = find(&a, Code::NoFma).unwrap_or_else(|| panic!("{a:?}"));
    assert!((1.8..=2.2).contains(&f.gain.unwrap()), "{a:?}");
    let s = find(&a, Code::ScalarFp).unwrap_or_else(|| panic!("{a:?}"));
    assert!(
        (s.gain.unwrap() - 2.0).abs() < 0.05,
        "256 bits of 512: {a:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A triad over six times the results' L3, its caches simulated: bound
/// at DRAM, and no compute advice (wider or fused, it would wait as long);
/// a run of about 20 ms: the short-run note.
pub fn a_dram_triad_is_memory_bound_and_a_brief_run_is_said() {
    let dir = tmpdir("advice-memory");
    gcc(&dir, "advice", ADVICE, &["-O2", "-g"]);
    let l3 = (fixture().machine.topology.caches.iter())
        .find(|c| c.depth == 3)
        .unwrap()
        .size_bytes;
    let n = (l3 / 4).to_string();
    let traffic = ["--traffic"];
    let (a, stdout) = advice_of(&dir, FIXTURE, &traffic, &["./advice", "triad", &n, "6"]);
    let m = find(&a, Code::MemoryBound).unwrap_or_else(|| panic!("{a:?}"));
    assert!(m.roof.as_deref().unwrap().starts_with("DRAM "), "{a:?}");
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
    assert!(stdout.contains("  memory_bound: memory-bound:"), "{stdout}");
    let (a, stdout) = advice_of(&dir, EMR, &[], &["./advice", "poly", "512", "200"]);
    let s = find(&a, Code::ShortRun).unwrap_or_else(|| panic!("{a:?}"));
    assert!(s.share < 1.0, "{a:?}");
    assert!(stdout.contains("  short_run: too short:"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The polynomial in long double: x87 instructions, a flop each, counted
/// in W (256 a element), the program FP (not integer), and told to use
/// double.
pub fn an_x87_program_is_fp_with_its_x87_flops_counted_and_told_to_use_double() {
    let dir = tmpdir("advice-x87");
    gcc(&dir, "advice", ADVICE, &["-O2", "-g"]);
    let (n, r) = (512u64, 300u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let (a, stdout) = advice_of(&dir, EMR, &[], &["./advice", "x87", &ns, &rs]);
    let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
    let p = points.iter().find(|p| p.name == "advice").unwrap();
    let hand = (256 * n * r) as f64;
    assert!(
        (p.flops - hand).abs() <= 0.01 * hand,
        "{} flops against {hand}",
        p.flops
    );
    assert!(
        !p.precision.is_some_and(|q| q.is_integer()),
        "{:?}",
        p.precision
    );
    let x = find(&a, Code::X87).unwrap_or_else(|| panic!("{a:?}"));
    assert!(x.share > 0.99, "{a:?}");
    assert!(
        stdout.contains("  x87: ") && stdout.contains("use double"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A loop that runs for half a second whatever it does: its emulated run
/// stops at half a second too, having done a fraction of the work; said
/// as advice and as a warning naming time-bounded loops. A loop of fixed
/// work, slowed as emulation slows code, is not.
pub fn a_program_that_runs_for_a_fixed_time_is_said_to_have_done_less_work_emulated() {
    let dir = tmpdir("advice-timed");
    gcc(&dir, "spin", include_str!("../programs/spin.c"), &["-O2"]);
    let (a, stdout) = advice_of(&dir, EMR, &[], &["./spin", "0.5"]);
    let t = find(&a, Code::EmulatedTooFast).unwrap_or_else(|| panic!("{a:?}"));
    assert!(t.share < 2.0, "{a:?}");
    assert!(stdout.contains("  emulated_too_fast: "), "{stdout}");
    assert!(
        stdout.contains("a loop that runs for a fixed time"),
        "{stdout}"
    );
    gcc(&dir, "advice", ADVICE, &["-O2"]);
    let (a, _) = advice_of(&dir, EMR, &[], &["./advice", "poly", "512", "3000"]);
    assert!(find(&a, Code::EmulatedTooFast).is_none(), "{a:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
