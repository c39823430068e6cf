//! The HTML report: one self-contained page of a run or of several results
//! files (`carm.html`), to open, keep and mail. Everything is inline: the
//! charts as SVG with a tooltip on each roof and point, the style sheet, the
//! few lines that sort the function table; no script, font or image from
//! elsewhere. Built from the results documents
//! alone, as every reader of them is.

mod apps;
mod gpu;
mod machine;
mod roofs;
mod timeline;
mod validation;

use crate::chart::{self, Filter, curve::CurveChart};
use crate::compare;
use crate::error::{Error, Result};
use crate::output::compare::{CompareFormat, Comparison, render};
use crate::results::Document;
use crate::results::apps::{AppPoint, Side};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use std::path::{Path, PathBuf};

/// The page's style sheet.
const STYLE: &str = include_str!("style.css");

/// A chart inline, or why there is none.
fn figure(svg: Result<String>, caption: &str) -> Markup {
    html! {
        @match svg {
            Ok(s) => figure { (PreEscaped(s)) figcaption { (caption) } },
            Err(e) => p.muted { "No chart: " (e.to_string()) },
        }
    }
}

/// One results file's sections: its machine, memory curve, roofs,
/// validation; `heading` names the file when there are several.
fn file_sections(name: &str, doc: &Document, several: bool) -> Markup {
    let of = |what: &str| {
        if several {
            format!("{what}: {name}")
        } else {
            what.to_string()
        }
    };
    html! {
        section.machine {
            h2 { (of("Machine")) }
            (machine::section(doc))
        }
        @if !doc.curves.is_empty() {
            section.curve {
                h2 { (of("Memory curve")) }
                (figure(
                    CurveChart::of(doc, None).and_then(|c| c.svg()),
                    "Bandwidth against working set per thread: each level's buffer range shaded, hwloc's cache sizes dashed, each roof as a bar over the sizes it came from. Point at a size or a bar for its values.",
                ))
            }
        }
        section.roofs {
            h2 { (of("Roofs")) }
            (roofs::table(doc))
        }
        @for g in &doc.gpus {
            section.gpu {
                h2 { (of(&format!("GPU {}", g.device.index))) }
                (gpu::section(g))
            }
        }
        @if !doc.sweeps.is_empty() {
            section.validation {
                h2 { (of("Validation")) }
                p {
                    "Variable-intensity kernels against min(FP roof, AI × level roof), where the core overlaps their memory and FP units (the co-issue above): a level fails when the median |deviation| of its points exceeds the threshold, with its likely cause."
                }
                (validation::section(doc))
            }
        }
    }
}

/// Every roof of several files side by side, and their ridge points.
fn comparison(docs: &[(String, Document)]) -> String {
    let refs: Vec<&Document> = docs.iter().map(|(_, d)| d).collect();
    let names: Vec<String> = docs.iter().map(|(n, _)| n.clone()).collect();
    let best_isa = !compare::share_an_isa(&refs);
    let about: Vec<String> = refs.iter().map(|d| compare::about(d)).collect();
    let rows = compare::match_roofs(&refs, best_isa);
    let ridges = compare::ridge_table(&names, &refs);
    render(
        &Comparison {
            names: &names,
            about: &about,
            rows: &rows,
            ridges: &ridges,
        },
        CompareFormat::Html,
    )
}

/// The page of `docs` (short name, document), with `apps` placed on the
/// first file's roofs.
pub fn html(docs: &[(String, Document)], apps: &[AppPoint]) -> Result<String> {
    let Some((_, first)) = docs.first() else {
        return Err(Error::input("give at least one results file"));
    };
    let several = docs.len() > 1;
    let cpus: Vec<String> = docs.iter().map(|(_, d)| d.cpu_name()).collect();
    let title = format!("carmbench: {}", cpus.join(" vs "));
    let tables = Tables::of(apps);
    let (programs, functions, ranks) = (&tables.programs, &tables.functions, &tables.ranks);
    let sides = side_charts(docs, &tables.placeable);
    let (carm, apps_chart) = charts(docs, tables.placeable.clone());
    let comparison = several.then(|| comparison(docs));
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { main {
                header {
                    h1 { (title) }
                    p.muted {
                        "Cache-aware Roofline Model measured by " (first.tool) ", " (machine::when(first))
                        ". Bandwidths count the bytes the cores request (loads + stores), not write-allocate traffic."
                    }
                }
                section.carm {
                    h2 { "CARM chart" }
                    (figure(carm, "Log-log: one sloped roof per memory level, one flat roof per FP op; validation points where measured. Point at a roof or a point for its values."))
                }
                @if let Some(svg) = apps_chart {
                    section.carm {
                        h2 { "Applications on the roofs" }
                        (figure(svg, "The applications, functions and loops below on the same roofs: a program is a triangle, a function or loop a disc whose area is its share of the time, the largest numbered in the legend, a phase a diamond on the program's path. Point at a row of the tables below to find its point."))
                        @if let Some(strips) = timeline::strips(apps) { (strips) }
                    }
                }
                @if !sides.is_empty() { (sides_section(sides)) }
                @if let Some(table) = comparison {
                    section.compare {
                        h2 { "Compared" }
                        p { "Every roof of the files side by side, with its ratio to the first file's; then each file's ridge points." }
                        (PreEscaped(table))
                    }
                }
                @if !programs.is_empty() {
                    section.apps {
                        h2 { "Applications" }
                        (apps::section(first, programs, apps))
                    }
                }
                @if let Some(section) = apps::series(first, programs) { (section) }
                @if !ranks.is_empty() {
                    section.apps {
                        h2 { "MPI ranks" }
                        (apps::ranks(first, programs, ranks))
                    }
                }
                @if !functions.is_empty() {
                    section.functions {
                        h2 { "Functions" }
                        (apps::functions(first, functions, apps))
                    }
                }
                @if let Some(kernels) = gpu::kernels(first, apps) { (kernels) }
                @for (name, doc) in docs {
                    (file_sections(name, doc, several))
                }
                script { (PreEscaped(apps::HOVER_SCRIPT)) }
            } }
        }
    };
    Ok(page.into_string())
}

