//! Counting by emulation: the program runs under QEMU's user-mode emulator
//! (`qemu-x86_64`, Debian's `qemu-user`) with carmbench's counting plugin
//! (`qemu-plugin/`, its own crate under GPL-2.0-or-later, loaded by QEMU in
//! its own process), which decodes every instruction once and counts the
//! flops and bytes each block requests each time it runs, per thread and per
//! region. Exact where a PMU estimates bytes from instruction counts, and
//! available where no PMU is exposed (most VMs and containers).
//!
//! Every program the command starts is counted too: the preload library
//! (`follow/`) restarts QEMU with the plugin at each exec, forked children
//! count from zero, and the plugin writes one file per process; their sum
//! is the command's W and Q ([`Emulated`]).

use super::command::Found;
use super::counter::{Block, Counter, Flow, Measured, Process, Region};
use super::identity::{Flag, Identity};
use super::input::Input;
use super::native::{self, NativeRun, Watch};
use super::stderr::{emulation_failure, one_line, unwritten, with_stderr};
use super::traffic::Caches;
use super::tree::{self, Leftovers, Rules};
use super::warnings::Warning;
use super::work::Work;
use crate::error::{Error, Result};
use carmbench_counts::follow::{self, Config};
use carmbench_counts::protocol::{CACHE_ENV, LOOPS_ENV, PROGRAM_ENV};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The plugin's file name, as cargo builds it.
pub const PLUGIN_FILE: &str = "libcarmbench_qemu_plugin.so";
/// The preload library's file name, as cargo builds it.
pub const PRELOAD_FILE: &str = "libcarmbench_follow.so";
/// The program that tells what CPU QEMU shows a guest (`carmbench cpuid`).
pub const PROBE_FILE: &str = "carmbench";

/// The emulator binary.
pub const QEMU: &str = "qemu-x86_64";

/// The x86-64 level QEMU's own CPU model offers: AVX2 and FMA, no
/// AVX-512.
pub const LEVEL: &str = "x86-64-v3";

pub use super::emulated::{Emulated, read_processes};
pub use carmbench_counts::{Counts, Output, RegionCounts};

/// The emulator, the plugin and the preload library, found.
#[derive(Debug, Clone)]
pub struct Emulator {
    /// `qemu-x86_64`.
    pub qemu: PathBuf,
    /// Its version, e.g. "7.2.22".
    pub version: String,
    /// The counting plugin.
    pub plugin: PathBuf,
    /// The preload library that follows every program the command starts.
    pub preload: PathBuf,
    /// The CPU every emulated program is shown: this one's, or why not.
    pub identity: std::result::Result<Identity, String>,
}

/// `name` on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    follow::search(OsStr::new(name), std::env::var_os("PATH").as_deref()).filter(|p| p.is_file())
}

/// A part carmbench runs beside itself: beside `near` when there, else
/// beside this executable.
fn beside(file: &str, near: Option<&Path>) -> PathBuf {
    if let Some(here) = near.map(|n| n.with_file_name(file)).filter(|p| p.is_file()) {
        return here;
    }
    std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.join(file)))
        .unwrap_or_else(|| PathBuf::from(file))
}

impl Emulator {
    /// Find `qemu-x86_64` on `PATH`, the plugin (`plugin` when given, else
    /// beside this executable) and the preload library (beside the plugin,
    /// else beside this executable). Why not, as one line with the fix.
    pub fn find(plugin: Option<&Path>) -> Result<Emulator> {
        Self::find_without(plugin, &[])
    }

