//! `carmbench report`: the HTML page of one or more results files.

use crate::cli::ReportArgs;
use crate::error::Result;
use crate::files::{self, OutputKind};
use crate::report;
use crate::results::{self, Document};
use std::path::{Path, PathBuf};

/// Run the subcommand.
pub fn run(a: &ReportArgs) -> Result<()> {
    let out = a.output.clone().unwrap_or_else(|| {
        a.results[0]
            .parent()
            .map_or_else(|| PathBuf::from("carm.html"), |d| d.join("carm.html"))
    });
    let mut inputs: Vec<&Path> = a.results.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.apps.as_deref());
    files::check_output(&out, OutputKind::Html, &inputs, "-o")?;
    let docs: Vec<(String, Document)> = a
        .results
        .iter()
        .map(|p| Ok((results::short_name(p), results::load(p)?)))
        .collect::<Result<_>>()?;
    let apps = match &a.apps {
        Some(p) => results::apps::load(p)?.applications,
        None => Vec::new(),
    };
    report::write(&out, &docs, &apps)?;
    println!("wrote {}", out.display());
    Ok(())
}
