//! Emulation as a counter: each rank's native run gives its time (sampled,
//! for functions and to compare the two runs' code), its run under QEMU
//! with the counting plugin ([`crate::profile::launch::emulator`]) its work, of the program
//! or of a twin build counted in its place. Every program the command
//! starts is counted too, one counts file per process; their sum is the
//! command's W and Q.

use super::{Counter, in_scratch, left_running};
use crate::error::{Error, Result};
use crate::profile::ground::warnings::Warning;
use crate::profile::launch::command::Found;
use crate::profile::launch::emulator::{Emulator, LEVEL};
use crate::profile::launch::identity::Identity;
use crate::profile::launch::input::Input;
use crate::profile::launch::native::{NativeRun, Watch};
use crate::profile::launch::plugin_counts::Emulated;
use crate::profile::launch::{Guest, Launch, Ranked};
use crate::profile::measured::fold::{Part, fold, runtime_counted};
use crate::profile::measured::traffic::Caches;
use crate::profile::measured::work::Work;
use crate::profile::measured::{Block, Every, Flow, Measured, Method, Process, Region, Window};
use crate::results::apps::FailedRank;
use carmbench_counts::Output;
use carmbench_counts::protocol::{CACHE_ENV, LOOPS_ENV, TIMELINE_ENV};
use std::collections::HashMap;
use std::path::Path;

/// Emulation as a counter: the native run gives the time (sampled, for
/// functions), the emulated run the work, of the command or of a twin
/// build counted in its place.
#[derive(Debug, Clone)]
pub struct Emulation {
    /// QEMU, the plugin and the preload library.
    pub emulator: Emulator,
    /// The caches to simulate, when asked for.
    pub caches: Option<Caches>,
    /// The twin build counted in the command's place.
    pub twin: Option<Found>,
    /// Record the control flow, for loops.
    pub loops: bool,
    /// The run in windows of time, cut so (`--timeline`).
    pub windows: Option<Every>,
}

impl Emulation {
    /// How the emulated run went, for people.
    fn note(&self, out: &Emulated, native: f64, emulated: f64) -> String {
        format!(
            "counted under QEMU {} ({}, {} process(es), at most {} thread(s) each): native run {native:.3} s, emulated run {emulated:.3} s ({:.1}x)",
            self.emulator.version,
            match &self.emulator.identity {
                Ok(_) => "as this CPU",
                Err(_) => LEVEL,
            },
            out.processes.len(),
            out.threads,
            emulated / native.max(1e-9)
        )
    }
}

impl Emulation {
    /// What the plugin is asked besides counting: the caches to simulate,
    /// the control flow to record, the windows to keep of a native run of
    /// `seconds`.
    pub fn env(&self, seconds: f64) -> Vec<(&'static str, String)> {
        let mut env: Vec<(&str, String)> = (self.caches.iter())
            .map(|c| (CACHE_ENV, c.spec.to_string()))
            .collect();
        if self.loops {
            env.push((LOOPS_ENV, "1".into()));
        }
        if let Some(every) = self.windows {
            env.push((TIMELINE_ENV, every.fine(seconds).to_string()));
        }
        env
    }

    /// What the two runs leave out or cannot vouch for.
    fn run_warnings(
        &self,
        found: &Found,
        run: &NativeRun,
        out: &Emulated,
        emulated: f64,
        unreplayed: Option<&'static str>,
    ) -> Vec<Warning> {
        let mut w = Vec::new();
        if let Err(why) = &self.emulator.identity {
            w.push(Warning::IdentityNotGiven(why.clone()));
        }
        let ratio = emulated / run.seconds.max(1e-9);
        if crate::results::advice::too_fast(run.seconds, &run.cpu, ratio) {
            w.push(Warning::EmulatedTooFast(ratio));
        }
        if let Some(t) = &self.twin {
            let why =
                crate::profile::launch::twin::unlike(&found.path, &t.path, run.seconds, emulated);
            if !why.is_empty() {
                w.push(Warning::TwinUnlike {
                    twin: t.given.clone(),
                    why,
                });
            }
        }
        // Said only where the program read its input: most never do.
        if let Some(what) = unreplayed
            && out.processes.iter().any(|p| p.read_stdin)
        {
            w.push(Warning::InputNotReplayed(what));
        }
        w.extend(left_running(run));
        if !out.stopped.is_empty() {
            w.push(Warning::StoppedUnderEmulation(out.stopped.clone()));
        }
        w
    }
}

