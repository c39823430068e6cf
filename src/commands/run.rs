//! `carmbench run`: measure every roof of the plan and write the results.

use crate::chart;
use crate::cli::RunArgs;
use crate::commands::topology::{ThreadRanges, default_thread_counts, measure_clock};
use crate::config::limits::{self, Uarch};
use crate::config::plan::{self, Plan, PlanFile, Threads};
use crate::error::{Error, Result};
use crate::isa;
use crate::kernels::{self, Kernel, Kind, Mix, Shape};
use crate::measure::interrupt;
use crate::measure::runner::{self, DRIFT_LIMIT, Measurement, Settings};
use crate::measure::sharing::{self, CoreGuard};
use crate::measure::stats::median;
use crate::output::Format;
use crate::results::{self, Document, MachineInfo, Roof, SizePoint};
use crate::topology::sizing::{self, BufferRange, human_bytes};
use crate::topology::{Machine, Source};
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Above this % of the theoretical limit a roof is flagged (the clock probe
/// has about 1 % of noise).
pub const ABOVE_LIMIT_PERCENT: f64 = 103.0;

/// CV above which a roof is flagged, by level (compute roofs use L1's).
pub fn cv_limit(level: Option<&str>) -> f64 {
    match level {
        None | Some("L1") => 0.03,
        Some("DRAM") => 0.08,
        _ => 0.05,
    }
}

/// One roof to measure.
#[derive(Debug, Clone)]
struct Task {
    kernel: &'static Kernel,
    level: Option<String>,
    threads: usize,
    sizes: Vec<u64>,
    range_flag: bool,
    /// Each thread has the resource to itself (FP pipes, a cache level
    /// with one core per instance), so the roof should scale with threads.
    private: bool,
    /// The resource belongs to one core whatever the threads (FP pipes, a
    /// cache no other core shares): nothing but other work on that core
    /// keeps it from its theoretical limit.
    per_core: bool,
}

/// Merge the embedded plan, the config file and the flags.
fn plan_file(a: &RunArgs) -> Result<PlanFile> {
    let mut p = PlanFile::default_plan();
    if let Some(path) = &a.config {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::input(format!("cannot read config '{}': {e}", path.display())))?;
        p = p.overlay(PlanFile::parse(
            &text,
            &format!("config '{}'", path.display()),
        )?);
    }
    let flags = PlanFile {
        isa: a.isa.clone(),
        precision: a.precision.clone(),
        threads: a.threads.as_ref().map(|v| {
            v.iter()
                .map(|s| s.parse().map_or(Threads::Word(s.clone()), Threads::N))
                .collect()
        }),
        levels: a.levels.clone(),
        mixes: a.mixes.clone(),
        ops: a.ops.clone(),
        ..PlanFile::default()
    };
    Ok(p.overlay(flags))
}

fn ranges_for(m: &Machine, threads: usize) -> Vec<BufferRange> {
    sizing::ranges(m, threads)
}

fn tasks(plan: &Plan, m: &Machine) -> Result<Vec<Task>> {
    let mut out = Vec::new();
    for &t in &plan.threads {
        let ranges = ranges_for(m, t);
        for &isa in &plan.isa {
            for level in &plan.levels {
                let r = ranges
                    .iter()
                    .find(|r| &r.level == level)
                    .expect("levels resolved against this machine");
                if level == "DRAM" && !r.isolated {
                    return Err(Error::input(format!(
                        "the DRAM buffer does not fit with {t} threads: {}; run fewer threads or leave DRAM out (--levels)",
                        r.note.as_deref().unwrap_or("")
                    )));
                }
                let sizes = sizing::sizes_in_range(r, plan.sizes_per_level);
                for &mix in &plan.mixes {
                    if mix == Mix::NtStore && level != "DRAM" {
                        continue;
                    }
                    let k = kernels::bandwidth(mix, isa).expect("every mix has a kernel per ISA");
                    if k.runnable() {
                        out.push(Task {
                            kernel: k,
                            level: Some(level.clone()),
                            threads: t,
                            sizes: sizes.clone(),
                            range_flag: !r.isolated,
                            private: r.threads_per_instance == 1 && level != "DRAM",
                            per_core: m
                                .caches
                                .iter()
                                .any(|c| &sizing::level_label(c) == level && c.cores_sharing == 1),
                        });
                    }
                }
            }
            for &p in &plan.precision {
                for &op in &plan.ops {
                    let k = kernels::compute(op, isa, p).expect("every op has a kernel per ISA");
                    if k.runnable() {
                        out.push(Task {
                            kernel: k,
                            level: None,
                            threads: t,
                            sizes: vec![0],
                            range_flag: false,
                            private: true,
                            per_core: true,
                        });
                    }
                }
            }
        }
    }
    Ok(out)
}

