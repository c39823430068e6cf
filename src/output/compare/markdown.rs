//! The comparison as Markdown tables.

use super::{Comparison, cell_text, ridge_items};
use std::fmt::Write as _;

pub(super) fn render(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = write!(s, "| threads | ISA | roof | unit |");
    for n in c.names {
        let _ = write!(s, " {n} | per cycle | ratio |");
    }
    let _ = write!(s, "\n|---|---|---|---|");
    for _ in c.names {
        s.push_str("---:|---:|---:|");
    }
    s.push('\n');
    for r in c.rows {
        let _ = write!(
            s,
            "| {} | {} | {} | {} |",
            r.key.threads,
            r.isa_text(),
            r.key.label(),
            r.key.unit()
        );
        for (i, cell) in r.cells.iter().enumerate() {
            let (v, p, q) = cell_text(cell, i == 0);
            let _ = write!(s, " {v} | {p} | {q} |");
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
                f.file,
                f.isa,
                ridge_items(f).join(", ")
            );
        }
    }
    s
}
