//! The fleet report as Markdown tables.

use super::{STAT_HEADS, group_line, incomplete_line, outlier_roofs, stat_cells};
use crate::fleet::Fleet;
use crate::output::markdown_escape as escape;
use std::fmt::Write as _;

pub(super) fn render(f: &Fleet, compared: &[(String, String)]) -> String {
    let mut s = format!("Nodes grouped by {}.\n\n", f.grouped_by);
    for g in &f.groups {
        let _ = writeln!(s, "### {}\n", escape(&group_line(g)));
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
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                escape(&o.node),
                escape(&o.cpu),
                escape(&outlier_roofs(o))
            );
        }
    }
    if !f.incomplete.is_empty() {
        s.push_str("\n### Incomplete\n\n");
        for i in &f.incomplete {
            let _ = writeln!(s, "- {}", escape(&incomplete_line(i)));
        }
    }
    if !f.unreadable.is_empty() {
        s.push_str("\n### Unreadable\n\n| node | error |\n|---|---|\n");
        for u in &f.unreadable {
            let _ = writeln!(s, "| {} | {} |", escape(&u.node), escape(&u.error));
        }
    }
    for (title, table) in compared {
        let _ = writeln!(s, "\n### {}\n\n{table}", escape(title));
    }
    s
}
