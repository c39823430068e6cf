//! The kernel table against its declarations.

use super::*;

#[test]
fn table_is_complete() {
    for &isa in Isa::native() {
        for mix in Mix::ALL {
            let k = find(isa, Role::Bandwidth(*mix)).unwrap_or_else(|| panic!("{mix} {isa}"));
            assert_eq!(k.decl.width(), isa.width_bytes());
        }
        for k in KERNELS
            .iter()
            .filter(|k| k.decl.isa == isa && k.decl.kind == Kind::Compute)
        {
            assert_eq!(
                k.decl.lanes() * k.decl.precision.unwrap().bytes(),
                k.decl.width()
            );
        }
        for op in Op::FP {
            for p in Precision::FP {
                assert!(
                    find(isa, Role::Compute(*op, *p)).is_some(),
                    "{op} {isa} {p}"
                );
            }
        }
        // The narrow types: only their own ops, on the wide ISAs.
        for p in Precision::ALL.iter().filter(|p| p.own_ops().is_some()) {
            for op in Op::ALL {
                let own = p.own_ops().unwrap().contains(op);
                let k = find(isa, Role::Compute(*op, *p));
                assert!(own || k.is_none(), "{op} {isa} {p}");
                // The widest ISA has every own op its architecture has:
                // matrix multiply-accumulates are Arm's, VPMADDWD and
                // INT16 dot products x86's; integer ALU work has x86
                // kernels only so far, its mix on the general registers.
                let arm_only = *op == Op::Mmla;
                let x86_only = *op == Op::Madd || *p == Precision::Int16 || *p == Precision::Int;
                let arm_only = arm_only || *op == Op::Alu;
                let complete = (isa == Isa::Avx512 && !arm_only) || (isa == Isa::Sve && !x86_only);
                if complete {
                    assert_eq!(own, k.is_some(), "{op} {isa} {p}");
                }
            }
        }
    }
    // Four ISAs' bandwidth, FP and validation kernels; the narrow types'
    // seven AVX-512 and five AVX2 kernels; the paced load and 2LD1ST
    // kernels of AVX-512 and AVX2; integer adds of every ISA and the
    // scalar ALU mix.
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        KERNELS.len(),
        4 * (5 + 6 * 2 + 2 * 8) + 7 + 5 + 2 * 2 + 4 + 1
    );
    // And seven narrow-type kernels each for NEON and SVE.
    #[cfg(target_arch = "aarch64")]
    assert_eq!(
        KERNELS
            .iter()
            .filter(|k| k.decl.precision.is_some_and(|p| p.own_ops().is_some()))
            .count(),
        14
    );
}

#[test]
fn every_bandwidth_kernel_declares_its_mix_s_accesses() {
    let mut checked = 0;
    for k in KERNELS.iter().filter(|k| k.decl.kind == Kind::Bandwidth) {
        let d = &k.decl;
        let (loads, stores, _) = d.mix.unwrap().accesses();
        assert_eq!(d.loads * stores, d.stores * loads, "{}", d.name);
        assert!(d.loads + d.stores > 0, "{}", d.name);
        checked += 1;
    }
    assert!(checked >= 5 * Isa::native().len(), "{checked}");
    // What a level below L1 moves per byte requested.
    let m = |mix: Mix, below, excl| mix.moved_per_requested(below, excl);
    assert_eq!(m(Mix::TwoLdOneSt, false, false), 1.0);
    assert_eq!(m(Mix::TwoLdOneSt, true, false), 4.0 / 3.0);
    assert_eq!(m(Mix::TwoLdOneSt, true, true), 2.0);
    assert_eq!(m(Mix::Load, true, false), 1.0);
    assert_eq!(m(Mix::Load, true, true), 2.0);
    assert_eq!(m(Mix::Store, true, false), 2.0);
    assert_eq!(m(Mix::OneLdOneSt, true, false), 1.5);
    assert_eq!(m(Mix::NtStore, true, true), 1.0);
}

#[test]
fn validation_kernels_come_in_plain_and_prefetching_twins() {
    for &isa in Isa::native() {
        for mix in [Mix::Load, Mix::TwoLdOneSt] {
            for op in [Op::Fma, Op::AddMul] {
                for p in Precision::FP {
                    let role = |prefetching| Role::Validation {
                        mix,
                        op,
                        precision: *p,
                        prefetching,
                    };
                    let plain =
                        find(isa, role(false)).unwrap_or_else(|| panic!("{mix} {op} {isa} {p}"));
                    let twin = find(isa, role(true))
                        .unwrap_or_else(|| panic!("prefetching {mix} {op} {isa} {p}"));
                    // The twin differs only by its prefetching.
                    assert_eq!(plain.decl.prefetch, 0);
                    assert!(twin.decl.prefetch >= 64);
                    assert_eq!(
                        Decl {
                            name: plain.decl.name,
                            prefetch: 0,
                            pace: 0,
                            ..twin.decl
                        },
                        plain.decl
                    );
                }
            }
        }
    }
}

#[test]
fn derived_figures() {
    let k = find(Isa::Avx512, Role::Compute(Op::FmaAdd, Precision::Dp))
        .unwrap()
        .decl;
    assert_eq!(k.lanes(), 8);
    assert_eq!(k.flops_per_iter(), (2 * k.fmas as u64 + k.adds as u64) * 8);
    let s = find(Isa::Scalar, Role::Compute(Op::Fma, Precision::Sp))
        .unwrap()
        .decl;
    assert_eq!(s.lanes(), 1);
    assert_eq!(s.required_features(), ["sse2", "fma"]);
    let b = find(Isa::Avx2, Role::Bandwidth(Mix::TwoLdOneSt))
        .unwrap()
        .decl;
    assert_eq!(b.bytes_per_iter(), (b.loads + b.stores) as u64 * 32);
    assert_eq!(b.load_streams(), 2);
    assert_eq!(b.flops_per_iter(), 0);
    let v = find(
        Isa::Avx512,
        Role::Validation {
            mix: Mix::Load,
            op: Op::Fma,
            precision: Precision::Dp,
            prefetching: false,
        },
    )
    .unwrap()
    .decl;
    assert_eq!(named(v.name).map(|k| k.decl), Some(v));
    assert!(named("no_such_kernel").is_none());
    let s = Shape { j: 4, k: 2 };
    assert_eq!(v.shaped_bytes(s), 4 * 16 * 64);
    assert_eq!(v.shaped_flops(s), 2 * 16 * 2 * 8);
    assert_eq!(v.intensity(s), 512.0 / 4096.0);
    assert_eq!(s.arg(), (4 << 32) | 2);
}
