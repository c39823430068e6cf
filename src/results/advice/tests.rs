//! The advice of points built by hand on the Emerald Rapids fixture's roofs.

use super::*;
use crate::results::apps::InstructionMix;

fn doc() -> Document {
    let text = include_str!("../../../tests/fixtures/emr-xeon-2core.yaml");
    crate::results::file::parse(text, "emr-xeon-2core.yaml").unwrap()
}

/// A one-thread point of `flops` (none fused) done by `instructions` FP
/// instructions of `width` bytes (8: scalar), at `ai`, reaching `share`
/// of the roof right above it.
fn point(doc: &Document, ai: f64, width: u32, fma: bool, share: f64) -> AppPoint {
    let flops = 1e11;
    let per = f64::from(width / 8) * if fma { 2.0 } else { 1.0 };
    let mut m = InstructionMix {
        dp_flops: flops,
        fma_flops: if fma { flops } else { 0.0 },
        other_flops: if fma { 0.0 } else { flops },
        ..InstructionMix::default()
    };
    *match width {
        8 => &mut m.fp_scalar,
        16 => &mut m.fp_128,
        32 => &mut m.fp_256,
        _ => &mut m.fp_512,
    } = flops / per;
    let mut p = AppPoint::new("p", flops, flops / ai, 1e6);
    p.threads = Some(1);
    p.mix = Some(m);
    // Far below every roof, then moved to `share` of the roof above it.
    let (_, at) = placement(doc, &p, 1).unwrap().roof.unwrap();
    p.seconds = flops * 1e-9 / (share * at);
    p
}

/// `p`'s advice, alone in its file.
fn advise_one(d: &Document, p: &AppPoint) -> Vec<Advice> {
    advise(Some(d), p, &[])
}

fn find(a: &[Advice], code: Code) -> Option<&Advice> {
    a.iter().find(|x| x.code == code)
}

#[test]
fn a_scalar_loop_is_told_the_vector_width_and_an_unfused_one_fma() {
    let d = doc();
    // Compute-bound (100 flop/B), scalar, no FMA, at 90 % of its roof.
    let a = advise_one(&d, &point(&d, 100.0, 8, false, 0.9));
    assert_eq!(a[0].code, Code::Bound, "{a:?}");
    assert!((a[0].share - 0.9).abs() < 1e-9, "{a:?}");
    let s = find(&a, Code::ScalarFp).expect("scalar_fp");
    assert_eq!(s.share, 1.0);
    assert!(
        (s.gain.unwrap() - 8.0).abs() < 1e-9,
        "AVX-512's 8 doubles: {a:?}"
    );
    let f = find(&a, Code::NoFma).expect("no_fma");
    assert_eq!(f.share, 1.0);
    assert!((1.7..=2.1).contains(&f.gain.unwrap()), "{a:?}");
    assert!(find(&a, Code::MemoryBound).is_none(), "{a:?}");
    // The same loop in 512-bit FMA: neither.
    let a = advise_one(&d, &point(&d, 100.0, 64, true, 0.9));
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
    // Vectorised without FMA: FMA alone.
    let a = advise_one(&d, &point(&d, 100.0, 64, false, 0.9));
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::NoFma).is_some(), "{a:?}");
}

#[test]
fn a_dram_triad_is_memory_bound_with_no_compute_advice() {
    let d = doc();
    // 2 flops per 24 bytes, scalar, no FMA: DRAM bounds it whatever
    // its width.
    let a = advise_one(&d, &point(&d, 2.0 / 24.0, 8, false, 0.8));
    let dram = |x: &Advice| x.roof.as_deref().is_some_and(|r| r.starts_with("DRAM "));
    assert!(dram(&a[0]), "{a:?}");
    let m = find(&a, Code::MemoryBound).expect("memory_bound");
    assert!(dram(m), "{a:?}");
    assert!((m.share - 0.8).abs() < 1e-9, "{a:?}");
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
    let n = find(&a, Code::NextRoof).expect("next roof");
    assert!(n.gain.unwrap() > 1.0 && !dram(n), "{a:?}");
    let back: Vec<Advice> = serde_yaml::from_str(&serde_yaml::to_string(&a).unwrap()).unwrap();
    assert_eq!(back, a);
}

