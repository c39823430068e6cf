//! Placing applications on the chart: their work W (flops), traffic Q
//! (bytes requested by the core) and time T, counted with the PMU
//! ([`pmu`]), by emulation ([`emulate`]) or given by hand, for the whole
//! program and for each region it marks with the regions library.

pub mod command;
pub mod emulate;
pub mod functions;
pub mod pmu;
pub mod sample;
pub mod symbols;
pub mod traffic;

use crate::error::{Error, Result};
use crate::machine::cpuid;
use crate::results::Document;
use crate::results::apps::{AppPoint, ProcessPoint};
use carmbench_regions::Record;
use command::Found;
use emulate::Emulator;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Instant;

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

/// What to profile and how.
#[derive(Debug, Clone)]
pub struct Request {
    /// The point's name.
    pub name: String,
    /// The program and its arguments, run directly (no shell).
    pub command: Vec<String>,
    /// How to count.
    pub counts: CountsMode,
    /// Manual counts: flops.
    pub flops: Option<f64>,
    /// Manual counts: bytes.
    pub bytes: Option<f64>,
    /// Bytes per access for the PMU's estimate of Q.
    pub access_bytes: Option<f64>,
    /// Threads to compare with.
    pub threads: Option<usize>,
    /// The counting plugin, when not beside carmbench.
    pub plugin: Option<PathBuf>,
    /// A twin build counted by emulation in the command's place.
    pub count_with: Option<String>,
    /// Points for this many of the hottest functions, and the rest.
    pub functions: Option<usize>,
    /// The arithmetic the counts are: placed under its roofs.
    pub precision: Option<crate::kernels::Precision>,
    /// The caches to simulate for each point's traffic by level.
    pub caches: Option<traffic::Caches>,
}

/// What profiling gave: the program's point first, then its regions'; and
/// how it was counted, when there is more to say.
#[derive(Debug, Clone)]
pub struct Profiled {
    /// The points.
    pub points: Vec<AppPoint>,
    /// How they were counted, for people.
    pub note: Option<String>,
    /// What was not counted, one line each.
    pub warnings: Vec<String>,
    /// Seconds the command ran natively.
    pub seconds: f64,
}

/// Run `cmd` with the regions library writing its records to a private
/// file, counting `events` (empty: time only); what `run` returned and the
/// records.
pub fn with_regions<T>(
    cmd: &mut Command,
    events: &str,
    run: impl FnOnce(&mut Command) -> T,
) -> Result<(T, Vec<Record>)> {
    let dir = crate::files::scratch_dir("regions")?;
    let file = dir.join("regions.jsonl");
    cmd.env(carmbench_regions::OUT_ENV, &file)
        .env(carmbench_regions::EVENTS_ENV, events)
        .env_remove(carmbench_regions::EMULATED_ENV);
    let out = run(cmd);
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    let doc = "the regions record";
    let records = text
        .lines()
        .map(|l| {
            let r = Record::parse_line(l).map_err(|e| Error::input(format!("{doc}: {e}")))?;
            crate::results::check::region(&r, doc)?;
            Ok(r)
        })
        .collect::<Result<_>>()?;
    Ok((out, records))
}

/// An error for a command that did not exit with 0.
fn failed(prog: &str, status: &ExitStatus) -> Error {
    use std::os::unix::process::ExitStatusExt;
    // 132: a shell's report of a child stopped by SIGILL.
    if status.signal() == Some(libc::SIGILL) || status.code() == Some(128 + libc::SIGILL) {
        return Error::input(format!(
            "'{prog}' stopped on an instruction this CPU lacks (SIGILL): it was built for another CPU (e.g. -march=native elsewhere, AVX-512); build it for this one, and to count it by emulation count a twin build with --count-with PROGRAM (e.g. built with -march=x86-64-v3); no point written"
        ));
    }
    Error::input(format!(
        "'{prog}' {}; no point written",
        match status.code() {
            Some(c) => format!("exited with status {c}"),
            None => format!("was stopped ({status})"),
        }
    ))
}

/// The native run of an emulated or manual profile: the program's own
/// output passed through, its time and its regions' times, and where its
/// time went when `sampled`.
fn timed(f: &Found, sampled: bool) -> Result<(f64, Vec<Record>, Option<sample::Samples>)> {
    let mut cmd = native(f);
    let prog = f.given.as_str();
    let (run, records) = with_regions(&mut cmd, "", |cmd| {
        if sampled {
            return sample::run(cmd).map(|(st, t, s)| (st, t, Some(s)));
        }
        let t0 = Instant::now();
        let status = cmd
            .status()
            .map_err(|e| Error::input(format!("cannot run '{prog}': {e}")))?;
        Ok((status, t0.elapsed().as_secs_f64(), None))
    })?;
    let (status, seconds, samples) = run?;
    if !status.success() {
        return Err(failed(prog, &status));
    }
    Ok((seconds, records, samples))
}

