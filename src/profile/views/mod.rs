//! The points of one measured run, as views over its work: the whole
//! command (with its processes), each hot function (its blocks and
//! samples), each region. Every point is made by one function, whichever
//! counter measured the run.

pub mod code_paths;
pub mod flow_graph;
pub mod functions;
pub mod loops;
pub mod point;
pub mod ranks;
pub mod timeline;

use crate::kernels::Precision;
use crate::profile::ground::symbols::{Function, Symbols, file_name};
use crate::profile::ground::warnings::Warning;
use crate::profile::measured::Measured;
use crate::profile::measured::samples::{MIN_SECONDS, Samples};
use crate::profile::measured::work::{Basis, dominant, kind, own_work};
use crate::profile::views::point::{Own, Shown};
use crate::results::apps::{
    AppPoint, EmulatedCpu, FunctionInfo, LoopInfo, Of, ProcessPoint, SizedRegion,
};
use code_paths::Compared;
use functions::FunctionPoint;

/// Processes listed in a point at most.
const MAX_PROCESSES: usize = 64;

/// The points of `m` as `shown` asks: the program's first, then its
/// functions' (when asked for and sampled), then its regions', then its
/// ranks'; and what they leave out. One symbolizer names the code of them
/// all.
pub fn points(shown: &Shown, m: &Measured) -> (Vec<AppPoint>, Vec<Warning>) {
    let mut symbols = Symbols::default();
    if let Some((twin, command)) = &m.stand_in {
        symbols.stand_in(twin, command);
    }
    let mut warnings = m.warnings.clone();
    // The whole command's arithmetic: the one asked for, else the one most
    // of its work is (each region's and function's its own, by the same
    // rule).
    let precision = shown.precision.or_else(|| typing(m).and_then(dominant));
    warnings.extend(contradicted(shown.precision, m));
    let basis = m.method.basis(precision);
    let own = Own {
        basis,
        asked: shown.precision,
        decided: None,
        threads: shown.threads.or(m.threads),
        source: &m.source,
        counted_by: m.method.counted_by(),
        counted_with: m.counted_with.as_deref(),
    };
    // The whole command typed by its main process's work (see `typing`).
    let typed = Own {
        decided: Some(precision),
        ..own
    };
    let of = Of::Program {
        mpi: m.ranks.as_ref().map(ranks::mpi_info),
    };
    let mut whole = typed.point(of, shown.name.clone(), &m.total, m.seconds, None);
    whole.processes = processes(m, &basis);
    whole.emulated_cpu = m.emulated_cpu.clone();
    whole.native = m.cpu;
    let (hot, stand_ins) = hot_functions(shown, m, (&whole, &own), &mut symbols, &mut warnings);
    let mut out = vec![whole];
    out.extend(hot);
    out.extend(region_points(shown, m, &own));
    if let Some(r) = &m.ranks {
        let ranks = ranks::rank_points(shown, r, &typed, m.emulated_cpu.as_ref());
        warnings.extend(ranks.iter().filter_map(ranks::in_runtime));
        out.extend(ranks);
    }
    if let Some(every) = shown.timeline {
        // Each phase typed by its own work, as functions are: an integer phase
        // of an FP program goes under the integer roofs.
        out.extend(phases(shown, m, (every, &stand_ins), &own, &mut symbols));
    }
    (out, warnings)
}

/// The hottest functions' points, when asked for and sampled, and the
/// native functions whose code the emulated run took another path for, to
/// the functions it ran in their place.
fn hot_functions(
    shown: &Shown,
    m: &Measured,
    (program, own): (&AppPoint, &Own),
    symbols: &mut Symbols,
    warnings: &mut Vec<Warning>,
) -> (Vec<AppPoint>, crate::profile::views::timeline::StandIns) {
    let mut out = Vec::new();
    let mut stand_ins = crate::profile::views::timeline::StandIns::new();
    let brief = shown.functions.and_then(|_| too_brief(program, m));
    let grouped = match (&m.samples, brief) {
        (_, Some(w)) => {
            warnings.push(w);
            None
        }
        (Some(s), None) if shown.functions.is_some() || m.separate_runs => {
            Some((s, functions::Grouped::of(&m.blocks, s, symbols)))
        }
        _ => None,
    };
    if let Some((s, mut g)) = grouped {
        if m.separate_runs {
            let c = code_paths::compare(&g.costs, s.total);
            warnings.extend(path_warnings(&c, m.emulated_cpu.as_ref()));
            code_paths::apply(&mut g.costs, &c);
            stand_ins = (c.pairs.into_iter())
                .map(|(n, e)| (n.function, e.function))
                .collect();
        }
        if let Some(top) = shown.functions {
            let hot = Hot {
                shown,
                m,
                program,
                own,
            };
            out.extend(hot.points((s, g), top, symbols));
        }
    }
    (out, stand_ins)
}

