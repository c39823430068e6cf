//! Placing applications on the chart: their work W (flops, or ops of a
//! narrow type), traffic Q (bytes requested by the core) and time T, for
//! the whole command, its processes, its regions and its hottest functions.
//!
//! One data flow; each step is a folder, lowest first, and a step imports
//! only from the steps below it (docs/layout.md walks them):
//! 1. **Ground** ([`ground`]): the functions of a run's files, the language
//!    runtimes, what could not be counted or placed ([`ground::warnings`]).
//! 2. **What was measured** ([`measured`]): one [`measured::Measured`]
//!    value: the [`measured::work::Work`] of the command, of each process,
//!    region, block of code and rank, the samples
//!    ([`measured::samples`]), the PMU's event tables and their arithmetic
//!    ([`measured::events`]), the simulated caches' traffic, and how it was
//!    counted; [`measured::fold`] joins the ranks' parts into it.
//! 3. **Launch** ([`launch`]): everything that runs a program: the command
//!    found, one process tree or an MPI job of ranks, natively (timed,
//!    sampled, or counted under perf) or under the emulator.
//! 4. **Counter** ([`counter`]): each way of counting (by hand, the PMU,
//!    emulation), written once against a launch, measures each rank.
//! 5. **Views** ([`views`]): the points are views over that one value and
//!    the options shown ([`views::point::Shown`]), never the plan: the
//!    program, its regions, functions, loops, ranks and phases.
//! 6. **Plan** ([`plan`]): the flags resolved into a [`ProfilePlan`]; every
//!    refusal made before anything runs. GPU kernels are profiled by
//!    [`gpu`] under Nsight Compute.
//!
//! Where each point sits under the roofs is `results::placement`'s, read by
//! profile, report, predict and the chart alike.

pub mod counter;
pub mod gpu;
pub mod ground;
pub mod launch;
pub mod measured;
pub mod plan;
pub mod views;

pub use plan::{CountsMode, ProfileArgs, ProfilePlan};

use crate::error::{Error, Result};
use crate::results::apps::AppPoint;
use ground::warnings::Warning;
use measured::{Measured, Method};

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
    pub fn of(shown: &views::point::Shown, measured: Measured) -> Profiled {
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
