//! `carmbench run`'s engine: the plan from the embedded default, a plan
//! file and the flags; every roof measured; the roofs validated when
//! asked; the results saved, an interrupted run beside a complete one
//! rather than over it.

use crate::config::choice::{IsaChoice, LevelChoice, Listed, Threads};
use crate::config::limits;
use crate::config::plan::{self, PlanFile};
use crate::error::{Error, Result};
use crate::kernels::{Kernel, Mix, Op, Precision};
use crate::machine::{Machine, Source};
use crate::measure::bench::Settings;
use crate::measure::guard::Sharing;
use crate::measure::pool::Cores;
use crate::measure::{campaign, interrupt};
use crate::results::{self, DocFormat, Document};
use crate::roofs;
use crate::validate::{self, LevelResult, Options};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub mod gpu;

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

    /// The embedded plan, the config file and the flags, merged in that
    /// order.
    pub fn plan_file(&self) -> Result<PlanFile> {
        let mut p = PlanFile::default_plan();
        if let Some(path) = &self.config {
            p = p.overlay(PlanFile::load(path)?);
        }
        let flags = PlanFile {
            isa: self.isa.clone(),
            precision: self.precision.clone(),
            threads: self.threads.clone(),
            levels: self.levels.clone(),
            mixes: self.mixes.clone(),
            ops: self.ops.clone(),
            ..PlanFile::default()
        };
        Ok(p.overlay(flags))
    }
}

/// What a run measured and where it went.
pub struct Done {
    /// The results, saved.
    pub doc: Document,
    /// Where.
    pub path: PathBuf,
    /// Kernels of the plan the CPU lacks.
    pub skipped: Vec<&'static Kernel>,
    /// What the core guard saw of multi-thread roofs sharing cores.
    pub sharing: Option<Sharing>,
    /// The validation sweeps, their threshold and seconds, when run.
    pub validation: Option<(Vec<LevelResult>, f64, f64)>,
}

/// `DIR/carm.yaml` (or `.json`), the directory made when missing and
/// checked writable before anything is measured.
pub(crate) fn output_path(dir: &Path, format: DocFormat) -> Result<PathBuf> {
    crate::files::writable_folder(dir, "-o")?;
    Ok(dir.join(crate::files::names::results_file(format.extension())))
}

/// Where an interrupted run's results go when the folder already holds a
/// complete run (kept with its charts): `carm.partial.yaml` beside it.
fn partial_path(dir: &Path, format: DocFormat, path: &Path) -> Option<PathBuf> {
    let complete = results::load_roofs(path).is_ok_and(|d| !d.interrupted && !d.roofs.is_empty());
    complete.then(|| dir.join(crate::files::names::partial_file(format.extension())))
}

/// Measure this machine's roofs as `a` asks into `dir`, validate them when
/// asked, and save the results (a run stopped before its roofs were all
/// measured goes beside a complete one: an error that says where).
pub fn run(a: &PlanArgs, dir: &Path, format: DocFormat) -> Result<Done> {
    let machine = Machine::load(&Source::Live)?;
    let plan = plan::resolve(&a.plan_file()?, &machine, a.quick)?;
    let (todo, skipped) = roofs::plan::tasks(&plan, &machine)?;
    let check = a.validate.then(|| Options::for_plan(&plan)).transpose()?;
    let path = output_path(dir, format)?;
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
    let steps = todo
        .iter()
        .map(|t| (t.sizes.len() + t.between.len()) as u64);
    let bar = campaign::progress(steps.sum(), "");
    let mut rig = Cores::new(&machine.core_first_pu);
    let measured = roofs::measure_all(&mut rig, &todo, settings, uarch.as_ref(), &bar)?;
    bar.finish_and_clear();
    let effective = match interrupt::requested() {
        true => None,
        false => {
            let quota = crate::machine::cgroup::cpu_quota();
            roofs::effective::find(&mut rig, &todo, &measured.roofs, quota, settings)?
        }
    };
    // Its buffers go back before validation makes its own.
    drop(rig);
    doc.roofs = measured.roofs;
    if let Some(e) = &effective {
        roofs::effective::apply(&mut doc.roofs, e);
    }
    doc.machine.effective_cores = effective;
    doc.curves = measured.curves;
    let mut validation = None;
    let mut roofs_saved = false;
    if let Some(o) = check.filter(|_| !interrupt::requested()) {
        // The roofs are kept whatever happens to the sweep.
        results::save(&doc, &path, format)?;
        roofs_saved = true;
        let t = Instant::now();
        let res = validate::validate_doc(&mut doc, &machine, &o)?;
        validation = Some((res, o.threshold, t.elapsed().as_secs_f64()));
    }
    doc.interrupted = interrupt::requested();
    // Stopped before its roofs were all measured (and saved): a complete
    // run already in the folder is not replaced by this one.
    let stopped_early = doc.interrupted && !roofs_saved;
    if let Some(partial) = stopped_early
        .then(|| partial_path(dir, format, &path))
        .flatten()
    {
        results::save(&doc, &partial, format)?;
        return Err(Error::Interrupted(format!(
            "interrupted: the {} roofs measured so far are in {}; the complete results in {} are kept",
            doc.roofs.len(),
            partial.display(),
            path.display()
        )));
    }
    results::save(&doc, &path, format)?;
    Ok(Done {
        doc,
        path,
        skipped,
        sharing: measured.sharing,
        validation,
    })
}
