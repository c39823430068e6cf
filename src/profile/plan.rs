//! What `profile` was asked ([`ProfileArgs`], the flags as typed) resolved
//! into what it will do ([`ProfilePlan`]): every flag and how flags bear on
//! one another settled in one place, before the command runs, each refusal
//! one line naming the cause and the fix.

use crate::error::{Error, Result};
use crate::files::{self, OutputKind};
use crate::kernels::Precision;
use crate::machine::cpuid;
use crate::profile::counter::emulation::Emulation;
use crate::profile::counter::{Counter, Manual, Pmu};
use crate::profile::ground::warnings::Warning;
use crate::profile::launch::command::{self, Found};
use crate::profile::launch::emulator::Emulator;
use crate::profile::launch::identity::{self, Flag};
use crate::profile::launch::launcher::MpiCommand;
use crate::profile::launch::mpi::Mpi;
use crate::profile::launch::{Planned, Tree};
use crate::profile::measured::traffic::{self, Caches};
use crate::profile::views::point::Shown;
use crate::profile::views::timeline::Every;
use crate::results::{self, Document, apps};
use clap::Args;
use std::path::{Path, PathBuf};

/// How W and Q are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CountsMode {
    /// The PMU where it is usable, else emulation where QEMU is installed.
    Auto,
    /// Hardware counters.
    Pmu,
    /// QEMU user-mode emulation with carmbench's counting plugin.
    Emulate,
    /// Counts given with --flops and --bytes.
    Manual,
}

/// `carmbench profile`'s flags, as typed.
#[derive(Debug, Clone, Args)]
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
    #[arg(long, value_name = "N", default_value_t = traffic::SAMPLE, requires = "traffic")]
    pub traffic_sample: u64,
    /// A point for each of the N functions that took the most time (default
    /// 10) and one for the rest: W and Q counted by emulation, time from
    /// native samples of the software cpu-clock event (no PMU needed).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10")]
    pub functions: Option<usize>,
    /// A point for each of the N loops that took the most time (default 10)
    /// in the hottest functions, and one for the rest of each of those
    /// functions: found in the control flow the emulated run took, W and Q
    /// counted per loop, time from native samples (emulation only).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10")]
    pub loops: Option<usize>,
    /// The run over time: its counts in windows (100 over the run, or one
    /// every WINDOW, e.g. 20ms), emulated ones placed in the native run's
    /// time by the functions that ran (or the PMU's events sampled in time);
    /// consecutive windows alike in intensity and rate joined into phases, a
    /// point each.
    #[arg(long, value_name = "WINDOW", num_args = 0..=1, default_missing_value = "auto", value_parser = window)]
    pub timeline: Option<Every>,
    /// The arithmetic of the counts, for the roofs the point is placed under:
    /// dp, sp or a narrow type (int8, int16, bf16, fp16, int32: --flops as
    /// its operations). Emulation finds it by itself (the type most of the
    /// work is); the PMU counts dp and sp only.
    #[arg(long, value_name = "PRECISION")]
    pub precision: Option<Precision>,
    /// Under emulation, hide these CPU features from the program too (QEMU's
    /// names: avx2,fma,sse4.2, ...): what its code does without them.
    #[arg(long, value_name = "FEATURE", value_delimiter = ',')]
    pub emulate_without: Vec<String>,
    /// Threads the command runs (compared with the roofs of that thread count).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Stop the command when a run of it (native, or emulated) takes longer
    /// than this (e.g. 90s, 10m): nothing is written.
    #[arg(long, value_name = "DURATION", value_parser = timeout)]
    pub timeout: Option<std::time::Duration>,
    /// The command is an MPI launch (Open MPI's mpirun or mpiexec, MPICH's
    /// mpiexec, Slurm's srun, with their options): every rank is counted and
    /// timed; one point for the program (W and Q summed over the ranks, T
    /// the slowest rank's) and one for each rank.
    #[arg(long)]
    pub mpi: bool,
    /// A CUDA program's GPU kernels, counted by Nsight Compute (ncu): a
    /// point per kernel and one for its GPU work, placed under the GPU's
    /// roofs; the CPU's work is not counted.
    #[arg(long, conflicts_with_all = ["flops", "bytes", "count_with", "traffic", "functions", "loops", "timeline", "mpi", "precision", "emulate_without", "access_bytes", "plugin", "threads", "counts"])]
    pub gpu: bool,
    /// Results to compare with [default: carm-results/carm.yaml].
    #[arg(long, value_name = "RESULTS")]
    pub results: Option<PathBuf>,
    /// The command and its arguments, run directly (no shell).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// How the work is counted, resolved.
