//! The comparison as aligned text.

use super::{Comparison, ridge_items, row_text};
use std::fmt::Write as _;

pub(super) fn render(c: &Comparison) -> String {
    let mut s = String::new();
    for (i, n) in c.names.iter().enumerate() {
        let about = c.about.get(i).map_or(String::new(), |a| format!(": {a}"));
        let _ = writeln!(s, "[{}] {n}{about}", i + 1);
    }
    let _ = write!(s, "{:>3} {:<13} {:<16} {:<8}", "thr", "isa", "roof", "unit");
    for i in 0..c.names.len() {
        let _ = write!(
            s,
            " {:>10} {:>8} {:>9} {:>6}",
            format!("[{}]", i + 1),
            "per thr",
            "per cyc",
            "ratio"
        );
    }
    s.push('\n');
    for r in c.rows {
        let ([t, isa, roof, unit], cells) = row_text(r);
        let _ = write!(s, "{t:>3} {isa:<13} {roof:<16} {unit:<8}");
        for [v, t, p, q] in cells {
            let _ = write!(s, " {v:>10} {t:>8} {p:>9} {q:>6}");
        }
        s.push('\n');
    }
    s.push_str("all: each machine's most threads, its all-core roofs side by side; per thr: the value per thread\n");
    s.push_str("\nridge points (AI where each level's roof meets the top FP roof, flop/byte):\n");
    for rd in c.ridges {
        for f in &rd.files {
            let _ = writeln!(
                s,
                "  {} thread(s) {} ({}): {}",
                rd.threads,
                f.file,
                f.isa,
                ridge_items(f).join("  ")
            );
        }
    }
    s
}
