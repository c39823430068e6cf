//! Sizing rules on several topologies loaded through hwloc.

use carmbench::machine::sizing::{self, BufferRange, FIT_MARGIN, SPILL_FACTOR_MIN};
use carmbench::machine::{Level, Machine, Source};

const SERVER_2S_SMT: &str = "pack:2 numa:1(memory=192GiB) l3:1(size=40MiB) core:20 l2:1(size=1280KiB) l1d:1(size=48KiB) pu:2";
const CHIPLET_8_L3: &str =
    "pack:1 numa:1(memory=256GiB) l3:8(size=32MiB) core:8 l2:1(size=1MiB) l1d:1(size=32KiB) pu:2";
const NO_L3: &str = "pack:1 numa:1(memory=8GiB) l2:1(size=4MiB) core:2 l1d:1(size=32KiB) pu:1";
const LAPTOP: &str =
    "pack:1 numa:1(memory=16GiB) l3:1(size=12MiB) core:4 l2:1(size=1280KiB) l1d:1(size=48KiB) pu:2";
const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

fn synthetic(d: &str) -> Machine {
    Machine::load(&Source::Synthetic(d.to_string())).expect("synthetic topology loads")
}

fn xml_zen5() -> Machine {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/topologies/zen5-epyc-2core.xml");
    Machine::load(&Source::Xml(p)).expect("XML topology loads")
}

/// The invariants every range must satisfy, for every thread count.
fn check_invariants(m: &Machine) {
    for t in [1, 2, m.cores / 2, m.cores] {
        let t = t.max(1);
        let r = sizing::ranges(m, t);
        assert_eq!(
            r.len(),
            m.caches.len() + 1,
            "one range per cache level plus DRAM"
        );
        assert_eq!(r.last().unwrap().level, Level::Dram);
        let mut below_share: Option<u64> = None;
        for (b, c) in r.iter().zip(&m.caches) {
            assert_eq!(b.level.name(), format!("L{}", c.depth));
            assert!(
                b.min_bytes <= b.max_bytes,
                "{t} threads {}: bounds ordered {b:?}",
                b.level
            );
            let share = b.share_bytes.unwrap();
            assert_eq!(share, c.size_bytes / b.threads_per_instance as u64);
            assert!(
                b.max_bytes as f64 <= share as f64 * FIT_MARGIN,
                "{} fits its level with the margin: {b:?}",
                b.level
            );
            if let Some(bs) = below_share {
                if b.isolated {
                    assert!(
                        b.min_bytes as f64 >= bs as f64 * SPILL_FACTOR_MIN,
                        "{} spills the level below ({bs}): {b:?}",
                        b.level
                    );
                } else {
                    assert!(b.note.is_some(), "a range that is not isolated says why");
                }
            }
            below_share = Some(share);
        }
        let d = r.last().unwrap();
        let llc = m.llc().unwrap();
        let share = llc.size_bytes / sizing::threads_per_instance(llc, t) as u64;
        if !d.capped {
            assert!(
                d.min_bytes >= 2 * share && d.min_bytes >= sizing::DRAM_MIN,
                "DRAM defeats the LLC: twice the thread's share of it, {d:?}"
            );
            assert!(
                d.max_bytes as f64
                    <= (d.min_bytes as f64 * sizing::DRAM_SPAN).max(sizing::DRAM_TOP_MIN as f64)
                        + 1024.0
            );
        }
        // No level's buffers together take more than their share of memory.
        for b in &r {
            assert!(
                b.max_bytes as f64 * t as f64 <= m.usable_memory() as f64 * sizing::MEM_SHARE,
                "{b:?}"
            );
        }
    }
}

fn level<'a>(r: &'a [BufferRange], name: &str) -> &'a BufferRange {
    let want = Level::parse(name).unwrap();
    r.iter().find(|b| b.level == want).unwrap()
}

