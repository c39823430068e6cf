//! `carmbench compare`: roofs of several machines side by side, ridge
//! points, an overlaid chart and the quadrant-split chart.

use crate::chart::{self, Filter, quadrant};
use crate::cli::{CompareArgs, CompareFormat};
use crate::compare::{self, Row, machine_roofs, ridges};
use crate::error::{Error, Result};
use crate::results::{self, Document};
use serde::Serialize;
use std::fmt::Write as _;

/// (file, ISA, [(level, ridge AI)]).
type FileRidges = (String, String, Vec<(String, f64)>);

/// Ridge AI per level for each file and thread count.
#[derive(Debug, Serialize)]
struct Ridges {
    threads: usize,
    /// One entry per file with roofs at this thread count.
    files: Vec<FileRidges>,
}

fn ridge_table(names: &[String], docs: &[&Document]) -> Vec<Ridges> {
    let mut threads: Vec<usize> = docs
        .iter()
        .flat_map(|d| d.roofs.iter().map(|r| r.threads))
        .collect();
    threads.sort();
    threads.dedup();
    threads
        .into_iter()
        .map(|t| Ridges {
            threads: t,
            files: names
                .iter()
                .zip(docs)
                .filter_map(|(n, d)| {
                    machine_roofs(d, t).map(|m| (n.clone(), m.isa.to_string(), ridges(&m)))
                })
                .collect(),
        })
        .collect()
}

/// The ISA column: the matched ISA, or each file's (widest) ISA.
fn isa_text(r: &Row) -> String {
    match r.key.isa {
        Some(i) => i.to_string(),
        None => {
            let mut v: Vec<String> = r
                .cells
                .iter()
                .flatten()
                .map(|c| c.isa.to_string())
                .collect();
            v.dedup();
            v.join("/")
        }
    }
}

fn cell_text(c: &Option<compare::Cell>, first: bool) -> (String, String, String) {
    match c {
        Some(c) => (
            format!("{:.1}", c.value),
            format!("{:.2}", c.per_cycle),
            if first {
                "1.00".into()
            } else {
                c.ratio.map_or("-".into(), |r| format!("{r:.2}"))
            },
        ),
        None => ("missing".into(), "-".into(), "-".into()),
    }
}

fn render(names: &[String], rows: &[Row], ridges: &[Ridges], f: CompareFormat) -> String {
    let mut s = String::new();
    match f {
        CompareFormat::Json => {
            #[derive(Serialize)]
            struct Out<'a> {
                files: &'a [String],
                roofs: &'a [Row],
                ridges: &'a [Ridges],
            }
            s = serde_json::to_string_pretty(&Out {
                files: names,
                roofs: rows,
                ridges,
            })
            .unwrap_or_default()
                + "\n";
        }
        CompareFormat::Csv => {
            let _ = write!(s, "threads,isa,roof,unit");
            for n in names {
                let _ = write!(s, ",{n} value,{n} per_cycle,{n} ratio");
            }
            s.push('\n');
            for r in rows {
                let _ = write!(
                    s,
                    "{},{},{},{}",
                    r.key.threads,
                    isa_text(r),
                    r.key.label(),
                    r.key.unit()
                );
                for (i, c) in r.cells.iter().enumerate() {
                    let (v, p, q) = cell_text(c, i == 0);
                    let _ = write!(s, ",{v},{p},{q}");
                }
                s.push('\n');
            }
        }
        CompareFormat::Markdown => {
            let _ = write!(s, "| threads | ISA | roof | unit |");
            for n in names {
                let _ = write!(s, " {n} | per cycle | ratio |");
            }
            let _ = write!(s, "\n|---|---|---|---|");
            for _ in names {
                s.push_str("---:|---:|---:|");
            }
            s.push('\n');
            for r in rows {
                let _ = write!(
                    s,
                    "| {} | {} | {} | {} |",
                    r.key.threads,
                    isa_text(r),
                    r.key.label(),
                    r.key.unit()
                );
                for (i, c) in r.cells.iter().enumerate() {
                    let (v, p, q) = cell_text(c, i == 0);
                    let _ = write!(s, " {v} | {p} | {q} |");
                }
                s.push('\n');
            }
            s.push_str(
                "\n| threads | file | ISA | ridge AI per level (flop/byte) |\n|---|---|---|---|\n",
            );
            for rd in ridges {
                for (n, isa, l) in &rd.files {
                    let txt: Vec<String> = l.iter().map(|(lv, a)| format!("{lv} {a:.3}")).collect();
                    let _ = writeln!(s, "| {} | {n} | {isa} | {} |", rd.threads, txt.join(", "));
                }
            }
        }
        CompareFormat::Text => {
            for (i, n) in names.iter().enumerate() {
                let _ = writeln!(s, "[{}] {n}", i + 1);
            }
            let _ = write!(s, "{:>3} {:<13} {:<16} {:<8}", "thr", "isa", "roof", "unit");
            for i in 0..names.len() {
                let _ = write!(
                    s,
                    " {:>10} {:>9} {:>6}",
                    format!("[{}]", i + 1),
                    "per cyc",
                    "ratio"
                );
            }
            s.push('\n');
            for r in rows {
                let _ = write!(
                    s,
                    "{:>3} {:<13} {:<16} {:<8}",
                    r.key.threads,
                    isa_text(r),
                    r.key.label(),
                    r.key.unit()
                );
                for (i, c) in r.cells.iter().enumerate() {
                    let (v, p, q) = cell_text(c, i == 0);
                    let _ = write!(s, " {v:>10} {p:>9} {q:>6}");
                }
                s.push('\n');
            }
            s.push_str(
                "\nridge points (AI where each level's roof meets the top FP roof, flop/byte):\n",
            );
            for rd in ridges {
                for (n, isa, l) in &rd.files {
                    let txt: Vec<String> = l.iter().map(|(lv, a)| format!("{lv} {a:.3}")).collect();
                    let _ = writeln!(
                        s,
                        "  {} thread(s) {n} ({isa}): {}",
                        rd.threads,
                        txt.join("  ")
                    );
                }
            }
        }
    }
    s
}