/// The program's phases, and each rank's in its own native time, named
/// after its point.
fn phases(
    shown: &Shown,
    m: &Measured,
    cut: (
        crate::profile::views::timeline::Every,
        &crate::profile::views::timeline::StandIns,
    ),
    own: &Own,
    symbols: &mut Symbols,
) -> Vec<AppPoint> {
    let mut out = crate::profile::views::timeline::phase_points(&shown.name, m, cut, own, symbols);
    let ranks = m.ranks.iter().flat_map(|r| &r.each);
    for k in ranks.filter(|k| !k.windows.is_empty()) {
        let rank = Measured {
            windows: k.windows.clone(),
            samples: k.samples.clone(),
            seconds: k.seconds,
            emulated_cpu: m.emulated_cpu.clone(),
            ..Measured::default()
        };
        let name = format!("{}/rank{}", shown.name, k.rank);
        // A rank's phases run on its own threads.
        let own = Own {
            threads: k.threads,
            ..*own
        };
        out.extend(crate::profile::views::timeline::phase_points(
            &name, &rank, cut, &own, symbols,
        ));
    }
    out
}

/// A point per region the program marked.
fn region_points(shown: &Shown, m: &Measured, own: &Own) -> Vec<AppPoint> {
    let mut out = Vec::new();
    for r in &m.regions {
        let what = format!("region, {} call(s)", r.calls);
        let (series, n) = carmbench_counts::protocol::split_sized(&r.name);
        let name = match n {
            Some(n) => format!("{}/{series} n={n}", shown.name),
            None => format!("{}/{}", shown.name, r.name),
        };
        let mut p = own.point(Of::Region, name, &r.work, r.seconds, Some(what));
        p.sized = n.map(|n| SizedRegion {
            series: series.to_string(),
            n,
            calls: r.calls,
        });
        p.emulated_cpu = m.emulated_cpu.clone();
        if let Some(k) = &m.ranks {
            p.spread = ranks::region_spread(&k.region_parts(&r.name), own, p.precision);
        }
        out.push(p);
    }
    out
}

/// What the function and loop points of a run are made from.
struct Hot<'a> {
    shown: &'a Shown,
    m: &'a Measured,
    program: &'a AppPoint,
    own: &'a Own<'a>,
}

impl Hot<'_> {
    /// The points of the `top` hottest functions of the program (grouped),
    /// and of the loops asked for in them.
    fn points(
        &self,
        (s, g): (&Samples, functions::Grouped),
        top: usize,
        symbols: &mut Symbols,
    ) -> Vec<AppPoint> {
        let (m, own) = (self.m, self.own);
        let basis = own.basis;
        let mut fps = g.hottest(s, top, &basis, symbols);
        // Every function shown, as itself or as its loops: the rest is what
        // they leave.
        let shown: Vec<_> = (fps.iter().filter(|p| p.members == 1))
            .map(|p| p.function.clone())
            .collect();
        let mut loops = Vec::new();
        if let Some(n) = self.shown.loops {
            let functions: Vec<_> = fps.iter().map(|p| p.function.clone()).collect();
            let lps = loops::hottest(&m.blocks, &m.flow, s, &functions, n, &basis, symbols);
            // A function whose loops are shown is its loops and its rest.
            fps.retain(|p| !lps.iter().any(|l| l.function == p.function));
            loops = of_loops(&lps, self.program, own);
        }
        let mut points = function_points(&fps, self.program, own);
        if let Some(r) = &m.ranks {
            ranks::spread_functions(r, &fps, &shown, &mut points, symbols);
        }
        points.extend(loops);
        points
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
        at_least: MIN_SECONDS,
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
            let info = FunctionInfo {
                location: p.location.clone(),
                counted_as: p.cost.counted_as.clone(),
                ran_only: p.cost.ran_only,
                ..function_info(program, &p.function, p.share, p.cost.samples)
            };
            let name = p.function.name.clone();
            let of = Of::Function(info);
            AppPoint {
                threads: Some(1),
                ..own.point(of, name, &p.cost.work, p.seconds, Some(what))
            }
        })
        .collect()
}

