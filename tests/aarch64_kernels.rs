//! Every AArch64 kernel runs, and what it leaves behind is what its loop
//! must compute: the streams it stored, the last vector it loaded, the
//! first chain of its FP op. Run under QEMU by scripts/test-aarch64.sh,
//! without SVE and at SVE vector lengths of 128 to 2048 bits (QEMU_CPU).
#![cfg(target_arch = "aarch64")]

use carmbench::kernels::{KERNELS, Kernel, Kind, Mix, Op, Precision, Shape};
use carmbench::machine::isa::{self, Isa};
use carmbench::measure::streams::layout;

/// Inner iterations and passes of every run: a few, enough to see strides.
const ITERS: u64 = 3;
const PASSES: u64 = 2;

/// A buffer of f64 with room after the streams, which must stay 0.
fn buffer(elems: usize, f: impl Fn(usize) -> f64) -> Vec<f64> {
    (0..elems).map(f).collect()
}

/// Run `k` on streams A, B, C.
fn run(k: &Kernel, a: &[f64], b: &[f64], c: &mut [f64], iters: u64, shape: Shape) {
    // SAFETY: the buffers hold every stream's span (sized from the layout
    // below) plus room; the kernel follows asm/aarch64/common.S.
    unsafe {
        (k.entry)(
            a.as_ptr().cast(),
            b.as_ptr().cast(),
            c.as_mut_ptr().cast(),
            iters,
            PASSES,
            shape.arg(),
        )
    };
}

/// The SVE vector length QEMU was asked for, bytes, or None without SVE.
fn asked_vl() -> Option<u32> {
    let cpu = std::env::var("QEMU_CPU").ok()?;
    if cpu.starts_with("cortex-a72") {
        return Some(0);
    }
    cpu.split(',')
        .find_map(|p| p.strip_prefix("sve-default-vector-length="))
        .and_then(|n| n.parse().ok())
}

#[test]
fn detection_finds_what_the_cpu_has() {
    let r = isa::detect();
    assert!(r.benchmarked.contains(&Isa::Scalar) && r.benchmarked.contains(&Isa::Neon));
    match asked_vl() {
        Some(0) => {
            assert!(r.skipped.contains(&Isa::Sve), "{r:?}");
            assert_eq!(Isa::Sve.width_bytes(), 0);
        }
        Some(vl) => {
            assert!(r.benchmarked.contains(&Isa::Sve), "{r:?}");
            assert_eq!(Isa::Sve.width_bytes(), vl);
        }
        None => {}
    }
}

fn check_stream_kernel(k: &Kernel) {
    let d = &k.decl;
    let w = d.width() as usize / 8;
    let lay = layout(k, ITERS * d.bytes_per_iter(), Shape::ONE);
    let [adv_a, _, adv_c] = lay.advance.map(|x| x / 8);
    let (span_a, span_c) = (ITERS as usize * adv_a, ITERS as usize * adv_c);
    let room = 64 + 2 * w;
    let a = buffer(span_a + room, |i| (i + 1) as f64);
    let b = buffer(span_a + room, |i| -((i + 1) as f64));
    let mut c = buffer(span_c.max(w) + room, |_| 0.0);
    run(k, &a, &b, &mut c, ITERS, Shape::ONE);
    let name = d.name;
    match d.mix.unwrap() {
        Mix::Load => {
            // The last vector of stream A.
            assert_eq!(&c[..w], &a[span_a - w..span_a], "{name}");
        }
        Mix::Store | Mix::NtStore => {
            assert!(
                c[..span_c].iter().all(|&x| x == 1.0),
                "{name}: {:?}",
                &c[..span_c]
            );
        }
        Mix::TwoLdOneSt | Mix::OneLdOneSt => {
            assert_eq!(&c[..span_c], &a[..span_c], "{name}");
        }
    }
    if d.mix != Some(Mix::Load) {
        assert!(
            c[span_c..].iter().all(|&x| x == 0.0),
            "{name} wrote past its stream"
        );
    }
}

fn check_fp_kernel(k: &Kernel) {
    let d = &k.decl;
    let n = (ITERS * PASSES) as f64;
    let mut c = vec![0.0f64; 512];
    run(k, &[], &[], &mut c, ITERS, Shape::ONE);
    let (got, want) = match d.precision.unwrap() {
        Precision::Dp | Precision::Sp => first_fp_chain(d, &c, n),
        _ => first_narrow_chain(d, &c, n),
    };
    assert!(
        got.iter().all(|&x| x == want),
        "{}: {got:?}, want {want}",
        d.name
    );
}

/// Chain 0 of a double or single kernel: 1.0 plus 1.0 (or 1.0 x 1.0) once
/// per iteration, or times (divided by) 1.0.
fn first_fp_chain(d: &carmbench::kernels::Decl, c: &[f64], n: f64) -> (Vec<f64>, f64) {
    let want = match d.op.unwrap() {
        Op::Add | Op::AddMul | Op::Fma | Op::FmaAdd => 1.0 + n,
        Op::Mul | Op::Div => 1.0,
        op => panic!("{}: no {op} kernel of double or single", d.name),
    };
    let lanes = d.lanes() as usize;
    let got = match d.precision.unwrap() {
        Precision::Dp => c[..lanes].to_vec(),
        _ => f32s(c, lanes),
    };
    (got, want)
}