#[test]
fn a_point_above_every_roof_is_a_counting_error_and_a_brief_run_is_said() {
    let d = doc();
    let mut p = point(&d, 100.0, 64, true, 0.5);
    p.seconds /= 1000.0;
    let a = advise_one(&d, &p);
    assert_eq!(a[0].code, Code::AboveRoof, "{a:?}");
    assert!(a[0].share > 1.0);
    assert!(find(&a, Code::Bound).is_none());
    assert!(find(&a, Code::ShortRun).is_some(), "{} s: {a:?}", p.seconds);
    let long = advise_one(&d, &point(&d, 100.0, 64, true, 0.5));
    assert!(find(&long, Code::ShortRun).is_none(), "{long:?}");
}

#[test]
fn a_point_far_below_its_memory_roof_is_not_called_memory_bound() {
    let d = doc();
    let a = advise_one(&d, &point(&d, 2.0 / 24.0, 8, false, 0.04));
    let far = find(&a, Code::FarBelow).expect("far_below");
    assert!((far.share - 0.04).abs() < 1e-9, "{a:?}");
    assert!(find(&a, Code::MemoryBound).is_none(), "{a:?}");
    // Compute-bound and scalar at 4 % of the peak: the width and FMA
    // explain it (8 × 2 × 4 % is over 10 %), so no far_below.
    let a = advise_one(&d, &point(&d, 100.0, 8, false, 0.04));
    assert!(find(&a, Code::FarBelow).is_none(), "{a:?}");
    assert!(find(&a, Code::ScalarFp).is_some(), "{a:?}");
    // In 512-bit FMA at 4 %: nothing in its mix explains it.
    let a = advise_one(&d, &point(&d, 100.0, 64, true, 0.04));
    assert!(find(&a, Code::FarBelow).is_some(), "{a:?}");
}

#[test]
fn the_advice_carries_its_evidence() {
    use crate::results::apps::{ReadWrite, Traffic};
    let d = doc();
    // A triad over DRAM whose caches were simulated: 1 line access in 4
    // reaches DRAM (L1 hits 3 of 4 of its 64-byte lines).
    let mut p = point(&d, 2.0 / 24.0, 16, false, 0.7);
    let lines = p.bytes / 64.0;
    let rw = |b: f64| ReadWrite {
        read: b,
        write: 0.0,
    };
    p.traffic = Some(Traffic {
        l2: rw(p.bytes / 4.0),
        l3: rw(p.bytes / 4.0),
        dram: rw(p.bytes / 4.0),
        hits: [0.75 * lines, 0.0, 0.0],
        model: "test".into(),
        sample: 1,
        line: 64,
    });
    let a = advise_one(&d, &p);
    let m = find(&a, Code::MemoryBound).expect("memory_bound");
    assert!(m.roof.as_deref().unwrap().starts_with("DRAM "), "{a:?}");
    let e = &m.evidence;
    assert!((e.misses_per_access.unwrap() - 0.25).abs() < 1e-9, "{e:?}");
    assert!((e.bytes_per_op.unwrap() - 3.0).abs() < 1e-9, "{e:?}");
    assert!(
        words(m).contains("3.00 bytes per operation"),
        "{}",
        words(m)
    );
    // The widths of a 128-bit loop, and its FMA share.
    let a = advise_one(&d, &point(&d, 100.0, 16, false, 0.9));
    let s = find(&a, Code::ScalarFp).expect("scalar_fp");
    assert_eq!(s.evidence.widths.unwrap().v128, 1.0, "{a:?}");
    assert!(words(s).contains("100% 128-bit"), "{}", words(s));
    assert_eq!(find(&a, Code::NoFma).unwrap().evidence.fma_share, Some(0.0));
    // x87 under 1 % of the FP instructions is a library's long double.
    let mut p = point(&d, 100.0, 64, true, 0.9);
    p.mix.as_mut().unwrap().x87 = p.mix.as_ref().unwrap().fp_512 * 0.005;
    assert!(find(&advise_one(&d, &p), Code::X87).is_none());
    p.mix.as_mut().unwrap().x87 = p.mix.as_ref().unwrap().fp_512 * 0.05;
    assert!(find(&advise_one(&d, &p), Code::X87).is_some());
}

