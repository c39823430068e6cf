//! `carmbench report`: the HTML page of one or more results files.

use crate::cli::ReportArgs;
use crate::error::{Error, Result};
use crate::report;
use crate::results::{self, Document};
use std::path::PathBuf;

/// Run the subcommand.
pub fn run(a: &ReportArgs) -> Result<()> {
    let docs: Vec<(String, Document)> = a
        .results
        .iter()
        .map(|p| Ok((results::short_name(p), results::load(p)?)))
        .collect::<Result<_>>()?;
    let apps = match &a.apps {
        Some(p) => results::apps::load(p)?.applications,
        None => Vec::new(),
    };
    let out = a.output.clone().unwrap_or_else(|| {
        a.results[0]
            .parent()
            .map_or_else(|| PathBuf::from("carm.html"), |d| d.join("carm.html"))
    });
    let cannot = |e: String| {
        Error::input(format!(
            "cannot write {}: {e}; give another -o",
            out.display()
        ))
    };
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| cannot(e.to_string()))?;
    }
    report::write(&out, &docs, &apps).map_err(|e| match e {
        Error::Io(m) => Error::input(format!("{m}; give another -o")),
        other => other,
    })?;
    println!("wrote {}", out.display());
    Ok(())
}
