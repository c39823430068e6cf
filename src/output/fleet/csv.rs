//! The fleet report as one CSV table: a row per roof of each group, per
//! outlier roof, per missing roof and interrupted node, and per unreadable
//! node, told apart by the first column.

use crate::fleet::Fleet;
use std::fmt::Write as _;

/// A field, quoted when it holds a separator, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub(super) fn render(f: &Fleet) -> String {
    let mut s = String::from("row,cpu,node,roof,unit,value,median,min,max,spread,mad,error\n");
    for g in &f.groups {
        for r in &g.roofs {
            let _ = writeln!(
                s,
                "roof,{},,{},{},,{},{},{},{},{},",
                field(&g.cpu),
                field(&r.roof),
                r.unit,
                r.median,
                r.min,
                r.max,
                r.spread,
                r.mad
            );
        }
    }
    for o in &f.outliers {
        for r in &o.roofs {
            let _ = writeln!(
                s,
                "outlier,{},{},{},,{},{},,,,,",
                field(&o.cpu),
                field(&o.node),
                field(&r.roof),
                r.value,
                r.median
            );
        }
    }
    for i in &f.incomplete {
        for r in &i.missing {
            let _ = writeln!(s, "missing,,{},{},,,,,,,,", field(&i.node), field(r));
        }
        if i.interrupted {
            let _ = writeln!(s, "interrupted,,{},,,,,,,,,", field(&i.node));
        }
    }
    for u in &f.unreadable {
        let _ = writeln!(
            s,
            "unreadable,,{},,,,,,,,,{}",
            field(&u.node),
            field(&u.error)
        );
    }
    s
}