/// How far apart the values of a level's sizes are: largest over smallest,
/// minus 1 (0 for one size). Within a level's range the rate should not
/// depend on the size; when it does, a size spilled to the next level or
/// ran while other work slowed the core for the whole of its attempts.
pub fn spread(values: &[f64]) -> f64 {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    if lo > 0.0 && lo.is_finite() {
        hi / lo - 1.0
    } else {
        0.0
    }
}

fn roof_of(task: &Task, ms: &[Measurement], uarch: Option<&Uarch>) -> Roof {
    let d = &task.kernel.decl;
    let values: Vec<f64> = ms.iter().map(Measurement::value).collect();
    let value = median(&values);
    // Statistics of the size whose value is closest to the roof's value.
    let rep = ms
        .iter()
        .min_by(|a, b| {
            (a.value() - value)
                .abs()
                .total_cmp(&(b.value() - value).abs())
        })
        .expect("at least one measurement");
    let clock = median(&ms.iter().map(Measurement::clock_ghz).collect::<Vec<_>>());
    let drift = ms.iter().map(Measurement::clock_drift).fold(0.0, f64::max);
    let per_cycle = value / 1e9 / clock;
    let theoretical = uarch
        .and_then(|u| u.per_cycle(d, task.level.as_deref()))
        .map(|x| x * task.threads as f64);
    let percent = theoretical.map(|t| 100.0 * per_cycle / t);
    let mut flags = Vec::new();
    if drift > DRIFT_LIMIT {
        flags.push("clock_drift".to_string());
    }
    if ms.iter().any(|m| m.steal > crate::measure::steal::LIMIT) {
        flags.push("steal".to_string());
    }
    if rep.rates.cv > cv_limit(task.level.as_deref()) {
        flags.push("high_cv".to_string());
    }
    if spread(&values) > cv_limit(task.level.as_deref()) {
        flags.push("sizes_disagree".to_string());
    }
    if task.range_flag {
        flags.push("not_isolated".to_string());
    }
    if percent.is_some_and(|p| p > ABOVE_LIMIT_PERCENT) {
        flags.push("above_theoretical".to_string());
    }
    let g = |x: f64| x / 1e9;
    let bw = d.kind == Kind::Bandwidth;
    Roof {
        kind: d.kind,
        level: task.level.clone(),
        mix: d.mix,
        op: d.op,
        isa: d.isa,
        precision: d.precision,
        threads: task.threads,
        gb_per_s: bw.then(|| g(value)),
        gflop_per_s: (!bw).then(|| g(value)),
        per_cycle,
        median: g(rep.rates.median),
        q1: g(rep.rates.q1),
        q3: g(rep.rates.q3),
        cv: rep.rates.cv,
        clock_ghz: clock,
        clock_drift: drift,
        theoretical_per_cycle: theoretical,
        percent_of_theoretical: percent,
        kernel: d.name.to_string(),
        sizes: if bw {
            ms.iter()
                .map(|m| SizePoint {
                    bytes_per_thread: m.bytes_per_thread,
                    value: g(m.value()),
                    median: g(m.rates.median),
                    cv: m.rates.cv,
                })
                .collect()
        } else {
            Vec::new()
        },
        flags,
    }
}

/// Per-thread rate of an all-core roof of a per-core resource, as a fraction
/// of the 1-thread roof, below which a core counts as shared.
pub const SCALING_FLOOR: f64 = 0.85;

/// Per-thread value of a multi-thread roof over the 1-thread value of the
/// same roof; `None` for 1-thread roofs or without a 1-thread roof.
pub fn scaling(roofs: &[Roof], r: &Roof) -> Option<f64> {
    if r.threads < 2 {
        return None;
    }
    let one = roofs
        .iter()
        .find(|o| o.threads == 1 && o.same_roof_any_threads(r))?;
    let x = r.value() / (r.threads as f64 * one.value());
    x.is_finite().then_some(x)
}

/// Indices of the roofs (measured in the order of `todo`) of per-core
/// resources whose per-thread value is below [`SCALING_FLOOR`] of 1 thread.
fn poorly_scaling(todo: &[Task], roofs: &[Roof]) -> Vec<usize> {
    todo.iter()
        .zip(roofs)
        .enumerate()
        .filter(|(_, (t, r))| t.private && scaling(roofs, r).is_some_and(|x| x < SCALING_FLOOR))
        .map(|(i, _)| i)
        .collect()
}

