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
    let (_, at) = place(doc, &p).unwrap().roof.unwrap();
    p.seconds = flops * 1e-9 / (share * at);
    p
}

/// `p`'s advice, alone in its file.
fn advise_one(d: &Document, p: &AppPoint) -> Vec<Advice> {
    advise(Some(d), p, &Others::default())
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

/// Hand-made traffic: every byte the core requested from L2, `l3` and
/// `dram` bytes read from those levels, nothing written back.
fn reads(p: &AppPoint, l3: f64, dram: f64) -> crate::results::apps::Traffic {
    use crate::results::apps::{ReadWrite, Traffic};
    let rw = |read| ReadWrite { read, write: 0.0 };
    Traffic {
        l2: rw(p.bytes),
        l3: rw(l3),
        dram: rw(dram),
        hits: [0.0; 3],
        model: "test".into(),
        sample: 1,
        line: 64,
        exclusive_l3: None,
    }
}

#[test]
fn a_dram_triad_is_memory_bound_by_its_dram_bytes_and_of_unknown_level_without_them() {
    let d = doc();
    // 2 flops per 24 bytes, scalar, no FMA: under the DRAM roof whatever
    // its width.
    let mut p = point(&d, 2.0 / 24.0, 8, false, 0.8);
    let dram = |x: &Advice| x.roof.as_deref().is_some_and(|r| r.starts_with("DRAM "));
    // Without simulated caches its bytes' level is unknown: it is said,
    // with --traffic named, and no memory-bound verdict or next roof.
    let a = advise_one(&d, &p);
    assert!(dram(&a[0]), "{a:?}");
    let u = find(&a, Code::LevelUnknown).expect("level_unknown");
    assert!(dram(u) && (u.share - 0.8).abs() < 1e-9, "{a:?}");
    assert!(words(u).contains("--traffic"), "{}", words(u));
    assert!(find(&a, Code::MemoryBound).is_none(), "{a:?}");
    assert!(find(&a, Code::NextRoof).is_none(), "{a:?}");
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
    // With them, its bytes from DRAM (a third of them written back, as a
    // triad's stores are): memory-bound at DRAM, at 80 % of its roof as the
    // roof counts the same bytes (its own kernel's write-allocations and
    // write-backs).
    let mut t = reads(&p, p.bytes, p.bytes);
    t.dram.write = p.bytes / 3.0;
    t.l3.write = p.bytes / 3.0;
    t.l2.write = p.bytes / 3.0;
    t.dram.read = p.bytes;
    p.traffic = Some(t);
    let a = advise_one(&d, &p);
    assert!(dram(&a[0]) && (a[0].share - 0.8).abs() < 1e-9, "{a:?}");
    let m = find(&a, Code::MemoryBound).expect("memory_bound");
    assert!(dram(m) && (m.share - 0.8).abs() < 1e-9, "{a:?}");
    assert!(find(&a, Code::LevelUnknown).is_none(), "{a:?}");
    let n = find(&a, Code::NextRoof).expect("next roof");
    assert!(n.gain.unwrap() > 1.0 && !dram(n), "{a:?}");
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
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
        exclusive_l3: None,
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
    let a = advise(Some(&d), &f, &Others::of(&all));
    let o = find(&a, Code::OtherPath).expect("other_path");
    assert_eq!(o.evidence.ran_instead.as_deref(), Some("kernel_avx2"));
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::NoFma).is_none(), "{a:?}");
    let a = advise(Some(&d), &prog, &Others::of(&all));
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
        emulated_seconds: None,
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
        emulated_seconds: None,
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
        emulated_seconds: None,
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
        Code::LevelUnknown,
        Code::EmulatedTooFast,
    ] {
        let w = words(&advice(code, 0.5, Some(2.0), Some("DRAM roof".into())));
        assert!(w.len() > 20 && !w.contains("NaN"), "{code:?}: {w}");
    }
}

