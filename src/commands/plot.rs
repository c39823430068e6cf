//! `carmbench plot`: draw the CARM chart of one or more results files.

use crate::chart::{self, Filter};
use crate::cli::PlotArgs;
use crate::error::Result;
use crate::results;
use std::path::PathBuf;

/// Run the subcommand.
pub fn run(a: &PlotArgs) -> Result<()> {
    let docs = a
        .results
        .iter()
        .map(|p| Ok((results::short_name(p), results::load(p)?)))
        .collect::<Result<Vec<_>>>()?;
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
    let out = a.output.clone().unwrap_or_else(|| {
        a.results[0]
            .parent()
            .map_or_else(|| PathBuf::from("carm.svg"), |d| d.join("carm.svg"))
    });
    chart::render(&sel, &out)?;
    println!("wrote {}", out.display());
    Ok(())
}
