//! The tables a validation prints: per sweep, each level's median
//! |deviation|, worst point, overlap near the ridge and verdict.

use super::sharing_note;
use crate::measure::guard::Sharing;
use crate::validate::{LevelResult, MOVED_LIMIT};
use std::fmt::Write as _;

/// The validation tables of `results` at `threshold` (a fraction).
pub fn tables(results: &[LevelResult], threshold: f64) -> String {
    let mut s = String::new();
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
        let t = tables(std::slice::from_ref(&r), 0.10);
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
        let t = tables(std::slice::from_ref(&r), 0.10);
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
        assert!(tables(&[r], 0.1).contains("the L1 bandwidth moved +20% during the sweep"));
    }
}
