//! The points of one measured run, as views over its work: the whole
//! command (with its processes), each hot function (its blocks and
//! samples), each region. Every point is made by one function, whichever
//! counter measured the run.

use super::counter::Measured;
use super::counter::Ranks;
use super::functions::{self, FunctionPoint};
use super::hot_loops;
use super::mpi::join::{function_seconds, function_spread};
use super::paths::{self, Compared};
use super::plan::{Counting, ProfilePlan};
use super::sample::{MIN_SECONDS, Samples};
use super::symbols::{Function, file_name};
use super::warnings::Warning;
use super::work::{Basis, Work, dominant, kind, own_work};
use crate::kernels::Precision;
use crate::results::apps::{AppPoint, EmulatedCpu, FunctionInfo, LoopInfo, MpiInfo, ProcessPoint};
use crate::results::apps::{Range, RankInfo, RuntimeWork, Spread};

/// Processes listed in a point at most.
const MAX_PROCESSES: usize = 64;

/// The points of `m`: the program's first, then its functions' (when
/// asked for and sampled), then its regions'; and what they leave out.
pub fn points(plan: &ProfilePlan, m: &Measured) -> (Vec<AppPoint>, Vec<Warning>) {
    let mut warnings = m.warnings.clone();
    // The whole command's arithmetic: the one asked for, else the one most
    // of its work is (each region's and function's its own, by the same
    // rule).
    let precision = plan.precision.or_else(|| typing(m).and_then(dominant));
    warnings.extend(contradicted(plan.precision, m));
    let basis = Basis {
        precision,
        pmu: match &plan.counting {
            Counting::Pmu(p) => Some((&p.family, p.access_bytes)),
            _ => None,
        },
        caches: match &plan.counting {
            Counting::Emulate(e) => e.caches.as_ref(),
            _ => None,
        },
    };
    let own = Own {
        basis,
        asked: plan.precision,
        decided: None,
        threads: plan.threads.or(m.threads),
        source: &m.source,
        counted_with: m.counted_with.as_deref(),
    };
    // The whole command typed by its main process's work (see `typing`).
    let typed = Own {
        decided: Some(precision),
        ..own
    };
    let mut whole = typed.point(plan.name.clone(), &m.total, m.seconds, None);
    whole.processes = processes(m, &basis);
    whole.emulated_cpu = m.emulated_cpu.clone();
    whole.mpi = m.ranks.as_ref().map(mpi_info);
    let program = whole.clone();
    let mut out = vec![whole];
    let brief = plan.functions.and_then(|_| too_brief(&out[0], m));
    let grouped = match (&m.samples, brief) {
        (_, Some(w)) => {
            warnings.push(w);
            None
        }
        (Some(s), None) if plan.functions.is_some() || m.separate_runs => {
            Some((s, functions::Grouped::of(&m.blocks, s)))
        }
        _ => None,
    };
    if let Some((s, mut g)) = grouped {
        if m.separate_runs {
            let c = paths::compare(&g.costs, s.total);
            warnings.extend(path_warnings(&c, m.emulated_cpu.as_ref()));
            paths::apply(&mut g.costs, &c);
        }
        if let Some(top) = plan.functions {
            out.extend(hot_points(plan, m, (s, g), top, &program, &own));
        }
    }
    for r in &m.regions {
        let what = format!("region, {} call(s)", r.calls);
        let name = format!("{}/{}", plan.name, r.name);
        let mut p = own.point(name, &r.work, r.seconds, Some(what));
        p.emulated_cpu = m.emulated_cpu.clone();
        if let Some(k) = &m.ranks {
            p.spread = region_spread(&k.region_parts(&r.name), &own, p.precision);
        }
        out.push(p);
    }
    if let Some(r) = &m.ranks {
        let ranks = rank_points(plan, r, &typed, m);
        warnings.extend(ranks.iter().filter_map(in_runtime));
        out.extend(ranks);
    }
    (out, warnings)
}