#[test]
fn with_simulated_caches_the_bounding_level_names_the_next_roof_and_a_dot_above_its_roof_is_an_error()
 {
    let d = doc();
    let traffic = reads;
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
    // time: its DRAM dot at 1.5 times the DRAM roof in requested bytes,
    // 1.125 times it in the bytes the roof's own kernel moves (4/3 of
    // them: its store's line read, then written back), which store streams
    // a core writes whole reach.
    p.traffic = Some(traffic(&p, p.bytes, 3.0 * p.bytes));
    let a = advise_one(&d, &p);
    let m = find(&a, Code::MemoryBound).expect("memory_bound");
    assert!((m.share - 1.125).abs() < 1e-6, "{a:?}");
    // Eight times: three times the roof, a counting error.
    p.traffic = Some(traffic(&p, p.bytes, 8.0 * p.bytes));
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
        emulated_seconds: None,
    });
    let a = advise_one(&d, &p);
    assert!(find(&a, Code::FarBelow).is_none(), "{a:?}");
    assert!(find(&a, Code::LevelUnknown).is_some(), "{a:?}");
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
        exclusive_l3: None,
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

#[test]
fn with_simulated_caches_an_l1_resident_loop_is_bound_by_the_peak_and_names_no_memory_roof() {
    let d = doc();
    // Under the DRAM roof by its L1 bytes (AI 1), at 97 % of it, and a
    // thousandth of its bytes from DRAM: every level's dot sits under the
    // peak, which bounds it, with no memory roof next.
    let mut p = point(&d, 1.0, 32, false, 0.97);
    p.traffic = Some(reads(&p, p.bytes / 1000.0, p.bytes / 1000.0));
    let place = place(&d, &p).unwrap();
    assert!(
        place.roof.as_ref().unwrap().0.starts_with("DRAM "),
        "the CARM's: {place:?}"
    );
    let b = place.bound.as_ref().unwrap();
    assert_eq!(b.by, crate::results::placement::BoundBy::Peak, "{place:?}");
    let a = advise_one(&d, &p);
    let memory = |x: &Advice| x.roof.as_deref().is_some_and(|r| r.ends_with(" roof"));
    assert!(a[0].code == Code::Bound && !memory(&a[0]), "{a:?}");
    assert!(!a.iter().any(memory), "{a:?}");
    assert!(find(&a, Code::MemoryBound).is_none(), "{a:?}");
}

#[test]
fn a_point_above_the_fastest_level_s_slope_is_above_the_roof_unless_a_few_samples_explain_it() {
    use crate::results::apps::{FunctionInfo, Of};
    let d = doc();
    // AI 0.01: the L1 roof there is far below the peaks drawn above it.
    let v = View::of(&d, 1).unwrap();
    let l1 = v.bandwidth.first().unwrap().value();
    let mut p = AppPoint::new("p", 1e10, 1e12, 1.0);
    p.threads = Some(1);
    p.seconds = p.flops / (3.0 * l1 * 0.01 * 1e9);
    assert!(
        p.gflop_per_s() < v.compute.first().unwrap().value(),
        "under a peak"
    );
    let a = advise_one(&d, &p);
    let e = find(&a, Code::AboveRoof).expect("above_roof");
    assert!((e.share - 3.0).abs() < 1e-6, "{a:?}");
    assert!(
        find(&a, Code::FarBelow).is_none() && find(&a, Code::Bound).is_none(),
        "{a:?}"
    );
    // A function whose time rests on one sample: three times may be its
    // sampling; short_run says so. At 40 times it may not.
    p.of = Of::Function(FunctionInfo::new("prog", "prog", 0.01, 1));
    let a = advise_one(&d, &p);
    assert!(find(&a, Code::AboveRoof).is_none(), "{a:?}");
    assert!(find(&a, Code::ShortRun).is_some(), "{a:?}");
    p.seconds /= 13.0;
    assert!(find(&advise_one(&d, &p), Code::AboveRoof).is_some());
}

#[test]
fn integer_work_is_named_from_four_integer_ops_a_flop() {
    let d = doc();
    let mut p = point(&d, 100.0, 64, true, 0.9);
    p.mix.as_mut().unwrap().int64_ops = p.flops;
    assert!(find(&advise_one(&d, &p), Code::IntegerWork).is_none());
    p.mix.as_mut().unwrap().int64_ops = 4.0 * p.flops;
    assert!(find(&advise_one(&d, &p), Code::IntegerWork).is_some());
}

