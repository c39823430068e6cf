//! `carmbench run`: measure every roof of the plan and write the results.

use super::print_charts;
use crate::error::{Error, Result};
use crate::output::{gpu, sharing_note, summary, validation};
use crate::results::DocFormat;
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

pub use crate::run::PlanArgs;
use crate::run::gpu::{self as gpus, GpuChoice};

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
    /// The roofs of these GPUs alone (all, or their numbers: 0,1), added to
    /// the results in DIR; a run without it measures every GPU found too.
    #[arg(long, value_name = "all|0,1", num_args = 0..=1, default_missing_value = "all", conflicts_with = "no_gpu")]
    pub gpu: Option<GpuChoice>,
    /// Leave the GPUs out.
    #[arg(long)]
    pub no_gpu: bool,
}

impl RunArgs {
    /// A fleet node's run: the plan given, into `output`, as YAML, its GPUs too.
    pub fn for_node(plan: PlanArgs, output: PathBuf) -> RunArgs {
        RunArgs {
            plan,
            output,
            format: DocFormat::Yaml,
            gpu: None,
            no_gpu: false,
        }
    }
}

/// Run the subcommand.
pub fn run(a: &RunArgs) -> Result<()> {
    let started = Instant::now();
    if let Some(choice) = &a.gpu {
        let (path, doc) = gpus::into_results(
            &a.output,
            a.format,
            gpus::chosen(Some(choice))?,
            a.plan.validate,
            |l| println!("{l}"),
        )?;
        print!("{}", gpu::tables(&doc.gpus));
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "wrote {} ({seconds:.1} s){}",
            path.display(),
            print_charts(&doc, &path)
        );
        return Ok(());
    }
    let found = if a.no_gpu {
        Vec::new()
    } else {
        gpus::chosen(None)?
    };
    if !found.is_empty() {
        println!(
            "{} GPU(s) found: their roofs follow the CPU's (--no-gpu leaves them out)",
            found.len()
        );
    }
    let mut done = crate::run::run(&a.plan, &a.output, a.format)?;
    if !found.is_empty() && !done.doc.interrupted {
        done.doc.gpus = gpus::measure(found, a.plan.validate, |l| println!("{l}"))?;
        crate::results::save(&done.doc, &done.path, a.format)?;
    }
    let doc = &done.doc;
    print!("{}", summary::summary(doc, &done.skipped));
    let kept = done.sharing.map_or(0, |s| s.kept_shared);
    if let Some(n) = (done.sharing).and_then(|s| sharing_note(&s, "multi-thread roof size", kept)) {
        println!("{n}");
    }
    if let Some((res, threshold, _)) = &done.validation {
        print!("{}", validation::tables(res, &doc.coissue, *threshold));
    }
    print!("{}", gpu::tables(&doc.gpus));
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