/// A region's seconds and W over the ranks (`(rank, seconds, work)`), W in
/// the units of `precision`.
fn region_spread(
    parts: &[(u32, f64, Work)],
    own: &Own,
    precision: Option<Precision>,
) -> Option<Spread> {
    let basis = Basis {
        precision,
        ..own.basis
    };
    let seconds: Vec<(u32, f64)> = parts.iter().map(|p| (p.0, p.1)).collect();
    let work: Vec<(u32, f64)> = parts
        .iter()
        .map(|p| (p.0, basis.derive(&p.2).flops))
        .collect();
    Some(Spread {
        seconds: Range::of(&seconds)?,
        work: Range::of(&work),
    })
}

/// Share of a rank's work above which its work in the MPI runtime is said.
const RUNTIME_SHARE: f64 = 0.1;

/// A warning when a rank's point holds much work of the MPI runtime.
fn in_runtime(p: &AppPoint) -> Option<Warning> {
    let r = p.rank.as_ref()?;
    let w = r.runtime?;
    let share = |x: f64, of: f64| if of > 0.0 { x / of } else { 0.0 };
    let (w_share, q_share) = (share(w.flops, p.flops), share(w.bytes, p.bytes));
    (w_share.max(q_share) > RUNTIME_SHARE).then_some(Warning::RankInRuntime {
        rank: r.rank,
        w_share,
        q_share,
    })
}

/// What the program's point says of an MPI job.
fn mpi_info(r: &Ranks) -> MpiInfo {
    MpiInfo {
        launcher: r.launcher.name().into(),
        ranks: r.each.len(),
        slowest: r.slowest(),
        nodes: r.nodes(),
        failed: r.failed.clone(),
    }
}

/// The point of each rank of an MPI job, under the program's arithmetic.
fn rank_points(plan: &ProfilePlan, r: &Ranks, typed: &Own, m: &Measured) -> Vec<AppPoint> {
    (r.each.iter())
        .map(|k| {
            let what = format!("rank {} of {}, on {}", k.rank, r.each.len(), k.host);
            let name = format!("{}/rank{}", plan.name, k.rank);
            let mut p = typed.point(name, &k.total, k.seconds, Some(what));
            p.threads = plan.threads.map(|t| t / r.each.len().max(1)).or(k.threads);
            p.emulated_cpu = m.emulated_cpu.clone();
            let basis = Basis {
                precision: p.precision,
                ..typed.basis
            };
            p.rank = Some(RankInfo {
                program: plan.name.clone(),
                rank: k.rank,
                host: k.host.clone(),
                runtime: k.runtime.as_ref().map(|w| {
                    let d = basis.derive(w);
                    RuntimeWork {
                        flops: d.flops,
                        bytes: d.bytes,
                    }
                }),
            });
            p
        })
        .collect()
}

/// Each function point's time over the ranks, from each rank's samples;
/// the rest's is what the functions `shown` leave.
fn spread_functions(r: &Ranks, fps: &[FunctionPoint], shown: &[Function], points: &mut [AppPoint]) {
    let per_rank = function_seconds(r);
    for (fp, point) in fps.iter().zip(points.iter_mut()) {
        let rest = (fp.members > 1).then_some(shown);
        point.spread = function_spread(&per_rank, &fp.function, rest);
    }
}