/// Run the subcommand.
pub fn run(a: &CompareArgs) -> Result<()> {
    if a.results.len() < 2 && a.output.is_none() && !a.quadrant {
        return Err(Error::input("give at least two results files to compare"));
    }
    let docs: Vec<Document> = a
        .results
        .iter()
        .map(|p| results::load(p))
        .collect::<Result<_>>()?;
    let names: Vec<String> = a
        .results
        .iter()
        .map(|p| results::short_name(p))
        .collect::<Vec<_>>();
    for (n, d) in names.iter().zip(&docs) {
        if d.roofs.is_empty() {
            return Err(Error::input(format!(
                "{n} holds no roofs; re-run `carmbench run`"
            )));
        }
    }
    let refs: Vec<&Document> = docs.iter().collect();
    // Machines with no ISA in common (AVX2 against AVX-512) are compared
    // each at its widest, as `--best-isa` asks: matched by ISA, every row
    // would hold one machine only.
    let best_isa = a.best_isa || !compare::share_an_isa(&refs);
    if best_isa && !a.best_isa {
        eprintln!(
            "the files share no ISA: each is compared at its widest ISA (as with --best-isa)"
        );
    }
    let rows = compare::match_roofs(&refs, best_isa);
    let rd = ridge_table(&names, &refs);
    if a.quadrant {
        let ais = a.ai.clone().unwrap_or_else(|| vec![0.25, 2.0, 8.0]);
        if ais.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return Err(Error::input(
                "--ai takes positive intensities, e.g. --ai 0.25,2,8",
            ));
        }
        let mut pts = Vec::new();
        let mut lines = String::new();
        for (n, d) in names.iter().zip(&docs) {
            let t = d.roofs.iter().map(|r| r.threads).max().unwrap_or(1);
            let t = a.threads.unwrap_or(t);
            let Some(m) = machine_roofs(d, t) else {
                continue;
            };
            let Some((op, p)) = m.peak else { continue };
            for (lvl, b) in &m.levels {
                pts.push((n.clone(), lvl.clone(), *b, p));
                let verdicts: Vec<String> = ais
                    .iter()
                    .map(|ai| {
                        format!(
                            "AI {ai}: {}",
                            if compare::memory_bound(*ai, *b, p) {
                                "memory bound"
                            } else {
                                "compute bound"
                            }
                        )
                    })
                    .collect();
                let _ = writeln!(
                    lines,
                    "  {n} {lvl}: {b:.1} GB/s, {op} peak {p:.1} GFLOP/s -> {}",
                    verdicts.join(", ")
                );
            }
        }
        let out = a
            .quadrant_output
            .clone()
            .unwrap_or_else(|| "quadrant.svg".into());
        quadrant::render(
            &pts,
            &ais,
            "Quadrant split: machines and levels against application intensities",
            &out,
        )?;
        print!("quadrant split (point above the line y = AI·x: memory bound there):\n{lines}");
        println!("wrote {}", out.display());
    }
    print!("{}", render(&names, &rows, &rd, a.format));
    if let Some(out) = &a.output {
        let pairs: Vec<(String, Document)> =
            names.iter().cloned().zip(docs.iter().cloned()).collect();
        let sel = chart::select(
            &pairs,
            &Filter {
                threads: a.threads.map(|t| vec![t]),
                ..Filter::default()
            },
            Vec::new(),
        )?;
        chart::render(&sel, out)?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}