#[test]
fn code_that_ran_in_another_codes_place_is_said_and_gets_no_mix_advice() {
    use crate::results::apps::{FunctionInfo, Of, RanOnly};
    let d = doc();
    let mut prog = point(&d, 100.0, 64, true, 0.9);
    prog.name = "prog".into();
    // The native AVX-512 kernel, counted as the AVX2 one QEMU ran: its
    // (scalar here) mix is not its own.
    let mut f = point(&d, 100.0, 8, false, 0.9);
    f.name = "kernel_avx512".into();
    let mut info = FunctionInfo::new("prog", "libk.so", 0.3, 300);
    info.counted_as = Some("kernel_avx2".into());
    f.of = Of::Function(info);
    let mut only = point(&d, 100.0, 64, true, 0.9);
    let mut info = FunctionInfo::new("prog", "libk.so", 0.15, 150);
    info.ran_only = Some(RanOnly::Natively);
    only.of = Of::Function(info);
    let all = vec![prog.clone(), f.clone(), only.clone()];
    let a = advise(Some(&d), &f, &all);
    let o = find(&a, Code::OtherPath).expect("other_path");
    assert_eq!(o.evidence.ran_instead.as_deref(), Some("kernel_avx2"));
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
    let a = advise(Some(&d), &prog, &all);
    let o = find(&a, Code::OtherPath).expect("the program's other_path");
    assert!((o.share - 0.45).abs() < 1e-9, "{a:?}");
    assert!(words(o).contains("45%"), "{}", words(o));
    // Alone, the program has none.
    assert!(find(&advise_one(&d, &prog), Code::OtherPath).is_none());
}

#[test]
fn a_run_that_shared_its_cores_or_mostly_waited_is_said() {
    use crate::results::apps::NativeTime;
    let d = doc();
    let mut p = point(&d, 100.0, 64, true, 0.5);
    let wall = p.seconds;
    // Ready for all its wall time, a third of it waiting for the CPU.
    p.native = Some(NativeTime {
        cpu_seconds: wall * 2.0 / 3.0,
        waited_seconds: wall / 3.0,
        steal: 0.0,
    });
    let a = advise_one(&d, &p);
    let s = find(&a, Code::SharedCores).expect("shared_cores");
    assert!((s.share - 1.0 / 3.0).abs() < 1e-9 && (s.gain.unwrap() - 1.5).abs() < 1e-9);
    assert!(find(&a, Code::MostlyWaited).is_none(), "{a:?}");
    // A fifth of its wall time on a CPU, none waiting for one.
    p.native = Some(NativeTime {
        cpu_seconds: wall / 5.0,
        waited_seconds: 0.0,
        steal: 0.0,
    });
    let a = advise_one(&d, &p);
    let m = find(&a, Code::MostlyWaited).expect("mostly_waited");
    assert!((m.share - 0.8).abs() < 1e-9, "{a:?}");
    assert!(words(m).contains("ran 20%"), "{}", words(m));
    assert!(find(&a, Code::SharedCores).is_none(), "{a:?}");
    // Alone and busy, with the host's steal: shared, for the steal.
    p.native = Some(NativeTime {
        cpu_seconds: wall,
        waited_seconds: 0.0,
        steal: 0.2,
    });
    let a = advise_one(&d, &p);
    assert!(find(&a, Code::MostlyWaited).is_none(), "{a:?}");
    let s = find(&a, Code::SharedCores).expect("steal");
    assert!(words(s).contains("the host took 20%"), "{}", words(s));
}

#[test]
fn a_function_on_few_samples_is_told_so_and_every_code_has_words() {
    use crate::results::apps::{FunctionInfo, Of};
    let d = doc();
    let mut f = point(&d, 100.0, 64, true, 0.5);
    f.of = Of::Function(FunctionInfo::new("prog", "prog", 0.1, 20));
    let a = advise_one(&d, &f);
    let s = find(&a, Code::ShortRun).expect("short_run");
    assert!((s.share - 0.4).abs() < 1e-9, "{a:?}");
    f.of = Of::Function(FunctionInfo::new("prog", "prog", 0.1, 500));
    assert!(find(&advise_one(&d, &f), Code::ShortRun).is_none());
    for code in [
        Code::Bound,
        Code::ScalarFp,
        Code::NoFma,
        Code::MemoryBound,
        Code::FarBelow,
        Code::NextRoof,
        Code::IntegerWork,
        Code::X87,
        Code::AboveRoof,
        Code::ShortRun,
        Code::NoSymbols,
        Code::OtherPath,
        Code::SharedCores,
        Code::MostlyWaited,
    ] {
        let w = words(&advice(code, 0.5, Some(2.0), Some("DRAM roof".into())));
        assert!(w.len() > 20 && !w.contains("NaN"), "{code:?}: {w}");
    }
}