/// The points of the `top` hottest functions of `program` (grouped), and
/// of the loops asked for in them.
fn hot_points(
    plan: &ProfilePlan,
    m: &Measured,
    (s, g): (&Samples, functions::Grouped),
    top: usize,
    program: &AppPoint,
    own: &Own,
) -> Vec<AppPoint> {
    let basis = own.basis;
    let mut fps = g.hottest(s, top, &basis);
    // Every function shown, as itself or as its loops: the rest is what
    // they leave.
    let shown: Vec<_> = (fps.iter().filter(|p| p.members == 1))
        .map(|p| p.function.clone())
        .collect();
    let mut loops = Vec::new();
    if let Some(n) = plan.loops {
        let functions: Vec<_> = fps.iter().map(|p| p.function.clone()).collect();
        let lps = hot_loops::hottest(&m.blocks, &m.flow, s, &functions, n, &basis);
        // A function whose loops are shown is its loops and its rest.
        fps.retain(|p| !lps.iter().any(|l| l.function == p.function));
        loops = loop_points(&lps, program, own);
    }
    let mut points = function_points(&fps, program, own);
    if let Some(r) = &m.ranks {
        spread_functions(r, &fps, &shown, &mut points);
    }
    points.extend(loops);
    points
}

/// What every point of one run shares.
struct Own<'a> {
    basis: Basis<'a>,
    /// The arithmetic asked for (`--precision`), else each point's own.
    asked: Option<Precision>,
    /// The arithmetic decided for this point beforehand (None: FP), in
    /// place of its own counts' (the whole command's, by `typing`).
    decided: Option<Option<Precision>>,
    threads: Option<usize>,
    source: &'a str,
    counted_with: Option<&'a str>,
}

impl Own<'_> {
    /// The point of `work` in `seconds`; `what` it is, beside where its
    /// counts come from.
    fn point(&self, name: String, work: &Work, seconds: f64, what: Option<String>) -> AppPoint {
        let precision = match (self.decided, work.counts()) {
            (Some(p), _) => p,
            (None, Some(c)) => self.asked.or_else(|| dominant(c)),
            (None, None) => self.basis.precision,
        };
        let basis = Basis {
            precision,
            ..self.basis
        };
        let d = basis.derive(work);
        let mut source = self.source.to_string();
        if let Some(w) = what {
            source = format!("{source}; {w}");
        }
        if let Some(n) = &d.note {
            source = format!("{source}: {n}");
        }
        AppPoint {
            threads: self.threads,
            fma_flops: d.fma_flops,
            source: Some(source),
            mix: d.mix,
            counted_with: self.counted_with.map(String::from),
            traffic: d.traffic,
            precision,
            ..AppPoint::new(name, d.flops, d.bytes, seconds)
        }
    }
}

/// A warning when `--precision` names arithmetic the counts hardly hold
/// (a tenth of the work of the kind they do hold, or less).
fn contradicted(asked: Option<Precision>, m: &Measured) -> Option<Warning> {
    let (asked, c) = (asked?, m.total.counts()?);
    let counted = kind(c);
    let (mine, theirs) = (own_work(c, asked), own_work(c, counted));
    (counted != asked && mine.saturating_mul(10) <= theirs).then_some(
        Warning::PrecisionContradicted {
            asked,
            counted,
            asked_work: mine,
            counted_work: theirs,
        },
    )
}

/// The counts whose arithmetic types the whole command: the process's
/// that ran the most instructions of its own program to its end (one that
/// only launched another, by an exec, does not type it: a shim's string
/// work is not the program's), else the whole command's.
fn typing(m: &Measured) -> Option<&carmbench_counts::Counts> {
    (m.processes.iter())
        .filter(|p| !p.replaced)
        .filter_map(|p| p.work.counts())
        .max_by_key(|c| c.instructions)
        .or_else(|| m.total.counts())
}

/// The processes that did work (a shell's or make's own bookkeeping is in
/// the sum, not listed), the largest first when there are very many.
fn processes(m: &Measured, basis: &Basis) -> Vec<ProcessPoint> {
    let mut listed: Vec<ProcessPoint> = (m.processes.iter())
        .map(|p| {
            let d = basis.derive(&p.work);
            ProcessPoint {
                program: p.program.clone(),
                pid: p.pid,
                flops: d.flops,
                bytes: d.bytes,
                instructions: p.work.counts().map_or(0.0, |c| c.instructions as f64),
            }
        })
        .filter(|p| p.flops > 0.0)
        .collect();
    if listed.len() > MAX_PROCESSES {
        listed.sort_by(|a, b| b.flops.total_cmp(&a.flops));
        listed.truncate(MAX_PROCESSES);
    }
    listed
}

