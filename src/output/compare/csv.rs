//! The comparison as CSV: one row per roof, three columns per file.

use super::{Comparison, row_text};
use std::fmt::Write as _;

pub(super) fn render(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = write!(s, "threads,isa,roof,unit");
    for n in c.names {
        let _ = write!(s, ",{n} value,{n} per_thread,{n} per_cycle,{n} ratio");
    }
    s.push('\n');
    for r in c.rows {
        let (head, cells) = row_text(r);
        let mut fields: Vec<String> = head.to_vec();
        fields.extend(cells.into_iter().flatten());
        let _ = writeln!(s, "{}", fields.join(","));
    }
    s
}
