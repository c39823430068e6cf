//! `carmbench run`: measure every roof of the plan and write the results.

use super::print_charts;
use crate::config::choice::{IsaChoice, LevelChoice, Listed, Threads};
use crate::config::limits;
use crate::config::plan::{self, PlanFile};
use crate::error::{Error, Result};
use crate::kernels::{Mix, Op, Precision};
use crate::machine::{Machine, Source};
use crate::measure::bench::Settings;
use crate::measure::pool::Cores;
use crate::measure::{campaign, interrupt};
use crate::output::{sharing_note, summary, validation};
use crate::results::DocFormat;
use crate::results::{self, Document};
use crate::roofs;
use crate::validate::{self, Options};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// What `run` measures, as flags (`fleet run` passes them on to each node).
#[derive(Debug, Clone, Args)]
pub struct PlanArgs {
    /// ISAs: best, all, or a list of scalar, sse, avx2, avx512.
    #[arg(long, value_delimiter = ',')]
    pub isa: Option<Vec<IsaChoice>>,
    /// Precisions: dp, sp (the FP ops), and the narrow types with their own
    /// ops where the CPU has them: fp16 (FMA), bf16, int16, int8 (dot
    /// products), int32 (add, mul).
    #[arg(long, value_delimiter = ',')]
    pub precision: Option<Vec<Listed<Precision>>>,
    /// Thread counts (one thread per core): numbers or all, e.g. 1,all.
    #[arg(long, value_delimiter = ',')]
    pub threads: Option<Vec<Threads>>,
    /// Memory levels: all, or a list of L1, L2, L3, DRAM.
    #[arg(long, value_delimiter = ',')]
    pub levels: Option<Vec<LevelChoice>>,
    /// Access mixes: load, store, 2ld1st, 1ld1st, nt_store (none: no bandwidth roof).
    #[arg(long, value_delimiter = ',')]
    pub mixes: Option<Vec<Listed<Mix>>>,
    /// FP ops: add, mul, addmul, fma, fma_add, div (none: no FP roof).
    #[arg(long, value_delimiter = ',')]
    pub ops: Option<Vec<Listed<Op>>>,
    /// A YAML plan; its keys override the embedded default plan, flags override both.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Fewer sizes and samples (the plan's `quick` section).
    #[arg(long)]
    pub quick: bool,
    /// Also run the validation sweep against the roofs (see `carmbench validate`).
    #[arg(long)]
    pub validate: bool,
}

impl PlanArgs {
    /// The same flags as arguments of another carmbench (a node's), the
    /// config file by its absolute path.
    pub fn to_args(&self) -> Vec<String> {
        fn list<T: std::fmt::Display>(out: &mut Vec<String>, flag: &str, v: &Option<Vec<T>>) {
            if let Some(v) = v {
                let words: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                out.push(format!("{flag}={}", words.join(",")));
            }
        }
        let mut out = Vec::new();
        list(&mut out, "--isa", &self.isa);
        list(&mut out, "--precision", &self.precision);
        list(&mut out, "--threads", &self.threads);
        list(&mut out, "--levels", &self.levels);
        list(&mut out, "--mixes", &self.mixes);
        list(&mut out, "--ops", &self.ops);
        if let Some(c) = &self.config {
            let abs = std::path::absolute(c).unwrap_or_else(|_| c.clone());
            out.push(format!("--config={}", abs.display()));
        }
        if self.quick {
            out.push("--quick".into());
        }
        if self.validate {
            out.push("--validate".into());
        }
        out
    }
}

/// The embedded plan, the config file and the flags, merged in that order.
fn plan_file(a: &PlanArgs) -> Result<PlanFile> {
    let mut p = PlanFile::default_plan();
    if let Some(path) = &a.config {
        p = p.overlay(PlanFile::load(path)?);
    }
    let flags = PlanFile {
        isa: a.isa.clone(),
        precision: a.precision.clone(),
        threads: a.threads.clone(),
        levels: a.levels.clone(),
        mixes: a.mixes.clone(),
        ops: a.ops.clone(),
        ..PlanFile::default()
    };
    Ok(p.overlay(flags))
}

