//! `carmbench report`: the HTML page of one or more results files.

use crate::error::Result;
use crate::files::{self, OutputKind, names};
use crate::report;
use crate::results::{self, Document};
use clap::Args;
use std::path::{Path, PathBuf};

/// `carmbench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Results files (carm.yaml or carm.json); several are compared, ratios to the first.
    #[arg(required = true, value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// The page [default: carm.html beside the first results file].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Application points to place (an apps file from `carmbench profile` or written by hand).
    #[arg(long, value_name = "APPS.yaml")]
    pub apps: Option<PathBuf>,
    /// List and draw series NAME again with its work from EXPR in n (pseudo-flops; see `plot --work`).
    #[arg(long, value_name = "NAME=EXPR", requires = "apps")]
    pub work: Vec<results::apps::pseudo::PseudoWork>,
}

/// Run the subcommand.
pub fn run(a: &ReportArgs) -> Result<()> {
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.results[0].with_file_name(names::REPORT));
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
    let apps =
        results::apps::pseudo::with_work(apps, &a.work).map_err(crate::error::Error::input)?;
    report::write(&out, &docs, &apps)?;
    println!("wrote {}", out.display());
    Ok(())
}