/// The command as it runs natively: the program found, its argv[0] as
/// given.
fn native(f: &Found) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(&f.path);
    cmd.arg0(&f.given).args(&f.args);
    cmd
}

/// Why the PMU cannot count a narrow type.
const NARROW_PMU: &str = "--precision of a narrow type places counts of emulation (--counts emulate) or given by hand (--flops as its ops, --bytes); the PMU counts FP flops of dp and sp";

/// Profile one command.
pub fn profile(r: &Request) -> Result<Profiled> {
    let found = command::find(&r.command)?;
    let twin = r
        .count_with
        .as_deref()
        .map(|t| command::found(t, &found.args))
        .transpose()?;
    let by_hand = r.flops.is_some() || r.bytes.is_some();
    if twin.is_some() && (by_hand || matches!(r.counts, CountsMode::Pmu | CountsMode::Manual)) {
        return Err(Error::input(
            "--count-with names a twin build to count by emulation: give it with --counts emulate (or auto), without --flops and --bytes",
        ));
    }
    // The PMU counts FP flops; the narrow types' ops by emulation or by hand.
    let narrow = r.precision.is_some_and(|p| p.own_ops().is_some());
    if narrow && matches!(r.counts, CountsMode::Pmu) {
        return Err(Error::input(NARROW_PMU));
    }
    let resolved = mode(r)?;
    if narrow && matches!(resolved, Resolved::Pmu(_)) {
        return Err(Error::input(NARROW_PMU));
    }
    if r.caches.is_some() && !matches!(resolved, Resolved::Emulate(_)) {
        return Err(Error::input(
            "--traffic simulates the caches under emulation: give --counts emulate (without --flops and --bytes)",
        ));
    }
    if twin.is_some() && !matches!(resolved, Resolved::Emulate(_)) {
        return Err(Error::input(
            "--count-with names a twin build to count by emulation, but the PMU counts here: give --counts emulate",
        ));
    }
    let prog = found.given.as_str();
    match resolved {
        Resolved::Manual(flops, bytes) => {
            let (seconds, _, _) = timed(&found, false)?;
            Ok(Profiled {
                points: vec![AppPoint {
                    threads: r.threads,
                    source: Some("manual counts".into()),
                    precision: r.precision,
                    ..AppPoint::new(r.name.clone(), flops, bytes, seconds)
                }],
                note: None,
                warnings: Vec::new(),
                seconds,
            })
        }
        Resolved::Pmu(family) => {
            let mut cmd = native(&found);
            let t0 = Instant::now();
            let (counted, status) = pmu::count_program(&family, &mut cmd, r.access_bytes)?;
            let seconds = t0.elapsed().as_secs_f64();
            if !status.success() {
                return Err(failed(prog, &status));
            }
            let mut points: Vec<AppPoint> = counted
                .iter()
                .map(|c| AppPoint {
                    threads: r.threads,
                    source: Some(match &c.region {
                        Some(_) => format!("perf region, {} call(s): {}", c.calls, c.derived.note),
                        None => format!("perf: {}", c.derived.note),
                    }),
                    ..AppPoint::new(
                        point_name(&r.name, c.region.as_deref()),
                        c.derived.flops,
                        c.derived.bytes,
                        c.seconds,
                    )
                })
                .collect();
            let mut warnings = Vec::new();
            if let Some(top) = r.functions {
                match pmu_functions(&family, &found, r.access_bytes, top, &points[0])? {
                    Ok(f) => {
                        let regions = points.split_off(1);
                        points.extend(f);
                        points.extend(regions);
                    }
                    Err(w) => warnings.push(w),
                }
            }
            Ok(Profiled {
                points,
                note: None,
                warnings,
                seconds,
            })
        }
        Resolved::Emulate(emu) => emulated(r, &emu, &found, twin.as_ref()),
    }
}

/// The function points of a second native run of `found`, sampled with
/// `family`'s events beside the time; or why there are none.
fn pmu_functions(
    family: &pmu::Family,
    found: &Found,
    access_bytes: Option<f64>,
    top: usize,
    program: &AppPoint,
) -> Result<std::result::Result<Vec<AppPoint>, String>> {
    let events: Vec<(String, u64)> = family
        .events
        .iter()
        .map(|e| (e.name.clone(), e.config(family.vendor())))
        .collect();
    let (status, _, samples) = sample::run_with_events(&mut native(found), &events)?;
    if !status.success() {
        return Err(failed(&found.given, &status));
    }
    Ok(functions::of_pmu_run(
        &samples,
        family,
        access_bytes,
        top,
        program,
    ))
}