/// `DIR/carm.yaml` (or `.json`), the directory made when missing and
/// checked writable before anything is measured.
fn output_path(a: &RunArgs) -> Result<PathBuf> {
    crate::files::writable_folder(&a.output, "-o")?;
    Ok(a.output
        .join(crate::files::names::results_file(a.format.extension())))
}

/// Where an interrupted run's results go when the folder already holds a
/// complete run (kept with its charts): `carm.partial.yaml` beside it.
fn partial_path(a: &RunArgs, path: &Path) -> Option<PathBuf> {
    let complete = results::load_roofs(path).is_ok_and(|d| !d.interrupted && !d.roofs.is_empty());
    complete.then(|| {
        a.output
            .join(crate::files::names::partial_file(a.format.extension()))
    })
}

/// Run the subcommand.
pub fn run(a: &RunArgs) -> Result<()> {
    let started = Instant::now();
    let machine = Machine::load(&Source::Live)?;
    let plan = plan::resolve(&plan_file(&a.plan)?, &machine, a.plan.quick)?;
    let (todo, skipped) = roofs::plan::tasks(&plan, &machine)?;
    let check = a
        .plan
        .validate
        .then(|| Options::for_plan(&plan))
        .transpose()?;
    let path = output_path(a)?;
    let mut roofs_saved = false;
    let uarch = limits::detect();
    interrupt::install();

    let settings = Settings::new(
        Duration::from_secs_f64(plan.min_sample_ms / 1e3),
        plan.samples,
    );
    let mut doc = Document::for_run(
        machine.clone(),
        plan,
        uarch.as_ref().map(|u| u.name.clone()),
    );
    let bar = campaign::progress(
        todo.iter()
            .map(|t| (t.sizes.len() + t.between.len()) as u64)
            .sum(),
        "",
    );
    let mut rig = Cores::new(&machine.core_first_pu);
    let measured = roofs::measure_all(&mut rig, &todo, settings, uarch.as_ref(), &bar)?;
    // Its buffers go back before validation makes its own.
    drop(rig);
    bar.finish_and_clear();
    doc.roofs = measured.roofs;
    doc.curves = measured.curves;
    let mut checked = String::new();
    if let Some(o) = check.filter(|_| !interrupt::requested()) {
        // The roofs are kept whatever happens to the sweep.
        results::save(&doc, &path, a.format)?;
        roofs_saved = true;
        let t = Instant::now();
        let res = validate::validate_doc(&mut doc, &machine, &o)?;
        checked = validation::tables(&res, &doc.coissue, o.threshold);
        checked += &format!("validation took {:.1} s\n", t.elapsed().as_secs_f64());
    }
    doc.interrupted = interrupt::requested();
    // Stopped before its roofs were all measured (and saved): a complete
    // run already in the folder is not replaced by this one.
    let stopped_early = doc.interrupted && !roofs_saved;
    if let Some(partial) = stopped_early.then(|| partial_path(a, &path)).flatten() {
        results::save(&doc, &partial, a.format)?;
        return Err(Error::Interrupted(format!(
            "interrupted: the {} roofs measured so far are in {}; the complete results in {} are kept",
            doc.roofs.len(),
            partial.display(),
            path.display()
        )));
    }
    results::save(&doc, &path, a.format)?;
    print!("{}", summary::summary(&doc, &skipped));
    let kept = measured.sharing.map_or(0, |s| s.kept_shared);
    if let Some(n) = measured
        .sharing
        .and_then(|s| sharing_note(&s, "multi-thread roof size", kept))
    {
        println!("{n}");
    }
    print!("{checked}");
    println!(
        "wrote {} ({} roofs, {:.1} s){}",
        path.display(),
        doc.roofs.len(),
        started.elapsed().as_secs_f64(),
        print_charts(&doc, &path)
    );
    if doc.interrupted {
        return Err(Error::Interrupted(format!(
            "interrupted: the {} roofs measured so far are in {}",
            doc.roofs.len(),
            path.display()
        )));
    }
    Ok(())
}
