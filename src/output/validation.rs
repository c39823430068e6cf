//! The tables a validation prints: per sweep, each level's median
//! |deviation|, worst point, overlap near the ridge and verdict.

use super::sharing_note;
use crate::measure::guard::Sharing;
use crate::results::CoIssue;
use crate::validate::{LevelResult, MOVED_LIMIT};
use std::fmt::Write as _;

/// What the co-issue measurements found, a line each.
pub fn findings(coissue: &[CoIssue]) -> String {
    let mut s = String::new();
    for c in coissue {
        let (how, then) = if c.partial() {
            (
                "do not overlap on this core",
                format!(
                    " ({:.0}% overlap); expected values count it",
                    100.0 * c.overlap()
                ),
            )
        } else {
            ("overlap", String::new())
        };
        let _ = writeln!(
            s,
            "core: {} {}: {} memory units ({}) and {} units ({}) {how}: {:.1} + {:.1} cycles take {:.1}{then}",
            c.isa, c.precision, c.mix, c.j, c.op, c.k, c.memory_cycles, c.fp_cycles, c.both_cycles
        );
    }
    s
}

/// The validation tables of `results` at `threshold` (a fraction), after
/// what the co-issue measurements found.
pub fn tables(results: &[LevelResult], coissue: &[CoIssue], threshold: f64) -> String {
    let mut s = findings(coissue);
    if results.iter().any(|r| r.moved.is_some()) {
        let _ = writeln!(
            s,
            "levels off the core are shared with other cores and tenants: each sweep there is compared with its roof's kernel measured just before and after it (B vs roof: how far that moved from the roof)"
        );
    }
    let seen = results
        .iter()
        .fold(Sharing::default(), |a, r| a + r.sharing);
    let kept = results.iter().map(|r| r.kept_shared).sum();
    if let Some(n) = sharing_note(&seen, "point", kept) {
        let _ = writeln!(s, "{n}");
    }
    let mut last = None;
    for r in results {
        let key = (r.threads, r.isa, r.precision, r.op, r.mix);
        if last != Some(key) {
            let _ = writeln!(
                s,
                "validation: {} {} {} kernels vs the {} and {} roofs, {} thread(s), threshold {:.0}%",
                r.isa,
                r.precision,
                r.mix,
                r.op,
                r.mix,
                r.threads,
                threshold * 100.0
            );
            let _ = writeln!(
                s,
                "  {:<6} {:>9} {:>14} {:>13} {:>22} {:>8} {:>10}  result",
                "level",
                "ridge AI",
                "points (sl/fl)",
                "median |dev|",
                "worst (AI: dev)",
                "overlap",
                "B vs roof"
            );
            last = Some(key);
        }
        let f = &r.fit;
        let _ = writeln!(
            s,
            "  {:<6} {:>9.3} {:>8} ({}/{}) {:>12.1}% {:>12.3}: {:>+6.1}% {:>8} {:>10}  {}{}",
            r.level,
            r.ridge,
            f.n,
            f.sloped,
            f.flat,
            f.median_abs_deviation * 100.0,
            f.worst.0,
            f.worst.1 * 100.0,
            if f.overlap.is_finite() {
                format!("{:.0}%", f.overlap * 100.0)
            } else {
                "-".into()
            },
            r.moved
                .map_or("-".to_string(), |m| format!("{:+.0}%", m * 100.0)),
            r.verdict(results, threshold),
            match r.moved_during {
                Some(m) if m.abs() > MOVED_LIMIT => format!(
                    " (the {} bandwidth moved {:+.0}% during the sweep: other work shares it; run again on an idle machine)",
                    r.level,
                    m * 100.0
                ),
                _ => String::new(),
            }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Mix, Op, Precision};
    use crate::machine::isa::Isa;
    use crate::machine::{Level, Scope};
    use crate::validate::fit::fit;

    #[test]
    fn a_failing_level_names_its_cause_and_the_shared_probes_are_counted() {
        let pts: Vec<(f64, f64)> = [0.03, 0.06, 0.12, 0.25, 0.5, 1.0, 2.0]
            .iter()
            .map(|&ai| (ai, -0.5))
            .collect();
        let mut r = LevelResult {
            threads: 2,
            isa: Isa::Avx2,
            precision: Precision::Dp,
            op: Op::Fma,
            mix: Mix::Load,
            level: Level::L1,
            scope: Scope::Core,
            ridge: 0.25,
            fit: fit(&pts, 0.25, &[]),
            moved: None,
            moved_during: None,
            steal: 0.0,
            sharing: Sharing::default(),
            kept_shared: 0,
            unshared_median: None,
        };
        let t = tables(std::slice::from_ref(&r), &[], 0.10);
        assert!(
            t.contains("FAILED: the FP-bound points ran 50% under"),
            "{t}"
        );
        assert!(!t.contains("threads sharing a core"), "{t}");
        r.sharing = Sharing {
            probes: 9,
            load_probes: 9,
            shared: 4,
            waited: 0.7,
            kept_shared: 3,
        };
        r.kept_shared = 3;
        r.unshared_median = Some(0.02);
        let t = tables(std::slice::from_ref(&r), &[], 0.10);
        assert!(
            t.contains(
                "FAILED: 3 of 7 points were measured while the 2 threads shared a physical core"
            ),
            "{t}"
        );
        assert!(
            t.contains("at 4 of 9 probes (FMA, and L1 loads at the core's own levels,"),
            "{t}"
        );
        assert!(t.contains("3 kept without"), "{t}");
        r.moved_during = Some(0.2);
        assert!(tables(&[r], &[], 0.1).contains("the L1 bandwidth moved +20% during the sweep"));
        let c = CoIssue::zen5_stores_beside_fmas(Isa::Avx512);
        let f = findings(std::slice::from_ref(&c));
        assert!(
            f.contains("core: avx512 dp: 2ld1st memory units (8) and fma units (16) do not overlap on this core: 8.0 + 8.0 cycles take 15.2 (10% overlap)"),
            "{f}"
        );
        let full = CoIssue {
            both_cycles: 8.1,
            ..c
        };
        assert!(findings(&[full]).contains("(16) overlap: 8.0 + 8.0 cycles take 8.1\n"));
    }
}
