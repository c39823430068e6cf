//! One sweep: a validation kernel run at every intensity of the sweep on
//! one level's buffer, against one FP roof and one bandwidth roof; and the
//! second look at its points that look slowed.

use crate::error::{Error, Result};
use crate::kernels::{Kernel, Mix, Op, Precision, Shape};
use crate::machine::{Level, Scope};
use crate::measure::bench::{Bench, Measurement, Settings, measure_steady};
use crate::measure::guard::{CoreGuard, Sharing};
use crate::measure::{interrupt, keep_faster};
use crate::units::human_bytes;
use indicatif::ProgressBar;
use std::time::Duration;

/// One sweep to run.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Threads, one per core.
    pub threads: usize,
    /// Precision of the kernel and its FP roof.
    pub precision: Precision,
    /// FP op of the kernel and its FP roof.
    pub op: Op,
    /// Access mix of the kernel and its bandwidth roof.
    pub mix: Mix,
    /// The level its buffer is sized for.
    pub level: Level,
    /// Whom the level serves on this machine.
    pub scope: Scope,
    /// The validation kernel.
    pub kernel: &'static Kernel,
    /// Buffer per thread.
    pub bytes: u64,
    /// The FP roof, per cycle.
    pub fp_per_cycle: f64,
    /// The bandwidth roof, per cycle.
    pub bw_per_cycle: f64,
    /// The bandwidth roof, GB/s.
    pub bw_gb_per_s: f64,
    /// The bandwidth roof's own kernel, measured again just before and just
    /// after the sweep: for levels not the core's own, whose bandwidth other
    /// cores and other tenants of the host share.
    pub reference: Option<&'static Kernel>,
    /// The kernel's prefetching twin, for the same levels.
    pub prefetching: Option<&'static Kernel>,
    /// Ridge intensity of the two roofs, flop/byte.
    pub ridge: f64,
    /// The shapes it runs, by intensity.
    pub shapes: Vec<Shape>,
}

/// From this fraction of the ridge's intensity up, points of levels off the
/// core run the prefetching twin of their kernel: there the FP instructions
/// beside each line fill the reorder buffer and too few lines stay in
/// flight, while below it the hardware prefetchers keep up alone and the
/// twin's extra accesses only cost (docs/evidence.md, "Prefetching twins").
pub const PREFETCH_FROM: f64 = 0.5;

impl Sweep {
    /// The kernel a shape runs (see [`PREFETCH_FROM`]).
    pub fn kernel_for(&self, s: Shape) -> &'static Kernel {
        match self.prefetching {
            Some(p) if self.kernel.decl.intensity(s) >= PREFETCH_FROM * self.ridge => p,
            _ => self.kernel,
        }
    }

    /// Steps it adds to a progress bar: its points and its reference runs.
    pub fn steps(&self) -> usize {
        self.shapes.len() + 2 * usize::from(self.reference.is_some())
    }
}

impl crate::measure::campaign::Work for Sweep {
    type Key = Level;
    fn key(&self) -> (usize, Level) {
        (self.threads, self.level)
    }
    fn alloc(&self) -> usize {
        use crate::measure::pool::alloc_for;
        self.shapes
            .iter()
            .map(|&s| alloc_for(self.kernel_for(s), self.bytes, s))
            .chain(self.reference.map(|r| alloc_for(r, self.bytes, Shape::ONE)))
            .max()
            .unwrap_or(0)
    }
}

/// What one sweep measured.
#[derive(Debug)]
pub struct SweepData {
    /// Each shape's measurement.
    pub points: Vec<(Shape, Measurement)>,
    /// The bandwidth roof's kernel just before the sweep, GB/s.
    pub before: Option<f64>,
    /// And just after.
    pub after: Option<f64>,
    /// Per point: kept although the probe after it found the threads
    /// sharing a core.
    pub kept_shared: Vec<bool>,
    /// What the guard saw during the sweep.
    pub sharing: Sharing,
}

