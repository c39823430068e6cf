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
    /// Its own counts, summed over processes and threads.
    pub counts: Counts,
    /// Native samples in it.
    pub samples: u64,
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
    // Per module: offsets with their counts, and with their samples.
    let mut counted: HashMap<String, Vec<(u64, Counts)>> = HashMap::new();
    for p in processes {
        for s in &p.sites {
            let module = p
                .modules
                .get(s.module as usize)
                .map(|m| rename(&canonical(m, &mut paths)))
                .unwrap_or_default();
            counted
                .entry(module)
                .or_default()
                .push((s.offset, s.counts));
        }
    }
    let mut sampled: HashMap<String, Vec<(u64, u64)>> = HashMap::new();
    for ((path, offset), n) in &samples.places {
        let module = canonical(path, &mut paths);
        sampled.entry(module).or_default().push((*offset, *n));
    }
    let mut modules: Vec<&String> = counted.keys().chain(sampled.keys()).collect();
    modules.sort();
    modules.dedup();
    let mut out: BTreeMap<Function, Cost> = BTreeMap::new();
    for m in modules {
        let c = counted.get(m).map(Vec::as_slice).unwrap_or_default();
        let s = sampled.get(m).map(Vec::as_slice).unwrap_or_default();
        let offsets: Vec<u64> = c.iter().map(|x| x.0).chain(s.iter().map(|x| x.0)).collect();
        let names = symbols.functions(m, &offsets);
        for (f, (_, counts)) in names.iter().zip(c) {
            out.entry(f.clone()).or_default().counts += counts;
        }
        for (f, (_, n)) in names[c.len()..].iter().zip(s) {
            out.entry(f.clone()).or_default().samples += n;
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
            sum.counts += &c.counts;
            sum.samples += c.samples;
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
pub fn app_points(points: &[FunctionPoint], program: &AppPoint) -> Vec<AppPoint> {
    points
        .iter()
        .map(|p| {
            let c = &p.cost.counts;
            AppPoint {
                name: p.function.name.clone(),
                flops: c.flops() as f64,
                bytes: c.bytes() as f64,
                seconds: p.seconds,
                // CPU time: compared with one core's roofs.
                threads: Some(1),
                fma_flops: Some(c.fma_flops() as f64),
                source: program.source.as_ref().map(|s| {
                    let what = match p.members {
                        1 => "function, its own instructions".to_string(),
                        n => format!("the other {n} functions, their own instructions"),
                    };
                    format!(
                        "{s}; {what}; time from {} native sample(s) of the cpu-clock event",
                        p.cost.samples
                    )
                }),
                mix: Some(super::emulate::mix(c)),
                processes: Vec::new(),
                counted_with: program.counted_with.clone(),
                function: Some(FunctionInfo {
                    program: program.name.clone(),
                    module: file_name(&p.function.module).to_string(),
                    share: p.share,
                    samples: p.cost.samples,
                }),
            }
        })
        .collect()
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
    if program.seconds < MIN_SECONDS || samples.total == 0 {
        return Err(format!(
            "{} ran {:.1} ms natively, too briefly to share its time out by sampling (at least {} ms, {} samples): no function points; the whole-program point is written",
            program.name,
            program.seconds * 1e3,
            MIN_SECONDS * 1e3,
            samples.total
        ));
    }
    let c = costs(processes, samples, &mut Symbols::default(), rename);
    Ok(app_points(&points(c, samples, top), program))
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

    #[test]
    fn counts_and_samples_meet_in_their_functions_and_sum_to_the_whole() {
        let me = std::env::current_exe().unwrap();
        let me = me.to_str().unwrap().to_string();
        // Two places in this binary's code, found through its symbols: use
        // offsets of two functions the unwind tables know.
        let mut sy = Symbols::default();
        let probe: Vec<u64> = (0..64).map(|k| 0x10000 + k * 0x800).collect();
        let names = sy.functions(&me, &probe);
        let near: Vec<u64> = probe.iter().map(|o| o + 2).collect();
        let near = sy.functions(&me, &near);
        let (a, b) = {
            let mut seen: Vec<(u64, &Function)> = Vec::new();
            for ((o, f), g) in probe.iter().zip(&names).zip(&near) {
                if f == g && !seen.iter().any(|(_, h)| *h == f) {
                    seen.push((*o, f));
                }
            }
            (seen[0].0, seen[1].0)
        };
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
}
