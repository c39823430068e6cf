//! The machine a results file was measured on, and how.

use crate::output::ghz;
use crate::results::Document;
use crate::units::human_bytes;
use maud::{Markup, html};
use std::time::{Duration, UNIX_EPOCH};

/// A comma-separated list of anything printable.
fn list<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// When the run started, in UTC.
pub fn when(doc: &Document) -> String {
    let t = UNIX_EPOCH + Duration::from_secs(doc.created_unix);
    humantime::format_rfc3339_seconds(t)
        .to_string()
        .replace('T', " ")
        .replace('Z', " UTC")
}

/// The machine's facts, its caches and the plan.
pub fn section(doc: &Document) -> Markup {
    let m = &doc.machine;
    let t = &m.topology;
    let p = &doc.plan;
    html! {
        dl.facts {
            dt { "CPU" } dd { (doc.cpu_name()) }
            dt { "Microarchitecture" }
            dd { (m.microarchitecture.as_deref().unwrap_or("not in configs/limits.yaml: no % of limit")) }
            dt { "Cores" }
            dd { (t.cores) " cores, " (t.hardware_threads) " hardware threads, " (t.packages) " package(s)" }
            dt { "NUMA" }
            dd {
                @for n in &t.numa_nodes {
                    "node " (n.os_index) ": " (human_bytes(n.memory_bytes)) ", " (n.cores) " cores. "
                }
            }
            dt { "ISA" }
            dd {
                "measured: " (list(&m.isa.benchmarked))
                @if !m.isa.skipped.is_empty() { "; this CPU lacks " (list(&m.isa.skipped)) }
            }
            dt { "Clock" }
            dd {
                (ghz(m.clock.measured.core_ghz())) " measured on the core ("
                (m.isa.counter_name()) " " (ghz(m.clock.tsc_ghz)) ")"
            }
            dt { "Run" }
            dd {
                (when(doc)) " by " (doc.tool)
                @if doc.interrupted { " (interrupted: the plan was not done)" }
            }
            dt { "Plan" }
            dd {
                "ISA " (list(&p.isa)) "; " (list(&p.precision)) "; threads " (list(&p.threads))
                "; levels " (list(&p.levels)) "; mixes " (list(&p.mixes)) "; ops " (list(&p.ops))
                "; " (p.sizes_per_level) " sizes per level, " (p.samples) " samples of at least "
                (p.min_sample_ms) " ms; roofs from " (p.roof_from.name())
                @if p.quick { " (--quick)" }
            }
        }
        div.scroll {
            table {
                thead { tr {
                    th { "Cache" } th { "Size" } th { "Line" } th { "Ways" }
                    th { "Cores sharing one" } th { "Instances" }
                } }
                tbody {
                    @for c in &t.caches {
                        tr {
                            td { (c.name) }
                            td.n { (human_bytes(c.size_bytes)) }
                            td.n { (c.line_bytes.map_or("-".into(), |l| format!("{l} B"))) }
                            td.n { (c.associativity.map_or("-".into(), |a| a.to_string())) }
                            td.n { (c.cores_sharing) }
                            td.n { (c.instances) }
                        }
                    }
                }
            }
        }
    }
}
