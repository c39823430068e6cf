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

/// Between these fractions of the ridge's intensity, points of levels off the
/// core have two forms of their kernel, plain and prefetching twin: which
/// keeps more lines in flight beside the FP work differs by machine, and
/// either can lose there by a fifth or more (docs/evidence.md, "Both forms
/// near the ridge"). Below, the
/// plain form runs alone (the hardware prefetchers keep up and the twin's
/// extra accesses only cost); above, the twin (the FP work leaves the memory
/// system idle most of the time).
pub const BOTH_FORMS: (f64, f64) = (1.0 / 16.0, 2.0);

/// Where both forms exist, the plain one runs first below this fraction of
/// the ridge and the twin first from it; the other runs too only when the
/// first falls short (see [`OTHER_FORM_UNDER`]).
pub const TWIN_FIRST_FROM: f64 = 0.5;

/// A point whose first form delivers this much less than min(P, AI x B), B
/// the roof's kernel just before the sweep, runs the other form as well and
/// keeps the faster; a point that holds costs one run.
pub const OTHER_FORM_UNDER: f64 = 0.05;

impl Sweep {
    /// The forms of its kernel a shape may run, the first to try first (see
    /// [`BOTH_FORMS`]).
    pub fn forms(&self, s: Shape) -> Vec<&'static Kernel> {
        let Some(twin) = self.prefetching else {
            return vec![self.kernel];
        };
        let at = self.kernel.decl.intensity(s) / self.ridge;
        if at < BOTH_FORMS.0 {
            vec![self.kernel]
        } else if at < TWIN_FIRST_FROM {
            vec![self.kernel, twin]
        } else if at <= BOTH_FORMS.1 {
            vec![twin, self.kernel]
        } else {
            vec![twin]
        }
    }

    /// Whether a point of shape `s` measured at `m` falls short enough of
    /// min(P, AI x B) to try its other form, B being `band` GB/s (without
    /// it, always).
    pub fn falls_short(&self, s: Shape, m: &Measurement, band: Option<f64>) -> bool {
        let Some(band) = band else { return true };
        let ai = self.kernel.decl.intensity(s);
        let bound = crate::roofline::attainable(ai, self.fp_per_cycle * m.clock_ghz(), band);
        m.value() / 1e9 < (1.0 - OTHER_FORM_UNDER) * bound
    }

    /// Steps it adds to a progress bar: its points and its reference runs.
    pub fn steps(&self) -> usize {
        self.shapes.len() + 2 * usize::from(self.reference.is_some())
    }
}

impl crate::measure::campaign::WorkItem for Sweep {
    type Key = Level;
    fn key(&self) -> (usize, Level) {
        (self.threads, self.level)
    }
    fn alloc(&self) -> usize {
        use crate::measure::streams::alloc_for;
        self.shapes
            .iter()
            .flat_map(|&s| self.forms(s).into_iter().map(move |k| (k, s)))
            .map(|(k, s)| alloc_for(k, self.bytes, s))
            .chain(self.reference.map(|r| alloc_for(r, self.bytes, Shape::ONE)))
            .max()
            .unwrap_or(0)
    }
}

/// One measured point of a sweep.
#[derive(Debug)]
pub struct Point {
    /// Its shape.
    pub shape: Shape,
    /// The form of the sweep's kernel kept (the faster where both ran).
    pub kernel: &'static Kernel,
    /// Its measurement.
    pub m: Measurement,
}

/// What one sweep measured.
#[derive(Debug)]
pub struct SweepData {
    /// Each shape's point.
    pub points: Vec<Point>,
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
            let (p, shared) = self.best_form(sweep, s, before)?;
            points.push(p);
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