    /// [`Emulator::find`], the emulated CPU without the features `without`
    /// besides those QEMU cannot emulate.
    pub fn find_without(plugin: Option<&Path>, without: &[&'static Flag]) -> Result<Emulator> {
        // The plugin decodes x86-64 instructions: it cannot count another
        // architecture's programs.
        if cfg!(not(target_arch = "x86_64")) {
            return Err(Error::input(
                "counting by emulation decodes x86-64 programs only; on this machine count with the PMU (--counts pmu) or give the counts (--flops N --bytes M)",
            ));
        }
        let qemu = on_path(QEMU).ok_or_else(|| {
            Error::input(format!(
                "{QEMU} is not installed: install it with `apt-get install qemu-user` (as root)"
            ))
        })?;
        let out = Command::new(&qemu)
            .arg("--version")
            .output()
            .map_err(|e| Error::input(format!("cannot run {}: {e}", qemu.display())))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text
            .split_whitespace()
            .skip_while(|w| *w != "version")
            .nth(1)
            .unwrap_or("unknown")
            .to_string();
        let plugin = match plugin {
            Some(p) => p.to_path_buf(),
            None => beside(PLUGIN_FILE, None),
        };
        if !plugin.is_file() {
            return Err(Error::input(format!(
                "the counting plugin {} is missing: build it with `cargo build --release` (it is built beside carmbench) or give its path with --plugin",
                plugin.display()
            )));
        }
        let preload = beside(PRELOAD_FILE, Some(&plugin));
        if !preload.is_file() {
            return Err(Error::input(format!(
                "the preload library {} is missing: build it with `cargo build --release` (it is built beside carmbench)",
                preload.display()
            )));
        }
        let probe = beside(PROBE_FILE, Some(&plugin));
        let probe = match probe.is_file() {
            true => probe,
            false => std::env::current_exe().unwrap_or(probe),
        };
        let identity = Identity::resolve(&qemu, &probe, without).map_err(|e| e.to_string());
        let e = Emulator {
            qemu,
            version,
            plugin,
            preload,
            identity,
        };
        e.config(&std::env::temp_dir())
            .check()
            .map_err(|why| Error::input(format!("{why}; move it and give --plugin")))?;
        Ok(e)
    }

    /// How every process is started, counting into `out`.
    pub(crate) fn config(&self, out: &Path) -> Config {
        Config {
            qemu: self.qemu.clone(),
            plugin: self.plugin.clone(),
            out: out.to_path_buf(),
            preload: self.preload.clone(),
            cpu: self.identity.as_ref().ok().map(|i| i.cpu_arg().into()),
        }
    }

    /// Where the counts come from, for the apps file.
    pub fn source(&self) -> String {
        let Ok(id) = &self.identity else {
            return format!(
                "emulation, qemu {}, its own CPU model ({LEVEL}): code that chooses by CPU may have run another path than natively",
                self.version
            );
        };
        let h = &id.host;
        let mut s = format!(
            "emulation, qemu {}, as this CPU ({} family {:#x} model {:#x} stepping {})",
            self.version, h.vendor, h.family, h.model, h.stepping
        );
        if !id.hidden.is_empty() {
            s += &format!(
                "; hidden from the program, as QEMU cannot emulate them{}: {} (code that needs them ran another path; to count the host's own path, count a twin build of it QEMU runs with --count-with)",
                match id.withheld.is_empty() {
                    true => String::new(),
                    false => format!(" or as asked ({})", id.withheld.join(", ")),
                },
                id.hidden.join(", ")
            );
        }
        s
    }

    /// Run `program` (a path, or a name on `PATH`) with `args` under the
    /// emulator with the plugin, and every program it starts; its output
    /// discarded (the native run shows it), regions marked for the plugin.
    pub fn count(&self, program: &str, args: &[String]) -> Result<Emulated> {
        self.count_with_env(program, args, &[])
    }

    /// [`Emulator::count`] with more environment variables for the program.
    pub fn count_with_env(
        &self,
        program: &str,
        args: &[String],
        env: &[(&str, &str)],
    ) -> Result<Emulated> {
        self.count_found(&super::command::found(program, args)?, env)
    }

    /// [`Emulator::count`] of a command already found.
    pub fn count_found(&self, f: &Found, env: &[(&str, &str)]) -> Result<Emulated> {
        self.count_found_with(f, env, Stdio::null())
    }

    /// [`Emulator::count_found`] reading `stdin`.
    pub fn count_found_with(
        &self,
        f: &Found,
        env: &[(&str, &str)],
        stdin: Stdio,
    ) -> Result<Emulated> {
        let dir = crate::files::scratch_dir("emulate")?;
        let mut cmd = guest_command(&self.config(&dir), f, env)?;
        cmd.stdin(stdin).stdout(Stdio::null());
        // Processes it leaves waiting are carmbench's copies: stopped (they
        // write their counts as they end).
        let rules = Rules {
            timeout: f.timeout,
            leftovers: Leftovers::Stop,
            run: "emulated run",
        };
        let (ended, stderr) = with_stderr(cmd, |cmd| tree::run(cmd, &rules, || {}));
        let counted = read_processes(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let ended = ended?;
        let any = counted.as_ref().is_ok_and(|c| !c.processes.is_empty());
        let short = counted.as_ref().map_or(true, |c| !any || c.lost > 0);
        if let Some(e) = unwritten(&stderr, &dir, short) {
            return Err(e);
        }
        if let Some(e) = emulation_failure(&f.given, &ended.status, &stderr, any) {
            return Err(e);
        }
        let mut counted = counted?;
        if counted.processes.is_empty() {
            return Err(Error::Io(format!(
                "the counting plugin wrote no counts; QEMU said: {}",
                one_line(&stderr)
            )));
        }
        counted.settle(ended.left);
        Ok(counted)
    }
}

/// The host command that runs `f` under QEMU as `config` says, with `env`
/// for the program: its preload and carmbench's own variables set as the
/// guest must see them.
pub fn guest_command(config: &Config, f: &Found, env: &[(&str, &str)]) -> Result<Command> {
    let launch = f.launch()?;
    let theirs = std::env::var_os("LD_PRELOAD");
    let rest: Vec<&OsStr> = f.args.iter().map(OsStr::new).collect();
    let argv = config.command(&launch, OsStr::new(&f.given), &rest, theirs.as_deref());
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .env_remove("LD_PRELOAD")
        .env(PROGRAM_ENV, &f.given)
        .envs(env.iter().copied())
        .env(carmbench_regions::EMULATED_ENV, "1")
        .env_remove(carmbench_regions::OUT_ENV)
        .env_remove(follow::CONFIG_ENV);
    Ok(cmd)
}

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
    /// the control flow to record.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env: Vec<(&str, String)> = (self.caches.iter())
            .map(|c| (CACHE_ENV, c.spec.to_string()))
            .collect();
        if self.loops {
            env.push((LOOPS_ENV, "1".into()));
        }
        env
    }