/// What the runs' comparison found, one warning per function.
fn path_warnings(c: &Compared, cpu: Option<&EmulatedCpu>) -> Vec<Warning> {
    let hidden = cpu.map(|c| c.hidden.clone()).unwrap_or_default();
    let mut out = Vec::new();
    for (n, e) in &c.pairs {
        out.push(Warning::RanInstead {
            native: n.function.clone(),
            native_share: n.share,
            emulated: e.function.name.clone(),
            emulated_share: e.share,
            hidden: hidden.clone(),
        });
    }
    for n in &c.native_only {
        out.push(Warning::NativeOnly {
            function: n.function.clone(),
            share: n.share,
            hidden: hidden.clone(),
        });
    }
    for e in &c.emulated_only {
        out.push(Warning::EmulatedOnly {
            function: e.function.clone(),
            share: e.share,
        });
    }
    out
}

/// Why a run gives no function points: it ran too briefly to sample.
fn too_brief(program: &AppPoint, m: &Measured) -> Option<Warning> {
    let samples = m.samples.as_ref().map_or(0, |s| s.total);
    (program.seconds < MIN_SECONDS || samples == 0).then(|| Warning::TooBriefForFunctions {
        program: program.name.clone(),
        seconds: program.seconds,
        samples,
    })
}

/// The application points of `fps`, functions of the program point
/// `program`: per core (CPU time), placed against one core's roofs.
fn function_points(fps: &[FunctionPoint], program: &AppPoint, own: &Own) -> Vec<AppPoint> {
    let counted = match own.basis.pmu {
        Some(_) => "its PMU events, sampled",
        None => "its own instructions",
    };
    fps.iter()
        .map(|p| {
            let what = match p.members {
                1 => format!("function, {counted}"),
                n => format!("the other {n} functions, {counted}"),
            };
            let what = format!(
                "{what}; time from {} native sample(s) of the cpu-clock event",
                p.cost.samples
            );
            AppPoint {
                threads: Some(1),
                function: Some(FunctionInfo {
                    program: program.name.clone(),
                    module: file_name(&p.function.module).to_string(),
                    share: p.share,
                    samples: p.cost.samples,
                    location: p.location.clone(),
                    counted_as: p.cost.counted_as.clone(),
                    ran_only: p.cost.ran_only,
                }),
                ..own.point(p.function.name.clone(), &p.cost.work, p.seconds, Some(what))
            }
        })
        .collect()
}