/// Chain 0 of a narrow kernel, in its accumulator's type: INT8 sources of 1
/// add 4 a dot product and 8 a matrix multiply-accumulate (a lane is a dot
/// of 8), BF16 ones 2 and 4 to 1.0, an FP16 FMA 1 to 1.0; INT32 adds 1 to
/// 0, multiplies keep 1.
fn first_narrow_chain(d: &carmbench::kernels::Decl, c: &[f64], n: f64) -> (Vec<f64>, f64) {
    let acc_lanes = d.width() as usize / 4;
    let ints = || -> Vec<f64> {
        // SAFETY: the f64 buffer holds at least `acc_lanes` i32 values.
        let v: &[i32] = unsafe { std::slice::from_raw_parts(c.as_ptr().cast(), acc_lanes) };
        v.iter().map(|&x| f64::from(x)).collect()
    };
    match (d.precision.unwrap(), d.op.unwrap()) {
        (Precision::Int8, Op::Dot) => (ints(), 4.0 * n),
        (Precision::Int8, Op::Mmla) => (ints(), 8.0 * n),
        (Precision::Bf16, Op::Dot) => (f32s(c, acc_lanes), 1.0 + 2.0 * n),
        (Precision::Bf16, Op::Mmla) => (f32s(c, acc_lanes), 1.0 + 4.0 * n),
        (Precision::Int32, Op::Add) => (ints(), n),
        (Precision::Int32, Op::Mul) => (ints(), 1.0),
        (Precision::Fp16, Op::Fma) => {
            // SAFETY: the f64 buffer holds at least 2 * acc_lanes halves.
            let h: &[u16] = unsafe { std::slice::from_raw_parts(c.as_ptr().cast(), 2 * acc_lanes) };
            (h.iter().map(|&x| f16_value(x)).collect(), 1.0 + n)
        }
        (p, op) => panic!("{}: no {p} {op} kernel is checked here", d.name),
    }
}

fn f32s(c: &[f64], lanes: usize) -> Vec<f64> {
    // SAFETY: the f64 buffer holds at least `lanes` f32 values.
    let f: &[f32] = unsafe { std::slice::from_raw_parts(c.as_ptr().cast(), lanes) };
    f.iter().map(|&x| f64::from(x)).collect()
}

/// The value of a normal IEEE half.
fn f16_value(h: u16) -> f64 {
    let exp = i32::from((h >> 10) & 0x1F) - 15;
    let frac = 1.0 + f64::from(h & 0x3FF) / 1024.0;
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    sign * frac * 2f64.powi(exp)
}

fn check_validation_kernel(k: &Kernel) {
    let d = &k.decl;
    let shape = Shape { j: 2, k: 3 };
    let lay = layout(k, 2 * d.shaped_bytes(shape), shape);
    let span_a = (lay.iters as usize) * lay.advance[0] / 8;
    let span_c = (lay.iters as usize) * lay.advance[2] / 8;
    let a = buffer(span_a + 4096 / 8 + 512, |i| (i + 1) as f64);
    let b = a.clone();
    let mut c = buffer(span_a + 4096 / 8 + 512, |_| 0.0);
    run(k, &a, &b, &mut c, lay.iters, shape);
    if d.mix == Some(Mix::TwoLdOneSt) {
        assert_eq!(&c[..span_c], &a[..span_c], "{}", d.name);
        assert!(c[span_c..].iter().all(|&x| x == 0.0), "{}", d.name);
    }
}

#[test]
fn every_runnable_kernel_computes_what_its_loop_says() {
    let (mut ran, mut skipped) = (0, 0);
    for k in KERNELS {
        if !k.runnable() {
            // Only SVE and the narrow types' extensions can be missing.
            assert!(
                k.decl.isa == Isa::Sve || k.decl.needs.is_some(),
                "{}",
                k.decl.name
            );
            skipped += 1;
            continue;
        }
        match k.decl.kind {
            Kind::Bandwidth => check_stream_kernel(k),
            Kind::Compute => check_fp_kernel(k),
            Kind::Validation => check_validation_kernel(k),
        }
        ran += 1;
    }
    assert_eq!(ran + skipped, KERNELS.len());
    // `-cpu max` has every extension: every kernel runs there.
    if std::env::var("QEMU_CPU").is_ok_and(|c| c.starts_with("max")) {
        assert_eq!(skipped, 0, "a kernel did not run on -cpu max");
    }
    if !isa::supported(Isa::Sve) {
        let sve = KERNELS.iter().filter(|k| k.decl.isa == Isa::Sve).count();
        assert!(skipped >= sve);
    }
}