/// The points of loops (and of their functions' rest).
fn of_loops(lps: &[loops::LoopPoint], program: &AppPoint, own: &Own) -> Vec<AppPoint> {
    lps.iter()
        .map(|l| {
            let what = match &l.found {
                Some(f) => format!(
                    "loop of {} at depth {}, {} iteration(s) in {} entry(ies); its own blocks' instructions",
                    l.function.name, f.found.depth, f.found.iterations, f.found.entries
                ),
                None => format!("{} outside the loops shown", l.function.name),
            };
            let what = format!(
                "{what}; time from {} native sample(s) of the cpu-clock event",
                l.samples
            );
            let info = FunctionInfo {
                location: l.found.as_ref().and_then(|f| f.line.clone()),
                ..function_info(program, &l.function, l.share, l.samples)
            };
            let found = l.found.as_ref().map(|f| {
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
                    depth: f.found.depth,
                    parent: f.parent.clone(),
                    iterations: f.found.iterations,
                    entries: f.found.entries,
                    irreducible: f.found.irreducible,
                    total_flops: total.flops,
                    total_bytes: total.bytes,
                    total_precision: precision,
                }
            });
            // The rest of a function outside its loops is a function's.
            let of = match found {
                Some(found) => Of::Loop(info, found),
                None => Of::Function(info),
            };
            AppPoint {
                threads: Some(1),
                ..own.point(of, l.name.clone(), &l.work, l.seconds, Some(what))
            }
        })
        .collect()
}

/// The part of a point that says which function of `program` it is: its
/// file, its share of the program's time and the samples that share
/// rests on.
fn function_info(program: &AppPoint, f: &Function, share: f64, samples: u64) -> FunctionInfo {
    FunctionInfo::new(&program.name, file_name(&f.module), share, samples)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::measured::samples::Samples;
    use crate::profile::views::functions::Grouped;
    use crate::profile::views::functions::tests::{process, two_functions};
    use carmbench_counts::Counts;

    /// Events between two samples.
    const P: u64 = 1000;

    #[test]
    fn the_pmu_samples_give_the_points_emulation_counts_give() {
        let (me, a, b, _) = two_functions();
        let zen4 = (crate::profile::measured::events::families().into_iter())
            .find(|f| f.name == "zen4")
            .unwrap();
        // Recorded samples: time, FP operations, loads and stores, in the
        // two functions (a twice, at two of its places).
        let mut s = Samples {
            total: 80,
            cpu_seconds: 0.8,
            event_period: P,
            ..Samples::default()
        };
        s.places
            .extend([((me.clone(), a), 50), ((me.clone(), b + 2), 30)]);
        let mut event = |name: &str, at: &[(u64, u64)]| {
            let places = at.iter().map(|&(o, n)| ((me.clone(), o), n)).collect();
            s.events.insert(name.to_string(), places);
        };
        event("fp_ret_sse_avx_ops.all", &[(a, 30), (a + 2, 10), (b, 5)]);
        event("ls_dispatch.ld_dispatch", &[(a, 20), (b, 10)]);
        event("ls_dispatch.store_dispatch", &[(a, 10)]);
        let program = AppPoint {
            source: Some("perf".into()),
            ..AppPoint::new("app", 45.0 * P as f64, 40.0 * P as f64 * 8.0, 1.0)
        };
        let own = |basis| Own {
            basis,
            asked: None,
            decided: None,
            threads: None,
            source: "perf",
            counted_by: crate::results::apps::CountedBy::Pmu,
            counted_with: None,
        };
        let by_pmu = Basis {
            pmu: Some((&zen4, Some(8.0))),
            ..Basis::default()
        };
        let blocks = crate::profile::counter::sampled_blocks(&s);
        let mut sy = crate::profile::ground::symbols::Symbols::default();
        let mut hottest = |blocks: &[_], basis: &Basis| {
            Grouped::of(blocks, &s, &mut sy).hottest(&s, 10, basis, &mut sy)
        };
        let pmu = function_points(&hottest(&blocks, &by_pmu), &program, &own(by_pmu));
        // The same work counted by emulation, 8-byte accesses.
        let c = |flops: u64, loads: u64, stores: u64| Counts {
            dp_other_flops: flops * P,
            bytes_loaded: 8 * loads * P,
            bytes_stored: 8 * stores * P,
            ..Counts::default()
        };
        let out = process(&me, &[(0, a, c(40, 20, 10)), (0, b, c(5, 10, 0))]);
        let blocks = crate::profile::counter::emulation::blocks(&[out]);
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
            assert_eq!(x.function(), y.function());
        }
        assert_eq!(pmu[0].flops, 40.0 * P as f64);
        assert!(
            pmu[0]
                .source
                .as_ref()
                .unwrap()
                .contains("PMU events, sampled")
        );
    }
}
