//! Command-line interface: the subcommands (each one's arguments are in its
//! file under `commands/`), dispatch, one-line errors with exit 2.

use crate::commands::validate::ValidateArgs;
use crate::commands::{self, compare::CompareArgs, fleet::FleetCommand, kernel::KernelArgs};
use crate::commands::{plot::PlotArgs, predict::PredictArgs, profile::ProfileArgs};
use crate::commands::{report::ReportArgs, run::RunArgs, topology::TopologyArgs};
use crate::error::Error;
use clap::{Parser, Subcommand};

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
    /// Print what CPUID tells this process, on one line (`profile` runs it
    /// under QEMU to read the CPU QEMU shows a program).
    #[command(hide = true)]
    Cpuid,
    /// Run one rank of an MPI job for `profile --mpi`, which puts it in the
    /// launch command in the program's place.
    #[command(hide = true)]
    MpiRank(crate::profile::launch::rank::RankArgs),
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
        Command::MpiRank(a) => std::process::exit(crate::profile::launch::rank::main(&a)),
        Command::Cpuid => {
            println!(
                "{}",
                crate::profile::launch::identity::CpuView::here().line()
            );
            Ok(())
        }
    }
}