/// The application points by the table that lists them.
struct Tables<'a> {
    /// Programs and regions with a place.
    programs: Vec<AppPoint>,
    /// Functions and loops (those without FP work too: listed, not drawn).
    functions: Vec<&'a AppPoint>,
    /// An MPI program's ranks: listed in their own table, not drawn.
    ranks: Vec<&'a AppPoint>,
    /// What the applications' chart draws.
    placeable: Vec<AppPoint>,
}

impl Tables<'_> {
    fn of(apps: &[AppPoint]) -> Tables<'_> {
        // GPU kernels have their own section, under their GPU's roofs.
        let cpu = apps.iter().filter(|a| a.kernel().is_none());
        let (programs, functions): (Vec<&AppPoint>, Vec<&AppPoint>) =
            cpu.clone().partition(|a| a.function().is_none());
        let (ranks, programs): (Vec<&AppPoint>, Vec<&AppPoint>) =
            programs.into_iter().partition(|a| a.rank().is_some());
        let placeable = cpu
            .filter(|a| a.placeable() && a.rank().is_none())
            .cloned()
            .collect();
        let programs = (programs.into_iter())
            .filter(|a| a.placeable())
            .cloned()
            .collect();
        Tables {
            programs,
            functions,
            ranks,
            placeable,
        }
    }
}

/// The machine's chart with its validation points; the applications'
/// apart (when there are any), on the same roofs, without them.
fn charts(
    docs: &[(String, Document)],
    placeable: Vec<AppPoint>,
) -> (Result<String>, Option<Result<String>>) {
    // Points of a narrow type's work go under that type's roofs.
    let filter = &Filter {
        precision: chart::select::apps_precisions(&placeable, docs),
        ..Filter::default()
    };
    let carm = chart::select(docs, filter, Vec::new()).and_then(|s| chart::svg(&s));
    let apps = (!placeable.is_empty()).then(|| {
        chart::select(docs, filter, placeable).and_then(|mut s| {
            s.without_validation();
            chart::with_paths(&mut s, &docs[0].1);
            chart::svg(&s)
        })
    });
    (carm, apps)
}

/// The read and the write rooflines, one figure each.
fn sides_section(sides: Vec<(Side, Result<String>)>) -> Markup {
    html! {
        section.carm {
            h2 { "Reads and writes apart" }
            p { "Ofenbeck et al.'s read and write rooflines: each point's work over the bytes it read, under the load roofs, then over the bytes it wrote, under the store roofs. The side whose point sits nearer its roof bounds a memory-bound point." }
            @for (side, svg) in sides {
                (figure(svg, &format!("Work over the bytes {} by the core.", ["read", "written"][usize::from(side == Side::Write)])))
            }
        }
    }
}

/// The applications on the read and on the write roofline, when any of
/// them has its bytes read and written apart.
fn side_charts(docs: &[(String, Document)], placeable: &[AppPoint]) -> Vec<(Side, Result<String>)> {
    if !placeable.iter().any(|a| a.sides.is_some()) {
        return Vec::new();
    }
    let sided: Vec<AppPoint> = (placeable.iter())
        .filter(|a| a.sides.is_some())
        .cloned()
        .collect();
    [Side::Read, Side::Write]
        .into_iter()
        .map(|side| {
            let filter = Filter {
                precision: chart::select::apps_precisions(&sided, docs),
                side: Some(side),
                ..Filter::default()
            };
            let svg = chart::select(docs, &filter, sided.clone()).and_then(|mut s| {
                s.without_validation();
                chart::svg(&s)
            });
            (side, svg)
        })
        .collect()
}

/// Write the page of `docs` and `apps` to `path`, replacing a file there
/// whole or not at all.
pub fn write(path: &Path, docs: &[(String, Document)], apps: &[AppPoint]) -> Result<()> {
    crate::files::write_atomic(path, &html(docs, apps)?)
}

/// Write `carm.html` of `doc` beside `results_path`: the path, or why not.
pub fn write_beside(doc: &Document, results_path: &Path) -> std::result::Result<PathBuf, String> {
    let path = results_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(crate::files::names::REPORT);
    write(&path, &[("carm".to_string(), doc.clone())], &[])
        .map(|()| path)
        .map_err(|e| format!("{} not written: {e}", crate::files::names::REPORT))
}
