//! Counting a launch: every counter (given by hand, the PMU, emulation)
//! runs it natively for its time and gives one [`Measured`]: the work of
//! the whole command, of each process, region and block of code, and where
//! the native run's time went. Each counter is written once for every
//! launch ([`Launch`]: one process tree or an MPI job): it measures each
//! rank, and [`fold`] joins them. The views ([`crate::profile::views`]) make the
//! points from the measure without asking which counter it was.

pub mod emulation;

use crate::error::Result;
use crate::profile::ground::warnings::Warning;
use crate::profile::launch::input::Input;
use crate::profile::launch::native::{NativeRun, Watch};
use crate::profile::launch::{Launch, Ranked};
use crate::profile::measured::events::Family;
use crate::profile::measured::fold::{Part, fold, runtime_work};
use crate::profile::measured::samples::Samples;
use crate::profile::measured::work::Work;
use crate::profile::measured::{Block, Measured, Method, Region};
use std::path::Path;
use std::process::Stdio;

/// Counts a launch.
pub trait Counter {
    /// Run `launch` (natively, and counted as this counter counts) and
    /// say what it did; where its time went too, when `sampled`.
    fn measure(&self, launch: &dyn Launch, sampled: bool) -> Result<Measured>;
}

/// Run `f` with a scratch folder of `launch`'s, removed after.
pub(crate) fn in_scratch<T>(launch: &dyn Launch, f: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let scratch = launch.scratch()?;
    let out = f(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    out
}

/// Counts given by hand: the native run gives the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Manual {
    /// W.
    pub flops: f64,
    /// Q.
    pub bytes: f64,
}

/// The warning for processes a native run left running.
pub fn left_running(run: &NativeRun) -> Vec<Warning> {
    match run.left.is_empty() {
        true => Vec::new(),
        false => vec![Warning::LeftRunning(run.left.clone())],
    }
}

impl Counter for Manual {
    fn measure(&self, launch: &dyn Launch, _sampled: bool) -> Result<Measured> {
        let runs = in_scratch(launch, |dir| {
            launch.native(Watch::Time, Stdio::inherit(), &dir.join("native"))
        })?;
        let parts = (runs.each.into_iter())
            .map(|(rank, r)| Part {
                rank,
                host: r.host,
                measured: Measured {
                    seconds: r.run.seconds,
                    threads: r.run.threads_at_once(),
                    cpu: Some(r.run.cpu),
                    warnings: left_running(&r.run),
                    ..Measured::default()
                },
                runtime: None,
            })
            .collect();
        let mut m = fold(launch.launcher(), parts, runs.failed);
        // The counts given are the whole launch's.
        m.total = Work::Given {
            flops: self.flops,
            bytes: self.bytes,
        };
        m.source = "manual counts".into();
        Ok(m)
    }
}

/// The PMU: the native run counted with a CPU family's events; with
/// functions, a second native run samples them beside the time.
#[derive(Debug, Clone)]
pub struct Pmu {
    /// The events of this CPU.
    pub family: Family,
    /// Bytes per load or store, when given.
    pub access_bytes: Option<f64>,
}

impl Counter for Pmu {
    fn measure(&self, launch: &dyn Launch, sampled: bool) -> Result<Measured> {
        let (counted, mut samples) = in_scratch(launch, |dir| {
            // Both runs read the same input, as emulation's do.
            let input = Input::of_stdin(dir)?;
            let counted = launch.native(
                Watch::Counted(&self.family),
                input.first()?,
                &dir.join("native"),
            )?;
            let mut samples = std::collections::BTreeMap::new();
            if sampled {
                let events = self.sampled_events();
                let (stdin, _) = input.second()?;
                let again = launch.native(Watch::Sampled(&events), stdin, &dir.join("sampled"))?;
                samples = (again.each.into_iter())
                    .map(|(r, a)| (r, a.run.samples.unwrap_or_default()))
                    .collect();
            }
            Ok((counted, samples))
        })?;
        let by_place = sampled && launch.launcher().is_some();
        let Ranked { each, failed } = counted;
        let parts = (each.into_iter())
            .map(|(rank, r)| {
                let measured = self.assemble(r.run, samples.remove(&rank));
                // A rank's work in the MPI runtime, known by place.
                let runtime = by_place.then(|| runtime_work(&measured.blocks));
                Part {
                    rank,
                    host: r.host,
                    measured,
                    runtime,
                }
            })
            .collect();
        Ok(fold(launch.launcher(), parts, failed))
    }
}

impl Pmu {
    /// The events sampled beside the time (name, raw config).
    pub fn sampled_events(&self) -> Vec<(String, u64)> {
        (self.family.events.iter())
            .map(|e| (e.name.clone(), e.config(self.family.vendor())))
            .collect()
    }

    /// The measure of a run counted with the events, and its samples.
    fn assemble(&self, run: NativeRun, samples: Option<Samples>) -> Measured {
        let warnings = left_running(&run);
        let threads = run.threads_at_once();
        let mut m = Measured {
            total: Work::Events(run.events),
            seconds: run.seconds,
            threads,
            cpu: Some(run.cpu),
            source: "perf".into(),
            warnings,
            method: Method::Pmu {
                family: self.family.clone(),
                access_bytes: self.access_bytes,
            },
            ..Measured::default()
        };
        for r in run.regions {
            if let Some(why) = r.error {
                m.warnings.push(Warning::RegionWithoutEvents {
                    region: r.name.clone(),
                    why,
                });
            }
            m.regions.push(Region {
                name: r.name,
                calls: r.calls,
                work: Work::Events(r.counts),
                seconds: r.seconds,
            });
        }
        if let Some(samples) = samples {
            m.blocks = sampled_blocks(&samples);
            m.samples = Some(samples);
        }
        m
    }
}

