//! `carmbench run`: measure every roof of the plan and write the results.

use super::print_charts;
use crate::error::{Error, Result};
use crate::output::{sharing_note, summary, validation};
use crate::results::DocFormat;
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

pub use crate::run::PlanArgs;

/// `carmbench run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// What to measure.
    #[command(flatten)]
    pub plan: PlanArgs,
    /// Directory for carm.yaml (or carm.json).
    #[arg(short, long, value_name = "DIR", default_value = crate::files::names::RESULTS_DIR)]
    pub output: PathBuf,
    /// Results format.
    #[arg(long, value_enum, default_value_t = DocFormat::Yaml)]
    pub format: DocFormat,
}

/// Run the subcommand.
pub fn run(a: &RunArgs) -> Result<()> {
    let started = Instant::now();
    let done = crate::run::run(&a.plan, &a.output, a.format)?;
    let doc = &done.doc;
    print!("{}", summary::summary(doc, &done.skipped));
    let kept = done.sharing.map_or(0, |s| s.kept_shared);
    if let Some(n) = (done.sharing).and_then(|s| sharing_note(&s, "multi-thread roof size", kept)) {
        println!("{n}");
    }
    if let Some((res, threshold, _)) = &done.validation {
        print!("{}", validation::tables(res, &doc.coissue, *threshold));
    }
    // The roofs' time apart from the validation's: each has its own target.
    let total = started.elapsed().as_secs_f64();
    let timing = match &done.validation {
        Some((_, _, v)) => format!("{:.1} s, validation {v:.1} s", total - v),
        None => format!("{total:.1} s"),
    };
    println!(
        "wrote {} ({} roofs, {timing}){}",
        done.path.display(),
        doc.roofs.len(),
        print_charts(doc, &done.path)
    );
    if doc.interrupted {
        return Err(Error::Interrupted(format!(
            "interrupted: the {} roofs measured so far are in {}",
            doc.roofs.len(),
            done.path.display()
        )));
    }
    Ok(())
}
