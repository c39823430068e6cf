//! `carmbench validate`: variable-intensity kernels against every roof of
//! a results document.

use super::print_charts;
use crate::error::{Error, Result};
use crate::kernels::{Mix, Op};
use crate::machine::{Machine, Source};
use crate::measure::interrupt;
use crate::output::validation;
use crate::results;
use crate::results::DocFormat;
use crate::validate::{self, Options};
use clap::Args;
use std::path::Path;
use std::path::PathBuf;

/// `carmbench validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Results file to validate and extend [default: carm-results/carm.yaml].
    pub results: Option<PathBuf>,
    /// Access mixes of the kernels and roofs compared: load, 2ld1st [default: load,2ld1st].
    #[arg(long, value_delimiter = ',')]
    pub mixes: Option<Vec<Mix>>,
    /// FP ops of the kernels and roofs compared: fma, addmul [default: fma].
    #[arg(long, value_delimiter = ',')]
    pub ops: Option<Vec<Op>>,
    /// A level fails when its median |deviation| exceeds this many percent.
    #[arg(long, default_value_t = 10.0)]
    pub threshold: f64,
}

/// Run the subcommand.
pub fn run(a: &ValidateArgs) -> Result<()> {
    let path = a
        .results
        .clone()
        .unwrap_or_else(crate::files::names::default_results);
    let o = Options::from_flags(a.mixes.as_deref(), a.ops.as_deref(), a.threshold)?;
    let mut doc = results::load(&path)?;
    // The points are written into the results' folder: checked before measuring.
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    crate::files::writable_folder(folder.unwrap_or(Path::new(".")), "results file")?;
    let machine = Machine::load(&Source::Live)?;
    let res = validate::validate_doc(&mut doc, &machine, &o)?;
    results::save(&doc, &path, DocFormat::of_path(&path))?;
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
