//! `carmbench compare`'s table, one format per file: every roof across the
//! files with its ratio to the first, then the ridge points.

mod csv;
mod html;
mod json;
mod markdown;
mod text;

use crate::compare::{Cell, RidgeTable, Row};

/// What a comparison shows.
#[derive(Debug)]
pub struct Comparison<'a> {
    /// The files' short names, in order.
    pub names: &'a [String],
    /// Each file's machine ([`crate::compare::about`]).
    pub about: &'a [String],
    /// The roofs across the files.
    pub rows: &'a [Row],
    /// The ridges per thread count.
    pub ridges: &'a [RidgeTable],
}

/// Output formats of `carmbench compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    /// Aligned text.
    Text,
    /// A Markdown table.
    Markdown,
    /// CSV.
    Csv,
    /// JSON.
    Json,
    /// HTML tables.
    Html,
}

/// The comparison in `format`.
pub fn render(c: &Comparison, format: CompareFormat) -> String {
    match format {
        CompareFormat::Text => text::render(c),
        CompareFormat::Markdown => markdown::render(c),
        CompareFormat::Csv => csv::render(c),
        CompareFormat::Json => json::render(c),
        CompareFormat::Html => html::render(c),
    }
}

/// A cell as text: value, per thread, per cycle, ratio ("missing" where
/// the file lacks the roof; the first file's ratio is 1).
fn cell_text(c: &Option<Cell>, first: bool) -> [String; 4] {
    match c {
        Some(c) => [
            format!("{:.1}", c.value),
            format!("{:.1}", c.per_thread()),
            format!("{:.2}", c.per_cycle),
            if first {
                "1.00".into()
            } else {
                c.ratio.map_or("-".into(), |r| format!("{r:.2}"))
            },
        ],
        None => ["missing".into(), "-".into(), "-".into(), "-".into()],
    }
}

/// A row as text: threads, ISA, roof, unit; then value, per thread, per
/// cycle and ratio per file. Each format lays these out its own way.
fn row_text(r: &Row) -> ([String; 4], Vec<[String; 4]>) {
    (
        [
            r.key.threads.to_string(),
            r.isa_text(),
            r.key.label(),
            r.key.unit().to_string(),
        ],
        r.cells
            .iter()
            .enumerate()
            .map(|(i, c)| cell_text(c, i == 0))
            .collect(),
    )
}

/// A file's ridges as "L1 0.123" items.
fn ridge_items(r: &crate::compare::FileRidges) -> Vec<String> {
    r.ridges
        .iter()
        .map(|x| format!("{} {:.3}", x.level, x.ai))
        .collect()
}

/// One line per machine level of the quadrant chart: its bandwidth, its
/// peak, and whether each of `ais` is memory or compute bound there.
pub fn quadrant_lines(
    points: &[crate::compare::QuadrantPoint],
    ais: &[crate::compare::AiLine],
) -> String {
    use std::fmt::Write as _;
    let mut lines = String::new();
    for p in points {
        let verdicts: Vec<String> = ais
            .iter()
            .map(|line| {
                let bound = if p.memory_bound(line.ai) {
                    "memory bound"
                } else {
                    "compute bound"
                };
                format!("{}: {bound}", line.label(" "))
            })
            .collect();
        let _ = writeln!(
            lines,
            "  {} {}: {:.1} GB/s, peak {:.1} GFLOP/s -> {}",
            p.machine,
            p.level,
            p.gb_per_s,
            p.gflop_per_s,
            verdicts.join(", ")
        );
    }
    lines
}