/// The blocks of a run's sampled hardware events: each place's samples of
/// each event, times the events between two samples.
pub(crate) fn sampled_blocks(s: &Samples) -> Vec<Block> {
    let mut out = Vec::new();
    for (event, places) in &s.events {
        for ((module, offset), n) in places {
            out.push(Block {
                module: module.clone(),
                offset: *offset,
                work: Work::Events([(event.clone(), n * s.event_period)].into()),
                runs: 0,
                size: 0,
                ends: Default::default(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::counter::emulation::Emulation;
    use crate::profile::launch::emulator::Emulator;
    use crate::profile::launch::fake::{Asked, Fake};
    use crate::profile::launch::launcher::Launcher;
    use crate::profile::launch::plugin_counts::Emulated;
    use crate::profile::views::functions::tests::{command, process, two_functions};
    use crate::profile::views::point::Shown;
    use crate::results::apps::FailedRank;
    use carmbench_counts::Counts;

    fn native(seconds: f64, samples: Option<Samples>) -> NativeRun {
        NativeRun {
            seconds,
            samples,
            ..NativeRun::default()
        }
    }

    /// Emulation that runs nothing itself: the fake launch gives its runs.
    fn emulation() -> Emulation {
        let emulator = Emulator {
            qemu: "qemu-x86_64".into(),
            version: "7.2".into(),
            plugin: "plugin.so".into(),
            preload: "follow.so".into(),
            identity: Err("not asked in a test".into()),
        };
        Emulation {
            emulator,
            caches: None,
            twin: None,
            loops: true,
            windows: None,
        }
    }

    fn flops(n: u64) -> Counts {
        Counts {
            dp_other_flops: n,
            bytes_loaded: 8 * n,
            ..Counts::default()
        }
    }

    #[test]
    fn given_counts_are_the_whole_launchs_and_its_time_the_native_runs() {
        let fake = Fake {
            native: vec![(0, String::new(), native(0.5, None))],
            ..Fake::default()
        };
        let m = Manual {
            flops: 1e9,
            bytes: 2e9,
        }
        .measure(&fake, false)
        .unwrap();
        assert_eq!(
            m.total,
            Work::Given {
                flops: 1e9,
                bytes: 2e9
            }
        );
        assert_eq!((m.seconds, m.ranks.is_none()), (0.5, true));
        assert_eq!(*fake.asked.borrow(), [Asked::Time]);
    }

    /// A job of three ranks, rank 2 not counted under emulation, each
    /// rank's run sampled in two functions of this test program.
    fn job() -> Fake {
        let (me, a, b, _) = two_functions();
        let mut samples = Samples {
            total: 20,
            cpu_seconds: 0.2,
            ..Samples::default()
        };
        samples.places.insert((me.clone(), a), 15);
        samples.places.insert((me.clone(), b), 5);
        let counted = |n: u64| Emulated {
            threads: 1,
            total: flops(3 * n),
            processes: vec![process(&me, &[(0, a, flops(2 * n)), (0, b, flops(n))])],
            ..Emulated::default()
        };
        let node = |r: u32, s: f64| (r, format!("node{r}"), native(s, Some(samples.clone())));
        Fake {
            program: command(&me),
            launcher: Some(Launcher::OpenMpi),
            native: vec![node(0, 1.0), node(1, 1.5), node(2, 1.2)],
            failed: vec![FailedRank {
                rank: 3,
                why: "killed".into(),
            }],
            emulated: vec![(0, counted(1000)), (1, counted(3000))],
            emulated_seconds: 9.0,
            ..Fake::default()
        }
    }

    #[test]
    fn emulation_counts_each_rank_once_and_the_fold_joins_them() {
        let fake = job();
        let m = emulation().measure(&fake, true).unwrap();
        assert_eq!(m.total.counts().unwrap().dp_other_flops, 12_000);
        let r = m.ranks.as_ref().unwrap();
        let each: Vec<_> = r.each.iter().map(|k| (k.rank, k.seconds)).collect();
        assert_eq!(each, [(0, 1.0), (1, 1.5)]);
        assert_eq!((m.seconds, r.slowest(), m.threads), (1.5, 1, Some(2)));
        let failed: Vec<u32> = r.failed.iter().map(|f| f.rank).collect();
        assert_eq!(failed, [2, 3]);
        assert!(matches!(m.method, Method::Emulation { caches: None }));
        // Natively sampled, then emulated with the flow recorded (loops).
        let asked = fake.asked.borrow();
        assert_eq!(asked[0], Asked::Sampled(0));
        assert!(matches!(&asked[1], Asked::Emulated(env) if env.iter().any(|(_, v)| v == "1")));
        assert_eq!(asked.len(), 2);
    }

    #[test]
    fn one_symbolizer_names_the_code_of_every_point_of_a_run() {
        let m = emulation().measure(&job(), true).unwrap();
        let shown = Shown {
            name: "app".into(),
            functions: Some(5),
            loops: Some(5),
            ..Shown::default()
        };
        let before = crate::profile::ground::symbols::made_here();
        let p = crate::profile::Profiled::of(&shown, m);
        assert_eq!(crate::profile::ground::symbols::made_here() - before, 1);
        // The program, its functions (with their spread over the ranks) and
        // its two ranks were all made.
        assert!(
            p.points
                .iter()
                .any(|x| x.function().is_some() && x.spread.is_some())
        );
        assert_eq!(p.points.iter().filter(|x| x.rank().is_some()).count(), 2);
        let by = crate::results::apps::CountedBy::Emulation;
        assert!(p.points.iter().all(|x| x.counted_by == Some(by)));
    }
}