#[test]
fn this_machines_shape_from_xml() {
    let m = xml_zen5();
    assert_eq!((m.cores, m.hardware_threads, m.packages), (2, 2, 1));
    let sizes: Vec<_> = m
        .caches
        .iter()
        .map(|c| (c.name.as_str(), c.size_bytes, c.cores_sharing, c.instances))
        .collect();
    assert_eq!(
        sizes,
        vec![
            ("L1d", 48 * KIB, 1, 2),
            ("L2", MIB, 1, 2),
            ("L3", 32 * MIB, 2, 1)
        ]
    );
    assert_eq!(m.caches[0].associativity, Some(12));
    assert_eq!(m.caches[2].line_bytes, Some(64));
    assert_eq!(m.numa_nodes.len(), 1);
    check_invariants(&m);
    let one = sizing::ranges(&m, 1);
    let two = sizing::ranges(&m, 2);
    // Private levels do not change with threads; the shared L3 halves.
    assert_eq!(
        level(&one, "L1"),
        &BufferRange {
            threads: 1,
            ..level(&two, "L1").clone()
        }
    );
    assert_eq!(level(&one, "L3").share_bytes, Some(32 * MIB));
    assert_eq!(level(&two, "L3").share_bytes, Some(16 * MIB));
    assert_eq!(level(&two, "L3").max_bytes * 2, level(&one, "L3").max_bytes);
    // L2 range: above twice L1 (96 KiB), at most 3/4 of 1 MiB.
    assert_eq!(level(&one, "L2").min_bytes, 96 * KIB);
    assert_eq!(level(&one, "L2").max_bytes, 768 * KIB);
    // DRAM: twice the 32 MiB L3 one thread has to itself is below the
    // smallest DRAM size; 2 threads share it.
    assert_eq!(level(&one, "DRAM").min_bytes, sizing::DRAM_MIN);
    assert_eq!(level(&one, "DRAM").max_bytes, 256 * MIB);
    assert_eq!(level(&two, "DRAM").min_bytes, sizing::DRAM_MIN);
}

#[test]
fn two_socket_smt_server() {
    let m = synthetic(SERVER_2S_SMT);
    assert_eq!((m.packages, m.cores, m.hardware_threads), (2, 40, 80));
    assert_eq!(m.numa_nodes.len(), 2);
    assert!(m.numa_nodes.iter().all(|n| n.cores == 20));
    assert_eq!(m.caches[2].cores_sharing, 20);
    assert_eq!(m.caches[2].instances, 2);
    check_invariants(&m);
    // SMT siblings never share a benchmark core: L1 is per thread even with all cores.
    assert_eq!(level(&sizing::ranges(&m, 40), "L1").threads_per_instance, 1);
    // Compact placement: 20 threads fill one socket's L3, 21 spill onto the second.
    assert_eq!(
        level(&sizing::ranges(&m, 20), "L3").threads_per_instance,
        20
    );
    assert_eq!(
        level(&sizing::ranges(&m, 21), "L3").threads_per_instance,
        20
    );
    assert_eq!(
        level(&sizing::ranges(&m, 10), "L3").threads_per_instance,
        10
    );
    // 40 MiB / 20 threads = 2 MiB per thread: not enough above the 1.25 MiB L2.
    let l3 = sizing::ranges(&m, 40);
    assert!(!level(&l3, "L3").isolated);
    assert!(level(&sizing::ranges(&m, 1), "L3").isolated);
}

#[test]
fn chiplet_with_eight_l3_domains() {
    let m = synthetic(CHIPLET_8_L3);
    assert_eq!(m.cores, 64);
    assert_eq!((m.caches[2].instances, m.caches[2].cores_sharing), (8, 8));
    check_invariants(&m);
    let all = sizing::ranges(&m, 64);
    assert_eq!(level(&all, "L3").share_bytes, Some(4 * MIB));
    assert_eq!(level(&sizing::ranges(&m, 4), "L3").threads_per_instance, 4);
    // DRAM: twice one chiplet's 32 MiB L3 for one thread (it cannot fill
    // another chiplet's L3), and 64 threads, 4 MiB each: both below the
    // smallest DRAM size.
    assert_eq!(
        level(&sizing::ranges(&m, 1), "DRAM").min_bytes,
        sizing::DRAM_MIN
    );
    assert_eq!(level(&all, "DRAM").min_bytes, sizing::DRAM_MIN);
}

#[test]
fn cpu_without_l3() {
    let m = synthetic(NO_L3);
    let names: Vec<_> = m.caches.iter().map(|c| c.name.clone()).collect();
    assert_eq!(names, ["L1d", "L2"]);
    check_invariants(&m);
    let r = sizing::ranges(&m, 2);
    assert_eq!(
        r.iter().map(|b| b.level.name()).collect::<Vec<_>>(),
        ["L1", "L2", "DRAM"]
    );
    assert_eq!(level(&r, "L2").share_bytes, Some(2 * MIB));
    // Twice the 2 MiB L2 share is below the smallest DRAM buffer.
    assert_eq!(level(&r, "DRAM").min_bytes, sizing::DRAM_MIN);
}

