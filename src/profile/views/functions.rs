//! A point per hot function: the work of each function from the blocks of
//! code the counter found ([`crate::profile::measured::Block`]), T from the native
//! run's samples, both found in the same files at the same offsets and
//! named by [`symbols`].
//!
//! W and Q are the function's own instructions (self cost): the functions'
//! sums are the program's W and Q exactly. T is the function's share of the
//! samples times the user CPU time of the run, summed over threads: a
//! function point's performance is per core, and is placed against the
//! one-thread roofs.
//!
//! [`symbols`]: crate::profile::ground::symbols

use crate::profile::ground::symbols::{Function, Symbols, canonical};
use crate::profile::measured::Block;
use crate::profile::measured::samples::{FEW_SAMPLES, Samples};
use crate::profile::measured::work::{Basis, Work};
use crate::results::apps::RanOnly;
use std::collections::{BTreeMap, HashMap};

/// What one function cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    /// Its own work, summed over processes and threads.
    pub work: Work,
    /// Native samples of its time.
    pub samples: u64,
    /// The function whose work it carries: the one that ran in its place
    /// under emulation.
    pub counted_as: Option<String>,
    /// It ran in one of the two runs only, unpaired.
    pub ran_only: Option<RanOnly>,
}

impl std::ops::AddAssign<&Cost> for Cost {
    fn add_assign(&mut self, o: &Cost) {
        self.work += &o.work;
        self.samples += o.samples;
    }
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

/// Places (module path, offset) with what was found there, grouped by
/// module, become functions: each named once per module in one call.
pub(crate) fn by_function<T>(
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

/// Every function's cost: the blocks' work and the samples per place,
/// joined by function.
pub fn costs(
    blocks: &[Block],
    samples: &Samples,
    symbols: &mut Symbols,
) -> BTreeMap<Function, Cost> {
    let mut paths = HashMap::new();
    let mut out: BTreeMap<Function, Cost> = BTreeMap::new();
    let places = blocks
        .iter()
        .map(|b| (canonical(&b.module, &mut paths), b.offset, &b.work));
    for (f, work) in by_function(places, symbols) {
        out.entry(f).or_default().work += work;
    }
    let places = samples
        .places
        .iter()
        .map(|((path, offset), n)| (canonical(path, &mut paths), *offset, *n));
    for (f, n) in by_function(places, symbols) {
        out.entry(f).or_default().samples += n;
    }
    out
}

/// The `top` functions by time, then "rest" (when anything is left): each
/// with its seconds out of `samples.cpu_seconds`. Functions the samples
/// missed are ordered by their W and Q under `basis`.
pub fn points(
    costs: BTreeMap<Function, Cost>,
    samples: &Samples,
    top: usize,
    basis: &Basis,
) -> Vec<FunctionPoint> {
    let total = samples.total.max(1) as f64;
    let key = |c: &Cost| {
        let d = basis.derive(&c.work);
        (c.samples, d.flops, d.bytes)
    };
    let mut all: Vec<(Function, Cost)> = costs.into_iter().collect();
    all.sort_by(|a, b| {
        let (x, y) = (key(&a.1), key(&b.1));
        (y.0.cmp(&x.0))
            .then(y.1.total_cmp(&x.1))
            .then(y.2.total_cmp(&x.2))
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

/// The blocks' work and the samples, joined by function, with the names
/// that joined them.
pub struct Grouped {
    /// Each function's cost.
    pub costs: BTreeMap<Function, Cost>,
}

impl Grouped {
    /// Group `blocks` and `samples` by function, named by `symbols`.
    pub fn of(blocks: &[Block], samples: &Samples, symbols: &mut Symbols) -> Grouped {
        let costs = costs(blocks, samples, symbols);
        Grouped { costs }
    }

    /// The `top` hottest functions and the rest, each with where it starts
    /// in its sources.
    pub fn hottest(
        self,
        samples: &Samples,
        top: usize,
        basis: &Basis,
        symbols: &mut Symbols,
    ) -> Vec<FunctionPoint> {
        let mut pts = points(self.costs, samples, top, basis);
        for p in &mut pts {
            p.location = symbols.location(&p.function).map(String::from);
        }
        pts
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::profile::launch::command::Found;
    use carmbench_counts::{Counts, Output, Site};

    /// A command of no twin, for the blocks of its counts.
    pub(crate) fn command(me: &str) -> Found {
        Found {
            given: me.to_string(),
            argv0: me.into(),
            path: me.into(),
            args: vec![],
            timeout: None,
        }
    }

    /// The counts file of one process of `me` with `sites` (module index,
    /// offset, counts), summed into its total.
    pub(crate) fn process(me: &str, sites: &[(u32, u64, Counts)]) -> Output {
        let mut total = Counts::default();
        sites.iter().for_each(|s| total += &s.2);
        Output {
            version: carmbench_counts::VERSION,
            pid: 1,
            parent: 0,
            program: me.to_string(),
            skipped: vec![],
            threads: 1,
            total,
            regions: vec![],
            modules: vec![me.to_string()],
            sites: (sites.iter())
                .map(|&(module, offset, counts)| Site {
                    module,
                    offset,
                    counts,
                    runs: 0,
                    size: 0,
                    ends: Default::default(),
                })
                .collect(),
            partial: false,
            replaced: false,
            read_stdin: false,
            edges: vec![],
            timeline: None,
        }
    }

    fn flops_and_bytes(c: &Cost) -> (u64, u64) {
        let c = c.work.counts().unwrap();
        (c.flops(), c.bytes())
    }

    fn counts(flops: u64, bytes: u64) -> Counts {
        Counts {
            dp_fma_flops: flops,
            bytes_loaded: bytes,
            ..Counts::default()
        }
    }

    /// This test binary, two offsets in two different functions of it
    /// (each also holding the offset 2 bytes on), and the symbols.
    pub(crate) fn two_functions() -> (String, u64, u64, Symbols) {
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
        let anonymous = (Site::ANONYMOUS, 7, Counts::default());
        let sites = [
            (0, a, counts(100, 1000)),
            (0, a + 1, counts(200, 0)),
            (0, b, counts(50, 100)),
            anonymous,
        ];
        let out = process(&me, &sites);
        let mut samples = Samples {
            total: 100,
            cpu_seconds: 2.0,
            ..Samples::default()
        };
        samples.places.insert((me.clone(), a + 2), 70);
        samples.places.insert((me.clone(), b), 20);
        samples.places.insert((String::new(), 0x1234), 10);
        let blocks = crate::profile::counter::emulation::blocks(&[out]);
        let c = costs(&blocks, &samples, &mut sy);
        let basis = Basis::default();
        let pts = points(c.clone(), &samples, 1, &basis);
        assert_eq!(pts.len(), 2);
        assert_eq!(flops_and_bytes(&pts[0].cost).0, 300);
        assert_eq!(pts[0].cost.samples, 70);
        assert!((pts[0].seconds - 1.4).abs() < 1e-12 && (pts[0].share - 0.7).abs() < 1e-12);
        assert_eq!((pts[1].function.name.as_str(), pts[1].members), (REST, 2));
        // Nothing is lost: the sums are the whole program's.
        let flops: u64 = pts.iter().map(|p| flops_and_bytes(&p.cost).0).sum();
        let bytes: u64 = pts.iter().map(|p| flops_and_bytes(&p.cost).1).sum();
        assert_eq!((flops, bytes), (350, 1100));
        assert!((pts.iter().map(|p| p.seconds).sum::<f64>() - 2.0).abs() < 1e-12);
        assert!(pts[1].uncertain() && !pts[0].uncertain());
        // All shown: the code in no file is a function of its own.
        let all = points(c, &samples, 10, &basis);
        assert_eq!(all.len(), 3);
        assert!(all.iter().any(|p| p.function.name == "[code in no file]"));
    }
}
