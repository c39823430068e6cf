//! `carmbench fleet report`'s answer, one format per file: each group's
//! roofs over its nodes, the outliers with the roofs that make them so, the
//! unreadable nodes.

mod csv;
mod json;
mod markdown;
mod text;

use crate::compare;
use crate::fleet::analysis::{Group, MIN_GROUP};
use crate::fleet::{Fleet, NodeResult};
use crate::output::compare::{CompareFormat, Comparison};

/// Output formats of `carmbench fleet report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FleetFormat {
    /// Aligned text.
    Text,
    /// Markdown tables.
    Markdown,
    /// CSV, one row per roof, outlier and unreadable node.
    Csv,
    /// JSON: {"groups", "outliers", "unreadable"}.
    Json,
}

/// The report in `format`; `compared` is the `compare` table of each
/// group's slowest node against its median node, when there is one.
pub fn render(f: &Fleet, compared: &[(String, String)], format: FleetFormat) -> String {
    match format {
        FleetFormat::Text => text::render(f, compared),
        FleetFormat::Markdown => markdown::render(f, compared),
        FleetFormat::Csv => csv::render(f),
        FleetFormat::Json => json::render(f),
    }
}

/// A group's heading: its CPU, nodes and whether it is judged.
fn group_line(g: &Group) -> String {
    let judged = if g.judged {
        String::new()
    } else {
        format!(": too few nodes for outlier verdicts ({MIN_GROUP} needed)")
    };
    format!("{} ({} node(s){judged})", g.cpu, g.nodes.len())
}

/// "n3: run interrupted after 6 roofs; 30 of its group's roofs missing: ..."
fn incomplete_line(i: &crate::fleet::analysis::Incomplete) -> String {
    const SHOWN: usize = 4;
    let mut names: Vec<String> = i.missing.iter().take(SHOWN).cloned().collect();
    let more = i.missing.len().saturating_sub(SHOWN);
    if more > 0 {
        names.push(format!("and {more} more"));
    }
    let mut parts = Vec::new();
    if i.interrupted {
        parts.push(format!("run interrupted after {} roofs", i.roofs));
    }
    if !i.missing.is_empty() {
        parts.push(format!(
            "{} of its group's roofs missing: {}",
            i.missing.len(),
            names.join(", ")
        ));
    }
    format!("{}: {}", i.node, parts.join("; "))
}

/// Column heads of a group's roof table, and a roof's cells in them.
const STAT_HEADS: [&str; 7] = ["roof", "unit", "median", "min", "max", "spread", "MAD"];

fn stat_cells(r: &crate::fleet::analysis::RoofStats) -> [String; 7] {
    [
        r.roof.clone(),
        r.unit.to_string(),
        format!("{:.1}", r.median),
        format!("{:.1}", r.min),
        format!("{:.1}", r.max),
        format!("{:.1}%", 100.0 * r.spread),
        format!("{:.2}", r.mad),
    ]
}

/// An outlier's roofs in one line.
fn outlier_roofs(o: &crate::fleet::analysis::Outlier) -> String {
    o.roofs
        .iter()
        .map(|r| {
            format!(
                "{} {:.1} ({:.0}% below the median {:.1})",
                r.roof,
                r.value,
                100.0 * r.below,
                r.median
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The `compare` of each group's slowest node against its median node.
pub fn compared(f: &Fleet, nodes: &[NodeResult], format: FleetFormat) -> Vec<(String, String)> {
    let table_format = match format {
        FleetFormat::Markdown => CompareFormat::Markdown,
        _ => CompareFormat::Text,
    };
    f.groups
        .iter()
        .filter_map(|g| {
            let pair = f.slowest_pair(g, nodes)?;
            let names: Vec<String> = pair.iter().map(|p| p.0.clone()).collect();
            let docs: Vec<&crate::results::Document> = pair.iter().map(|p| p.1).collect();
            let about: Vec<String> = docs.iter().map(|d| compare::about(d)).collect();
            let rows = compare::match_roofs(&docs, false);
            let ridges = compare::ridge_table(&names, &docs);
            let table = super::compare::render(
                &Comparison {
                    names: &names,
                    about: &about,
                    rows: &rows,
                    ridges: &ridges,
                },
                table_format,
            );
            Some((
                format!(
                    "{}: the slowest node, {}, against the median node, {}",
                    g.cpu, names[1], names[0]
                ),
                table,
            ))
        })
        .collect()
}
