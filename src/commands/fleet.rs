//! `carmbench fleet run | report`: every node of a cluster measured through
//! Slurm, and the nodes judged against their peers.

use super::run::{PlanArgs, RunArgs};
use crate::chart::fleet::FleetChart;
use crate::compare;
use crate::error::{Error, Result};
use crate::files::{self, OutputKind};
use crate::fleet::slurm::{self, Nodes};
use crate::fleet::{self, Fleet, NodeResult};
use crate::output::compare::{CompareFormat, Comparison};
use crate::output::fleet::{FleetFormat, render};
use clap::{Args, Subcommand};
use std::path::Path;
use std::path::PathBuf;

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

fn check_threshold(t: f64) -> Result<()> {
    if t.is_finite() && t > 0.0 && t < 1.0 {
        Ok(())
    } else {
        Err(Error::input(format!(
            "--threshold {t} is not a fraction between 0 and 1; give e.g. 0.1 for 10%"
        )))
    }
}

/// The `compare` of each group's slowest node against its median node.
fn compared(f: &Fleet, nodes: &[NodeResult], format: FleetFormat) -> Vec<(String, String)> {
    let table_format = match format {
        FleetFormat::Markdown => CompareFormat::Markdown,
        _ => CompareFormat::Text,
    };
    f.groups
        .iter()
        .filter_map(|g| {
            let pair = f.slowest_pair(g, nodes)?;
            let names: Vec<String> = pair.iter().map(|p| p.0.clone()).collect();
            let docs: Vec<&crate::results::Document> = pair.iter().map(|p| p.1).collect();
            let rows = compare::match_roofs(&docs, false);
            let ridges = compare::ridge_table(&names, &docs);
            let table = crate::output::compare::render(
                &Comparison {
                    names: &names,
                    rows: &rows,
                    ridges: &ridges,
                },
                table_format,
            );
            Some((
                format!(
                    "{}: the slowest node, {}, against the median node, {}",
                    g.cpu, names[1], names[0]
                ),
                table,
            ))
        })
        .collect()
}

/// Read, judge and print a fleet folder; the chart to `chart` when given
/// (checked before anything is printed). A fleet none of whose nodes can be
/// read is an error, not a fleet without outliers; each unreadable node is
/// named in a warning.
fn report(dir: &Path, threshold: f64, format: FleetFormat, chart: Option<&Path>) -> Result<Fleet> {
    if let Some(out) = chart {
        files::check_output(out, OutputKind::Chart, &[], "-o")?;
    }
    let nodes = fleet::gather(dir)?;
    let unreadable: Vec<String> = nodes
        .iter()
        .filter_map(|n| Some(format!("{}: {}", n.node, n.doc.as_ref().err()?)))
        .collect();
    if unreadable.len() == nodes.len() {
        let first: Vec<&str> = unreadable.iter().take(3).map(String::as_str).collect();
        return Err(Error::input(format!(
            "none of the {} node(s) in {} could be read ({}{}); give a folder of results written by `carmbench run`",
            nodes.len(),
            fleet::gather::nodes_dir(dir).display(),
            first.join("; "),
            if unreadable.len() > 3 { "; ..." } else { "" }
        )));
    }
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
    check_threshold(a.threshold)?;
    report(&a.dir, a.threshold, a.format, a.output.as_deref()).map(|_| ())
}

/// Which nodes the flags ask for.
fn nodes_of(a: &FleetRunArgs) -> Result<Nodes> {
    match (a.nodes, &a.nodelist, &a.partition) {
        (Some(0), _, _) => Err(Error::input("-N 0 runs on no node; give at least 1")),
        (Some(n), _, _) => Ok(Nodes::Count(n)),
        (_, Some(l), _) => Ok(Nodes::List(l.clone())),
        (_, _, Some(p)) => Ok(Nodes::Partition(p.clone())),
        _ if std::env::var_os("SLURM_JOB_ID").is_some() => Ok(Nodes::Allocation),
        _ => Err(Error::input(
            "say which nodes: -N COUNT, --nodelist LIST or --partition P (or run inside salloc or sbatch)",
        )),
    }
}

fn fleet_run(a: &FleetRunArgs) -> Result<()> {
    check_threshold(a.threshold)?;
    let nodes = nodes_of(a)?;
    let dir = std::path::absolute(&a.output).map_err(|e| Error::input(format!("-o: {e}")))?;
    let node_dirs = fleet::gather::nodes_dir(&dir);
    let holds_results = |e: std::fs::DirEntry| fleet::gather::results_file(&e.path()).is_some();
    if std::fs::read_dir(&node_dirs).is_ok_and(|d| d.filter_map(|e| e.ok()).any(holds_results)) {
        return Err(Error::input(format!(
            "{} already holds a fleet's results; give a new folder with -o (or `carmbench fleet report {}`)",
            node_dirs.display(),
            dir.display()
        )));
    }
    slurm::check()?;
    for d in [node_dirs.clone(), dir.join("logs")] {
        std::fs::create_dir_all(&d).map_err(|e| {
            Error::input(format!(
                "cannot create {}: {e}; give another -o",
                d.display()
            ))
        })?;
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Io(format!("cannot find carmbench itself: {e}")))?;
    let args = slurm::srun_args(&nodes, &exe, &dir, &a.plan.to_args())?;
    eprintln!("srun {}", args.join(" "));
    let (ok, said) = slurm::srun(&args)?;
    let failed = slurm::failed_tasks(&said, &dir);
    for f in &failed {
        eprintln!("carmbench: warning: node failed: {f}");
    }
    if !ok && failed.is_empty() {
        eprintln!("carmbench: warning: srun failed: {}", said.trim());
    }
    let f = match report(
        &dir,
        a.threshold,
        FleetFormat::Text,
        Some(&dir.join("fleet.svg")),
    ) {
        Ok(f) => f,
        Err(e) => {
            return Err(Error::Io(format!(
                "no node wrote results ({e}); srun said: {}",
                said.trim().lines().last().unwrap_or("nothing")
            )));
        }
    };
    let json = render(&f, &[], FleetFormat::Json);
    crate::files::write_atomic(&dir.join("fleet.json"), &json)?;
    eprintln!("wrote {}", dir.join("fleet.json").display());
    Ok(())
}

/// One node's part: `carmbench run` into `DIR/nodes/<node>`, or the error
/// beside it.
fn task(a: &FleetTaskArgs) -> Result<()> {
    let node: String = slurm::node_name()
        .chars()
        .map(|c| if c == '/' || c.is_control() { '_' } else { c })
        .collect();
    let out = slurm::node_dir(&a.dir, node.trim_start_matches('.'));
    println!("node {node}");
    let result = crate::commands::run::run(&RunArgs {
        plan: a.plan.clone(),
        output: out.clone(),
        format: crate::results::DocFormat::Yaml,
    });
    if let Err(e) = &result {
        let _ = std::fs::create_dir_all(&out);
        let _ = std::fs::write(out.join(fleet::ERROR_FILE), format!("{e}\n"));
    }
    result
}