    /// A shape's point: its first form, and its other form too when the
    /// first [`Sweep::falls_short`] of `band`, keeping the faster per cycle.
    fn best_form(&mut self, sweep: &Sweep, s: Shape, band: Option<f64>) -> Result<(Point, bool)> {
        let forms = sweep.forms(s);
        let (m, mut shared) = self.point(sweep, forms[0], s)?;
        let mut p = Point {
            shape: s,
            kernel: forms[0],
            m,
        };
        if let Some(&other) = forms.get(1).filter(|_| sweep.falls_short(s, &p.m, band)) {
            let (m, sh) = self.point(sweep, other, s)?;
            if keep_faster(&mut p.m, m) {
                (p.kernel, shared) = (other, sh);
            }
        }
        Ok((p, shared))
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
            &self.settings.at(Some(sweep.level)),
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
    fn point(
        &mut self,
        sweep: &Sweep,
        k: &'static Kernel,
        s: Shape,
    ) -> Result<(Measurement, bool)> {
        let settings = self.settings.at(Some(sweep.level));
        let measure = |b: &dyn Bench| {
            measure_steady(b, k, sweep.bytes, &settings, s, sweep.scope.cv_limit())
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
        for (&dev, (p, kept_shared)) in deviations.iter().zip(points) {
            let m = &mut p.m;
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
            let (again, shared) = self.point(sweep, p.kernel, p.shape)?;
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
    use crate::measure::bench::Rig;
    use crate::measure::campaign::WorkItem;
    use crate::measure::fake::{FakeRig, Outcome};
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
    fn shared_levels_run_both_forms_near_the_ridge() {
        let role = |prefetching| Role::Validation {
            mix: Mix::Load,
            op: Op::Fma,
            precision: Precision::Dp,
            prefetching,
        };
        let plain = find(Isa::Avx2, role(false)).unwrap();
        let twin = find(Isa::Avx2, role(true)).unwrap();
        let sweep = sweep_at(Level::Dram, Scope::Memory, plain, Some(twin));
        let names =
            |s: Shape| -> Vec<&str> { sweep.forms(s).iter().map(|k| k.decl.name).collect() };
        let mut seen = [0; 3];
        for &s in &sweep.shapes {
            let at = plain.decl.intensity(s) / sweep.ridge;
            let (want, i) = if at < BOTH_FORMS.0 {
                (vec![plain.decl.name], 0)
            } else if at < TWIN_FIRST_FROM {
                (vec![plain.decl.name, twin.decl.name], 1)
            } else if at <= BOTH_FORMS.1 {
                (vec![twin.decl.name, plain.decl.name], 1)
            } else {
                (vec![twin.decl.name], 2)
            };
            assert_eq!(names(s), want, "at {at} x the ridge");
            seen[i] += 1;
        }
        // Each kind in one sweep, several points each.
        assert!(seen.iter().all(|&n| n >= 2), "{seen:?}");
        let l1 = sweep_at(Level::L1, Scope::Core, plain, None);
        for &s in &l1.shapes {
            let forms: Vec<&str> = l1.forms(s).iter().map(|k| k.decl.name).collect();
            assert_eq!(forms, [plain.decl.name]);
        }
    }

    /// The plain and prefetching forms of the AVX2 DP load-mix FMA kernel.
    fn forms_of_load_fma() -> (&'static Kernel, &'static Kernel) {
        let role = |prefetching| Role::Validation {
            mix: Mix::Load,
            op: Op::Fma,
            precision: Precision::Dp,
            prefetching,
        };
        (
            find(Isa::Avx2, role(false)).unwrap(),
            find(Isa::Avx2, role(true)).unwrap(),
        )
    }

    /// Run `sweep` on a fake rig whose measurements give what `rate` says
    /// per cycle of (kernel, shape): the data and the calls' kernels.
    fn run_fake(
        sweep: &Sweep,
        rate: impl Fn(&'static Kernel, Shape) -> f64 + 'static,
    ) -> (SweepData, Vec<&'static str>) {
        let mut rig = FakeRig::new(move |c| {
            Outcome::steady(rate(crate::kernels::named(c.kernel).unwrap(), c.shape))
        });
        let settings = Settings::new(Duration::from_millis(5), 3);
        let bar = ProgressBar::hidden();
        let data = rig
            .with_bench(1, sweep.alloc(), |b| {
                let mut sw = Sweeper {
                    bench: b,
                    settings: &settings,
                    bar: &bar,
                    guard: None,
                };
                sw.run(sweep)
            })
            .unwrap()
            .unwrap()
            .unwrap();
        (data, rig.measured().iter().map(|c| c.kernel).collect())
    }

    #[test]
    fn near_the_ridge_the_faster_form_is_kept() {
        let (plain, twin) = forms_of_load_fma();
        // No roof kernel around the sweep: every point with two forms runs
        // both. Below the ridge the plain form runs at 60 % of the twin,
        // above it the twin at 60 % of the plain form.
        let sweep = sweep_at(Level::Dram, Scope::Memory, plain, Some(twin));
        let ridge = sweep.ridge;
        let slow =
            move |k: &Kernel, s: Shape| (k.decl.intensity(s) < ridge) == (k.decl.prefetch == 0);
        let (data, calls) = run_fake(&sweep, move |k, s| if slow(k, s) { 6.0 } else { 10.0 });
        let mut both = 0;
        for p in &data.points {
            let forms = sweep.forms(p.shape);
            assert!(forms.iter().any(|k| k.decl.name == p.kernel.decl.name));
            if forms.len() == 2 {
                both += 1;
                assert!(
                    !slow(p.kernel, p.shape),
                    "{} kept at {:?}",
                    p.kernel.decl.name,
                    p.shape
                );
                assert!((p.m.per_cycle() - 10.0).abs() < 1e-9);
            }
        }
        assert!(both >= 4, "{both} points ran both forms");
        let runs: usize = sweep.shapes.iter().map(|&s| sweep.forms(s).len()).sum();
        assert_eq!(calls.len(), runs);
        // The plain form kept on one side of the ridge, the twin on the other.
        let kept: std::collections::HashSet<&str> =
            data.points.iter().map(|p| p.kernel.decl.name).collect();
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn the_other_form_runs_only_where_the_first_falls_short() {
        let (plain, twin) = forms_of_load_fma();
        let mut sweep = sweep_at(Level::Dram, Scope::Memory, plain, Some(twin));
        let reference = crate::kernels::named("avx2_load").unwrap();
        sweep.reference = Some(reference);
        // The roof's kernel at the sweep's roof; the twin always on the
        // roofs, the plain form at 80 % of them from a quarter of the ridge.
        let (fp, bw, ridge) = (sweep.fp_per_cycle, sweep.bw_per_cycle, sweep.ridge);
        let short = move |s: Shape| plain.decl.intensity(s) >= ridge / 4.0;
        let (data, calls) = run_fake(&sweep, move |k, s| {
            if k.decl.name == reference.decl.name {
                return bw;
            }
            let bound = (k.decl.intensity(s) * bw).min(fp);
            if k.decl.prefetch == 0 && short(s) {
                0.8 * bound
            } else {
                bound
            }
        });
        // The roof's kernel before and after; one run per point, and a
        // second where the plain form ran first and fell short.
        let seconds = sweep
            .shapes
            .iter()
            .filter(|&&s| {
                sweep.forms(s).len() == 2 && sweep.forms(s)[0].decl.prefetch == 0 && short(s)
            })
            .count();
        assert!(seconds >= 1);
        assert_eq!(calls.len(), 2 + sweep.shapes.len() + seconds, "{calls:?}");
        for p in data.points.iter().filter(|p| short(p.shape)) {
            assert_eq!(p.kernel.decl.name, twin.decl.name, "at {:?}", p.shape);
        }
    }

    /// The Emerald Rapids data file's DRAM load-mix sweeps (1 and 2 threads,
    /// one form per point): every point that fell more than 5 % under
    /// min(P, AI x B) lies where both forms exist and falls short by the
    /// rule, so the other form would run there; the points that held cost
    /// no second run.
    #[test]
    fn on_the_emerald_rapids_sweeps_the_other_form_runs_where_points_fell_short() {
        use crate::measure::fake::CLOCK;
        let doc = crate::results::parse(
            include_str!("../../tests/fixtures/emr-xeon-2core.yaml"),
            "emr",
        )
        .unwrap();
        let (plain, twin) = (
            crate::kernels::named("avx512_dp_v_load_fma").unwrap(),
            crate::kernels::named("avx512_dp_v_load_fma_pf").unwrap(),
        );
        let (mut short, mut held) = (0, 0);
        for threads in [1, 2] {
            let summary = doc
                .sweeps
                .iter()
                .find(|s| s.level == Level::Dram && s.mix == Mix::Load && s.threads == threads)
                .unwrap();
            let points = doc
                .validation
                .iter()
                .filter(|p| p.level == Level::Dram && p.mix == Mix::Load && p.threads == threads);
            let fma = doc
                .roofs
                .iter()
                .find(|r| r.op == Some(Op::Fma) && r.threads == threads && r.isa == Isa::Avx512)
                .unwrap();
            let sweep = Sweep {
                fp_per_cycle: fma.per_cycle,
                threads,
                ridge: summary.ridge,
                ..sweep_at(Level::Dram, Scope::Memory, plain, Some(twin))
            };
            for p in points {
                // The point and its roof's kernel around the sweep, moved to
                // the fake's clock: the same ratio to min(P, AI x B).
                let m =
                    Outcome::steady(p.gflop_per_s / p.clock_ghz).measurement(p.bytes_per_thread);
                let band = p.reference_gb_per_s.unwrap() * CLOCK / p.clock_ghz;
                let s = Shape { j: p.j, k: p.k };
                let falls = sweep.falls_short(s, &m, Some(band));
                assert_eq!(falls, p.deviation < -OTHER_FORM_UNDER, "{p:?}");
                if falls {
                    short += 1;
                    assert_eq!(sweep.forms(s).len(), 2, "both forms at {} flop/byte", p.ai);
                } else {
                    held += 1;
                }
            }
        }
        // Seven points of each sweep fell short, seven held.
        assert!(short >= 12 && held >= 12, "{short} short, {held} held");
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
