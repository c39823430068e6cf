//! `carmbench plot`: draw the CARM chart of one or more results files.

use crate::chart::{self, Filter};
use crate::compare::profiles::Change;
use crate::error::Result;
use crate::files::{self, OutputKind};
use crate::kernels::{Mix, Op, Precision};
use crate::machine::isa::Isa;
use crate::results;
use crate::results::apps::AppPoint;
use clap::Args;
use std::path::{Path, PathBuf};

/// `carmbench plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Results files (carm.yaml or carm.json); several overlay, each in its own line style.
    #[arg(required = true, value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// Chart file, .svg or .png [default: carm.svg beside the first results file].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// ISA to draw [default: the widest measured].
    #[arg(long)]
    pub isa: Option<Isa>,
    /// Precisions to draw: one, or several whose compute roofs share the
    /// chart, e.g. dp,int8,bf16 [default: dp, or the apps' own].
    #[arg(long, value_delimiter = ',')]
    pub precision: Option<Vec<Precision>>,
    /// Thread counts to draw [default: all measured].
    #[arg(long, value_delimiter = ',')]
    pub threads: Option<Vec<usize>>,
    /// Bandwidth mix to draw [default: 2ld1st, else load; load or store with --intensity].
    #[arg(long)]
    pub mix: Option<Mix>,
    /// The points' intensity in the bytes they read, under the load roofs,
    /// or in those they wrote, under the store roofs (Ofenbeck et al.).
    #[arg(long, value_name = "read|write")]
    pub intensity: Option<results::apps::Side>,
    /// FP roofs to draw [default: fma_add, fma, add].
    #[arg(long, value_delimiter = ',')]
    pub ops: Option<Vec<Op>>,
    /// Application points to add (an apps file from `carmbench profile` or written by hand).
    #[arg(long, value_name = "APPS.yaml")]
    pub apps: Option<PathBuf>,
    /// An earlier apps file of the same program(s): each point of --apps
    /// found there by name (a function within its program) gets an arrow
    /// from where it was, and a table of what changed is printed.
    #[arg(long, value_name = "OLD.yaml", requires = "apps")]
    pub before: Option<PathBuf>,
    /// Draw the run's validation points beside --apps too (without --apps
    /// they are drawn anyway).
    #[arg(long)]
    pub validation: bool,
    /// Draw each rank of an MPI program (`profile --mpi`) beside its point.
    #[arg(long, requires = "apps")]
    pub ranks: bool,
    /// Draw each program's phases (`profile --timeline`), its path an arrow from each to the next.
    #[arg(long, requires = "apps")]
    pub phases: bool,
    /// Draw one sized region's series alone (`carmbench_region_begin_n`).
    #[arg(long, value_name = "NAME", requires = "apps")]
    pub series: Option<String>,
    /// Draw series NAME again with its work from EXPR in n: + - * / ^, log2, log, sqrt (pseudo-flops).
    #[arg(long, value_name = "NAME=EXPR", requires = "apps")]
    pub work: Vec<results::apps::pseudo::PseudoWork>,
    /// Draw the memory curve (bandwidth against working set) instead [default file: carm-curve.svg].
    #[arg(long)]
    pub curve: bool,
}

/// Run the subcommand.
pub fn run(a: &PlotArgs) -> Result<()> {
    let names = [crate::files::names::CHARTS, crate::files::names::CURVES];
    let out = (a.output.clone())
        .unwrap_or_else(|| a.results[0].with_file_name(names[usize::from(a.curve)][0]));
    let mut inputs: Vec<&Path> = a.results.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.apps.iter().chain(&a.before).map(PathBuf::as_path));
    files::check_output(&out, OutputKind::Chart, &inputs, "-o")?;
    let docs = a
        .results
        .iter()
        .map(|p| Ok((results::short_name(p), results::load(p)?)))
        .collect::<Result<Vec<_>>>()?;
    if a.curve {
        let (name, doc) = &docs[0];
        (chart::curve::CurveChart::of(doc, a.isa))
            .map_err(|e| crate::error::Error::input(format!("{name}: {e}")))?
            .render(&out)?;
        println!("wrote {}", out.display());
        return Ok(());
    }
    let all_apps =
        (a.apps.as_ref()).map_or(Ok(Vec::new()), |p| Ok(results::apps::load(p)?.applications))?;
    if let Some(n) = chart::kernels_not_drawn(&docs[0].1, &all_apps) {
        eprintln!("carmbench: warning: {n}");
    }
    // Results of GPU roofs alone: the GPUs' charts.
    if docs[0].1.roofs.is_empty() && !docs[0].1.gpus.is_empty() {
        for p in chart::gpus_alone(&docs[0].1, &all_apps, &out)? {
            println!("wrote {}", p.display());
        }
        return Ok(());
    }
    let filter = Filter {
        isa: a.isa,
        // Points of one narrow type's work go under that type's roofs.
        precision: a
            .precision
            .clone()
            .or_else(|| chart::select::apps_precisions(&all_apps, &docs)),
        threads: a.threads.clone(),
        mix: a.mix,
        ops: a.ops.clone(),
        side: a.intensity,
    };
    let moved = (a.before.iter())
        .map(|p| changes(p, &all_apps))
        .collect::<Result<Vec<_>>>()?
        .concat();
    let asked = (a.series.as_deref(), a.work.as_slice());
    let apps = chart::series::pick(&all_apps, (a.ranks, a.phases), asked)?;
    let mut sel = chart::select(&docs, &filter, apps)?;
    if a.apps.is_some() && !a.validation {
        sel.without_validation();
    }
    sel.moves = chart::moves::of(&moved, false);
    chart::with_paths(&mut sel, &docs[0].1);
    for n in sel.app_notes() {
        eprintln!("carmbench: warning: {n}");
    }
    chart::render(&sel, &out)?;
    println!("wrote {}", out.display());
    let kernels_moved = chart::moves::of(&moved, true);
    for p in chart::gpu_charts_with(&docs[0].1, &all_apps, &kernels_moved, &out)? {
        println!("wrote {}", p.display());
    }
    Ok(())
}

/// The points of `after` an earlier apps file at `before` has too (their
/// table printed, names found twice in either said).
fn changes(before: &Path, after: &[AppPoint]) -> Result<Vec<Change>> {
    let (changes, table, warnings) = crate::compare::profiles::against_file(before, after)?;
    for w in warnings {
        eprintln!("carmbench: warning: {w}");
    }
    print!("{table}");
    Ok(changes)
}
