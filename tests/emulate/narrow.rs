//! The narrow types counted by emulation: `int8_dot.c` takes its AVX2 path
//! under QEMU (no VNNI there), whose ops are worked out by hand in its
//! comment; the point is placed under the INT8 roof, its ops by type in the
//! apps file.

use super::*;

const INT8_DOT: &str = include_str!("../programs/int8_dot.c");

pub fn an_int8_program_is_counted_and_placed_under_the_int8_roof() {
    let dir = tmpdir("emulated-int8");
    let exe = gcc(&dir, "int8_dot", INT8_DOT, &["-O2"]);
    let (n, r) = (16384u64, 2000u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    // By hand, per 32 pairs: 48 INT8, 24 INT16, 8 INT32 ops; 12 INT32 ops
    // a call to sum up.
    let (int8, int16, int32) = (n * r * 3 / 2, n * r * 3 / 4, n * r / 4 + 12 * r);
    let out = count(&exe, &[&ns, &rs]);
    let c = &out.total;
    assert_eq!(c.int16_ops, int16, "{c:?}");
    // Start-up code adds a few byte and dword adds of its own (the loader's
    // and libc's: 8080 INT8 ops here).
    let near = |got: u64, want: u64| got >= want && got <= want + 20_000;
    assert!(near(c.int8_ops, int8) && near(c.int32_ops, int32), "{c:?}");
    assert_eq!(
        carmbench::profile::measured::work::dominant(c),
        Some(carmbench::kernels::Precision::Int8)
    );
    let results = with_an_int8_roof(&dir, 1000.0);
    let run = emulated_profile(
        &dir,
        "apps.yaml",
        &["--results", results.to_str().unwrap()],
        &["./int8_dot", &ns, &rs],
    )
    .output()
    .unwrap();
    let stdout = success(&run);
    // Against the INT8 roofs, in ops, never the double-precision FMA's.
    assert!(
        stdout.contains("op/B")
            && stdout.contains("GOP/s at this AI")
            && !stdout.contains("dp peak"),
        "{stdout}"
    );
    let p = &apps::load(&dir.join("apps.yaml")).unwrap().applications[0];
    assert_eq!(p.precision, Some(carmbench::kernels::Precision::Int8));
    // W is every integer op; Q both vectors each time, and the set-up.
    let w = (int8 + int16 + int32) as f64;
    assert!(p.flops >= w && p.flops <= w + 40_000.0, "{p:?}");
    let q = (2 * n * r) as f64;
    assert!(
        p.bytes >= q && p.bytes <= q * 1.001 + START_UP as f64,
        "{p:?}"
    );
    let mix = p.mix.as_ref().unwrap();
    assert_eq!(mix.int16_ops, int16 as f64);
    assert!(near(mix.int8_ops as u64, int8) && near(mix.int32_ops as u64, int32));
    assert_eq!(p.fma_flops, None, "no FP FMA share for integer work");
}
