//! The roofs table of a results file, its flags explained, and what the run
//! found of the levels' capacity and the core's co-issue.

use crate::output::summary::{knees, limit_notes, paced};
use crate::output::validation::findings;
use crate::results::{Document, Flag, Roof};
use maud::{Markup, html};

/// A number with `d` decimals, or "-".
fn num(v: Option<f64>, d: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.d$}"))
}

/// The unit of a roof's value.
fn unit(r: &Roof) -> &'static str {
    r.unit()
}

/// Every roof, one row each, in the order measured; each flag's meaning on
/// hover and once below the table.
pub fn table(doc: &Document) -> Markup {
    let mut flags: Vec<Flag> = doc
        .roofs
        .iter()
        .flat_map(|r| r.flags.iter().copied())
        .collect();
    flags.sort_by_key(|f| f.name());
    flags.dedup();
    let notes = format!(
        "{}{}{}{}",
        knees(doc),
        paced(doc),
        limit_notes(doc),
        findings(&doc.coissue)
    );
    html! {
        div.scroll {
            table.roofs {
                thead { tr {
                    th { "Roof" } th { "ISA" } th { "Threads" } th { "Value" } th { "Per cycle" }
                    th { "% of limit" } th { "CV" } th { "Plateau" } th { "Flags" }
                } }
                tbody {
                    @for r in &doc.roofs {
                        tr {
                            td { (r.label()) }
                            td { (r.isa) }
                            td.n { (r.threads) }
                            td.n.value { (format!("{:.1}", r.value())) " " (unit(r)) }
                            td.n { (format!("{:.2}", r.per_cycle)) " " (r.unit_per_cycle()) }
                            td.n { (num(r.percent_of_theoretical, 1)) }
                            td.n { (format!("{:.1}%", 100.0 * r.cv)) }
                            td.n {
                                @match r.plateau {
                                    Some([a, b]) => {
                                        (crate::units::human_bytes(a)) "-" (crate::units::human_bytes(b))
                                    }
                                    None => "-",
                                }
                            }
                            td {
                                @for f in &r.flags {
                                    span.flag title=(f.meaning()) { (f.name()) } " "
                                }
                            }
                        }
                    }
                }
            }
        }
        @if !flags.is_empty() {
            ul.flags {
                @for f in &flags { li { b { (f.name()) } ": " (f.meaning()) } }
            }
        }
        @for line in notes.lines() {
            p.note { (line) }
        }
    }
}
