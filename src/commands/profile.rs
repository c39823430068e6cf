//! `carmbench profile`: put an application (or its regions) on the chart.

use crate::error::{Error, Result};
use crate::files::{self, OutputKind};
use crate::profile::CountsMode;
use crate::profile::{self, Request};
use crate::results::apps::{self, AppPoint};
use crate::results::{self, Document};
use clap::Args;
use std::path::{Path, PathBuf};

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
    /// Count this program in the command's place, with the command's
    /// arguments (emulation): a twin build of the same code QEMU can run,
    /// e.g. built with -march=x86-64-v3 where the command uses AVX-512. The
    /// time is the command's own.
    #[arg(long, value_name = "PROGRAM")]
    pub count_with: Option<String>,
    /// Simulate the data caches under emulation: each point gets the bytes
    /// that moved between L1 and L2, L2 and L3, L3 and DRAM, and the level
    /// that bounds it is named (caches of the results' machine, else this one).
    #[arg(long)]
    pub traffic: bool,
    /// With --traffic: simulate one line in N (a power of two), scaled up;
    /// 1 simulates every line.
    #[arg(long, value_name = "N", default_value_t = profile::traffic::SAMPLE, requires = "traffic")]
    pub traffic_sample: u64,
    /// A point for each of the N functions that took the most time (default
    /// 10) and one for the rest: W and Q counted by emulation, time from
    /// native samples of the software cpu-clock event (no PMU needed).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10")]
    pub functions: Option<usize>,
    /// The arithmetic of the counts, for the roofs the point is placed under:
    /// dp, sp or a narrow type (int8, int16, bf16, fp16, int32: --flops as
    /// its operations). Emulation finds it by itself (the type most of the
    /// work is); the PMU counts dp and sp only.
    #[arg(long, value_name = "PRECISION")]
    pub precision: Option<crate::kernels::Precision>,
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

/// Flop/s below which a command that ran over a second is taken to have
/// done its work where the counters did not look.
const MIN_FLOP_RATE: f64 = 1e6;

/// The line that places a point under a results file's roofs.
fn placed(doc: &Document, p: &AppPoint) -> String {
    let (ai, perf) = (p.ai(), p.gflop_per_s());
    let (u, rate) = units(p);
    match profile::placement(doc, p, p.threads.unwrap_or(1)) {
        Some(place) => match &place.roof {
            Some((label, v)) => format!(
                "{}: AI {ai:.3} {u}/B, {perf:.2} {rate}; bound by the {label} ({v:.2} {rate} at this AI, {} thread(s)): {:.1}% of it{}",
                p.name,
                place.threads,
                100.0 * perf / v,
                place.note()
            ),
            None => format!(
                "{}: AI {ai:.3} {u}/B, {perf:.2} {rate}: above every roof of the {}-thread results; check the counts{}",
                p.name,
                place.threads,
                place.note()
            ),
        },
        None => unplaced(p),
    }
}

/// A point's unit of work and of rate: flop and GFLOP/s, or op and GOP/s
/// for integer arithmetic.
fn units(p: &AppPoint) -> (&'static str, &'static str) {
    match p.precision.is_some_and(|x| x.is_integer()) {
        true => ("op", "GOP/s"),
        false => ("flop", "GFLOP/s"),
    }
}

fn unplaced(p: &AppPoint) -> String {
    let (u, rate) = units(p);
    format!(
        "{}: AI {:.3} {u}/B, {:.2} {rate}, {:.3} s",
        p.name,
        p.ai(),
        p.gflop_per_s(),
        p.seconds
    )
}

/// The table of a program's function points: time share, seconds, AI,
/// GFLOP/s, the bounding roof and how close the point is to it.
fn function_table(doc: Option<&Document>, points: &[&AppPoint]) -> String {
    use std::fmt::Write;
    let Some(first) = points.first().and_then(|p| p.function.as_ref()) else {
        return String::new();
    };
    let samples: u64 = points
        .iter()
        .filter_map(|p| p.function.as_ref())
        .map(|f| f.samples)
        .sum();
    let mut t = format!(
        "functions of {} (W and Q: their own work; T: {samples} samples of the CPU time, per core; * fewer than {} samples):\n{:>6} {:>9} {:>9} {:>9}  {:<28} function (file)\n",
        first.program,
        profile::sample::FEW_SAMPLES,
        "time",
        "T s",
        "flop/B",
        "GFLOP/s",
        "bound: % of the roof"
    );
    for p in points {
        let Some(f) = &p.function else { continue };
        let bound = match (p.placeable(), doc) {
            (false, _) if p.seconds <= 0.0 => "not placed: no samples".to_string(),
            (false, _) => "not placed: no FP work".to_string(),
            (true, None) => String::new(),
            (true, Some(d)) => match profile::placement(d, p, 1).and_then(|x| x.roof) {
                Some((label, v)) => format!("{label} {:.0}%", 100.0 * p.gflop_per_s() / v),
                None => "above every roof".into(),
            },
        };
        let rate = |v: f64| match v.is_finite() {
            true => format!("{v:.3}"),
            false => "-".into(),
        };
        let _ = writeln!(
            t,
            "{:>5.1}%{} {:>9.4} {:>9} {:>9}  {:<28} {}{}",
            100.0 * f.share,
            if f.samples < profile::sample::FEW_SAMPLES {
                "*"
            } else {
                " "
            },
            p.seconds,
            rate(p.ai()),
            rate(p.gflop_per_s()),
            bound,
            p.name,
            match (f.module.is_empty(), &f.location) {
                (true, _) => String::new(),
                (false, None) => format!(" ({})", f.module),
                (false, Some(at)) => format!(" ({}, {at})", f.module),
            }
        );
    }
    t
}

