//! A point per hot function: W and Q of each function from the emulated
//! run's counts per block of code, T from the native run's samples, both
//! found in the same files at the same offsets and named by [`symbols`].
//!
//! W and Q are the function's own instructions (self cost): the functions'
//! sums are the program's W and Q exactly. T is the function's share of the
//! samples times the user CPU time of the run, summed over threads: a
//! function point's performance is per core, and is placed against the
//! one-thread roofs.
//!
//! [`symbols`]: super::symbols

use super::emulate::{Counts, Output};
use super::sample::{FEW_SAMPLES, MIN_SECONDS, Samples};
use super::symbols::{Function, Symbols, file_name};
use crate::results::apps::{AppPoint, FunctionInfo};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What one function cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    /// Its own counts by emulation, summed over processes and threads.
    pub counts: Counts,
    /// Its hardware events by the PMU's samples: samples × period, by
    /// event name (empty under emulation).
    pub events: BTreeMap<String, u64>,
    /// Native samples of its time.
    pub samples: u64,
}

impl std::ops::AddAssign<&Cost> for Cost {
    fn add_assign(&mut self, o: &Cost) {
        self.counts += &o.counts;
        for (e, n) in &o.events {
            *self.events.entry(e.clone()).or_default() += n;
        }
        self.samples += o.samples;
    }
}

/// How the work of the functions was found, for their W and Q.
pub enum Counter<'a> {
    /// Counted instruction by instruction under emulation.
    Emulation,
    /// Estimated from the PMU's samples of `family`'s events, Q from
    /// `access_bytes` per access (or the FP widths).
    Pmu(&'a super::pmu::Family, Option<f64>),
}

/// One function's point, before it becomes an application point.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionPoint {
    /// The function ("rest" for all the others together).
    pub function: Function,
    /// What it cost.
    pub cost: Cost,
    /// Seconds: its share of the samples × the run's CPU time.
    pub seconds: f64,
    /// Its share of the samples.
    pub share: f64,
    /// Functions it stands for: 1, or how many "rest" sums.
    pub members: usize,
    /// Where it starts in its sources, when known.
    pub location: Option<String>,
}

impl FunctionPoint {
    /// Rests on too few samples for its time to be more than a hint.
    pub fn uncertain(&self) -> bool {
        self.cost.samples < FEW_SAMPLES
    }
}

/// The name of the point that sums the functions not shown.
pub const REST: &str = "rest";

/// A module's path as both runs name it: the file itself, links resolved
/// (a library is found as `/lib/...` by one and `/usr/lib/...` by the
/// other when `/lib` is a link).
fn canonical(path: &str, cache: &mut HashMap<String, String>) -> String {
    if path.is_empty() {
        return String::new();
    }
    cache
        .entry(path.to_string())
        .or_insert_with(|| {
            std::fs::canonicalize(Path::new(path))
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| path.to_string())
        })
        .clone()
}

/// Places (module path, offset) with what was found there, grouped by
/// module, become functions: each named once per module in one call.
fn by_function<T>(
    places: impl IntoIterator<Item = (String, u64, T)>,
    symbols: &mut Symbols,
) -> Vec<(Function, T)> {
    let mut by_module: BTreeMap<String, Vec<(u64, T)>> = BTreeMap::new();
    for (m, offset, x) in places {
        by_module.entry(m).or_default().push((offset, x));
    }
    let mut out = Vec::new();
    for (m, items) in by_module {
        let offsets: Vec<u64> = items.iter().map(|x| x.0).collect();
        let names = symbols.functions(&m, &offsets);
        out.extend(names.into_iter().zip(items.into_iter().map(|x| x.1)));
    }
    out
}

/// The time samples of every function, into `out`.
fn add_samples(
    out: &mut BTreeMap<Function, Cost>,
    samples: &Samples,
    symbols: &mut Symbols,
    paths: &mut HashMap<String, String>,
) {
    let places = samples
        .places
        .iter()
        .map(|((path, offset), n)| (canonical(path, paths), *offset, *n));
    for (f, n) in by_function(places, symbols) {
        out.entry(f).or_default().samples += n;
    }
}

