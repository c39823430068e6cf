//! `carmbench compare`: roofs of several machines side by side, ridge
//! points, an overlaid chart and the quadrant-split chart.

use crate::chart::{self, Filter, quadrant};
use crate::compare::{self, QuadrantPoint};
use crate::error::{Error, Result};
use crate::files::{self, OutputKind};
use crate::output::compare::{CompareFormat, Comparison, render};
use crate::results::Document;
use clap::Args;
use std::path::{Path, PathBuf};

/// `carmbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Results files; ratios are to the first.
    #[arg(required = true, value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// Table format.
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Match each file's widest ISA with the others' (machines with different ISAs line up).
    #[arg(long)]
    pub best_isa: bool,
    /// Also draw the overlaid CARM chart (.svg or .png).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Thread count to chart and place [default: all (chart), the most (quadrant)].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Draw the quadrant-split chart.
    #[arg(long)]
    pub quadrant: bool,
    /// Application intensities for the quadrant chart, flop/byte.
    #[arg(long, value_delimiter = ',', value_name = "AI,...")]
    pub ai: Option<Vec<f64>>,
    /// Points whose intensities the quadrant chart draws too (an apps file: its programs and GPU kernels).
    #[arg(long, value_name = "APPS.yaml", requires = "quadrant")]
    pub apps: Option<PathBuf>,
    /// Quadrant chart file [default: quadrant.svg].
    #[arg(long, value_name = "FILE")]
    pub quadrant_output: Option<PathBuf>,
}

/// Where the quadrant chart goes.
fn quadrant_file(a: &CompareArgs) -> PathBuf {
    a.quadrant_output
        .clone()
        .unwrap_or_else(|| crate::files::names::QUADRANT.into())
}

/// The quadrant chart and its verdicts, one line per machine level.
fn quadrant_split(a: &CompareArgs, names: &[String], docs: &[Document]) -> Result<String> {
    let ais = compare::quadrant_ais(a.ai.as_deref(), a.apps.as_deref())?;
    let most = |d: &Document| d.thread_counts().last().copied().unwrap_or(1);
    let points: Vec<QuadrantPoint> = (names.iter().zip(docs))
        .flat_map(|(n, d)| compare::quadrant_points(n, d, a.threads.unwrap_or(most(d))))
        .collect();
    let lines = crate::output::compare::quadrant_lines(&points, &ais);
    let out = quadrant_file(a);
    quadrant::render(
        &points,
        &ais,
        "Quadrant split: machines and levels against application intensities",
        &out,
    )?;
    Ok(format!(
        "quadrant split (point above the line y = AI·x: memory bound there):\n{lines}wrote {}\n",
        out.display()
    ))
}

/// Flags that would change nothing are refused, not ignored; outputs are
/// checked before any table is printed.
fn check_flags(a: &CompareArgs) -> Result<()> {
    if a.results.len() < 2 && a.output.is_none() && !a.quadrant {
        return Err(Error::input("give at least two results files to compare"));
    }
    if a.threads.is_some() && a.output.is_none() && !a.quadrant {
        return Err(Error::input(
            "--threads chooses the roofs of the chart (-o FILE) or of the quadrant chart (--quadrant); give one of them",
        ));
    }
    for (flag, given) in [
        ("--ai", a.ai.is_some()),
        ("--quadrant-output", a.quadrant_output.is_some()),
    ] {
        if given && !a.quadrant {
            return Err(Error::input(format!(
                "{flag} is for the quadrant chart; add --quadrant"
            )));
        }
    }
    let inputs: Vec<&Path> = a.results.iter().map(PathBuf::as_path).collect();
    if let Some(out) = &a.output {
        files::check_output(out, OutputKind::Chart, &inputs, "-o")?;
    }
    if a.quadrant {
        let q = quadrant_file(a);
        files::check_output(&q, OutputKind::Chart, &inputs, "--quadrant-output")?;
    }
    Ok(())
}

/// Run the subcommand.
pub fn run(a: &CompareArgs) -> Result<()> {
    check_flags(a)?;
    let (names, docs) = compare::load(&a.results, a.threads)?;
    let refs: Vec<&Document> = docs.iter().collect();
    // Machines with no ISA in common (AVX2 against AVX-512) are compared
    // each at its widest, as `--best-isa` asks: matched by ISA, every row
    // would hold one machine only.
    let cpu = refs.iter().any(|d| !d.roofs.is_empty());
    let best_isa = a.best_isa || !compare::share_an_isa(&refs);
    if cpu && best_isa && !a.best_isa {
        eprintln!(
            "the files share no ISA: each is compared at its widest ISA (as with --best-isa)"
        );
    }
    let about: Vec<String> = refs.iter().map(|d| compare::about(d)).collect();
    let rows = compare::match_roofs(&refs, best_isa);
    let ridges = compare::ridge_table(&names, &refs);
    if a.quadrant {
        print!("{}", quadrant_split(a, &names, &docs)?);
    }
    let table = Comparison {
        names: &names,
        about: &about,
        rows: &rows,
        ridges: &ridges,
    };
    if cpu {
        print!("{}", render(&table, a.format));
    }
    print!("{}", crate::output::gpu::compared(&names, &refs));
    if let Some(out) = &a.output {
        let pairs: Vec<(String, Document)> = names.iter().cloned().zip(docs).collect();
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
