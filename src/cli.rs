//! Command-line interface: parsing, dispatch, one-line errors with exit 2.

use crate::commands;
use crate::error::Error;
use crate::machine::Source;
use crate::output::Format;
use crate::output::compare::CompareFormat;
use crate::output::fleet::FleetFormat;
use crate::profile::CountsMode;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// carmbench — the Cache-aware Roofline Model of this machine.
#[derive(Debug, Parser)]
#[command(name = "carmbench", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the machine: caches, NUMA, buffer ranges per level, ISA, clock.
    Topology(TopologyArgs),
    /// Measure every roof of this machine and write the results (carm.yaml).
    Run(RunArgs),
    /// Draw the CARM chart of one or more results files (SVG or PNG).
    Plot(PlotArgs),
    /// Write the HTML report of one or more results files (carm.html).
    Report(ReportArgs),
    /// Measure every node of a cluster through Slurm, and find the slow ones.
    #[command(subcommand)]
    Fleet(FleetCommand),
    /// Run variable-intensity kernels against every roof of a results file.
    Validate(ValidateArgs),
    /// Place an application (and its marked regions) on the chart: count or time it.
    Profile(ProfileArgs),
    /// Compare the roofs of several results files; quadrant-split chart.
    Compare(CompareArgs),
    /// Predict an application's time and bound on a machine from its results.
    Predict(PredictArgs),
    /// Run one kernel at one buffer size and print its rate (expert use).
    Kernel(KernelArgs),
}

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
    #[arg(short, long, value_name = "DIR", default_value = "fleet-results")]
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

/// `carmbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Results files; ratios are to the first.
    #[arg(required = true, value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// Table format.
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Match each file's widest ISA with the others' (machines with different ISAs line up).
    #[arg(long)]
    pub best_isa: bool,
    /// Also draw the overlaid CARM chart (.svg or .png).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Thread count to chart and place [default: all (chart), the most (quadrant)].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Draw the quadrant-split chart.
    #[arg(long)]
    pub quadrant: bool,
    /// Application intensities for the quadrant chart, flop/byte.
    #[arg(long, value_delimiter = ',', value_name = "AI,...")]
    pub ai: Option<Vec<f64>>,
    /// Quadrant chart file [default: quadrant.svg].
    #[arg(long, value_name = "FILE")]
    pub quadrant_output: Option<PathBuf>,
}

/// `carmbench predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Applications (an apps file).
    #[arg(long, value_name = "APPS.yaml", conflicts_with_all = ["flops", "bytes"])]
    pub app: Option<PathBuf>,
    /// Flops of the application.
    #[arg(long, value_name = "N")]
    pub flops: Option<f64>,
    /// Bytes it requests.
    #[arg(long, value_name = "M")]
    pub bytes: Option<f64>,
    /// Flops done by FMAs (adjusts the peak between the ADD/MUL and FMA roofs).
    #[arg(long, value_name = "F")]
    pub fma_flops: Option<f64>,
    /// Memory level whose bandwidth bounds it (L1, L2, L3, DRAM) [default: every level].
    #[arg(long, value_parser = crate::machine::Level::parse)]
    pub level: Option<crate::machine::Level>,
    /// Results of the machine to predict on.
    #[arg(long, value_name = "RESULTS")]
    pub on: PathBuf,
    /// Results of the machine the application was profiled on (prints both and the speedup).
    #[arg(long, value_name = "RESULTS")]
    pub from: Option<PathBuf>,
    /// Thread count of the roofs [default: the fewest measured].
    #[arg(long)]
    pub threads: Option<usize>,
}