/// Each program's and region's place under the roofs (and its levels'
/// traffic when simulated), or why there is none.
fn print_placements(points: &[AppPoint], results: Option<&Document>, results_path: &Path) {
    let programs = points.iter().filter(|p| p.function.is_none());
    match results {
        Some(doc) => programs.for_each(|p| {
            println!("{}", placed(doc, p));
            if let Some(v) = profile::traffic::verdict(doc, p) {
                println!("{v}");
            }
        }),
        None => {
            programs.for_each(|p| println!("{}", unplaced(p)));
            println!(
                "(no results at {}: run `carmbench run` or give --results to see the bounding roof)",
                results_path.display()
            );
        }
    }
}

/// With --traffic, the caches to simulate: those of the machine the roofs
/// were measured on, else this one's.
fn caches_to_simulate(
    a: &ProfileArgs,
    results: Option<&Document>,
) -> Result<Option<profile::traffic::Caches>> {
    if !a.traffic {
        return Ok(None);
    }
    let live;
    let machine = match results {
        Some(doc) => &doc.machine.topology,
        None => {
            live = crate::machine::Machine::load(&crate::machine::Source::Live)?;
            &live
        }
    };
    profile::traffic::caches(machine, a.traffic_sample).map(Some)
}

/// Run the subcommand.
pub fn run(a: &ProfileArgs) -> Result<()> {
    let name = a.name.clone().unwrap_or_else(|| {
        a.command.first().map_or("app".into(), |c| {
            Path::new(c)
                .file_name()
                .map_or(c.clone(), |f| f.to_string_lossy().into_owned())
        })
    });
    // Everything that can be refused is, before the program runs (twice,
    // natively and counted): the apps file, its folder and the results.
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(crate::files::names::APPS));
    files::check_output(&out, OutputKind::Yaml, &[], "-o")?;
    if out.exists() {
        apps::load(&out)?;
    }
    let results_path = a
        .results
        .clone()
        .unwrap_or_else(crate::files::names::default_results);
    let results = match (&a.results, results::load(&results_path)) {
        (_, Ok(doc)) => Some(doc),
        (Some(_), Err(e)) => return Err(e),
        (None, Err(_)) if !results_path.exists() => None,
        (None, Err(e)) => {
            eprintln!("carmbench: warning: {e}; the points are written without their roofs");
            None
        }
    };
    let caches = caches_to_simulate(a, results.as_ref())?;
    let profiled = profile::profile(&Request {
        name,
        command: a.command.clone(),
        counts: a.counts,
        flops: a.flops,
        bytes: a.bytes,
        access_bytes: a.access_bytes,
        threads: a.threads,
        plugin: a.plugin.clone(),
        count_with: a.count_with.clone(),
        functions: a.functions,
        precision: a.precision,
        caches: caches.clone(),
    })?;
    for w in &profiled.warnings {
        eprintln!("carmbench: warning: {w}");
    }
    // A long run that counted next to nothing most likely counted the wrong
    // process: never a silent zero, nor a point a thousand times below
    // every roof.
    if let Some(whole) = profiled.points.first()
        && whole.seconds > 1.0
        && whole.flops < MIN_FLOP_RATE * whole.seconds
    {
        return Err(Error::input(format!(
            "'{}' counted {} flops in {:.1} s natively (under 1 MFLOP/s): its work was probably done in a process carmbench could not follow{}; count the program that does the work, or give --flops and --bytes",
            a.command[0],
            whole.flops,
            whole.seconds,
            if profiled.warnings.is_empty() {
                ""
            } else {
                " (see the warnings above)"
            }
        )));
    }
    let functions: Vec<&AppPoint> = profiled
        .points
        .iter()
        .filter(|p| p.function.is_some())
        .collect();
    let table = function_table(results.as_ref(), &functions);
    // Function points are all kept (listed even without FP work); the
    // program's and its regions' need a place on the chart.
    let (placeable, empty): (Vec<AppPoint>, Vec<AppPoint>) = profiled
        .points
        .into_iter()
        .partition(|p| p.placeable() || p.function.is_some());
    for p in &empty {
        eprintln!(
            "carmbench: warning: {} has no counted flops or bytes; it cannot be placed",
            p.name
        );
    }
    if placeable.is_empty() {
        return Err(Error::input(format!(
            "'{}' did no floating-point work the counters saw: nothing to place",
            a.command[0]
        )));
    }
    apps::add_points(&out, placeable.clone())?;
    if let Some(n) = &profiled.note {
        println!("{n}");
    }
    print_placements(&placeable, results.as_ref(), &results_path);
    if let Some(c) = &caches {
        println!("  ({})", c.model);
    }
    print!("{table}");
    println!(
        "wrote {} ({} point(s)); draw with: carmbench plot {} --apps {}",
        out.display(),
        placeable.len(),
        results_path.display(),
        out.display()
    );
    Ok(())
}
