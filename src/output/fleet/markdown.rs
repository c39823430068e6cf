//! The fleet report as Markdown tables.

use super::{STAT_HEADS, group_line, outlier_roofs, stat_cells};
use crate::fleet::Fleet;
use std::fmt::Write as _;

pub(super) fn render(f: &Fleet, compared: &[(String, String)]) -> String {
    let mut s = String::new();
    for g in &f.groups {
        let _ = writeln!(s, "### {}\n", group_line(g));
        let _ = writeln!(
            s,
            "| {} |\n|---|---|---:|---:|---:|---:|---:|",
            STAT_HEADS.join(" | ")
        );
        for r in &g.roofs {
            let _ = writeln!(s, "| {} |", stat_cells(r).join(" | "));
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "### Outliers (more than {:.0}% below the group's median)\n",
        100.0 * f.threshold
    );
    if f.outliers.is_empty() {
        s.push_str("None.\n");
    } else {
        s.push_str("| node | CPU | roofs |\n|---|---|---|\n");
        for o in &f.outliers {
            let _ = writeln!(s, "| {} | {} | {} |", o.node, o.cpu, outlier_roofs(o));
        }
    }
    if !f.unreadable.is_empty() {
        s.push_str("\n### Unreadable\n\n| node | error |\n|---|---|\n");
        for u in &f.unreadable {
            let _ = writeln!(s, "| {} | {} |", u.node, u.error.replace('|', "\\|"));
        }
    }
    for (title, table) in compared {
        let _ = writeln!(s, "\n### {title}\n\n```\n{table}```");
    }
    s
}
