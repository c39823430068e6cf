//! Application points: where each sits and the roof right above it.

use crate::profile::placement;
use crate::results::Document;
use crate::results::apps::AppPoint;
use maud::{Markup, html};

/// A row per application, placed against `doc`'s roofs.
pub fn section(doc: &Document, apps: &[AppPoint]) -> Markup {
    html! {
        div.scroll {
            table.apps {
                thead { tr {
                    th { "Application" } th { "AI (flop/B)" } th { "GFLOP/s" } th { "Seconds" }
                    th { "Bound by" } th { "Of that roof" }
                } }
                tbody {
                    @for a in apps {
                        @let place = placement(doc, a, a.threads.unwrap_or(1));
                        tr {
                            td { (a.name) }
                            td.n { (format!("{:.3}", a.ai())) }
                            td.n { (format!("{:.2}", a.gflop_per_s())) }
                            td.n { (format!("{:.3}", a.seconds)) }
                            @match place.as_ref().and_then(|p| p.roof.as_ref().map(|r| (p, r))) {
                                Some((p, (label, v))) => {
                                    td { (label) " (" (p.threads) " thread(s), " (format!("{v:.1}")) " GFLOP/s)" (p.note()) }
                                    td.n { (format!("{:.0}%", 100.0 * a.gflop_per_s() / v)) }
                                }
                                None => { td { "above every roof" } td.n { "-" } }
                            }
                        }
                    }
                }
            }
        }
    }
}