/// Processes listed in a point at most.
const MAX_PROCESSES: usize = 64;

/// Count `found` by emulation (or its twin build in its place), its time
/// from its native run.
fn emulated(r: &Request, emu: &Emulator, found: &Found, twin: Option<&Found>) -> Result<Profiled> {
    let (native, records, samples) = timed(found, r.functions.is_some())?;
    let t0 = Instant::now();
    let cache_env = r
        .caches
        .as_ref()
        .map(|c| (carmbench_counts::CACHE_ENV, c.spec.as_str()));
    let out = emu.count_found(twin.unwrap_or(found), cache_env.as_slice())?;
    let emulated = t0.elapsed().as_secs_f64();
    let threads = r.threads.or(Some(out.threads));
    let source = match twin {
        Some(t) => format!("{}; counted with the twin build {}", emu.source(), t.given),
        None => emu.source(),
    };
    // The whole command's arithmetic (the one asked for, else the one most
    // of its work is) is its regions' too.
    let precision = r.precision.or_else(|| emulate::dominant(&out.total));
    let work = |c: &emulate::Counts| emulate::work(c, precision);
    let point = |name: String, c: &emulate::Counts, seconds: f64, source: String| AppPoint {
        name,
        flops: work(c) as f64,
        bytes: c.bytes() as f64,
        seconds,
        threads,
        fma_flops: precision.is_none().then_some(c.fma_flops() as f64),
        source: Some(source),
        mix: Some(emulate::mix(c)),
        processes: Vec::new(),
        counted_with: twin.map(|t| t.given.clone()),
        traffic: r.caches.as_ref().and_then(|k| traffic::of(c, &k.model)),
        function: None,
        precision,
    };
    let mut whole = point(r.name.clone(), &out.total, native, source.clone());
    if out.processes.len() > 1 {
        // The processes that did floating-point work (a shell's or make's
        // own bookkeeping is in the sum, not listed), the largest first
        // when there are very many.
        let mut working: Vec<&emulate::Output> = out
            .processes
            .iter()
            .filter(|p| work(&p.total) > 0)
            .collect();
        if working.len() > MAX_PROCESSES {
            working.sort_by_key(|p| std::cmp::Reverse(work(&p.total)));
            working.truncate(MAX_PROCESSES);
        }
        whole.processes = working
            .into_iter()
            .map(|p| ProcessPoint {
                program: p.program.clone(),
                pid: p.pid,
                flops: work(&p.total) as f64,
                bytes: p.total.bytes() as f64,
                instructions: p.total.instructions as f64,
            })
            .collect();
    }
    let mut warnings = out.warnings();
    let mut points = Vec::new();
    if let (Some(top), Some(samples)) = (r.functions, &samples) {
        // The twin's own code stands for the command's (paths resolved once).
        let resolved = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let twin_path = twin.map(|t| resolved(&t.path));
        let command_path = resolved(&found.path).to_string_lossy().into_owned();
        let rename = |m: &str| match &twin_path {
            Some(t) if Path::new(m) == t => command_path.clone(),
            _ => m.to_string(),
        };
        match functions::of_run(&out.processes, samples, &rename, top, &whole) {
            Ok(f) => points = f,
            Err(w) => warnings.push(w),
        }
    }
    points.insert(0, whole);
    for reg in &out.regions {
        let Some(timed) = records.iter().find(|t| t.name == reg.name) else {
            warnings.push(format!(
                "region {} was counted under emulation but not timed natively; left out",
                reg.name
            ));
            continue;
        };
        points.push(point(
            point_name(&r.name, Some(&reg.name)),
            &reg.counts,
            timed.seconds,
            format!("{source}; region, {} call(s)", reg.calls),
        ));
    }
    Ok(Profiled {
        points,
        note: Some(format!(
            "counted under QEMU {} ({}, {} process(es), at most {} thread(s) each): native run {native:.3} s, emulated run {emulated:.3} s ({:.1}x)",
            emu.version,
            emulate::LEVEL,
            out.processes.len(),
            out.threads,
            emulated / native.max(1e-9)
        )),
        warnings,
        seconds: native,
    })
}

/// "APP" or "APP/region".
fn point_name(app: &str, region: Option<&str>) -> String {
    match region {
        Some(r) => format!("{app}/{r}"),
        None => app.to_string(),
    }
}

/// How a request counts, resolved.
enum Resolved {
    Manual(f64, f64),
    Pmu(pmu::Family),
    Emulate(Emulator),
}

/// The PMU's event family for this CPU, when the PMU counts here.
fn pmu_here() -> Result<pmu::Family> {
    let id = cpuid::cpuid();
    let family = pmu::family_of(&id).ok_or_else(|| {
        Error::input(format!(
            "no PMU event table for this CPU ({} family {:#x} model {:#x}; configs/events.yaml lists Zen 3/4/5, Skylake-SP, Ice Lake-SP, Sapphire Rapids)",
            id.vendor, id.family, id.model
        ))
    })?;
    pmu::usable(&family)?;
    Ok(family)
}

