//! The table `carmbench run` prints: every roof with its value, value per
//! cycle, % of the theoretical limit, CV and flags, and a line under it for
//! the flags that need one.

use crate::kernels::Kernel;
use crate::machine::Level;
use crate::results::{Document, Flag};
use crate::units::human_bytes;
use std::fmt::Write as _;

/// Flags explained under the table when a roof carries them.
const EXPLAINED: [Flag; 4] = [
    Flag::AboveTheoretical,
    Flag::SharedCore,
    Flag::Steal,
    Flag::MemoryCapped,
];

/// The machine's line, and what it gives its threads when that is fewer
/// cores than threads.
fn head(doc: &Document) -> String {
    let c = &doc.machine.clock.measured;
    let mut s = format!(
        "{} | {} | clock {:.2} GHz ({} {:.2} GHz){}\n",
        doc.cpu_name(),
        doc.family()
            .unwrap_or_else(|| "unknown microarchitecture".into()),
        c.core_ghz(),
        doc.machine.isa.counter_name(),
        doc.machine.clock.tsc_ghz,
        if doc.interrupted {
            " | INTERRUPTED"
        } else {
            ""
        }
    );
    let t = &doc.machine.topology;
    if let Some(all) = t.cores_of {
        let _ = writeln!(
            s,
            "{} of the machine's {all} cores: this process's CPU affinity mask (taskset, numactl) leaves these, and the all-core roofs use them",
            t.cores
        );
    }
    if let Some(e) = &doc.machine.effective_cores {
        let _ = writeln!(s, "{}", e.sentence());
    }
    s
}

/// The summary of `doc`; `skipped` are kernels of the plan this CPU cannot
/// run.
pub fn summary(doc: &Document, skipped: &[&Kernel]) -> String {
    let mut s = head(doc);
    let _ = writeln!(
        s,
        "bandwidths count the bytes the cores request (loads + stores), not write-allocate traffic"
    );
    let _ = writeln!(
        s,
        "{:<16} {:<7} {:>3} {:>16} {:>18} {:>8} {:>6}  flags",
        "roof", "isa", "thr", "value", "per cycle", "% limit", "cv %"
    );
    for r in &doc.roofs {
        let flags: Vec<&str> = r.flags.iter().map(|f| f.name()).collect();
        let _ = writeln!(
            s,
            "{:<16} {:<7} {:>3} {:>8.1} {:<7} {:>7.2} {:<10} {:>8} {:>6.2}  {}",
            r.label(),
            r.isa.name(),
            r.threads,
            r.value(),
            r.unit(),
            r.per_cycle,
            r.unit_per_cycle(),
            r.percent_of_theoretical
                .map_or("-".to_string(), |p| format!("{p:.1}")),
            r.cv * 100.0,
            flags.join(",")
        );
    }
    for flag in EXPLAINED {
        if doc.roofs.iter().any(|r| r.has(flag)) {
            let _ = writeln!(s, "{flag}: {}", flag.meaning());
        }
    }
    s.push_str(&knees(doc));
    s.push_str(&paced(doc));
    s.push_str(&limit_notes(doc));
    let isas: Vec<&str> = doc.machine.isa.skipped.iter().map(|i| i.name()).collect();
    if !isas.is_empty() {
        let _ = writeln!(s, "skipped ISAs (this CPU lacks them): {}", isas.join(", "));
    }
    s.push_str(&missing_precisions(doc));
    for k in skipped {
        // The features the machine was found without (all, if none was
        // recorded).
        let found = &doc.machine.isa.features;
        let needs = k.decl.required_features();
        let lacks: Vec<&str> = needs
            .iter()
            .copied()
            .filter(|f| !found.iter().any(|x| x == f))
            .collect();
        let lacks = if lacks.is_empty() { needs } else { lacks };
        let _ = writeln!(
            s,
            "skipped kernel {} (this CPU lacks {})",
            k.decl.name,
            lacks.join(", ")
        );
    }
    s
}

