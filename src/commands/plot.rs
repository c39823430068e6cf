//! `carmbench plot`: draw the CARM chart of one or more results files.

use crate::chart::{self, Filter};
use crate::cli::PlotArgs;
use crate::error::Result;
use crate::files::{self, OutputKind};
use crate::results;
use std::path::{Path, PathBuf};

/// Run the subcommand.
pub fn run(a: &PlotArgs) -> Result<()> {
    let default = if a.curve {
        "carm-curve.svg"
    } else {
        "carm.svg"
    };
    let out = a.output.clone().unwrap_or_else(|| {
        a.results[0]
            .parent()
            .map_or_else(|| PathBuf::from(default), |d| d.join(default))
    });
    let mut inputs: Vec<&Path> = a.results.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.apps.as_deref());
    files::check_output(&out, OutputKind::Chart, &inputs, "-o")?;
    let docs = a
        .results
        .iter()
        .map(|p| Ok((results::short_name(p), results::load(p)?)))
        .collect::<Result<Vec<_>>>()?;
    if a.curve {
        let (name, doc) = &docs[0];
        let isa = a
            .isa
            .as_deref()
            .map(|i| i.parse().map_err(crate::error::Error::input))
            .transpose()?;
        let chart = chart::curve::CurveChart::of(doc, isa)
            .map_err(|e| crate::error::Error::input(format!("{name}: {e}")))?;
        chart.render(&out)?;
        println!("wrote {}", out.display());
        return Ok(());
    }
    let apps = match &a.apps {
        Some(p) => results::apps::load(p)?.applications,
        None => Vec::new(),
    };
    let filter = Filter {
        isa: a.isa.clone(),
        precision: a.precision.clone(),
        threads: a.threads.clone(),
        mix: a.mix.clone(),
        ops: a.ops.clone(),
    };
    let sel = chart::select(&docs, &filter, apps)?;
    for n in sel.app_notes() {
        eprintln!("carmbench: warning: {n}");
    }
    chart::render(&sel, &out)?;
    println!("wrote {}", out.display());
    Ok(())
}