/// Every function's cost: the processes' counts per block of code and the
/// samples per place, joined by function. `rename` maps a module of the
/// emulated run (its path resolved) to the native run's: a twin build
/// counted in the command's place.
pub fn costs(
    processes: &[Output],
    samples: &Samples,
    symbols: &mut Symbols,
    rename: &dyn Fn(&str) -> String,
) -> BTreeMap<Function, Cost> {
    let mut paths = HashMap::new();
    let mut places = Vec::new();
    for p in processes {
        for s in &p.sites {
            let module = p
                .modules
                .get(s.module as usize)
                .map(|m| rename(&canonical(m, &mut paths)))
                .unwrap_or_default();
            places.push((module, s.offset, s.counts));
        }
    }
    let mut out: BTreeMap<Function, Cost> = BTreeMap::new();
    for (f, counts) in by_function(places, symbols) {
        out.entry(f).or_default().counts += &counts;
    }
    add_samples(&mut out, samples, symbols, &mut paths);
    out
}

/// Every function's cost from one sampled native run: its time samples and
/// the PMU events sampled beside them (each sample stands for
/// `samples.event_period` events).
pub fn sampled_costs(samples: &Samples, symbols: &mut Symbols) -> BTreeMap<Function, Cost> {
    let mut paths = HashMap::new();
    let mut out: BTreeMap<Function, Cost> = BTreeMap::new();
    add_samples(&mut out, samples, symbols, &mut paths);
    for (event, places) in &samples.events {
        let places: Vec<(String, u64, u64)> = places
            .iter()
            .map(|((path, offset), n)| (canonical(path, &mut paths), *offset, *n))
            .collect();
        for (f, n) in by_function(places, symbols) {
            *out.entry(f)
                .or_default()
                .events
                .entry(event.clone())
                .or_default() += n * samples.event_period;
        }
    }
    out
}

/// The `top` functions by time, then "rest" (when anything is left): each
/// with its seconds out of `samples.cpu_seconds`.
pub fn points(
    costs: BTreeMap<Function, Cost>,
    samples: &Samples,
    top: usize,
) -> Vec<FunctionPoint> {
    let total = samples.total.max(1) as f64;
    let mut all: Vec<(Function, Cost)> = costs.into_iter().collect();
    // By time, then by work for functions the samples missed.
    all.sort_by(|a, b| {
        (b.1.samples, b.1.counts.flops(), b.1.counts.bytes()).cmp(&(
            a.1.samples,
            a.1.counts.flops(),
            a.1.counts.bytes(),
        ))
    });
    let point = |function: Function, cost: Cost| {
        let share = cost.samples as f64 / total;
        FunctionPoint {
            seconds: share * samples.cpu_seconds,
            share,
            function,
            cost,
            members: 1,
            location: None,
        }
    };
    let rest_at = all
        .iter()
        .position(|(_, c)| c.samples == 0)
        .unwrap_or(all.len())
        .min(top);
    let rest = all.split_off(rest_at);
    let mut out: Vec<FunctionPoint> = all.into_iter().map(|(f, c)| point(f, c)).collect();
    if !rest.is_empty() {
        let mut sum = Cost::default();
        for (_, c) in &rest {
            sum += c;
        }
        // Named alike in every profile, so that two profiles match it.
        let name = Function {
            module: String::new(),
            name: REST.into(),
        };
        out.push(FunctionPoint {
            members: rest.len(),
            ..point(name, sum)
        });
    }
    out
}