/// Once per note on a limit (`configs/limits.yaml`), with the roofs it is
/// on: what was measured where the documented rate is not reached.
pub fn limit_notes(doc: &Document) -> String {
    let mut notes: Vec<(&str, Vec<String>)> = Vec::new();
    for r in &doc.roofs {
        let Some(note) = r.note.as_deref() else {
            continue;
        };
        let roof = format!("{} {}", r.label(), r.isa.name());
        match notes.iter_mut().find(|n| n.0 == note) {
            Some(n) if !n.1.contains(&roof) => n.1.push(roof),
            Some(_) => {}
            None => notes.push((note, vec![roof])),
        }
    }
    let mut s = String::new();
    for (note, roofs) in notes {
        let _ = writeln!(s, "limit of {}: {note}", roofs.join(", "));
    }
    s
}

/// A line per DRAM roof whose paced form read clearly more: the roof (the
/// bare stream) and that rate, which code with work beside its loads reads.
pub fn paced(doc: &Document) -> String {
    let mut s = String::new();
    for r in &doc.roofs {
        if let (Some(p), Some(v)) = (r.paced_gb_per_s, r.gb_per_s) {
            let _ = writeln!(
                s,
                "{} {} {} thread(s): the roof is the bare stream's {v:.1} GB/s; with vector work beside the loads (the paced form) {p:.1} GB/s ({:+.0}%), which code with work beside its loads can reach",
                r.label(),
                r.isa.name(),
                r.threads,
                100.0 * (p / v - 1.0)
            );
        }
    }
    s
}

/// Once per level and thread count where most of its mixes found a knee
/// (one mix alone is more likely a slow moment than a capacity): where the
/// level's effective capacity ended, against its share by hwloc.
pub fn knees(doc: &Document) -> String {
    let mut s = String::new();
    let mut seen = Vec::new();
    for r in &doc.roofs {
        let Some(level) = r.level.filter(|_| r.plateau.is_some()) else {
            continue;
        };
        if seen.contains(&(level, r.threads)) {
            continue;
        }
        seen.push((level, r.threads));
        let same = |x: &&crate::results::Roof| {
            x.level == r.level && x.threads == r.threads && x.plateau.is_some()
        };
        let mut found: Vec<(u64, u64)> = (doc.roofs.iter().filter(same))
            .filter_map(|x| Some((x.knee_bytes?, x.plateau?[1])))
            .collect();
        if 2 * found.len() <= doc.roofs.iter().filter(same).count() {
            continue;
        }
        found.sort_unstable();
        let (knee, end) = found[(found.len() - 1) / 2];
        let share = doc
            .buffer_ranges
            .iter()
            .find(|t| t.threads == r.threads)
            .and_then(|t| t.levels.iter().find(|l| l.level == level))
            .and_then(|l| l.share_bytes);
        // A cache of one core's own holds less than its size for the code,
        // stack and page tables beside the buffer, and for how its sets fill.
        let shared = doc
            .machine
            .topology
            .caches
            .iter()
            .find(|c| Level::cache(c.depth) == level)
            .is_some_and(|c| c.cores_sharing > 1);
        let why = if shared {
            "other cores or guests use it too"
        } else {
            "other data and uneven filling of its sets take room"
        };
        let _ = writeln!(
            s,
            "{level}, {} thread(s): the rate holds to {} per thread and falls from {}{}; the roofs leave the larger sizes out",
            r.threads,
            human_bytes(end),
            human_bytes(knee),
            share.map_or(String::new(), |b| format!(
                " (hwloc's share: {}, less in effect: {why})",
                human_bytes(b)
            )),
        );
    }
    s
}