#[test]
fn laptop_shares_l3_among_four_cores() {
    let m = synthetic(LAPTOP);
    check_invariants(&m);
    let r1 = sizing::ranges(&m, 1);
    let r4 = sizing::ranges(&m, 4);
    assert!(level(&r1, "L3").isolated);
    // 3 MiB per thread vs 1.25 MiB of L2: 2× does not fit under 3/4 of 3 MiB, 1.25× does.
    assert!(level(&r4, "L3").isolated);
    assert!(level(&r4, "L3").note.is_some());
    assert!(level(&r4, "L3").max_bytes < level(&r1, "L3").max_bytes);
}

#[test]
fn dram_is_capped_by_memory() {
    let m = synthetic(
        "pack:1 numa:1(memory=256MiB) l3:1(size=32MiB) core:4 l2:1(size=1MiB) l1d:1(size=32KiB) pu:1",
    );
    let d = sizing::dram_range(&m, 4);
    assert!(d.capped, "4 × 128 MiB cannot fit in half of 256 MiB: {d:?}");
    assert!(
        d.note
            .as_deref()
            .unwrap()
            .contains("capped at 32 MiB per thread"),
        "{d:?}"
    );
    assert!(d.min_bytes <= d.max_bytes);
    assert!(d.max_bytes * 4 <= 128 * MIB);
    // One thread fits.
    assert!(!sizing::dram_range(&m, 1).capped);
}

#[test]
fn sizes_spread_over_the_range() {
    let m = xml_zen5();
    for b in sizing::ranges(&m, 1) {
        let s = sizing::sizes_in_range(&b, 3);
        assert_eq!(s.len(), 3, "{b:?}");
        assert_eq!(s[0], b.min_bytes);
        assert_eq!(*s.last().unwrap(), b.max_bytes);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.iter().all(|x| x % sizing::GRANULE == 0));
    }
}

#[test]
fn the_memory_curve_spans_every_level_on_each_topology() {
    use carmbench::config::plan::{self, PlanFile};
    use carmbench::kernels::Mix;
    let machines = [
        ("zen5 xml", xml_zen5()),
        ("2-socket server", synthetic(SERVER_2S_SMT)),
        ("chiplets", synthetic(CHIPLET_8_L3)),
        ("no L3", synthetic(NO_L3)),
        ("laptop", synthetic(LAPTOP)),
    ];
    for (name, m) in &machines {
        let pf = PlanFile::default_plan()
            .overlay(PlanFile::parse("isa: [scalar]\nmixes: [load]\nops: []\n", "t").unwrap());
        let p = plan::resolve(&pf, m, false).unwrap();
        let (tasks, _) = carmbench::roofs::plan::tasks_where(&p, m, |_| true).unwrap();
        for t in p.threads.iter().copied() {
            let ranges = sizing::ranges(m, t);
            let mine: Vec<_> = tasks
                .iter()
                .filter(|x| x.threads == t && x.kernel.decl.mix == Some(Mix::Load))
                .collect();
            let mut curve: Vec<u64> = mine
                .iter()
                .flat_map(|x| x.sizes.iter().chain(&x.between).copied())
                .collect();
            curve.sort_unstable();
            let what = format!("{name}, {t} thread(s): {curve:?}");
            // At least 6 sizes in each level's range, the roof's (one where
            // the range is one size: a level too shared to measure apart).
            for x in &mine {
                let r = ranges.iter().find(|r| Some(r.level) == x.level).unwrap();
                let want = match r.level {
                    _ if r.min_bytes >= r.max_bytes => 1,
                    l if l.is_memory() => sizing::DRAM_SIZES,
                    _ => 6,
                };
                assert!(x.sizes.len() >= want, "{what}");
                assert!(
                    x.sizes
                        .iter()
                        .all(|&s| s >= r.min_bytes && s <= r.max_bytes),
                    "{what}"
                );
            }
            // From at most half the L1 share to the top of the DRAM range.
            let l1 = ranges[0].share_bytes.unwrap();
            assert!(curve[0] <= l1 / 2, "{what}");
            assert_eq!(
                *curve.last().unwrap(),
                ranges.last().unwrap().max_bytes,
                "{what}"
            );
            // Log-spaced without holes: no step of more than 2.5 times
            // (gaps between levels get a size of their own).
            assert!(curve.windows(2).all(|w| w[0] < w[1]), "{what}");
            let step = curve
                .windows(2)
                .map(|w| w[1] as f64 / w[0] as f64)
                .fold(0.0, f64::max);
            assert!(step <= 2.5, "{what}: a step of {step:.2}");
            // The sizes between levels are put with the level holding them.
            for x in &mine {
                for (&b, &l) in x.between.iter().zip(&x.between_levels) {
                    assert_eq!(l, sizing::holding(&ranges, b), "{what}");
                }
            }
        }
    }
}