impl Counter for Emulation {
    fn measure(&self, launch: &dyn Launch, sampled: bool) -> Result<Measured> {
        // Sampled whether or not functions are asked for: where its time
        // went is compared with where the emulated run's work was.
        let refused = match sampled {
            true => None,
            false => crate::profile::launch::sampler::available().err(),
        };
        let watch = match refused {
            None => Watch::Sampled(&[]),
            Some(_) => Watch::Time,
        };
        // The native run and the emulated one, reading the same input.
        let (natives, mut counted, seconds, unreplayed) = in_scratch(launch, |dir| {
            let input = Input::of_stdin(dir)?;
            let natives = launch.native(watch, input.first()?, &dir.join("native"))?;
            let longest = (natives.each.iter()).fold(0.0f64, |t, (_, n)| t.max(n.run.seconds));
            let env = self.env(longest);
            let guest = Guest {
                emulator: &self.emulator,
                env: &env,
                twin: self.twin.as_ref(),
            };
            let (stdin, unreplayed) = input.second()?;
            let (counted, seconds) = launch.emulated(&guest, stdin, &dir.join("counted"))?;
            Ok((natives, counted.each, seconds, unreplayed))
        })?;
        let Ranked { each, mut failed } = natives;
        let by_place = launch.launcher().is_some();
        let mut parts = Vec::new();
        for (rank, native) in each {
            let Some(out) = counted.remove(&rank).map(|c| c.run) else {
                failed.push(FailedRank {
                    rank,
                    why: "wrote no counts in the emulated launch".into(),
                });
                continue;
            };
            // A rank's work in the MPI runtime, from the plugin's sites.
            let runtime = by_place.then(|| runtime_counted(&out.processes));
            let program = launch.program();
            let measured = self.assemble(
                program,
                native.run,
                out,
                seconds,
                unreplayed,
                refused.clone(),
            );
            parts.push(Part {
                rank,
                host: native.host,
                measured,
                runtime,
            });
        }
        if parts.is_empty() {
            return Err(Error::input(format!(
                "--mpi: no rank of '{}' was both timed and counted; no point written",
                launch.program().given
            )));
        }
        failed.sort_by_key(|f| f.rank);
        Ok(fold(launch.launcher(), parts, failed))
    }
}