    /// The native run (watched as asked) and the emulated one, reading the
    /// same input: both, the emulated run's seconds, and why its input
    /// could not be the native run's, when so.
    fn both_runs(
        &self,
        found: &Found,
        watch: Watch,
    ) -> Result<(NativeRun, Emulated, f64, Option<&'static str>)> {
        let scratch = crate::files::scratch_dir("input")?;
        let runs = (|| {
            let input = Input::of_stdin(&scratch)?;
            let run = native::run_with(found, watch, input.first()?)?;
            let (stdin, unreplayed) = input.second()?;
            let t0 = Instant::now();
            let env = self.env();
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let counted = self.twin.as_ref().unwrap_or(found);
            let out = self.emulator.count_found_with(counted, &env, stdin)?;
            Ok((run, out, t0.elapsed().as_secs_f64(), unreplayed))
        })();
        let _ = std::fs::remove_dir_all(&scratch);
        runs
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
        if let Some(t) = &self.twin {
            let why = super::twin::unlike(&found.path, &t.path, run.seconds, emulated);
            if !why.is_empty() {
                w.push(Warning::TwinUnlike {
                    twin: t.given.clone(),
                    why,
                });
            }
        }
        if let Some(what) = unreplayed {
            w.push(Warning::InputNotReplayed(what));
        }
        w.extend(super::counter::left_running(run));
        if !out.stopped.is_empty() {
            w.push(Warning::StoppedUnderEmulation(out.stopped.clone()));
        }
        w
    }
}

impl Counter for Emulation {
    fn measure(&self, found: &Found, sampled: bool) -> Result<Measured> {
        // Sampled whether or not functions are asked for: where its time
        // went is compared with where the emulated run's work was.
        let refused = match sampled {
            true => None,
            false => super::sample::available().err(),
        };
        let watch = match refused {
            None => Watch::Sampled(&[]),
            Some(_) => Watch::Time,
        };
        let (run, out, emulated, unreplayed) = self.both_runs(found, watch)?;
        Ok(self.assemble(found, run, out, emulated, unreplayed, refused))
    }
}

impl Emulation {
    /// The measure of `found` from its native run and its emulated one
    /// (`emulated` seconds); `refused`: why its paths were not compared.
    pub(crate) fn assemble(
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
            threads: Some(out.threads),
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
            ..Measured::default()
        };
        m.warnings
            .extend(self.run_warnings(found, &run, &out, emulated, unreplayed));
        if let Some(why) = refused {
            m.warnings.push(Warning::PathsNotCompared(why));
        }
        if run.samples.is_some() {
            (m.blocks, m.flow) = blocks_and_flow(&out.processes, found, self.twin.as_ref());
        }
        m.samples = run.samples;
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

/// The blocks of every process's counts, their files named as the native
/// run of `command` names them: links resolved, and a twin build's own file
/// standing for the command's.
pub fn blocks(processes: &[Output], command: &Found, twin: Option<&Found>) -> Vec<Block> {
    blocks_and_flow(processes, command, twin).0
}

/// [`blocks`], and the control flow between them (loops asked for).
pub fn blocks_and_flow(
    processes: &[Output],
    command: &Found,
    twin: Option<&Found>,
) -> (Vec<Block>, Vec<Flow>) {
    let resolved = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let twin_path = twin.map(|t| resolved(&t.path));
    let command_path = resolved(&command.path).to_string_lossy().into_owned();
    let mut paths = HashMap::new();
    let (mut out, mut flow) = (Vec::new(), Vec::new());
    for p in processes {
        let mut module = |k: u32| {
            p.modules.get(k as usize).map_or(String::new(), |m| {
                let m = super::symbols::canonical(m, &mut paths);
                match &twin_path {
                    Some(t) if Path::new(&m) == t => command_path.clone(),
                    _ => m,
                }
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