fn mode(r: &Request) -> Result<Resolved> {
    if let Some(b) = r.access_bytes
        && !(b.is_finite() && (1.0..=64.0).contains(&b))
    {
        return Err(Error::input(format!(
            "--access-bytes is {b}; give the bytes of one access, 1 to 64"
        )));
    }
    let cpus = crate::machine::online_cpus();
    if let Some(t) = r.threads.filter(|&t| t == 0 || t > cpus) {
        return Err(Error::input(format!(
            "--threads is {t}; give the threads the command runs, 1 to {cpus} (this machine's hardware threads)"
        )));
    }
    let manual = match (r.flops, r.bytes) {
        (Some(f), Some(b)) => {
            crate::results::apps::manual_counts(f, b)?;
            Some((f, b))
        }
        (None, None) => None,
        _ => {
            return Err(Error::input(
                "give both --flops and --bytes (manual counts), or neither (counted)",
            ));
        }
    };
    if r.functions.is_some() {
        if r.functions == Some(0) {
            return Err(Error::input(
                "--functions 0 shows no function; give how many of the hottest to show (default 10)",
            ));
        }
        if manual.is_some() || r.counts == CountsMode::Manual {
            return Err(Error::input(
                "--functions counts each function's flops and bytes (by emulation or the PMU): leave out --flops and --bytes",
            ));
        }
    }
    match (r.counts, manual) {
        (CountsMode::Auto | CountsMode::Manual, Some((f, b))) => Ok(Resolved::Manual(f, b)),
        (CountsMode::Manual, None) => Err(Error::input(
            "--counts manual needs --flops N and --bytes M",
        )),
        (_, Some(_)) => Err(Error::input(
            "--flops and --bytes are manual counts; leave out --counts, or count without them",
        )),
        (CountsMode::Pmu, None) => pmu_here().map(Resolved::Pmu),
        (CountsMode::Emulate, None) => Emulator::find(r.plugin.as_deref()).map(Resolved::Emulate),
        (CountsMode::Auto, None) => match pmu_here() {
            Ok(f) => Ok(Resolved::Pmu(f)),
            Err(p) => Emulator::find(r.plugin.as_deref())
                .map(Resolved::Emulate)
                .map_err(|e| {
                    Error::input(format!(
                        "cannot count this command's flops and bytes here: the PMU: {p}; emulation: {e}; or give the counts (--flops N --bytes M)"
                    ))
                }),
        },
    }
}

/// Where a point sits under a machine's roofs.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Thread count of the roofs used.
    pub threads: usize,
    /// The point's own thread count, when the results lack roofs of it.
    pub unmeasured: Option<usize>,
    /// The roof right above the point ([`crate::roofline::tightest_roof`]):
    /// its label and GFLOP/s at the point's intensity; `None` when the
    /// point sits above every roof.
    pub roof: Option<(String, f64)>,
}

impl Placement {
    /// " (its 8 threads were not measured: roofs of 2)" when the roofs are
    /// of another thread count than the point's; else nothing.
    pub fn note(&self) -> String {
        self.unmeasured.map_or(String::new(), |n| {
            format!(
                " (its {n} thread(s) were not measured: roofs of {} thread(s))",
                self.threads
            )
        })
    }
}

/// The thread count whose roofs a point of `threads` is placed under: its
/// own, else the most measured below it, else the fewest measured.
pub fn roof_threads(doc: &Document, threads: usize) -> Option<usize> {
    let counts = doc.thread_counts();
    counts
        .iter()
        .rev()
        .find(|&&t| t <= threads)
        .or(counts.first())
        .copied()
}

/// Place `p` under the default view of `doc` for `threads` (see
/// [`roof_threads`] when `doc` has none of that count: the placement says so).
pub fn placement(doc: &Document, p: &AppPoint, threads: usize) -> Option<Placement> {
    let t = roof_threads(doc, threads)?;
    let v = crate::results::view::View::of_precision(doc, t, p.precision)?;
    let levels: Vec<(String, f64)> = v
        .bandwidth
        .iter()
        .map(|r| (format!("{} roof", r.label()), r.value()))
        .collect();
    let peaks: Vec<(String, f64)> = v
        .default_compute()
        .iter()
        .map(|r| (format!("{} peak", r.label()), r.value()))
        .collect();
    Some(Placement {
        threads: t,
        unmeasured: (t != threads).then_some(threads),
        roof: crate::roofline::tightest_roof(p.ai(), p.gflop_per_s(), &levels, &peaks),
    })
}
