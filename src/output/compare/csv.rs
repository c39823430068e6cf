//! The comparison as CSV: one row per roof, three columns per file.

use super::{Comparison, cell_text};
use std::fmt::Write as _;

pub(super) fn render(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = write!(s, "threads,isa,roof,unit");
    for n in c.names {
        let _ = write!(s, ",{n} value,{n} per_cycle,{n} ratio");
    }
    s.push('\n');
    for r in c.rows {
        let _ = write!(
            s,
            "{},{},{},{}",
            r.key.threads,
            r.isa_text(),
            r.key.label(),
            r.key.unit()
        );
        for (i, cell) in r.cells.iter().enumerate() {
            let (v, p, q) = cell_text(cell, i == 0);
            let _ = write!(s, ",{v},{p},{q}");
        }
        s.push('\n');
    }
    s
}