/// The application points of `points`, functions of the program point
/// `program` (whose other fields they share).
pub fn app_points(points: &[FunctionPoint], program: &AppPoint, how: &Counter) -> Vec<AppPoint> {
    points
        .iter()
        .map(|p| {
            let c = &p.cost.counts;
            let (flops, bytes, fma_flops, mix, counted) = match how {
                Counter::Emulation => (
                    super::emulate::work(c, program.precision) as f64,
                    c.bytes() as f64,
                    program.precision.is_none().then_some(c.fma_flops() as f64),
                    Some(super::emulate::mix(c)),
                    "its own instructions",
                ),
                Counter::Pmu(family, access_bytes) => {
                    let d = super::pmu::derive(family, &p.cost.events, *access_bytes);
                    (d.flops, d.bytes, None, None, "its PMU events, sampled")
                }
            };
            AppPoint {
                name: p.function.name.clone(),
                flops,
                bytes,
                seconds: p.seconds,
                // CPU time: compared with one core's roofs.
                threads: Some(1),
                fma_flops,
                source: program.source.as_ref().map(|s| {
                    let what = match p.members {
                        1 => format!("function, {counted}"),
                        n => format!("the other {n} functions, {counted}"),
                    };
                    format!(
                        "{s}; {what}; time from {} native sample(s) of the cpu-clock event",
                        p.cost.samples
                    )
                }),
                mix,
                processes: Vec::new(),
                counted_with: program.counted_with.clone(),
                // Its own blocks' traffic, when the caches were simulated.
                traffic: match how {
                    Counter::Emulation => {
                        (program.traffic.as_ref()).and_then(|t| super::traffic::of(c, &t.model))
                    }
                    Counter::Pmu(..) => None,
                },
                precision: program.precision,
                function: Some(FunctionInfo {
                    program: program.name.clone(),
                    module: file_name(&p.function.module).to_string(),
                    share: p.share,
                    samples: p.cost.samples,
                    location: p.location.clone(),
                }),
            }
        })
        .collect()
}

/// The points with where each function starts in its sources.
fn located(mut points: Vec<FunctionPoint>, symbols: &Symbols) -> Vec<FunctionPoint> {
    for p in &mut points {
        p.location = symbols.location(&p.function).map(String::from);
    }
    points
}

/// Why a run gives no function points: it ran too briefly to sample.
fn too_brief(program: &AppPoint, samples: &Samples) -> Option<String> {
    (program.seconds < MIN_SECONDS || samples.total == 0).then(|| {
        format!(
            "{} ran {:.1} ms natively, too briefly to share its time out by sampling (at least {} ms, {} samples): no function points; the whole-program point is written",
            program.name,
            program.seconds * 1e3,
            MIN_SECONDS * 1e3,
            samples.total
        )
    })
}

/// The function points of a counted run sampled natively, or why there are
/// none (one line).
pub fn of_run(
    processes: &[Output],
    samples: &Samples,
    rename: &dyn Fn(&str) -> String,
    top: usize,
    program: &AppPoint,
) -> Result<Vec<AppPoint>, String> {
    if let Some(why) = too_brief(program, samples) {
        return Err(why);
    }
    let mut sy = Symbols::default();
    let c = costs(processes, samples, &mut sy, rename);
    let pts = located(points(c, samples, top), &sy);
    Ok(app_points(&pts, program, &Counter::Emulation))
}