#[derive(Debug, Clone)]
pub enum Counting {
    /// Given by hand.
    Manual(Manual),
    /// The PMU's events.
    Pmu(Pmu),
    /// Emulation.
    Emulate(Box<Emulation>),
}

impl Counting {
    /// The counter.
    pub fn counter(&self) -> &dyn Counter {
        match self {
            Counting::Manual(c) => c,
            Counting::Pmu(c) => c,
            Counting::Emulate(c) => c.as_ref(),
        }
    }
}

/// What `profile` will do.
#[derive(Debug, Clone)]
pub struct ProfilePlan {
    /// The program's point's name.
    pub name: String,
    /// The command.
    pub command: Found,
    /// How its work is counted.
    pub counting: Counting,
    /// What is run: the command's process tree, or, with `--mpi`, the MPI
    /// job it launches, whose ranks run its program.
    pub launch: Planned,
    /// Points for this many of the hottest functions, and the rest.
    pub functions: Option<usize>,
    /// Points for this many of the hottest loops, and the rest of their
    /// functions.
    pub loops: Option<usize>,
    /// The arithmetic the counts are, when given.
    pub precision: Option<Precision>,
    /// Threads the command runs, when given.
    pub threads: Option<usize>,
    /// The run in windows of time, and its phases.
    pub timeline: Option<Every>,
    /// The apps file to write or extend.
    pub out: PathBuf,
    /// The results the points are placed under.
    pub results_path: PathBuf,
    /// Those results, when there are.
    pub results: Option<Document>,
    /// What resolving found to say.
    pub warnings: Vec<Warning>,
}

/// Why the PMU cannot count a narrow type.
const NARROW_PMU: &str = "--precision of a narrow type places counts of emulation (--counts emulate) or given by hand (--flops as its ops, --bytes); the PMU counts FP flops of dp and sp";

impl ProfilePlan {
    /// What the points show, as asked.
    pub fn shown(&self) -> Shown {
        Shown {
            name: self.name.clone(),
            functions: self.functions,
            loops: self.loops,
            precision: self.precision,
            threads: self.threads,
            timeline: self.timeline,
        }
    }

    /// Settle `a`: everything that can be refused is, before the command
    /// runs (twice, natively and counted): the apps file, its folder and the
    /// results, the command, and the flags together.
    pub fn resolve(a: &ProfileArgs) -> Result<ProfilePlan> {
        let Common {
            out,
            results_path,
            results,
            warnings,
        } = Common::resolve(a)?;
        let caches = match a.traffic {
            true => Some(caches(results.as_ref(), a.traffic_sample)?),
            false => None,
        };
        let mut found = command::find(&a.command)?;
        found.timeout = a.timeout;
        let mpi = match a.mpi {
            true => Some(mpi(&a.command, &found, &out)?),
            false => None,
        };
        // A rank's program is what is counted, and names the point.
        let program = mpi.as_ref().map_or(&found, |m| &m.program);
        let counting = counting(a, program, caches)?;
        if mpi.is_some() && matches!(counting, Counting::Manual(_)) {
            return Err(Error::input(
                "--mpi counts each rank (by emulation or the PMU): leave out --flops and --bytes",
            ));
        }
        let named = match &mpi {
            Some(m) => std::ffi::OsStr::new(&m.launch.program),
            None => found.argv0.as_os_str(),
        };
        let name = a.name.clone().unwrap_or_else(|| default_name(named));
        let launch = match mpi {
            Some(m) => Planned::Mpi(m),
            None => Planned::Tree(Tree {
                command: found.clone(),
            }),
        };
        Ok(ProfilePlan {
            name,
            command: found,
            counting,
            launch,
            // Loops are found in the hottest functions.
            functions: a.functions.or(a.loops.map(|_| 10)),
            loops: a.loops,
            precision: a.precision,
            threads: a.threads,
            timeline: a.timeline,
            out,
            results_path,
            results,
            warnings,
        })
    }
}

