//! Two profiles of one program side by side (before and after a change):
//! its points matched by name, a function with a function of the same
//! program, and what changed in time, intensity and performance.

use crate::results::apps::AppPoint;
use std::fmt::Write;

/// One point in both profiles.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The point before.
    pub before: AppPoint,
    /// The point after.
    pub after: AppPoint,
}

/// What identifies a point across profiles: its program when it is a
/// function, and its name.
fn key(p: &AppPoint) -> (Option<&str>, &str) {
    (p.function().map(|f| f.program.as_str()), &p.name)
}

/// The points of `after` that `before` has too, in `after`'s order; and the
/// names found in only one of them (gone, new). A phase is not matched by
/// its number, which moves as runs find more or fewer phases, but with a
/// phase of its program before that has its hottest function and lies near
/// its place in the run (see `phase_pairs`).
pub fn changes(before: &[AppPoint], after: &[AppPoint]) -> (Vec<Change>, Vec<String>, Vec<String>) {
    let phased = phase_pairs(before, after);
    let mut used = vec![false; before.len()];
    phased.iter().for_each(|&(_, b)| used[b] = true);
    let mut matched = Vec::new();
    let mut new = Vec::new();
    for (i, a) in after.iter().enumerate() {
        let found = match a.phase() {
            Some(_) => phased.iter().find(|p| p.0 == i).map(|p| p.1),
            None => before
                .iter()
                .position(|b| b.phase().is_none() && key(b) == key(a)),
        };
        match found {
            Some(k) => {
                used[k] = true;
                matched.push(Change {
                    before: before[k].clone(),
                    after: a.clone(),
                });
            }
            None => new.push(a.name.clone()),
        }
    }
    let gone = (before.iter().zip(&used))
        .filter(|(_, u)| !**u)
        .filter(|(b, _)| b.phase().is_some() || !after.iter().any(|a| key(a) == key(b)))
        .map(|(b, _)| b.name.clone())
        .collect();
    (matched, gone, new)
}

/// Phases further apart than this share of their runs are not one phase.
const PHASE_APART: f64 = 0.25;

/// The phases of `after` and `before` that are one phase, (after, before)
/// by index: of one program, with one hottest function, their middles (as
/// shares of their runs) nearest first, each once, at most
/// [`PHASE_APART`] apart.
fn phase_pairs(before: &[AppPoint], after: &[AppPoint]) -> Vec<(usize, usize)> {
    use crate::results::apps::PhaseInfo;
    let hottest = |p: &PhaseInfo| p.functions.first().map(|f| f.name.clone());
    // A phase's middle as a share of its program's run (its last phase's
    // end) in `points`.
    let middle = |points: &[AppPoint], p: &PhaseInfo| {
        let run = (points.iter().filter_map(AppPoint::phase))
            .filter(|q| q.program == p.program)
            .map(|q| q.end)
            .fold(0.0, f64::max);
        (p.start + p.end) / 2.0 / run.max(1e-12)
    };
    let phases = |points: &[AppPoint]| -> Vec<(usize, PhaseInfo)> {
        (points.iter().enumerate())
            .filter_map(|(k, p)| Some((k, p.phase()?.clone())))
            .collect()
    };
    let mut close: Vec<(f64, usize, usize)> = Vec::new();
    for (i, x) in phases(after) {
        for (k, p) in phases(before) {
            let d = (middle(after, &x) - middle(before, &p)).abs();
            if p.program == x.program && hottest(&p) == hottest(&x) && d <= PHASE_APART {
                close.push((d, i, k));
            }
        }
    }
    close.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (_, i, k) in close {
        if !out.iter().any(|p| p.0 == i || p.1 == k) {
            out.push((i, k));
        }
    }
    out
}

/// The points of `after` an earlier apps file at `before` has too, the
/// table of what changed, and a warning for each name found twice in
/// either (the first is compared).
pub fn against_file(
    before: &std::path::Path,
    after: &[AppPoint],
) -> crate::error::Result<(Vec<Change>, String, Vec<String>)> {
    let earlier = crate::results::apps::load(before)?.applications;
    let mut warnings = Vec::new();
    let label = std::path::Path::new("--apps");
    for (file, points) in [(before, &earlier[..]), (label, after)] {
        for n in twice(points) {
            warnings.push(format!(
                "{} has {n} twice; the first is compared",
                file.display()
            ));
        }
    }
    let (changes, gone, new) = self::changes(&earlier, after);
    let text = table(&changes, &gone, &new);
    Ok((changes, text, warnings))
}

/// The names that stand for two points or more in `points` (the same
/// name, or the same function of the same program): only the first of
/// each is matched, which a reader must be told.
pub fn twice(points: &[AppPoint]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out: Vec<String> = Vec::new();
    for p in points {
        if !seen.insert(key(p)) && !out.contains(&p.name) {
            out.push(p.name.clone());
        }
    }
    out
}

/// "×1.52" for a ratio, "-" when either side is zero or not finite.
fn ratio(after: f64, before: f64) -> String {
    let r = after / before;
    match r.is_finite() && r > 0.0 {
        true => format!("×{r:.2}"),
        false => "-".into(),
    }
}

