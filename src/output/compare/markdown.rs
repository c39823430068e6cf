//! The comparison as Markdown tables.

use super::{Comparison, ridge_items, row_text};
use crate::output::markdown_escape as escape;
use std::fmt::Write as _;

pub(super) fn render(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = write!(s, "| threads | ISA | roof | unit |");
    for n in c.names {
        let _ = write!(s, " {} | per thread | per cycle | ratio |", escape(n));
    }
    let _ = write!(s, "\n|---|---|---|---|");
    for _ in c.names {
        s.push_str("---:|---:|---:|---:|");
    }
    s.push('\n');
    for r in c.rows {
        let (head, cells) = row_text(r);
        let _ = write!(s, "| {} |", head.join(" | "));
        for cell in cells {
            let _ = write!(s, " {} |", cell.join(" | "));
        }
        s.push('\n');
    }
    s.push_str("\n| threads | file | ISA | ridge AI per level (flop/byte) |\n|---|---|---|---|\n");
    for rd in c.ridges {
        for f in &rd.files {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                rd.threads,
                escape(&f.file),
                f.isa,
                ridge_items(f).join(", ")
            );
        }
    }
    s
}