/// `carmbench profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// Apps file to write or extend [default: apps.yaml].
    #[arg(short, long, value_name = "APPS.yaml")]
    pub output: Option<PathBuf>,
    /// Name of the point [default: the command's file name].
    #[arg(long)]
    pub name: Option<String>,
    /// How to count flops and bytes: the PMU where usable, else emulation (auto); or one of them.
    #[arg(long, value_enum, default_value_t = CountsMode::Auto)]
    pub counts: CountsMode,
    /// The QEMU counting plugin [default: beside carmbench].
    #[arg(long, value_name = "PATH")]
    pub plugin: Option<PathBuf>,
    /// Manual mode: floating-point operations the command performs (an FMA counts two).
    #[arg(long, value_name = "N")]
    pub flops: Option<f64>,
    /// Manual mode: bytes the command's cores request (loads and stores × width).
    #[arg(long, value_name = "M")]
    pub bytes: Option<f64>,
    /// Bytes per load or store, instead of the estimate from the FP widths.
    #[arg(long, value_name = "B")]
    pub access_bytes: Option<f64>,
    /// Threads the command runs (compared with the roofs of that thread count).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Results to compare with [default: carm-results/carm.yaml].
    #[arg(long, value_name = "RESULTS")]
    pub results: Option<PathBuf>,
    /// The command and its arguments, run directly (no shell).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `carmbench validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Results file to validate and extend [default: carm-results/carm.yaml].
    pub results: Option<PathBuf>,
    /// Access mixes of the kernels and roofs compared: load, 2ld1st [default: load,2ld1st].
    #[arg(long, value_delimiter = ',')]
    pub mixes: Option<Vec<String>>,
    /// FP ops of the kernels and roofs compared: fma, addmul [default: fma].
    #[arg(long, value_delimiter = ',')]
    pub ops: Option<Vec<String>>,
    /// A level fails when its median |deviation| exceeds this many percent.
    #[arg(long, default_value_t = 10.0)]
    pub threshold: f64,
}

/// `carmbench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Results files (carm.yaml or carm.json); several are compared, ratios to the first.
    #[arg(required = true, value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// The page [default: carm.html beside the first results file].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Application points to place (an apps file from `carmbench profile` or written by hand).
    #[arg(long, value_name = "APPS.yaml")]
    pub apps: Option<PathBuf>,
}

/// `carmbench plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Results files (carm.yaml or carm.json); several overlay, each in its own line style.
    #[arg(required = true, value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// Chart file, .svg or .png [default: carm.svg beside the first results file].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// ISA to draw [default: the widest measured].
    #[arg(long)]
    pub isa: Option<String>,
    /// Precision to draw [default: dp].
    #[arg(long)]
    pub precision: Option<String>,
    /// Thread counts to draw [default: all measured].
    #[arg(long, value_delimiter = ',')]
    pub threads: Option<Vec<usize>>,
    /// Bandwidth mix to draw [default: 2ld1st, else load].
    #[arg(long)]
    pub mix: Option<String>,
    /// FP roofs to draw [default: fma_add, fma, add].
    #[arg(long, value_delimiter = ',')]
    pub ops: Option<Vec<String>>,
    /// Application points to add (an apps file from `carmbench profile` or written by hand).
    #[arg(long, value_name = "APPS.yaml")]
    pub apps: Option<PathBuf>,
    /// Draw the memory curve (bandwidth against working set) instead [default file: carm-curve.svg].
    #[arg(long)]
    pub curve: bool,
}

/// `carmbench run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// What to measure.
    #[command(flatten)]
    pub plan: PlanArgs,
    /// Directory for carm.yaml (or carm.json).
    #[arg(short, long, value_name = "DIR", default_value = "carm-results")]
    pub output: PathBuf,
    /// Results format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    pub format: Format,
}

