//! `carmbench validate`: variable-intensity kernels against every roof of
//! a results document.

use super::print_charts;
use crate::cli::ValidateArgs;
use crate::error::{Error, Result};
use crate::machine::{Machine, Source};
use crate::measure::interrupt;
use crate::output::{Format, validation};
use crate::results;
use crate::validate::{self, Options};
use std::path::Path;

/// Run the subcommand.
pub fn run(a: &ValidateArgs) -> Result<()> {
    let path = a
        .results
        .clone()
        .unwrap_or_else(|| Path::new("carm-results").join("carm.yaml"));
    let o = Options::from_names(a.mixes.as_deref(), a.ops.as_deref(), a.threshold)?;
    let mut doc = results::load(&path)?;
    let machine = Machine::load(&Source::Live)?;
    let res = validate::validate_doc(&mut doc, &machine, &o)?;
    let format = if path.extension().is_some_and(|e| e == "json") {
        Format::Json
    } else {
        Format::Yaml
    };
    results::save(&doc, &path, format)?;
    print!("{}", validation::tables(&res, &doc.coissue, o.threshold));
    println!(
        "wrote {} ({} validation points){}",
        path.display(),
        doc.validation.len(),
        print_charts(&doc, &path)
    );
    if interrupt::requested() {
        return Err(Error::Interrupted(format!(
            "interrupted: the points measured so far are in {}",
            path.display()
        )));
    }
    Ok(())
}