/// What every profile resolves first: the apps file, the results.
pub struct Common {
    /// The apps file to write or extend.
    pub out: PathBuf,
    /// The results the points are placed under.
    pub results_path: PathBuf,
    /// Those results, when there are.
    pub results: Option<Document>,
    /// What resolving found to say.
    pub warnings: Vec<Warning>,
}

impl Common {
    /// The checked `--name`, apps file and results of `a`.
    pub fn resolve(a: &ProfileArgs) -> Result<Common> {
        if a.name.as_ref().is_some_and(|n| n.trim().is_empty()) {
            return Err(Error::input(
                "--name is empty; give the point a name, or leave --name out for the command's file name",
            ));
        }
        if a.name
            .as_ref()
            .is_some_and(|n| n.chars().any(char::is_control))
        {
            return Err(Error::input(
                "--name holds a control character (a newline, a tab); give a name on one line",
            ));
        }
        let out = (a.output.clone()).unwrap_or_else(|| PathBuf::from(files::names::APPS));
        files::check_output(&out, OutputKind::Yaml, &[], "-o")?;
        if out.exists() {
            apps::load(&out)?;
        }
        let results_path = (a.results.clone()).unwrap_or_else(files::names::default_results);
        let mut warnings = Vec::new();
        let results = match (&a.results, results::load(&results_path)) {
            (_, Ok(doc)) => Some(doc),
            (Some(_), Err(e)) => return Err(e),
            (None, Err(_)) if !results_path.exists() => None,
            (None, Err(e)) => {
                warnings.push(Warning::ResultsUnreadable(e.to_string()));
                None
            }
        };
        Ok(Common {
            out,
            results_path,
            results,
            warnings,
        })
    }
}

/// The MPI launch `command` is (its launcher found), its program found,
/// the ranks writing beside the apps file `out`.
fn mpi(command: &[std::ffi::OsString], launcher: &Found, out: &Path) -> Result<Mpi> {
    // The launcher's options are read as text.
    let words: Vec<String> = (command.iter())
        .map(|w| w.to_str().map(String::from))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            Error::input(
                "--mpi: a word of the launch command is not UTF-8; carmbench reads the launcher's options as text: give the program and its arguments a UTF-8 name",
            )
        })?;
    let launch = MpiCommand::split(&words, &launcher.path)?;
    let args: Vec<std::ffi::OsString> = launch.args.iter().map(Into::into).collect();
    let mut program = command::found(&launch.program, &args)?;
    program.timeout = launcher.timeout;
    Ok(Mpi {
        launch,
        program,
        launcher: launcher.path.clone(),
        shared: std::path::absolute(out)
            .ok()
            .and_then(|o| Some(o.parent()?.to_path_buf()))
            .unwrap_or_else(|| PathBuf::from(".")),
    })
}

/// A `--timeout`: a duration above zero.
/// `--timeline`'s WINDOW: a duration, or `auto` (as when none is given).
fn window(s: &str) -> std::result::Result<Every, String> {
    if s == "auto" {
        return Ok(Every::Auto);
    }
    match humantime::parse_duration(s) {
        Ok(d) if d.as_secs_f64() >= 1e-3 => Ok(Every::Seconds(d.as_secs_f64())),
        Ok(_) => Err("give a window of 1ms or more, e.g. 20ms".into()),
        Err(e) => Err(format!(
            "{e}; give a window such as 20ms or 0.5s, or none for 100 windows over the run"
        )),
    }
}