#[test]
fn with_simulated_caches_the_bounding_level_names_the_next_roof_and_a_dot_above_its_roof_is_an_error()
 {
    use crate::results::apps::{ReadWrite, Traffic};
    let d = doc();
    let traffic = |p: &AppPoint, l3: f64, dram: f64| Traffic {
        l2: ReadWrite {
            read: p.bytes,
            write: 0.0,
        },
        l3: ReadWrite {
            read: l3,
            write: 0.0,
        },
        dram: ReadWrite {
            read: dram,
            write: 0.0,
        },
        hits: [0.0, 0.0, 0.0],
        model: "test".into(),
        sample: 1,
        line: 64,
    };
    // At 50 % of the DRAM roof by its L1 bytes, all of which come from
    // L3 (a few from DRAM): L3 bounds it, L2 is next.
    let mut p = point(&d, 2.0 / 24.0, 8, false, 0.5);
    p.traffic = Some(traffic(&p, p.bytes, p.bytes / 100.0));
    let a = advise_one(&d, &p);
    let m = find(&a, Code::MemoryBound).expect("memory_bound");
    assert!(m.roof.as_deref().unwrap().starts_with("L3 "), "{a:?}");
    let n = find(&a, Code::NextRoof).expect("next_roof");
    assert!(n.roof.as_deref().unwrap().starts_with("L2 "), "{a:?}");
    // Three times the bytes the core asked for from DRAM, in the same
    // time: its DRAM dot at 1.5 times the DRAM roof, which store streams
    // reach (their lines read, then written back).
    p.traffic = Some(traffic(&p, p.bytes, 3.0 * p.bytes));
    let a = advise_one(&d, &p);
    let m = find(&a, Code::MemoryBound).expect("memory_bound");
    assert!((m.share - 1.5).abs() < 1e-6, "{a:?}");
    // Six times: three times the roof, a counting error.
    p.traffic = Some(traffic(&p, p.bytes, 6.0 * p.bytes));
    let a = advise_one(&d, &p);
    let e = find(&a, Code::AboveRoof).expect("above_roof");
    assert!(
        e.roof.as_deref().unwrap().starts_with("DRAM ") && e.share > 1.0,
        "{a:?}"
    );
    assert!(find(&a, Code::MemoryBound).is_none(), "{a:?}");
}

#[test]
fn far_below_is_judged_at_the_rate_the_run_would_have_had_alone() {
    use crate::results::apps::NativeTime;
    let d = doc();
    // A triad at 8 % of the DRAM roof whose threads waited a third of the
    // time for a CPU: alone, 12 %: memory-bound, on shared cores.
    let mut p = point(&d, 2.0 / 24.0, 8, false, 0.08);
    p.native = Some(NativeTime {
        cpu_seconds: p.seconds * 2.0 / 3.0,
        waited_seconds: p.seconds / 3.0,
        steal: 0.0,
    });
    let a = advise_one(&d, &p);
    assert!(find(&a, Code::FarBelow).is_none(), "{a:?}");
    assert!(find(&a, Code::MemoryBound).is_some(), "{a:?}");
    assert!(find(&a, Code::SharedCores).is_some(), "{a:?}");
    // Alone all along: far below.
    p.native = None;
    assert!(find(&advise_one(&d, &p), Code::FarBelow).is_some());
}

#[test]
fn with_simulated_caches_a_point_whose_data_stay_in_l1_near_the_peak_is_not_far_below() {
    use crate::results::apps::{ReadWrite, Traffic};
    let d = doc();
    // Under the DRAM roof by its L1 bytes (AI 2), at 90 % of it and so a
    // quarter of the peak, its data from L1: no level's dot is near its
    // roof, but the peak is not far.
    let mut p = point(&d, 2.0, 64, true, 0.9);
    let rw = |b: f64| ReadWrite {
        read: b,
        write: 0.0,
    };
    p.traffic = Some(Traffic {
        l2: rw(p.bytes / 1000.0),
        l3: rw(p.bytes / 1000.0),
        dram: rw(p.bytes / 1000.0),
        hits: [0.0; 3],
        model: "test".into(),
        sample: 1,
        line: 64,
    });
    let a = advise_one(&d, &p);
    assert!(find(&a, Code::FarBelow).is_none(), "{a:?}");
    assert!(find(&a, Code::MemoryBound).is_none(), "{a:?}");
    // Twenty times slower: far below the peak, its nearest roof.
    p.seconds *= 20.0;
    let a = advise_one(&d, &p);
    let f = find(&a, Code::FarBelow).expect("far_below");
    assert!(f.roof.as_deref().unwrap().ends_with(" peak"), "{a:?}");
}
