//! Placing applications on the chart: their work W (flops, or ops of a
//! narrow type), traffic Q (bytes requested by the core) and time T, for
//! the whole command, its processes, its regions and its hottest functions.
//!
//! One data flow, each step its own module (docs/layout.md walks it):
//! 1. **Plan** ([`plan`]): the flags resolved into a [`ProfilePlan`]: the
//!    command found ([`command`]), the launch, its counter, what to show,
//!    where the points go; every refusal made before anything runs.
//! 2. **Launch** ([`launch`]): what is run, one process tree or an MPI job
//!    of ranks, natively ([`native`], sampled by [`sample`]) or under the
//!    emulator ([`emulator`]); each rank's run.
//! 3. **Counter** ([`counter`]): each way of counting (by hand, the PMU in
//!    [`pmu`], emulation in [`counter::emulation`]), written once for every launch,
//!    measures each rank, and [`fold`] joins them into one
//!    [`measured::Measured`]: the [`work::Work`] of the command, of each
//!    process, region, block of code and rank, the samples, and how it was
//!    counted.
//! 4. **Views** ([`views`]): the points are views over that one value and
//!    the options shown ([`point::Shown`]), never the plan: the program,
//!    its regions, functions ([`functions`], named by one [`symbols`] per
//!    run), loops and ranks ([`mpi`]), each made by [`point::Own::point`]
//!    from its work ([`work::Basis`] turns work into W and Q, with the
//!    simulated caches' traffic of [`traffic`]).
//! 5. **Placement** (`results::placement`): where each point sits under the
//!    roofs, read by profile, report, predict and the chart alike.
//!
//! What cannot be counted or placed is a [`warnings::Warning`], printed by
//! the command.

pub mod code_paths;
pub mod command;
pub mod counter;
pub mod cpu_use;
pub mod emulator;
pub mod flow_graph;
pub mod fold;
pub mod functions;
pub mod gpu;
pub mod identity;
pub mod input;
pub mod launch;
pub mod loop_points;
pub mod mask;
pub mod measured;
pub mod mpi;
pub mod native;
pub mod plan;
pub mod plugin_counts;
pub mod pmu;
pub mod point;
pub mod runtime;
pub mod sample;
pub mod signals;
pub mod stderr;
pub mod symbols;
pub mod timeline;
pub mod traffic;
pub mod tree;
pub mod twin;
pub mod views;
pub mod warnings;
pub mod work;

pub use plan::{CountsMode, ProfileArgs, ProfilePlan};

use crate::error::{Error, Result};
use crate::results::apps::AppPoint;
use measured::{Measured, Method};
use warnings::Warning;

/// What profiling gave.
#[derive(Debug, Clone)]
pub struct Profiled {
    /// The points to write: the program's first, then its functions' and
    /// regions'.
    pub points: Vec<AppPoint>,
    /// How they were counted, for people.
    pub note: Option<String>,
    /// What was not counted or placed.
    pub warnings: Vec<Warning>,
    /// Seconds the command ran natively.
    pub seconds: f64,
    /// CPU seconds its processes used natively, when sampled.
    pub cpu_seconds: Option<f64>,
    /// How the work was counted.
    pub method: Method,
}

/// Flop/s below which a command that ran over a second is taken to have
/// done its work where the counters did not look.
const MIN_FLOP_RATE: f64 = 1e6;

/// Profile the command of `plan`: count it and make its points.
pub fn profile(plan: &ProfilePlan) -> Result<Profiled> {
    // A timeline places its windows in the native run's time by samples.
    let sampled = plan.functions.is_some() || plan.timeline.is_some();
    let measured = (plan.counting.counter()).measure(plan.launch.launch(), sampled)?;
    Ok(Profiled::of(&plan.shown(), measured))
}

impl Profiled {
    /// The points `shown` asks for of what was `measured`.
    pub fn of(shown: &point::Shown, measured: Measured) -> Profiled {
        let (points, warnings) = views::points(shown, &measured);
        Profiled {
            points,
            note: measured.note,
            warnings,
            seconds: measured.seconds,
            cpu_seconds: measured.samples.as_ref().map(|s| s.cpu_seconds),
            method: measured.method,
        }
    }

    /// Refuse points that cannot be right, and keep those that can be
    /// placed (every function point is kept, listed even without work):
    /// the others become warnings, added after those already said.
    pub fn check(&mut self, plan: &ProfilePlan) -> Result<()> {
        let prog = &plan.command.given;
        // A long run that counted next to nothing most likely counted the
        // wrong process: never a silent zero, nor a point a thousand times
        // below every roof.
        if let Some(whole) = self.points.first()
            && whole.seconds > 1.0
            && whole.flops < MIN_FLOP_RATE * whole.seconds
        {
            return Err(Error::input(format!(
                "'{prog}' counted {} {} in {:.1} s natively (under 1 M/s){}; no point written: count the program that does the work, or give --flops and --bytes",
                whole.flops,
                whole.precision.map_or("flops", |p| p.unit()),
                whole.seconds,
                self.why_so_little()
            )));
        }
        let (placeable, empty): (Vec<AppPoint>, Vec<AppPoint>) = std::mem::take(&mut self.points)
            .into_iter()
            .partition(|p| p.placeable() || p.function().is_some() || p.phase().is_some());
        (self.warnings).extend(empty.into_iter().map(|p| Warning::NotPlaced(p.name)));
        if placeable.is_empty() {
            return Err(Error::input(format!(
                "'{prog}' did no floating-point work the counters saw: nothing to place"
            )));
        }
        self.points = placeable;
        Ok(())
    }

    /// Why a long run counted so little, as far as it was checked: work in
    /// programs not followed, or time spent waiting, not computing.
    fn why_so_little(&self) -> String {
        let unfollowed = self.warnings.iter().any(|w| {
            matches!(
                w,
                Warning::NotFollowed { .. }
                    | Warning::StartedNatively { .. }
                    | Warning::LostCounts(_)
            )
        });
        match (unfollowed, self.cpu_seconds) {
            (true, _) => {
                ": work was done in processes carmbench could not follow (see the warnings above)"
                    .into()
            }
            (false, Some(c)) if c < 0.5 * self.seconds => format!(
                ": it used the CPU {c:.2} s of its {:.1} s, and waited the rest",
                self.seconds
            ),
            (false, _) => String::new(),
        }
    }
}