impl Emulation {
    /// The measure of `found` from its native run and its emulated one
    /// (`emulated` seconds); `refused`: why its paths were not compared.
    fn assemble(
        &self,
        found: &Found,
        run: NativeRun,
        out: Emulated,
        emulated: f64,
        unreplayed: Option<&'static str>,
        refused: Option<String>,
    ) -> Measured {
        let mut m = Measured {
            total: Work::Counted(out.total),
            seconds: run.seconds,
            // The threads that ran at once natively, where seen: the
            // emulated run's busy threads count a main thread that worked,
            // then waited in `pthread_join` while the others ran.
            threads: Some(run.at_once_seen().unwrap_or(out.threads)),
            cpu: Some(crate::results::apps::NativeTime {
                emulated_seconds: Some(emulated),
                ..run.cpu
            }),
            source: match &self.twin {
                Some(t) => format!(
                    "{}; counted with the twin build {}",
                    self.emulator.source(),
                    t.given
                ),
                None => self.emulator.source(),
            },
            note: Some(self.note(&out, run.seconds, emulated)),
            counted_with: self.twin.as_ref().map(|t| t.given.clone()),
            warnings: out.warnings(),
            separate_runs: true,
            emulated_cpu: self.emulator.identity.as_ref().ok().map(Identity::record),
            method: Method::Emulation {
                caches: self.caches.clone(),
            },
            ..Measured::default()
        };
        m.warnings
            .extend(self.run_warnings(found, &run, &out, emulated, unreplayed));
        if let Some(why) = refused {
            m.warnings.push(Warning::PathsNotCompared(why));
        }
        if run.samples.is_some() {
            (m.blocks, m.flow) = blocks_and_flow(&out.processes);
            m.stand_in = self.twin.as_ref().map(|t| {
                let mut paths = HashMap::new();
                let mut named = |p: &Path| {
                    crate::profile::ground::symbols::canonical(&p.to_string_lossy(), &mut paths)
                };
                (named(&t.path), named(&found.path))
            });
        }
        add_regions(&mut m, &run, &out);
        m.samples = run.samples;
        if self.windows.is_some() {
            m.windows = windows(&out.processes);
        }
        if out.processes.len() > 1 {
            m.processes = (out.processes.iter())
                .map(|p| Process {
                    program: p.program.clone(),
                    pid: p.pid,
                    work: Work::Counted(p.total),
                    replaced: p.replaced,
                })
                .collect();
        }
        m
    }
}

/// Each region the emulated run counted, with the native run's time; one
/// the native run did not time is warned about.
fn add_regions(m: &mut Measured, run: &NativeRun, out: &Emulated) {
    for reg in &out.regions {
        let Some(timed) = run.regions.iter().find(|t| t.name == reg.name) else {
            m.warnings.push(Warning::RegionNotTimed(reg.name.clone()));
            continue;
        };
        m.regions.push(Region {
            name: reg.name.clone(),
            calls: reg.calls,
            work: Work::Counted(reg.counts),
            seconds: timed.seconds,
        });
    }
}

/// The blocks of every process's counts, their files named as the native
/// run names them: links resolved.
pub fn blocks(processes: &[Output]) -> Vec<Block> {
    blocks_and_flow(processes).0
}

/// The windows of every process's timeline in the order they ended, their
/// code named as [`blocks`] names it.
pub fn windows(processes: &[Output]) -> Vec<Window> {
    let mut paths = HashMap::new();
    let mut out = Vec::new();
    for p in processes {
        let Some(t) = &p.timeline else { continue };
        for w in &t.windows {
            let code = (w.sites.iter())
                .filter_map(|&(k, n)| {
                    let s = p.sites.get(k as usize)?;
                    let module = (p.modules.get(s.module as usize)).map_or(String::new(), |m| {
                        crate::profile::ground::symbols::canonical(m, &mut paths)
                    });
                    Some((module, s.offset, n))
                })
                .collect();
            out.push(Window {
                end_ns: w.end_ns,
                pid: p.pid,
                counts: w.counts,
                code,
            });
        }
    }
    out.sort_by_key(|w| w.end_ns);
    out
}

/// [`blocks`], and the control flow between them (loops asked for).
pub fn blocks_and_flow(processes: &[Output]) -> (Vec<Block>, Vec<Flow>) {
    let mut paths = HashMap::new();
    let (mut out, mut flow) = (Vec::new(), Vec::new());
    for p in processes {
        let mut module = |k: u32| {
            (p.modules.get(k as usize)).map_or(String::new(), |m| {
                crate::profile::ground::symbols::canonical(m, &mut paths)
            })
        };
        for s in &p.sites {
            out.push(Block {
                module: module(s.module),
                offset: s.offset,
                work: Work::Counted(s.counts),
                runs: s.runs,
                size: s.size,
                ends: s.ends,
            });
        }
        for e in &p.edges {
            flow.push(Flow {
                from: (module(e.from.0), e.from.1),
                to: (module(e.to.0), e.to.1),
                count: e.count,
            });
        }
    }
    (out, flow)
}