/// A line for each precision the plan asked for that no roof has: the
/// kernels that do it and what this CPU lacks for them (they are of an ISA
/// the plan left out as this CPU lacks it, so never tried).
fn missing_precisions(doc: &Document) -> String {
    let found = &doc.machine.isa.features;
    let mut s = String::new();
    for &p in &doc.plan.precision {
        if doc.roofs.iter().any(|r| r.precision == Some(p)) {
            continue;
        }
        let mut lacks: Vec<&str> = (crate::kernels::KERNELS.iter())
            .filter(|k| k.decl.precision == Some(p))
            .flat_map(|k| k.decl.required_features())
            .filter(|f| !found.iter().any(|x| x == f))
            .collect();
        lacks.sort_unstable();
        lacks.dedup();
        let why = match lacks.is_empty() {
            true => "no kernel of the plan's ISAs does it".to_string(),
            false => format!("this CPU lacks {}", lacks.join(", ")),
        };
        let _ = writeln!(
            s,
            "skipped precision {} ({why}): no {} roof",
            p.name(),
            p.name()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fixture;

    #[test]
    fn every_roof_is_a_row_and_flags_that_need_it_are_explained() {
        let mut d = fixture();
        let plain = summary(&d, &[]);
        assert_eq!(
            plain.lines().filter(|l| l.contains(" avx512 ")).count(),
            d.roofs.len()
        );
        assert!(!plain.contains("shared_core:") && !plain.contains("steal:"));
        d.roofs[1].flags.push(Flag::SharedCore);
        d.roofs[0].flags.push(Flag::Steal);
        let flagged = summary(&d, &[]);
        assert!(flagged.contains(&format!("shared_core: {}", Flag::SharedCore.meaning())));
        assert!(flagged.contains("steal: the hypervisor took more than 5%"));
        // A knee, said once per level and thread count.
        for r in d
            .roofs
            .iter_mut()
            .filter(|r| r.level == Some(crate::machine::Level::L3))
        {
            r.plateau = Some([2 << 20, 7 << 20]);
            r.knee_bytes = Some(12 << 20);
        }
        let k = knees(&d);
        assert_eq!(k.lines().count(), 2, "1 and 2 threads: {k}");
        assert!(
            k.contains("L3, 1 thread(s): the rate holds to 7 MiB per thread and falls from 12 MiB (hwloc's share: 32 MiB, less in effect: other cores or guests use it too)"),
            "{k}"
        );
        // A cache of each core's own: other reasons.
        let mut l2 = d.clone();
        for r in l2.roofs.iter_mut().filter(|r| r.level == Some(Level::L2)) {
            r.plateau = Some([96 << 10, 512 << 10]);
            r.knee_bytes = Some(768 << 10);
        }
        assert!(
            knees(&l2)
                .contains("less in effect: other data and uneven filling of its sets take room"),
            "{}",
            knees(&l2)
        );
        // One mix of three alone is not the level's capacity.
        for r in d.roofs.iter_mut().skip(1) {
            r.knee_bytes = None;
        }
        assert!(!knees(&d).contains("L3, 1 thread"), "{}", knees(&d));
        let fma = crate::kernels::named("avx2_dp_fma").unwrap();
        assert!(
            summary(&d, &[fma]).contains("skipped kernel avx2_dp_fma (this CPU lacks avx2, fma)")
        );
        // Only what the machine was found without.
        d.machine.isa.features = vec!["sse2".into(), "avx2".into(), "fma".into()];
        let vnni = crate::kernels::named("avx2_int8_dot").unwrap();
        assert!(
            summary(&d, &[vnni]).contains("skipped kernel avx2_int8_dot (this CPU lacks avxvnni)")
        );
        // A precision asked for whose kernels are all of an ISA it lacks.
        d.plan.precision.push(crate::kernels::Precision::Bf16);
        let text = summary(&d, &[]);
        assert!(
            text.contains("skipped precision bf16 (this CPU lacks") && text.contains("avx512"),
            "{text}"
        );
    }

    #[test]
    fn a_dram_roof_says_what_its_paced_form_read() {
        let mut d = fixture();
        assert_eq!(paced(&d), "");
        let r = d
            .roofs
            .iter_mut()
            .find(|r| r.level == Some(Level::Dram))
            .unwrap();
        r.gb_per_s = Some(20.0);
        r.paced_gb_per_s = Some(25.0);
        let n = paced(&d);
        assert_eq!(n.lines().count(), 1, "{n}");
        assert!(
            n.contains("the roof is the bare stream's 20.0 GB/s; with vector work beside the loads (the paced form) 25.0 GB/s (+25%)"),
            "{n}"
        );
        assert!(summary(&d, &[]).contains(&n));
    }

    #[test]
    fn a_note_on_a_limit_is_said_once_with_its_roofs() {
        let mut d = fixture();
        assert_eq!(limit_notes(&d), "");
        let op = d.roofs.iter().find_map(|r| r.op);
        for r in d.roofs.iter_mut().filter(|r| r.op == op) {
            r.note = Some("read 0.45 a cycle".into());
        }
        let n = limit_notes(&d);
        assert_eq!(n.lines().count(), 1, "{n}");
        assert!(
            n.ends_with(": read 0.45 a cycle\n") && n.starts_with("limit of "),
            "{n}"
        );
        assert!(summary(&d, &[]).contains(&n));
    }
}
