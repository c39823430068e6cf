//! `carmbench fleet run | report`: every node of a cluster measured through
//! Slurm, and the nodes judged against their peers.

use super::run::{PlanArgs, RunArgs};
use crate::chart::fleet::FleetChart;
use crate::error::{Error, Result};
use crate::files::{self, OutputKind};
use crate::fleet::{self, Fleet, run};
use crate::output::fleet::{FleetFormat, compared, render};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

/// `carmbench fleet`.
#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    /// Run `carmbench run` on each node through Slurm (one exclusive task per node), then report.
    Run(FleetRunArgs),
    /// Judge the nodes of a fleet folder against their peers.
    Report(FleetReportArgs),
    /// One node's task (what `fleet run` has srun start).
    #[command(hide = true)]
    Task(FleetTaskArgs),
}

/// `carmbench fleet run`.
#[derive(Debug, Args)]
pub struct FleetRunArgs {
    /// This many nodes, as Slurm picks them.
    #[arg(short = 'N', long = "nodes", value_name = "COUNT", conflicts_with_all = ["nodelist", "partition"])]
    pub nodes: Option<u32>,
    /// These nodes, in Slurm's host list syntax (n[1-4],m7).
    #[arg(long, value_name = "LIST", conflicts_with = "partition")]
    pub nodelist: Option<String>,
    /// Every node of this partition.
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// What each node measures (as for `carmbench run`).
    #[command(flatten)]
    pub plan: PlanArgs,
    /// Folder for nodes/NODE/carm.yaml and the fleet report.
    #[arg(short, long, value_name = "DIR", default_value = crate::files::names::FLEET_DIR)]
    pub output: PathBuf,
    /// How far below its group's median a node's roof makes it an outlier (a fraction).
    #[arg(long, default_value_t = 0.1)]
    pub threshold: f64,
}

/// `carmbench fleet report`.
#[derive(Debug, Args)]
pub struct FleetReportArgs {
    /// A fleet folder: its nodes/NODE/carm.yaml, however they were gathered.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Report format.
    #[arg(long, value_enum, default_value_t = FleetFormat::Text)]
    pub format: FleetFormat,
    /// How far below its group's median a node's roof makes it an outlier (a fraction).
    #[arg(long, default_value_t = 0.1)]
    pub threshold: f64,
    /// Also draw each node's roofs against its group's medians (.svg or .png).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `carmbench fleet task`.
#[derive(Debug, Args)]
pub struct FleetTaskArgs {
    /// The fleet folder.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// What to measure.
    #[command(flatten)]
    pub plan: PlanArgs,
}

/// Run the subcommand.
pub fn run(c: &FleetCommand) -> Result<()> {
    match c {
        FleetCommand::Run(a) => fleet_run(a),
        FleetCommand::Report(a) => fleet_report(a),
        FleetCommand::Task(a) => task(a),
    }
}

/// Read, judge and print a fleet folder; the chart to `chart` when given
/// (checked before anything is printed); each unreadable node named in a
/// warning.
fn report(dir: &Path, threshold: f64, format: FleetFormat, chart: Option<&Path>) -> Result<Fleet> {
    if let Some(out) = chart {
        files::check_output(out, OutputKind::Chart, &[], "-o")?;
    }
    let (nodes, unreadable) = run::read(dir)?;
    for u in &unreadable {
        eprintln!("carmbench: warning: node unreadable: {u}");
    }
    let f = fleet::analyse(&nodes, threshold);
    print!("{}", render(&f, &compared(&f, &nodes, format), format));
    if let Some(out) = chart {
        FleetChart::of(&f)?.render(out)?;
        eprintln!("wrote {}", out.display());
    }
    Ok(f)
}

fn fleet_report(a: &FleetReportArgs) -> Result<()> {
    run::check_threshold(a.threshold)?;
    report(&a.dir, a.threshold, a.format, a.output.as_deref()).map(|_| ())
}

fn fleet_run(a: &FleetRunArgs) -> Result<()> {
    run::check_threshold(a.threshold)?;
    let nodes = run::nodes(a.nodes, a.nodelist.as_deref(), a.partition.as_deref())?;
    let l = run::launch(&nodes, &a.output, &a.plan.to_args(), |args| {
        eprintln!("srun {}", args.join(" "))
    })?;
    for f in &l.failed {
        eprintln!("carmbench: warning: node failed: {f}");
    }
    if !l.ok && l.failed.is_empty() {
        eprintln!("carmbench: warning: srun failed: {}", l.said.trim());
    }
    let chart = l.dir.join("fleet.svg");
    let f = report(&l.dir, a.threshold, FleetFormat::Text, Some(&chart)).map_err(|e| {
        Error::Io(format!(
            "no node wrote results ({e}); srun said: {}",
            l.said.trim().lines().last().unwrap_or("nothing")
        ))
    })?;
    let json = render(&f, &[], FleetFormat::Json);
    crate::files::write_atomic(&l.dir.join("fleet.json"), &json)?;
    eprintln!("wrote {}", l.dir.join("fleet.json").display());
    Ok(())
}

/// One node's part: `carmbench run` into `DIR/nodes/<node>`, or the error
/// beside it.
fn task(a: &FleetTaskArgs) -> Result<()> {
    let (node, out) = run::task_folder(&a.dir);
    println!("node {node}");
    let result = crate::commands::run::run(&RunArgs::for_node(a.plan.clone(), out.clone()));
    if let Err(e) = &result {
        run::task_failed(&out, e);
    }
    result
}