/// The function points of a native run sampled with the PMU's events of
/// `family` beside the time, or why there are none (one line).
pub fn of_pmu_run(
    samples: &Samples,
    family: &super::pmu::Family,
    access_bytes: Option<f64>,
    top: usize,
    program: &AppPoint,
) -> Result<Vec<AppPoint>, String> {
    if let Some(why) = too_brief(program, samples) {
        return Err(why);
    }
    let mut sy = Symbols::default();
    let c = sampled_costs(samples, &mut sy);
    let how = Counter::Pmu(family, access_bytes);
    Ok(app_points(
        &located(points(c, samples, top), &sy),
        program,
        &how,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use carmbench_counts::Site;

    fn counts(flops: u64, bytes: u64) -> Counts {
        Counts {
            dp_fma_flops: flops,
            bytes_loaded: bytes,
            ..Counts::default()
        }
    }

    /// This test binary, two offsets in two different functions of it
    /// (each also holding the offset 2 bytes on), and the symbols.
    fn two_functions() -> (String, u64, u64, Symbols) {
        let me = std::env::current_exe().unwrap();
        let me = me.to_str().unwrap().to_string();
        let mut sy = Symbols::default();
        // Spread over a megabyte: a few large symbols (the kernels' assembly)
        // may fill a narrower range.
        let probe: Vec<u64> = (0..512).map(|k| 0x10000 + k * 0x800).collect();
        let names = sy.functions(&me, &probe);
        let near: Vec<u64> = probe.iter().map(|o| o + 2).collect();
        let near = sy.functions(&me, &near);
        let mut seen: Vec<(u64, &Function)> = Vec::new();
        for ((o, f), g) in probe.iter().zip(&names).zip(&near) {
            if f == g && !seen.iter().any(|(_, h)| *h == f) {
                seen.push((*o, f));
            }
        }
        let (a, b) = (seen[0].0, seen[1].0);
        (me, a, b, sy)
    }

    #[test]
    fn counts_and_samples_meet_in_their_functions_and_sum_to_the_whole() {
        let (me, a, b, mut sy) = two_functions();
        let out = Output {
            version: carmbench_counts::VERSION,
            pid: 1,
            parent: 0,
            program: me.clone(),
            skipped: vec![],
            threads: 1,
            total: counts(350, 1100),
            regions: vec![],
            modules: vec![me.clone()],
            sites: vec![
                Site {
                    module: 0,
                    offset: a,
                    counts: counts(100, 1000),
                },
                Site {
                    module: 0,
                    offset: a + 1,
                    counts: counts(200, 0),
                },
                Site {
                    module: 0,
                    offset: b,
                    counts: counts(50, 100),
                },
                Site {
                    module: Site::ANONYMOUS,
                    offset: 7,
                    counts: Counts::default(),
                },
            ],
        };
        let mut samples = Samples {
            total: 100,
            cpu_seconds: 2.0,
            ..Samples::default()
        };
        samples.places.insert((me.clone(), a + 2), 70);
        samples.places.insert((me.clone(), b), 20);
        samples.places.insert((String::new(), 0x1234), 10);
        let c = costs(&[out], &samples, &mut sy, &|m| m.to_string());
        let pts = points(c.clone(), &samples, 1);
        assert_eq!(pts.len(), 2);
        assert_eq!(pts[0].cost.counts.flops(), 300);
        assert_eq!(pts[0].cost.samples, 70);
        assert!((pts[0].seconds - 1.4).abs() < 1e-12 && (pts[0].share - 0.7).abs() < 1e-12);
        assert_eq!((pts[1].function.name.as_str(), pts[1].members), (REST, 2));
        // Nothing is lost: the sums are the whole program's.
        let flops: u64 = pts.iter().map(|p| p.cost.counts.flops()).sum();
        let bytes: u64 = pts.iter().map(|p| p.cost.counts.bytes()).sum();
        assert_eq!((flops, bytes), (350, 1100));
        assert!((pts.iter().map(|p| p.seconds).sum::<f64>() - 2.0).abs() < 1e-12);
        assert!(pts[1].uncertain() && !pts[0].uncertain());
        // All shown: the code in no file is a function of its own.
        let all = points(c, &samples, 10);
        assert_eq!(all.len(), 3);
        assert!(all.iter().any(|p| p.function.name == "[code in no file]"));
    }

    #[test]
    fn the_pmu_samples_give_the_points_emulation_counts_give() {
        let (me, a, b, mut sy) = two_functions();
        let zen4 = super::super::pmu::families()
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
        let pmu = app_points(
            &points(sampled_costs(&s, &mut sy), &s, 10),
            &program,
            &Counter::Pmu(&zen4, Some(8.0)),
        );
        // The same work counted by emulation, 8-byte accesses.
        let c = |flops: u64, loads: u64, stores: u64| Counts {
            dp_other_flops: flops * p,
            bytes_loaded: 8 * loads * p,
            bytes_stored: 8 * stores * p,
            ..Counts::default()
        };
        let out = Output {
            version: carmbench_counts::VERSION,
            pid: 1,
            parent: 0,
            program: me.clone(),
            skipped: vec![],
            threads: 1,
            total: c(45, 30, 10),
            regions: vec![],
            modules: vec![me.clone()],
            sites: vec![
                Site {
                    module: 0,
                    offset: a,
                    counts: c(40, 20, 10),
                },
                Site {
                    module: 0,
                    offset: b,
                    counts: c(5, 10, 0),
                },
            ],
        };
        let emulated = app_points(
            &points(costs(&[out], &s, &mut sy, &|m| m.to_string()), &s, 10),
            &program,
            &Counter::Emulation,
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