/// A point of a level that is the core's own this far below its expected
/// value (twice the level's CV limit) gets a second look after the other
/// sweeps of its level: a roof is the fastest of many samples over several
/// sizes, and a point measured in a slow moment of a shared host would be
/// compared with less luck than its roof had. Levels off the core are
/// compared with their roof's kernel measured around the sweep instead.
pub fn looks_slowed(scope: Scope, deviation: f64) -> bool {
    scope.own_core() && deviation < -2.0 * scope.cv_limit()
}

/// What the sweeps of one bench measure with: the bench, the settings, the
/// progress bar and the guard against threads sharing a core.
pub struct Sweeper<'a> {
    /// The bench.
    pub bench: &'a dyn Bench,
    /// Samples and attempts of a point.
    pub settings: &'a Settings,
    /// Progress.
    pub bar: &'a ProgressBar,
    /// The guard, if any.
    pub guard: Option<&'a mut CoreGuard>,
}

impl Sweeper<'_> {
    /// Run one sweep; `None` when Ctrl-C stopped it before any point.
    pub fn run(&mut self, sweep: &Sweep) -> Result<Option<SweepData>> {
        self.bar.set_message(format!(
            "{} {} {} {} thread(s) {}",
            sweep.level,
            sweep.mix,
            sweep.op,
            sweep.threads,
            human_bytes(sweep.bytes)
        ));
        let before = self.reference(sweep)?;
        let seen = self.seen();
        self.wait_alone()?;
        let (mut points, mut kept_shared) = (Vec::new(), Vec::new());
        for &s in &sweep.shapes {
            if interrupt::requested() {
                break;
            }
            let (m, shared) = self.point(sweep, s)?;
            points.push((s, m));
            kept_shared.push(shared);
            self.bar.inc(1);
        }
        if points.is_empty() {
            return Ok(None);
        }
        let after = self.reference(sweep)?;
        Ok(Some(SweepData {
            points,
            before,
            after,
            kept_shared,
            sharing: self.seen() - seen,
        }))
    }

    /// The bandwidth roof's kernel on the sweep's buffer, GB/s (levels off
    /// the core only).
    fn reference(&mut self, sweep: &Sweep) -> Result<Option<f64>> {
        let Some(k) = sweep.reference.filter(|_| !interrupt::requested()) else {
            return Ok(None);
        };
        let m = measure_steady(
            self.bench,
            k,
            sweep.bytes,
            self.settings,
            Shape::ONE,
            sweep.scope.cv_limit(),
        )
        .map_err(|e| Error::Io(format!("{}: {e}", k.decl.name)))?;
        self.bar.inc(1);
        Ok(Some(m.value() / 1e9))
    }

    /// A point, and with a guard the probe after it (see
    /// [`CoreGuard::measure`]): its measurement and whether it was kept
    /// while the threads shared a core.
    fn point(&mut self, sweep: &Sweep, s: Shape) -> Result<(Measurement, bool)> {
        let k = sweep.kernel_for(s);
        let settings = self.settings;
        let measure = |b: &dyn Bench| {
            measure_steady(b, k, sweep.bytes, settings, s, sweep.scope.cv_limit())
                .map_err(|e| format!("{}: {e}", k.decl.name))
        };
        match self.guard.as_deref_mut() {
            Some(g) => g.measure(self.bench, measure),
            None => measure(self.bench).map(|m| (m, false)),
        }
        .map_err(Error::Io)
    }

    /// With a guard, wait for the threads to have their cores: whether they
    /// have them (without a guard, as far as is known).
    fn wait_alone(&mut self) -> Result<bool> {
        match self.guard.as_deref_mut() {
            Some(g) => g.wait_alone(self.bench).map_err(Error::Io),
            None => Ok(true),
        }
    }

    /// What the guard saw so far.
    fn seen(&self) -> Sharing {
        self.guard.as_ref().map(|g| g.seen).unwrap_or_default()
    }

    /// Measure again the points of `data` whose `deviations` (one per point)
    /// [`looks_slowed`], that had steal, or that were kept while the threads
    /// shared a core, keeping the faster per cycle of each, until the
    /// bench's clock reaches `until`. A point is measured again only once
    /// the cores are left alone: in a spell that outlasts the guard's waits
    /// a second look would only cost time.
    pub fn second_look(
        &mut self,
        sweep: &Sweep,
        data: &mut SweepData,
        deviations: &[f64],
        until: Duration,
    ) -> Result<()> {
        let seen = self.seen();
        let points = data.points.iter_mut().zip(data.kept_shared.iter_mut());
        for (&dev, ((s, m), kept_shared)) in deviations.iter().zip(points) {
            if interrupt::requested() || self.bench.now() >= until {
                break;
            }
            if !(looks_slowed(sweep.scope, dev) || m.stolen() || *kept_shared) {
                continue;
            }
            if !self.wait_alone()? {
                continue;
            }
            self.bar.inc_length(1);
            let (again, shared) = self.point(sweep, *s)?;
            self.bar.inc(1);
            let shared_before = *kept_shared;
            *kept_shared = if keep_faster(m, again) {
                shared
            } else {
                shared_before
            };
        }
        data.sharing = data.sharing + (self.seen() - seen);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Role, find};
    use crate::machine::isa::Isa;
    use crate::validate::shapes::{shapes, targets};

    #[test]
    fn only_points_far_under_a_core_own_roof_get_a_second_look() {
        // More than twice the 3% CV limit under the expected value.
        assert!(looks_slowed(Scope::Core, -0.07));
        assert!(looks_slowed(Scope::Core, -0.30));
        assert!(!looks_slowed(Scope::Core, -0.05));
        assert!(!looks_slowed(Scope::Core, 0.20));
        // Shared levels are compared with their roof measured around the
        // sweep instead, however far under.
        assert!(!looks_slowed(Scope::Shared, -0.50));
        assert!(!looks_slowed(Scope::Memory, -0.50));
    }

    #[test]
    fn shared_levels_run_the_prefetching_twin_from_half_the_ridge_up() {
        let role = |prefetching| Role::Validation {
            mix: Mix::Load,
            op: Op::Fma,
            precision: Precision::Dp,
            prefetching,
        };
        let plain = find(Isa::Avx2, role(false)).unwrap();
        let twin = find(Isa::Avx2, role(true)).unwrap();
        let sweep = sweep_at(Level::Dram, Scope::Memory, plain, Some(twin));
        let (mut low, mut high) = (0, 0);
        for &s in &sweep.shapes {
            let k = sweep.kernel_for(s);
            if plain.decl.intensity(s) >= PREFETCH_FROM * sweep.ridge {
                assert_eq!(k.decl.name, twin.decl.name);
                high += 1;
            } else {
                assert_eq!(k.decl.name, plain.decl.name);
                low += 1;
            }
        }
        // Both kinds in one sweep, each several points.
        assert!(low >= 3 && high >= 3, "{low} plain, {high} prefetching");
        let l1 = sweep_at(Level::L1, Scope::Core, plain, None);
        assert!(
            l1.shapes
                .iter()
                .all(|s| l1.kernel_for(*s).decl.prefetch == 0)
        );
    }

    /// A 1-thread sweep of `kernel` at `level`, ridge 2.5 flop/byte.
    pub fn sweep_at(
        level: Level,
        scope: Scope,
        kernel: &'static Kernel,
        prefetching: Option<&'static Kernel>,
    ) -> Sweep {
        let ridge = 2.5;
        Sweep {
            threads: 1,
            precision: Precision::Dp,
            op: Op::Fma,
            mix: Mix::Load,
            level,
            scope,
            kernel,
            bytes: 1 << 20,
            fp_per_cycle: 16.0,
            bw_per_cycle: 6.4,
            bw_gb_per_s: 20.0,
            reference: None,
            prefetching,
            ridge,
            shapes: shapes(&kernel.decl, &targets(&[ridge])),
        }
    }
}