/// The table of what changed: time (seconds and ratio), AI and GFLOP/s
/// before → after, and their ratios.
pub fn table(changes: &[Change], gone: &[String], new: &[String]) -> String {
    let mut t = format!(
        "{:<28} {:>19} {:>7} {:>21} {:>7} {:>21} {:>7}\n",
        "point",
        "T s before → after",
        "",
        "flop/B before → after",
        "",
        "GFLOP/s before → after",
        ""
    );
    for c in changes {
        let (b, a) = (&c.before, &c.after);
        let _ = writeln!(
            t,
            "{:<28} {:>9.4} → {:<7.4} {:>7} {:>9.3} → {:<9.3} {:>7} {:>9.3} → {:<9.3} {:>7}",
            a.name,
            b.seconds,
            a.seconds,
            ratio(a.seconds, b.seconds),
            b.ai(),
            a.ai(),
            ratio(a.ai(), b.ai()),
            b.gflop_per_s(),
            a.gflop_per_s(),
            ratio(a.gflop_per_s(), b.gflop_per_s()),
        );
    }
    if !gone.is_empty() {
        let _ = writeln!(t, "only before: {}", gone.join(", "));
    }
    if !new.is_empty() {
        let _ = writeln!(t, "only after: {}", new.join(", "));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::{FunctionInfo, Of};

    fn point(name: &str, program: Option<&str>, flops: f64, bytes: f64, seconds: f64) -> AppPoint {
        let of = match program {
            Some(p) => Of::Function(FunctionInfo::new(p, "app", 0.5, 100)),
            None => Of::Program { mpi: None },
        };
        AppPoint {
            of,
            ..AppPoint::new(name, flops, bytes, seconds)
        }
    }

    #[test]
    fn points_match_by_program_and_name_and_their_changes_are_tabled() {
        let before = vec![
            point("app", None, 1e9, 1e9, 1.0),
            point("kernel", Some("app"), 1e9, 4e9, 0.5),
            point("kernel", Some("other"), 1e9, 1e9, 0.5),
            point("setup", Some("app"), 1e6, 1e6, 0.1),
        ];
        let after = vec![
            point("app", None, 1e9, 5e8, 0.5),
            point("kernel", Some("app"), 1e9, 1e9, 0.25),
            point("solve", Some("app"), 1e6, 1e6, 0.1),
        ];
        let (c, gone, new) = changes(&before, &after);
        assert_eq!(c.len(), 2);
        // The function is matched with its own program's, not another's.
        assert_eq!(c[1].before.bytes, 4e9);
        assert_eq!(gone, ["kernel", "setup"]);
        assert_eq!(new, ["solve"]);
        let t = table(&c, &gone, &new);
        let row = t.lines().find(|l| l.starts_with("kernel")).unwrap();
        // Half the time, four times the intensity, twice the performance.
        assert!(
            row.contains("×0.50") && row.contains("×4.00") && row.contains("×2.00"),
            "{row}"
        );
        assert!(t.contains("only before: kernel, setup") && t.contains("only after: solve"));
        assert!(twice(&before).is_empty());
        let doubled = [before[0].clone(), after[0].clone(), before[0].clone()];
        assert_eq!(twice(&doubled), [before[0].name.clone()]);
        assert_eq!(ratio(1.0, 0.0), "-");
    }

    /// Program `app`'s phase `index`, `start` to `end`, its hottest function
    /// `hot`.
    fn phase(index: usize, hot: &str, start: f64, end: f64) -> AppPoint {
        use crate::results::apps::{PhaseInfo, Share};
        let info = PhaseInfo {
            program: "app".into(),
            index,
            start,
            end,
            functions: vec![Share {
                name: hot.into(),
                share: 1.0,
            }],
            windows: Vec::new(),
        };
        AppPoint {
            of: Of::Phase(info),
            ..AppPoint::new(format!("app: phase {index} ({hot})"), 1e9, 1e9, end - start)
        }
    }

    #[test]
    fn phases_are_matched_by_their_function_and_place_not_their_number() {
        let before = vec![
            phase(1, "set", 0.0, 1.0),
            phase(2, "triad", 1.0, 3.0),
            phase(3, "again", 3.0, 4.0),
        ];
        // The triad gone: the new phase 2 is the old phase 3.
        let after = vec![phase(1, "set", 0.0, 1.0), phase(2, "again", 1.0, 2.0)];
        let (c, gone, new) = changes(&before, &after);
        let pairs: Vec<(usize, usize)> = (c.iter())
            .map(|x| {
                (
                    x.before.phase().unwrap().index,
                    x.after.phase().unwrap().index,
                )
            })
            .collect();
        assert_eq!(pairs, [(1, 1), (3, 2)]);
        assert_eq!(gone, ["app: phase 2 (triad)"]);
        assert!(new.is_empty());
        // All in one function: by their place in the run (the old first
        // phase is the new second, its middle nearest).
        let before = vec![phase(1, "main", 0.0, 1.0), phase(2, "main", 1.0, 4.0)];
        let after = vec![
            phase(1, "main", 0.0, 0.2),
            phase(2, "main", 0.2, 1.0),
            phase(3, "main", 1.0, 4.0),
        ];
        let (c, _, new) = changes(&before, &after);
        let pairs: Vec<(usize, usize)> = (c.iter())
            .map(|x| {
                (
                    x.before.phase().unwrap().index,
                    x.after.phase().unwrap().index,
                )
            })
            .collect();
        assert_eq!(pairs, [(1, 2), (2, 3)]);
        assert_eq!(new, ["app: phase 1 (main)"]);
    }
}