/// The points of loops (and of their functions' rest).
fn loop_points(lps: &[hot_loops::LoopPoint], program: &AppPoint, own: &Own) -> Vec<AppPoint> {
    lps.iter()
        .map(|l| {
            let what = match &l.found {
                Some(f) => format!(
                    "loop of {} at depth {}, {} iteration(s) in {} entry(ies); its own blocks' instructions",
                    l.function.name, f.depth, f.iterations, f.entries
                ),
                None => format!("{} outside the loops shown", l.function.name),
            };
            let what = format!(
                "{what}; time from {} native sample(s) of the cpu-clock event",
                l.samples
            );
            let mut p = AppPoint {
                threads: Some(1),
                function: Some(FunctionInfo {
                    program: program.name.clone(),
                    module: file_name(&l.function.module).to_string(),
                    share: l.share,
                    samples: l.samples,
                    location: l.found.as_ref().and_then(|f| f.line.clone()),
                    counted_as: None,
                    ran_only: None,
                }),
                ..own.point(l.name.clone(), &l.work, l.seconds, Some(what))
            };
            p.loop_info = l.found.as_ref().map(|f| {
                // The whole nest in the unit of its own arithmetic.
                let precision = own.asked.or_else(|| f.total.counts().and_then(dominant));
                let total = Basis {
                    precision,
                    ..own.basis
                }
                .derive(&f.total);
                LoopInfo {
                    function: l.function.name.clone(),
                    header: f.header,
                    line: f.line.clone(),
                    depth: f.depth,
                    parent: f.parent.clone(),
                    iterations: f.iterations,
                    entries: f.entries,
                    irreducible: f.irreducible,
                    total_flops: total.flops,
                    total_bytes: total.bytes,
                    total_precision: precision,
                }
            });
            p
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::functions::Grouped;
    use crate::profile::functions::tests::{command, process, two_functions};
    use crate::profile::sample::Samples;
    use carmbench_counts::Counts;

    #[test]
    fn the_pmu_samples_give_the_points_emulation_counts_give() {
        let (me, a, b, _) = two_functions();
        let zen4 = crate::profile::pmu::families()
            .into_iter()
            .find(|f| f.name == "zen4")
            .unwrap();
        let p = 1000u64;
        // Recorded samples: time, FP operations, loads and stores, in the
        // two functions (a twice, at two of its places).
        let mut s = Samples {
            total: 80,
            cpu_seconds: 0.8,
            event_period: p,
            ..Samples::default()
        };
        s.places.insert((me.clone(), a), 50);
        s.places.insert((me.clone(), b + 2), 30);
        let mut event = |name: &str, at: &[(u64, u64)]| {
            let places = at.iter().map(|&(o, n)| ((me.clone(), o), n)).collect();
            s.events.insert(name.to_string(), places);
        };
        event("fp_ret_sse_avx_ops.all", &[(a, 30), (a + 2, 10), (b, 5)]);
        event("ls_dispatch.ld_dispatch", &[(a, 20), (b, 10)]);
        event("ls_dispatch.store_dispatch", &[(a, 10)]);
        let program = AppPoint {
            source: Some("perf".into()),
            ..AppPoint::new("app", 45.0 * p as f64, 40.0 * p as f64 * 8.0, 1.0)
        };
        let own = |basis| Own {
            basis,
            asked: None,
            decided: None,
            threads: None,
            source: "perf",
            counted_with: None,
        };
        let by_pmu = Basis {
            pmu: Some((&zen4, Some(8.0))),
            ..Basis::default()
        };
        let blocks = crate::profile::counter::sampled_blocks(&s);
        let hottest = |blocks: &[_], basis: &Basis| Grouped::of(blocks, &s).hottest(&s, 10, basis);
        let pmu = function_points(&hottest(&blocks, &by_pmu), &program, &own(by_pmu));
        // The same work counted by emulation, 8-byte accesses.
        let c = |flops: u64, loads: u64, stores: u64| Counts {
            dp_other_flops: flops * p,
            bytes_loaded: 8 * loads * p,
            bytes_stored: 8 * stores * p,
            ..Counts::default()
        };
        let out = process(&me, &[(0, a, c(40, 20, 10)), (0, b, c(5, 10, 0))]);
        let blocks = crate::profile::emulate::blocks(&[out], &command(&me), None);
        let by_emulation = Basis::default();
        let emulated = function_points(
            &hottest(&blocks, &by_emulation),
            &program,
            &own(by_emulation),
        );
        assert_eq!(pmu.len(), 2);
        for (x, y) in pmu.iter().zip(&emulated) {
            assert_eq!(x.name, y.name);
            assert_eq!(
                (x.flops, x.bytes, x.seconds),
                (y.flops, y.bytes, y.seconds),
                "{}",
                x.name
            );
            assert_eq!(x.function, y.function);
        }
        assert_eq!(pmu[0].flops, 40.0 * p as f64);
        assert!(
            pmu[0]
                .source
                .as_ref()
                .unwrap()
                .contains("PMU events, sampled")
        );
    }
}