fn timeout(s: &str) -> std::result::Result<std::time::Duration, String> {
    match humantime::parse_duration(s) {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err("give a duration above zero, e.g. 90s or 10m".into()),
        Err(e) => Err(format!("{e}; give a duration such as 90s or 10m")),
    }
}

/// The file name of the program given as `program`.
pub(crate) fn default_name(program: &std::ffi::OsStr) -> String {
    let name = Path::new(program).file_name().unwrap_or(program);
    match name.is_empty() {
        true => "app".into(),
        false => name.to_string_lossy().into_owned(),
    }
}

/// The caches to simulate: those of the machine the roofs were measured
/// on, else this one's.
fn caches(results: Option<&Document>, sample: u64) -> Result<Caches> {
    let live;
    let machine = match results {
        Some(doc) => &doc.machine.topology,
        None => {
            live = crate::machine::Machine::load(&crate::machine::Source::Live)?;
            &live
        }
    };
    traffic::caches(machine, sample)
}

/// How the work is counted, and whether the flags that go with one way of
/// counting were given with another.
fn counting(a: &ProfileArgs, found: &Found, caches: Option<Caches>) -> Result<Counting> {
    let twin = (a.count_with.as_deref())
        .map(|t| command::found(t, &found.args))
        .transpose()?
        .map(|t| Found {
            timeout: found.timeout,
            ..t
        });
    let by_hand = a.flops.is_some() || a.bytes.is_some();
    if twin.is_some() && (by_hand || matches!(a.counts, CountsMode::Pmu | CountsMode::Manual)) {
        return Err(Error::input(
            "--count-with names a twin build to count by emulation: give it with --counts emulate (or auto), without --flops and --bytes",
        ));
    }
    // The PMU counts FP flops; the narrow types' ops by emulation or by hand.
    let narrow = a.precision.is_some_and(|p| p.own_ops().is_some());
    if narrow && matches!(a.counts, CountsMode::Pmu) {
        return Err(Error::input(NARROW_PMU));
    }
    let resolved = mode(a)?;
    let emulating = matches!(resolved, Counting::Emulate(_));
    if narrow && matches!(resolved, Counting::Pmu(_)) {
        return Err(Error::input(NARROW_PMU));
    }
    if caches.is_some() && !emulating {
        return Err(Error::input(
            "--traffic simulates the caches under emulation: give --counts emulate (without --flops and --bytes)",
        ));
    }
    if twin.is_some() && !emulating {
        return Err(Error::input(
            "--count-with names a twin build to count by emulation, but the PMU counts here: give --counts emulate",
        ));
    }
    if a.loops.is_some() && !emulating {
        return Err(Error::input(
            "--loops finds loops in the control flow the emulated run records: give --counts emulate (without --flops and --bytes)",
        ));
    }
    if a.timeline.is_some() && matches!(resolved, Counting::Manual(_)) {
        return Err(Error::input(
            "--timeline counts the run in windows of time, by emulation or the PMU: leave out --flops and --bytes",
        ));
    }
    if a.loops == Some(0) {
        return Err(Error::input(
            "--loops 0 shows no loop; give how many of the hottest to show (default 10)",
        ));
    }
    if !a.emulate_without.is_empty() && !emulating {
        return Err(Error::input(
            "--emulate-without hides CPU features from an emulated program: give --counts emulate (without --flops and --bytes)",
        ));
    }
    Ok(match resolved {
        Counting::Emulate(e) => Counting::Emulate(Box::new(Emulation {
            caches,
            twin,
            loops: a.loops.is_some(),
            windows: a.timeline,
            ..*e
        })),
        other => other,
    })
}

/// The PMU's events for this CPU, when the PMU counts here.
fn pmu_here(access_bytes: Option<f64>) -> Result<Pmu> {
    crate::profile::launch::perf::present()?;
    let id = cpuid::cpuid();
    let family = crate::profile::measured::events::family_of(&id).ok_or_else(|| {
        Error::input(format!(
            "no PMU event table for this CPU ({} family {:#x} model {:#x}; configs/events.yaml lists Zen 3/4/5, Skylake-SP, Ice Lake-SP, Sapphire Rapids)",
            id.vendor, id.family, id.model
        ))
    })?;
    crate::profile::launch::perf::usable(&family)?;
    Ok(Pmu {
        family,
        access_bytes,
    })
}

