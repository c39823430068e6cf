//! The subcommands: each parses its arguments, calls the library and
//! prints.

pub mod compare;
pub mod fleet;
pub mod kernel;
pub mod plot;
pub mod predict;
pub mod profile;
pub mod report;
pub mod run;
pub mod topology;
pub mod validate;

use crate::results::Document;
use std::path::Path;

/// Draw the default charts and write the report beside a results file:
/// ", a.svg, a.png, carm.html" for the "wrote" line; what could not be
/// written as warnings on standard error.
fn print_charts(doc: &Document, results_path: &Path) -> String {
    let (mut written, mut failed) = crate::chart::write_beside(doc, results_path);
    match crate::report::write_beside(doc, results_path) {
        Ok(p) => written.push(p),
        Err(e) => failed.push(e),
    }
    for f in failed {
        eprintln!("carmbench: warning: {f}");
    }
    written
        .iter()
        .map(|p| format!(", {}", p.display()))
        .collect()
}