/// What `run` measures, as flags (`fleet run` passes them on to each node).
#[derive(Debug, Clone, Args)]
pub struct PlanArgs {
    /// ISAs: best, all, or a list of scalar, sse, avx2, avx512.
    #[arg(long, value_delimiter = ',')]
    pub isa: Option<Vec<String>>,
    /// Precisions: dp, sp.
    #[arg(long, value_delimiter = ',')]
    pub precision: Option<Vec<String>>,
    /// Thread counts (one thread per core): numbers or all, e.g. 1,all.
    #[arg(long, value_delimiter = ',')]
    pub threads: Option<Vec<String>>,
    /// Memory levels: all, or a list of L1, L2, L3, DRAM.
    #[arg(long, value_delimiter = ',')]
    pub levels: Option<Vec<String>>,
    /// Access mixes: load, store, 2ld1st, 1ld1st, nt_store.
    #[arg(long, value_delimiter = ',')]
    pub mixes: Option<Vec<String>>,
    /// FP ops: add, mul, addmul, fma, fma_add, div.
    #[arg(long, value_delimiter = ',')]
    pub ops: Option<Vec<String>>,
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
        let mut out = Vec::new();
        let lists = [
            ("--isa", &self.isa),
            ("--precision", &self.precision),
            ("--threads", &self.threads),
            ("--levels", &self.levels),
            ("--mixes", &self.mixes),
            ("--ops", &self.ops),
        ];
        for (flag, v) in lists {
            if let Some(v) = v {
                out.push(format!("{flag}={}", v.join(",")));
            }
        }
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

/// `carmbench kernel`.
#[derive(Debug, Args)]
pub struct KernelArgs {
    /// Kernel name, e.g. avx512_load or avx512_dp_fma.
    pub name: String,
    /// Buffer per thread (bandwidth kernels), e.g. 32KiB, 16MiB.
    #[arg(long, default_value = "32KiB", value_parser = crate::units::parse_size)]
    pub bytes: u64,
    /// Threads, one per core.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Samples.
    #[arg(long, default_value_t = 11)]
    pub samples: usize,
    /// Minimum sample length, milliseconds.
    #[arg(long, default_value_t = 5.0)]
    pub min_ms: f64,
    /// Validation kernels: memory units and FP units per iteration, J,K.
    #[arg(long, value_name = "J,K", value_delimiter = ',')]
    pub shape: Option<Vec<u32>>,
}

/// Where to read the topology from (live machine by default).
#[derive(Debug, Args, Clone)]
pub struct TopologySource {
    /// Load an hwloc XML topology (from `lstopo --of xml FILE`) instead of this machine.
    #[arg(long, value_name = "FILE", conflicts_with = "synthetic")]
    pub topology_xml: Option<PathBuf>,
    /// Load an hwloc synthetic topology, e.g. "pack:2 l3:1(size=32MiB) core:8 l2:1(size=1MiB) l1d:1(size=48KiB) pu:2".
    #[arg(long, value_name = "DESC")]
    pub synthetic: Option<String>,
}

impl TopologySource {
    /// The source these flags select.
    pub fn source(&self) -> Source {
        match (&self.topology_xml, &self.synthetic) {
            (Some(p), _) => Source::Xml(p.clone()),
            (None, Some(d)) => Source::Synthetic(d.clone()),
            _ => Source::Live,
        }
    }
}

/// `carmbench topology`.
#[derive(Debug, Args)]
pub struct TopologyArgs {
    #[command(flatten)]
    pub source: TopologySource,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Collapse clap's multi-line message into one line.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .filter(|l| !l.starts_with("Usage:"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parse arguments, run, and return the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = e.print();
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        2
                    } else {
                        0
                    }
                }
                _ => {
                    let msg = one_line(&e.render().to_string());
                    let msg = msg.strip_prefix("error: ").unwrap_or(&msg);
                    eprintln!("carmbench: error: {msg} (see `carmbench --help`)");
                    2
                }
            };
        }
    };
    match run(cli) {
        Ok(()) => 0,
        Err(e) => print_error(&e),
    }
}

/// Print an error on one line; return its exit status.
pub fn print_error(e: &Error) -> i32 {
    eprintln!("carmbench: error: {e}");
    e.exit_code()
}

fn run(cli: Cli) -> crate::Result<()> {
    match cli.command {
        Command::Topology(a) => commands::topology::run(&a),
        Command::Kernel(a) => commands::kernel::run(&a),
        Command::Run(a) => commands::run::run(&a),
        Command::Plot(a) => commands::plot::run(&a),
        Command::Report(a) => commands::report::run(&a),
        Command::Fleet(c) => commands::fleet::run(&c),
        Command::Validate(a) => commands::validate::run(&a),
        Command::Profile(a) => commands::profile::run(&a),
        Command::Compare(a) => commands::compare::run(&a),
        Command::Predict(a) => commands::predict::run(&a),
    }
}
