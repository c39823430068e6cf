//! The validation tables of a results file, from the sweeps it keeps: one
//! table per kernel and thread count, a row per level with its verdict.

use crate::results::{Document, SweepSummary};
use crate::validate::verdict::Verdict;
use maud::{Markup, html};

/// A percentage with a sign.
fn signed(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// The tables, or nothing when the file holds no validation.
pub fn section(doc: &Document) -> Markup {
    let mut groups: Vec<Vec<&SweepSummary>> = Vec::new();
    for s in &doc.sweeps {
        let key = |x: &SweepSummary| (x.isa, x.precision, x.mix, x.op, x.threads);
        match groups.iter_mut().find(|g| key(g[0]) == key(s)) {
            Some(g) => g.push(s),
            None => groups.push(vec![s]),
        }
    }
    html! {
        @for g in &groups {
            @let s0 = g[0];
            h3 {
                (s0.isa) " " (s0.precision) " " (s0.mix) " kernels against the " (s0.op) " and "
                (s0.mix) " roofs, " (s0.threads) " thread(s), threshold "
                (format!("{:.0}%", 100.0 * s0.threshold))
            }
            div.scroll {
                table.validation {
                    thead { tr {
                        th { "Level" } th { "Ridge AI" } th { "Points (slope/flat)" }
                        th { "Median |dev|" } th { "Worst (AI: dev)" } th { "Overlap" }
                        th { "B vs roof" } th { "Result" }
                    } }
                    tbody {
                        @for s in g {
                            tr {
                                td { (s.level) }
                                td.n { (format!("{:.3}", s.ridge)) }
                                td.n { (s.points) " (" (s.sloped) "/" (s.flat) ")" }
                                td.n { (format!("{:.1}%", 100.0 * s.median_abs_deviation)) }
                                td.n { (format!("{:.3}", s.worst_ai)) ": " (signed(s.worst_deviation)) }
                                td.n { (s.overlap.map_or("-".into(), |o| format!("{:.0}%", 100.0 * o))) }
                                td.n { (s.moved.map_or("-".into(), signed)) }
                                td {
                                    @match s.verdict {
                                        Verdict::Holds => span.ok { "ok" },
                                        Verdict::Fails(c) => { span.failed { "FAILED" } ": " (c.to_string()) },
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