/// Emulation, when QEMU, the plugin and the preload library are here.
fn emulation(plugin: Option<&Path>, without: &[&'static Flag]) -> Result<Counting> {
    Emulator::find_without(plugin, without).map(|emulator| {
        Counting::Emulate(Box::new(Emulation {
            emulator,
            caches: None,
            twin: None,
            loops: false,
            windows: None,
        }))
    })
}

/// The flags' own ranges, then the way of counting they ask for.
fn mode(a: &ProfileArgs) -> Result<Counting> {
    if let Some(b) = a.access_bytes
        && !(b.is_finite() && (1.0..=64.0).contains(&b))
    {
        return Err(Error::input(format!(
            "--access-bytes is {b}; give the bytes of one access, 1 to 64"
        )));
    }
    let cpus = crate::machine::online_cpus();
    if let Some(t) = a.threads.filter(|&t| t == 0 || t > cpus) {
        return Err(Error::input(format!(
            "--threads is {t}; give the threads the command runs, 1 to {cpus} (this machine's hardware threads)"
        )));
    }
    let manual = manual(a)?;
    if a.functions == Some(0) {
        return Err(Error::input(
            "--functions 0 shows no function; give how many of the hottest to show (default 10)",
        ));
    }
    if a.functions.is_some() && (manual.is_some() || a.counts == CountsMode::Manual) {
        return Err(Error::input(
            "--functions counts each function's flops and bytes (by emulation or the PMU): leave out --flops and --bytes",
        ));
    }
    let plugin = a.plugin.as_deref();
    let without = without(a)?;
    let emulation = |plugin| emulation(plugin, &without);
    match (a.counts, manual) {
        (CountsMode::Auto | CountsMode::Manual, Some(m)) => Ok(Counting::Manual(m)),
        (CountsMode::Manual, None) => Err(Error::input(
            "--counts manual needs --flops N and --bytes M",
        )),
        (_, Some(_)) => Err(Error::input(
            "--flops and --bytes are manual counts; leave out --counts, or count without them",
        )),
        (CountsMode::Pmu, None) => pmu_here(a.access_bytes).map(Counting::Pmu),
        (CountsMode::Emulate, None) => emulation(plugin),
        (CountsMode::Auto, None) => match pmu_here(a.access_bytes) {
            Ok(p) => Ok(Counting::Pmu(p)),
            Err(p) => emulation(plugin).map_err(|e| {
                Error::input(format!(
                    "cannot count this command's flops and bytes here: the PMU: {p}; emulation: {e}; or give the counts (--flops N --bytes M)"
                ))
            }),
        },
    }
}

/// The features `--emulate-without` names, each known.
fn without(a: &ProfileArgs) -> Result<Vec<&'static Flag>> {
    (a.emulate_without.iter())
        .map(|n| {
            identity::flag(n.trim()).ok_or_else(|| {
                let isa: Vec<&str> = (identity::FLAGS.iter())
                    .filter(|f| f.isa)
                    .map(|f| f.name)
                    .collect();
                Error::input(format!(
                    "--emulate-without {n}: no such CPU feature; give QEMU's names: {}",
                    isa.join(", ")
                ))
            })
        })
        .collect()
}

/// The counts given by hand, checked; none when neither is given.
fn manual(a: &ProfileArgs) -> Result<Option<Manual>> {
    match (a.flops, a.bytes) {
        (Some(flops), Some(bytes)) => {
            apps::manual_counts(flops, bytes)?;
            Ok(Some(Manual { flops, bytes }))
        }
        (None, None) => Ok(None),
        _ => Err(Error::input(
            "give both --flops and --bytes (manual counts), or neither (counted)",
        )),
    }
}