#[test]
fn the_vector_width_s_gain_is_read_from_the_roofs_of_each_width_and_the_time_it_was_busy() {
    use crate::kernels::{Kind, Op};
    use crate::results::apps::NativeTime;
    let text = include_str!("../../../tests/fixtures/emr-xeon-isa-all-l1.yaml");
    let mut d = crate::results::file::parse(text, "emr-xeon-isa-all-l1.yaml").unwrap();
    let peak = |d: &Document, isa: Isa, op: Op| {
        (d.roofs.iter())
            .find(|r| r.kind == Kind::Compute && r.isa == isa && r.op == Some(op))
            .map(|r| r.value())
            .unwrap()
    };
    // 256-bit FMA code: the measured roofs give AVX-512 over AVX2, of
    // the highest peak's op (FMA alone, on this CPU).
    let fma = |d: &Document| point(d, 100.0, 32, true, 0.9);
    let a = advise_one(&d, &fma(&d));
    let s = find(&a, Code::ScalarFp).expect("scalar_fp");
    let want = peak(&d, Isa::Avx512, Op::Fma) / peak(&d, Isa::Avx2, Op::Fma);
    assert!(want < 1.9, "not the lanes' 2: {want}");
    assert!((s.gain.unwrap() - want).abs() < 0.02 * want, "{a:?} {want}");
    // A CPU whose AVX-512 peak is its AVX2 peak (Zen 4's halves): none.
    for r in d
        .roofs
        .iter_mut()
        .filter(|r| r.kind == Kind::Compute && r.isa == Isa::Avx512)
    {
        let half = |v: f64| v / 2.0;
        r.gflop_per_s = r.gflop_per_s.map(half);
        r.per_cycle = half(r.per_cycle);
    }
    let a = advise_one(&d, &fma(&d));
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    // Scalar code that ran a tenth of its wall time (it slept the rest):
    // at most 1/(0.9 + 0.1/8), no advice; busy all along, 8x.
    let d = doc();
    let mut p = point(&d, 100.0, 8, true, 0.9);
    assert!(find(&advise_one(&d, &p), Code::ScalarFp).is_some());
    p.native = Some(NativeTime {
        cpu_seconds: p.seconds / 10.0,
        waited_seconds: 0.0,
        steal: 0.0,
        emulated_seconds: None,
    });
    let a = advise_one(&d, &p);
    assert!(find(&a, Code::ScalarFp).is_none(), "{a:?}");
    assert!(find(&a, Code::MostlyWaited).is_some(), "{a:?}");
}

#[test]
fn x87_advice_names_double_not_a_flag_that_leaves_long_double_alone() {
    let w = words(&advice(Code::X87, 0.9, None, None));
    assert!(w.contains("double") && !w.contains("-mfpmath=sse"), "{w}");
}

#[test]
fn a_memory_bound_point_names_the_side_its_bytes_bound_it_by() {
    let d = doc();
    let mut p = point(&d, 2.0 / 24.0, 8, false, 0.8);
    let mut t = reads(&p, p.bytes, p.bytes);
    t.dram.read = p.bytes;
    t.dram.write = p.bytes / 3.0;
    p.traffic = Some(t);
    let side = |p: &AppPoint| {
        let a = advise_one(&d, p);
        let m = find(&a, Code::MemoryBound).expect("memory_bound").clone();
        (m.evidence.side, words(&m))
    };
    // Without the two sides apart at DRAM, a level's own fills and
    // write-backs still tell: a triad's reads bound it.
    let (s, w) = side(&p);
    assert_eq!(s, Some(Side::Read), "{w}");
    assert!(w.contains("bound by its reads"), "{w}");
    // A level that mostly takes write-backs is bound by the writes.
    let mut q = p.clone();
    let t = q.traffic.as_mut().unwrap();
    (t.dram.read, t.dram.write) = (p.bytes / 10.0, p.bytes);
    let (s, w) = side(&q);
    assert_eq!(s, Some(Side::Write), "{w}");
    assert!(w.contains("bound by its writes"), "{w}");
}