/// Indices of the 1-thread roofs of per-core resources that an all-core
/// roof beats per thread by more than the CV limit: one thread alone cannot
/// be slower than each of several, so the 1-thread roof was slowed by other
/// work for all its attempts (seen on a shared Zen 3: MUL steady at 65% of
/// the limit on one thread, 99% per thread on two).
fn slow_alone(todo: &[Task], roofs: &[Roof]) -> Vec<usize> {
    let pairs: Vec<(&Task, &Roof)> = todo.iter().zip(roofs).collect();
    let mut out: Vec<usize> = pairs
        .iter()
        .filter(|(t, r)| {
            t.private && scaling(roofs, r).is_some_and(|x| x > 1.0 + cv_limit(r.level.as_deref()))
        })
        .filter_map(|(_, r)| {
            pairs
                .iter()
                .position(|(_, o)| o.threads == 1 && o.same_roof_any_threads(r))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Rounds of measuring disturbed roofs again at most (see [`suspect`]).
pub const REMEASURE_ROUNDS: usize = 3;

/// Those rounds take this many times the plan's samples.
pub const REMEASURE_SAMPLES: usize = 4;

/// Per-core roofs below this % of their theoretical limit are measured
/// again (caches of one core and FP reach 97-100 % of it on the cores measured
/// here when nothing else runs; a slowed phase of a shared host reads
/// 60-85 %). The value kept is still only what was measured.
pub const BELOW_LIMIT_PERCENT: f64 = 90.0;

/// Per-core roofs at or above this % of their theoretical limit are not
/// measured again for noisy samples alone.
pub const AT_LIMIT_PERCENT: f64 = 97.0;

/// Indices of the roofs (measured in the order of `todo`) that look
/// disturbed: noisy samples (`high_cv`, `clock_drift`), time the host took
/// from the CPUs (`steal`) or sizes that disagree (unless a per-core roof
/// is already at its limit), a per-core resource that scales badly with
/// the threads or whose 1-thread roof is beaten per thread by its all-core
/// roof, or a per-core roof far below its theoretical limit.
fn suspect(todo: &[Task], roofs: &[Roof]) -> Vec<usize> {
    let mut out: Vec<usize> = todo
        .iter()
        .zip(roofs)
        .enumerate()
        .filter(|(_, (t, r))| {
            let pct = r.percent_of_theoretical.filter(|_| t.per_core);
            // Noise only slows: a per-core roof already at its limit has
            // nothing left to find, however noisy its samples were.
            let noisy = r.flags.iter().any(|f| {
                matches!(
                    f.as_str(),
                    "high_cv" | "clock_drift" | "sizes_disagree" | "steal"
                )
            });
            (noisy && !pct.is_some_and(|p| p >= AT_LIMIT_PERCENT))
                || pct.is_some_and(|p| p < BELOW_LIMIT_PERCENT)
        })
        .map(|(i, _)| i)
        .collect();
    out.extend(poorly_scaling(todo, roofs));
    out.extend(slow_alone(todo, roofs));
    out.sort_unstable();
    out.dedup();
    out
}

/// Measure tasks, one pool per run of tasks sharing a thread count and
/// level (buffers are allocated and touched once for every mix and size of
/// the level). Stops early, keeping what it has, when Ctrl-C was pressed,
/// and starts no task after `until`.
fn measure_tasks(
    todo: &[Task],
    machine: &Machine,
    settings: &Settings,
    uarch: Option<&Uarch>,
    bar: &ProgressBar,
    until: Option<Instant>,
    guard: &mut Option<CoreGuard>,
) -> Result<Vec<Roof>> {
    let late = || until.is_some_and(|u| Instant::now() >= u);
    let mut out = Vec::new();
    let mut start = 0;
    while start < todo.len() && !interrupt::requested() && !late() {
        let (t, level) = (todo[start].threads, todo[start].level.clone());
        let end = todo[start..]
            .iter()
            .position(|x| x.threads != t || x.level != level)
            .map_or(todo.len(), |p| start + p);
        let group = &todo[start..end];
        // The guard needs the 1-thread FMA roof: the 1-thread tasks come
        // first in a plan that has them.
        if t > 1 && guard.is_none() {
            *guard = sharing::guard_for(&out, None, sharing::WAIT_BUDGET);
        }
        // Roofs of a core's own caches need its load path: the guard probes
        // it too (a tenant on an SMT sibling can take it and leave FMA alone).
        if let Some(g) = guard.as_mut() {
            g.guard_loads(level.is_some() && group.iter().any(|t| t.per_core));
        }
        let alloc = group
            .iter()
            .flat_map(|task| {
                task.sizes
                    .iter()
                    .map(|b| runner::alloc_for(task.kernel, *b, Shape::ONE))
            })
            .chain(guard.as_ref().filter(|_| t > 1).map(CoreGuard::alloc))
            .max()
            .unwrap_or(0);
        let roofs = runner::with_pool(
            &machine.core_first_pu[..t],
            alloc,
            |pool| -> Result<Vec<Roof>> {
                let mut roofs = Vec::new();
                let mut guard = guard.as_mut().filter(|_| t > 1);
                if let Some(g) = guard.as_deref_mut() {
                    g.wait_alone(pool).map_err(Error::Io)?;
                }
                for task in group {
                    if late() {
                        return Ok(roofs);
                    }
                    let mut ms = Vec::new();
                    for &bytes in &task.sizes {
                        if interrupt::requested() {
                            return Ok(roofs);
                        }
                        bar.set_message(format!(
                            "{} {} {} threads{}",
                            task.kernel.decl.name,
                            task.level.as_deref().unwrap_or(""),
                            task.threads,
                            if bytes > 0 {
                                format!(" {}", human_bytes(bytes))
                            } else {
                                String::new()
                            }
                        ));
                        let measure = || {
                            runner::measure_steady(
                                pool,
                                task.kernel,
                                bytes,
                                settings,
                                Shape::ONE,
                                cv_limit(task.level.as_deref()),
                            )
                            .map_err(|e| format!("{}: {e}", task.kernel.decl.name))
                        };
                        let m = match guard.as_deref_mut() {
                            Some(g) => g.measure(pool, measure).map(|(m, _)| m),
                            None => measure(),
                        }
                        .map_err(Error::Io)?;
                        ms.push(m);
                        bar.inc(1);
                    }
                    roofs.push(roof_of(task, &ms, uarch));
                }
                Ok(roofs)
            },
        )
        .map_err(Error::Io)??;
        out.extend(roofs);
        start = end;
    }
    Ok(out)
}

/// Keep, of each roof measured `again`, the faster per cycle.
fn keep_faster(roofs: &mut [Roof], again: Vec<Roof>) {
    for new in again {
        if let Some(old) = roofs.iter_mut().find(|r| r.same_roof(&new))
            && new.per_cycle > old.per_cycle
        {
            *old = new;
        }
    }
}

fn output_path(a: &RunArgs) -> Result<PathBuf> {
    let dir = &a.output;
    if dir.exists() && !dir.is_dir() {
        return Err(Error::input(format!(
            "output '{}' exists and is not a directory; give a directory with -o",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::input(format!(
            "cannot create output directory '{}': {e}",
            dir.display()
        ))
    })?;
    let ext = match a.format {
        Format::Json => "json",
        _ => "yaml",
    };
    Ok(dir.join(format!("carm.{ext}")))
}

/// Run the subcommand.
pub fn run(a: &RunArgs) -> Result<()> {
    let started = Instant::now();
    let machine = Machine::load(&Source::Live)?;
    let pf = plan_file(a)?;
    let plan = plan::resolve(&pf, &machine, a.quick)?;
    let todo = tasks(&plan, &machine)?;
    let check = if a.validate {
        Some(crate::commands::validate::Options::for_plan(&plan)?)
    } else {
        None
    };
    let path = output_path(a)?;
    let uarch = limits::detect();
    interrupt::install();

    let settings = Settings::new(
        Duration::from_secs_f64(plan.min_sample_ms / 1e3),
        plan.samples,
    );
    let clock = measure_clock();
    let mut thread_counts = plan.threads.clone();
    thread_counts.extend(default_thread_counts(&machine));
    thread_counts.sort();
    thread_counts.dedup();
    let buffer_ranges = thread_counts
        .into_iter()
        .map(|t| ThreadRanges {
            threads: t,
            levels: ranges_for(&machine, t),
        })
        .collect();
    let mut doc = Document {
        schema: results::SCHEMA,
        tool: format!("carmbench {}", env!("CARGO_PKG_VERSION")),
        created_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        interrupted: false,
        machine: MachineInfo {
            topology: machine.clone(),
            cpuid: limits::cpuid(),
            microarchitecture: uarch.as_ref().map(|u| u.name.clone()),
            isa: isa::detect(),
            clock,
        },
        plan: plan.clone(),
        buffer_ranges,
        roofs: Vec::new(),
        validation: Vec::new(),
    };

    let total: usize = todo.iter().map(|t| t.sizes.len()).sum();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let round = Instant::now();
    // With several threads, a guard (see `sharing`) waits, within
    // sharing::WAIT_BUDGET in all, for the threads to have their cores
    // before each size, and measures a size again when they did not after it.
    let mut guard = None;
    doc.roofs = measure_tasks(
        &todo,
        &machine,
        &settings,
        uarch.as_ref(),
        &bar,
        None,
        &mut guard,
    )?;
    // Roofs that look disturbed (see `suspect`) are measured again, seconds
    // later, and the faster per cycle kept: on a shared host a kernel can run
    // slow for longer than its attempts (AVX2 L1 load on a shared Zen 3: two
    // sizes steady at 40-42 B/cycle, the third at 64). Up to
    // REMEASURE_ROUNDS rounds, within as long again as the first took.
    // They take REMEASURE_SAMPLES times the samples: with two threads both
    // cores must be left alone at once, which a shared host rarely does (a
    // C rig here, 600 samples of 2 ms on both cores: median 97 B/cycle,
    // 90th percentile 106, fastest 126 of 128).
    let deadline = Instant::now() + round.elapsed();
    let longer = Settings::new(settings.min_sample, settings.samples * REMEASURE_SAMPLES);
    for _ in 0..REMEASURE_ROUNDS {
        if interrupt::requested() || Instant::now() >= deadline {
            break;
        }
        let mut again: Vec<Task> = suspect(&todo, &doc.roofs)
            .into_iter()
            .map(|i| todo[i].clone())
            .collect();
        if again.is_empty() {
            break;
        }
        // Roofs of per-core resources first, which have a limit to reach and
        // whose scaling with threads is known: a round can end at the
        // deadline, and a noisy host's L3 and DRAM roofs, measured with 4
        // times the samples, took all of it (26 roofs again in one round
        // here, the 2-thread ones never reached).
        again.sort_by_key(|t| !t.per_core);
        bar.inc_length(again.iter().map(|t| t.sizes.len() as u64).sum());
        let new = measure_tasks(
            &again,
            &machine,
            &longer,
            uarch.as_ref(),
            &bar,
            Some(deadline),
            &mut guard,
        )?;
        keep_faster(&mut doc.roofs, new);
    }
    for i in poorly_scaling(&todo, &doc.roofs) {
        doc.roofs[i].flags.push("shared_core".to_string());
    }
    bar.finish_and_clear();
    let mut validation = String::new();
    if let Some(o) = check.filter(|_| !interrupt::requested()) {
        // The roofs are kept whatever happens to the sweep.
        results::save(&doc, &path, a.format)?;
        let t = Instant::now();
        let res = crate::commands::validate::validate_doc(&mut doc, &machine, &o)?;
        validation = crate::commands::validate::report(&res, o.threshold);
        let _ = writeln!(
            validation,
            "validation took {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
    doc.interrupted = interrupt::requested();
    results::save(&doc, &path, a.format)?;
    print!("{}", summary(&doc));
    if let Some(n) = guard.and_then(|g| g.seen.note("multi-thread roof size")) {
        println!("{n}");
    }
    print!("{validation}");
    let charts = write_charts(&doc, &path);
    let skipped: Vec<_> = doc.machine.isa.skipped.iter().map(|i| i.name()).collect();
    if !skipped.is_empty() {
        println!("skipped (this CPU lacks them): {}", skipped.join(", "));
    }
    println!(
        "wrote {} ({} roofs, {:.1} s){}",
        path.display(),
        doc.roofs.len(),
        started.elapsed().as_secs_f64(),
        charts
    );
    if doc.interrupted {
        return Err(Error::Interrupted(format!(
            "interrupted: the {} roofs measured so far are in {}",
            doc.roofs.len(),
            path.display()
        )));
    }
    Ok(())
}

/// Draw carm.svg and carm.png beside the results with the default filters.
/// A chart that cannot be drawn (no roofs, no font for PNG) is reported
/// and skipped: the results themselves are already saved.
pub fn write_charts(doc: &Document, results_path: &std::path::Path) -> String {
    let dir = results_path.parent().unwrap_or(std::path::Path::new("."));
    let sel = match chart::select(
        &[("carm".to_string(), doc.clone())],
        &chart::Filter::default(),
        Vec::new(),
    ) {
        Ok(s) => s,
        Err(e) => return format!("; no chart: {e}"),
    };
    let mut out = String::new();
    for name in ["carm.svg", "carm.png"] {
        let p = dir.join(name);
        match chart::render(&sel, &p) {
            Ok(()) => out.push_str(&format!(", {}", p.display())),
            Err(e) => eprintln!("carmbench: warning: {name} not written: {e}"),
        }
    }
    out
}

/// The summary table printed after a run.
pub fn summary(doc: &Document) -> String {
    let mut s = String::new();
    let c = &doc.machine.clock.measured;
    let _ = writeln!(
        s,
        "{} | {} | clock {:.2} GHz (TSC {:.2} GHz){}",
        doc.machine
            .topology
            .cpu_model
            .as_deref()
            .unwrap_or("unknown CPU"),
        doc.machine
            .microarchitecture
            .as_deref()
            .unwrap_or("unknown microarchitecture"),
        c.core_ghz(),
        doc.machine.clock.tsc_ghz,
        if doc.interrupted {
            " | INTERRUPTED"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "bandwidths count the bytes the cores request (loads + stores), not write-allocate traffic"
    );
    let _ = writeln!(
        s,
        "{:<16} {:<7} {:>3} {:>16} {:>18} {:>8} {:>6}  flags",
        "roof", "isa", "thr", "value", "per cycle", "% limit", "cv %"
    );
    for r in &doc.roofs {
        let (unit, pc) = match r.kind {
            Kind::Bandwidth => ("GB/s", "B/cycle"),
            Kind::Compute | Kind::Validation => ("GFLOP/s", "flop/cycle"),
        };
        let _ = writeln!(
            s,
            "{:<16} {:<7} {:>3} {:>8.1} {:<7} {:>7.2} {:<10} {:>8} {:>6.2}  {}",
            r.label(),
            r.isa.name(),
            r.threads,
            r.value(),
            unit,
            r.per_cycle,
            pc,
            r.percent_of_theoretical
                .map_or("-".to_string(), |p| format!("{p:.1}")),
            r.cv * 100.0,
            r.flags.join(",")
        );
    }
    // Flags that need a sentence under the table.
    let notes = [
        (
            "shared_core",
            format!(
                "these all-core roofs of per-core resources stayed below {:.0}% of threads x their 1-thread roof, measured again up to {} times: other work (an SMT sibling, another tenant of the host) shared a core; run again on an idle machine",
                SCALING_FLOOR * 100.0,
                REMEASURE_ROUNDS
            ),
        ),
        (
            "steal",
            format!(
                "the host took more than {:.0}% of these roofs' CPU time while they were measured (steal in /proc/stat), even after measuring them again; their values may be low: run again when the host leaves the CPUs alone",
                crate::measure::steal::LIMIT * 100.0
            ),
        ),
    ];
    for (flag, text) in notes {
        if doc.roofs.iter().any(|r| r.flags.iter().any(|f| f == flag)) {
            let _ = writeln!(s, "{flag}: {text}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_that_disagree_are_told_apart_from_agreeing_ones() {
        // L1 load on a shared host: two sizes held at 2/3 of the third.
        assert!((spread(&[42.3, 40.0, 64.4]) - 0.61).abs() < 0.01);
        assert!(spread(&[42.3, 40.0, 64.4]) > cv_limit(Some("L1")));
        // Three sizes within 1%: no flag at any level.
        assert!(spread(&[63.2, 63.7, 63.0]) < cv_limit(Some("L1")));
        assert_eq!(spread(&[5.0]), 0.0);
        assert_eq!(spread(&[]), 0.0);
    }

    #[test]
    fn dram_buffers_above_memory_are_refused_before_running() {
        let m = Machine::load(&Source::Synthetic(
            "pack:1 numa:1(memory=512MiB) l3:1(size=32MiB) core:4 l2:1(size=1MiB) l1d:1(size=32KiB) pu:1".into(),
        ))
        .unwrap();
        let pf = PlanFile::default_plan()
            .overlay(PlanFile::parse("isa: [scalar]\nlevels: [DRAM]\n", "t").unwrap());
        let plan = plan::resolve(&pf, &m, false).unwrap();
        let e = tasks(&plan, &m).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let e = e.to_string();
        assert!(
            e.contains("DRAM buffer does not fit with 4 threads") && e.contains("--levels"),
            "{e}"
        );
        // One thread fits: 128 MiB of the 256 MiB allowed.
        let pf1 = pf.overlay(PlanFile::parse("threads: [1]", "t").unwrap());
        let t = tasks(&plan::resolve(&pf1, &m, false).unwrap(), &m).unwrap();
        assert!(t.iter().any(|t| t.level.as_deref() == Some("DRAM")));
    }

    /// The tasks of the default plan with `yaml` laid over it, on `m`.
    fn tasks_with(m: &Machine, yaml: &str) -> Vec<Task> {
        let pf = PlanFile::default_plan().overlay(PlanFile::parse(yaml, "t").unwrap());
        tasks(&plan::resolve(&pf, m, false).unwrap(), m).unwrap()
    }

    #[test]
    fn nt_store_runs_at_dram_only_and_sizes_follow_the_ranges() {
        let m = Machine::load(&Source::Synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:1".into(),
        ))
        .unwrap();
        let t = tasks_with(
            &m,
            "isa: [scalar]\nmixes: [load, nt_store]\nops: []\nthreads: [1]",
        );
        let nt: Vec<_> = t
            .iter()
            .filter(|t| t.kernel.decl.mix == Some(Mix::NtStore))
            .collect();
        assert_eq!(nt.len(), 1);
        assert_eq!(nt[0].level.as_deref(), Some("DRAM"));
        assert_eq!(t.len(), 4 + 1);
        let l2 = t.iter().find(|t| t.level.as_deref() == Some("L2")).unwrap();
        assert_eq!(l2.sizes, vec![96 << 10, 271 << 10, 768 << 10]);
    }

    #[test]
    fn per_core_resources_are_the_ones_expected_to_scale() {
        // 2-socket SMT server: L1/L2 per core, L3 per socket.
        let m = Machine::load(&Source::Synthetic(
            "pack:2 numa:1(memory=64GiB) l3:1(size=32MiB) core:4 l2:1(size=1MiB) l1d:1(size=48KiB) pu:2".into(),
        ))
        .unwrap();
        let t = tasks_with(
            &m,
            "isa: [scalar]\nmixes: [load]\nops: [fma]\nthreads: [all]",
        );
        let private = |l: Option<&str>| t.iter().find(|t| t.level.as_deref() == l).unwrap().private;
        assert!(private(None) && private(Some("L1")) && private(Some("L2")));
        assert!(!private(Some("L3")) && !private(Some("DRAM")));
        // One core's own resources whatever the threads: also with 1 thread,
        // when L3 has its instance to itself, L3 is not one of them.
        let t1 = tasks_with(&m, "isa: [scalar]\nmixes: [load]\nops: [fma]\nthreads: [1]");
        let per_core = |l: Option<&str>| {
            t1.iter()
                .find(|t| t.level.as_deref() == l)
                .unwrap()
                .per_core
        };
        assert!(per_core(None) && per_core(Some("L1")) && per_core(Some("L2")));
        assert!(!per_core(Some("L3")) && !per_core(Some("DRAM")));
        assert!(
            t1.iter()
                .find(|t| t.level.as_deref() == Some("L3"))
                .unwrap()
                .private
        );
    }

    #[test]
    fn only_per_core_roofs_that_scale_badly_or_too_well_are_measured_again() {
        let m = Machine::load(&Source::Synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:1".into(),
        ))
        .unwrap();
        let todo = tasks_with(
            &m,
            "isa: [scalar]\nmixes: [load]\nops: [fma]\nlevels: [L1, L3]\nthreads: [1, 2]",
        );
        let base = results::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/zen5-avx512.yaml"
        )))
        .unwrap()
        .roofs[0]
            .clone();
        let mut roofs: Vec<Roof> = todo
            .iter()
            .map(|t| Roof {
                kernel: t.kernel.decl.name.to_string(),
                level: t.level.clone(),
                threads: t.threads,
                gb_per_s: Some(10.0 * t.threads as f64),
                gflop_per_s: None,
                ..base.clone()
            })
            .collect();
        assert!(poorly_scaling(&todo, &roofs).is_empty());
        // Every 2-thread roof at the rate of 1 thread: L1 and FP are
        // reported, L3 (one instance for both cores) is not.
        for r in roofs.iter_mut().filter(|r| r.threads == 2) {
            r.gb_per_s = Some(10.0);
        }
        let low: Vec<_> = poorly_scaling(&todo, &roofs)
            .into_iter()
            .map(|i| (todo[i].threads, todo[i].level.clone()))
            .collect();
        assert_eq!(low, vec![(2, Some("L1".to_string())), (2, None)]);
        assert!(slow_alone(&todo, &roofs).is_empty());
        // Every 1-thread roof at 2/3 of each of two threads: the per-core
        // ones (L1, FP) were slowed alone and are measured again, L3 not.
        for r in roofs.iter_mut() {
            r.gb_per_s = Some(if r.threads == 1 { 10.0 } else { 30.0 });
        }
        let slow: Vec<_> = slow_alone(&todo, &roofs)
            .into_iter()
            .map(|i| (todo[i].threads, todo[i].level.clone()))
            .collect();
        assert_eq!(slow, vec![(1, Some("L1".to_string())), (1, None)]);
        // Within the CV limit (2% above one thread) is no sign of it.
        for r in roofs.iter_mut().filter(|r| r.threads == 2) {
            r.gb_per_s = Some(20.4);
        }
        assert!(slow_alone(&todo, &roofs).is_empty());

        // What is measured again: nothing while every roof looks right.
        let label = |v: Vec<usize>| -> Vec<_> {
            v.into_iter()
                .map(|i| (todo[i].threads, todo[i].level.clone()))
                .collect()
        };
        for r in roofs.iter_mut() {
            r.flags.clear();
            r.percent_of_theoretical = Some(98.0);
        }
        assert!(suspect(&todo, &roofs).is_empty());
        // Far below its limit: the per-core 1-thread L1 roof is suspect,
        // the L3 roof (shared, often far below its limit) is not.
        for r in roofs.iter_mut().filter(|r| r.threads == 1) {
            r.percent_of_theoretical = Some(70.0);
        }
        assert_eq!(
            label(suspect(&todo, &roofs)),
            vec![(1, Some("L1".to_string())), (1, None)]
        );
        // Noisy samples make any roof suspect, L3 too; and a 2-thread roof
        // scaling badly joins them.
        for r in roofs.iter_mut() {
            r.percent_of_theoretical = None;
        }
        // Noisy but at its limit: nothing left to find.
        roofs[0].flags.push("high_cv".into());
        roofs[0].percent_of_theoretical = Some(99.0);
        assert!(todo[0].per_core && suspect(&todo, &roofs).is_empty());
        roofs[0].flags.clear();
        roofs[0].percent_of_theoretical = None;
        // Time the host took from the CPUs: suspect too.
        roofs[1].flags.push("steal".into());
        assert_eq!(suspect(&todo, &roofs), vec![1]);
        roofs[1].flags.clear();
        roofs[1].flags.push("high_cv".into());
        let i2 = todo
            .iter()
            .position(|t| t.threads == 2 && t.level.as_deref() == Some("L1"))
            .unwrap();
        roofs[i2].gb_per_s = Some(10.0);
        let want: Vec<usize> = {
            let mut v = vec![1, i2];
            v.sort_unstable();
            v
        };
        assert_eq!(suspect(&todo, &roofs), want);
    }

    #[test]
    fn scaling_compares_each_thread_with_one_thread_alone() {
        let doc = results::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/zen5-avx512.yaml"
        )))
        .unwrap();
        let fma = |t: usize| {
            doc.roofs
                .iter()
                .find(|r| r.op == Some(crate::kernels::Op::Fma) && r.threads == t)
                .unwrap()
                .clone()
        };
        let (one, mut two) = (fma(1), fma(2));
        assert_eq!(scaling(&doc.roofs, &one), None);
        let x = scaling(&doc.roofs, &two).unwrap();
        assert!((x - two.value() / (2.0 * one.value())).abs() < 1e-12);
        assert!(x > SCALING_FLOOR, "the fixture scaled: {x}");
        // Two threads at the rate of one: a shared core.
        two.gflop_per_s = Some(one.value());
        assert_eq!(scaling(&doc.roofs, &two), Some(0.5));
        assert!(two.same_roof(&fma(2)) && !two.same_roof(&one));
        // Flagged roofs are explained under the table.
        let mut d = doc.clone();
        d.roofs.retain(|r| r.same_roof(&one) || r.same_roof(&two));
        assert!(!summary(&d).contains("shared_core:"));
        d.roofs[1].flags.push("shared_core".into());
        assert!(summary(&d).contains("shared_core: these all-core roofs"));
        assert!(!summary(&d).contains("steal:"));
        d.roofs[0].flags.push("steal".into());
        assert!(summary(&d).contains("steal: the host took more than 5%"));
    }
}
