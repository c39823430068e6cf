//! The fleet report as aligned text.

use super::{STAT_HEADS, group_line, incomplete_line, outlier_roofs, stat_cells};
use crate::fleet::Fleet;
use std::fmt::Write as _;

pub(super) fn render(f: &Fleet, compared: &[(String, String)]) -> String {
    let mut s = format!("nodes grouped by {}\n", f.grouped_by);
    for g in &f.groups {
        let _ = writeln!(s, "group {}", group_line(g));
        let line = |c: &[String]| {
            format!(
                "  {:<32} {:>8} {:>10} {:>10} {:>10} {:>7} {:>8}",
                c[0], c[1], c[2], c[3], c[4], c[5], c[6]
            )
        };
        let _ = writeln!(s, "{}", line(&STAT_HEADS.map(String::from)));
        for r in &g.roofs {
            let _ = writeln!(s, "{}", line(&stat_cells(r)));
        }
    }
    if f.outliers.is_empty() {
        let _ = writeln!(
            s,
            "no outliers: no node's roof sits more than {:.0}% below its group's median",
            100.0 * f.threshold
        );
    } else {
        let _ = writeln!(
            s,
            "outliers: roofs more than {:.0}% below their group's median, and below its scatter",
            100.0 * f.threshold
        );
        for o in &f.outliers {
            let _ = writeln!(s, "  {} ({}): {}", o.node, o.cpu, outlier_roofs(o));
        }
    }
    for i in &f.incomplete {
        let _ = writeln!(s, "incomplete: {}", incomplete_line(i));
    }
    for u in &f.unreadable {
        let _ = writeln!(s, "unreadable: {}: {}", u.node, u.error);
    }
    for (title, table) in compared {
        let _ = writeln!(s, "{title}\n{table}");
    }
    s
}
