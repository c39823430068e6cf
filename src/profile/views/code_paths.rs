//! Whether the emulated run executed the code the native run did: each
//! function's share of the native samples against its share of the
//! emulated instructions. A function with a real share of one and nothing
//! of the other ran in one run only; where the evidence pairs two such
//! functions (the same file, the only two there, or names alike but for a
//! CPU or ISA word, as `dgemm_kernel_SKYLAKEX` and `dgemm_kernel_HASWELL`),
//! the emulated one stands for the native one.

use crate::profile::ground::symbols::Function;
use crate::profile::views::functions::Cost;
use crate::results::apps::RanOnly;
use std::collections::BTreeMap;

/// A share of samples or instructions that is real work, not noise.
pub const REAL_SHARE: f64 = 0.05;

/// Native samples a run needs before a function without any is taken to
/// have not run (at [`REAL_SHARE`], none of 100 happens once in 170 runs).
pub const ENOUGH_SAMPLES: u64 = 100;

/// Native samples below which the runs are not compared: too few to give
/// any function a real share.
pub const FEW_SAMPLES: u64 = 20;

/// Native samples a function that ran no native sample would have had to
/// expect before it counts as run under emulation only: none of 3 expected
/// happens once in 20 runs.
pub const EXPECTED: f64 = 3.0;

/// How many times the run's average instructions a native sample a
/// function may run, where no sampled function ran any under emulation to
/// tell: a tiny wrapper retires its few instructions far faster than code
/// waiting on memory.
const FASTER: f64 = 10.0;

/// The paired functions merged: each native function of a pair takes its
/// partner's work and names it, the partner goes; the one-sided ones are
/// marked.
pub fn apply(costs: &mut BTreeMap<Function, Cost>, c: &Compared) {
    for (n, e) in &c.pairs {
        let Some(theirs) = costs.remove(&e.function) else {
            continue;
        };
        let mine = costs.entry(n.function.clone()).or_default();
        mine.work += &theirs.work;
        mine.counted_as = Some(e.function.name.clone());
    }
    for (list, ran) in [
        (&c.native_only, RanOnly::Natively),
        (&c.emulated_only, RanOnly::Emulated),
    ] {
        for o in list {
            if let Some(cost) = costs.get_mut(&o.function) {
                cost.ran_only = Some(ran);
            }
        }
    }
}

/// A function that ran in one run only.
#[derive(Debug, Clone, PartialEq)]
pub struct OneSided {
    /// The function.
    pub function: Function,
    /// Its share of that run: of the native samples, or of the emulated
    /// instructions.
    pub share: f64,
}

/// How the two runs' code compared.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Compared {
    /// Functions with a real share of the native samples that ran no
    /// instruction under emulation, and no partner.
    pub native_only: Vec<OneSided>,
    /// Functions with a real share of the emulated instructions that got no
    /// native sample, and no partner.
    pub emulated_only: Vec<OneSided>,
    /// (native, emulated): the emulated function ran in the native one's
    /// place.
    pub pairs: Vec<(OneSided, OneSided)>,
}

impl Compared {
    /// Whether both runs ran the same code, as far as the samples tell.
    pub fn agree(&self) -> bool {
        self.native_only.is_empty() && self.emulated_only.is_empty() && self.pairs.is_empty()
    }

    /// The emulated function standing for native function `f`, if any.
    pub fn counted_as(&self, f: &Function) -> Option<&Function> {
        (self.pairs.iter())
            .find(|(n, _)| &n.function == f)
            .map(|(_, e)| &e.function)
    }
}

/// Compare the runs through each function's cost (its native samples, its
/// emulated work), `samples` the native run's in all.
pub fn compare(costs: &BTreeMap<Function, Cost>, samples: u64) -> Compared {
    if samples < FEW_SAMPLES {
        return Compared::default();
    }
    let instructions: u64 = costs.values().map(instructions_of).sum();
    // The most instructions a native sample any function was seen to run:
    // a function without samples ran natively no faster, or it would have
    // had some (a tiny wrapper's many instructions take little time).
    let fastest = (costs.values())
        .filter(|c| c.samples > 0 && instructions_of(c) > 0)
        .map(|c| instructions_of(c) as f64 / c.samples as f64)
        .fold(0.0, f64::max);
    let fastest = match fastest > 0.0 {
        true => fastest,
        false => FASTER * instructions as f64 / samples.max(1) as f64,
    };
    let mut native = Vec::new();
    let mut emulated = Vec::new();
    for (f, c) in costs {
        let share = c.samples as f64 / samples.max(1) as f64;
        if share >= REAL_SHARE && instructions_of(c) == 0 {
            native.push(OneSided {
                function: f.clone(),
                share,
            });
        }
        let share = instructions_of(c) as f64 / instructions.max(1) as f64;
        let expected = instructions_of(c) as f64 / fastest;
        if share >= REAL_SHARE && c.samples == 0 && expected >= EXPECTED {
            emulated.push(OneSided {
                function: f.clone(),
                share,
            });
        }
    }
    let mut c = pair(native, emulated);
    // Unpaired, a function without samples in a short run may just have
    // been missed by them.
    if samples < ENOUGH_SAMPLES {
        c.emulated_only.clear();
    }
    c
}

/// The emulated instructions of a function's cost (none by other counters).
fn instructions_of(c: &Cost) -> u64 {
    c.work.counts().map_or(0, |k| k.instructions)
}

/// Pair the one-sided functions of each file: the only one on each side,
/// else those whose names share the longest start, when each is the
/// other's best.
fn pair(native: Vec<OneSided>, emulated: Vec<OneSided>) -> Compared {
    let mut out = Compared::default();
    let mut emulated: Vec<Option<OneSided>> = emulated.into_iter().map(Some).collect();
    let in_module = |m: &str, e: &[Option<OneSided>]| -> Vec<usize> {
        (0..e.len())
            .filter(|&k| e[k].as_ref().is_some_and(|x| x.function.module == m))
            .collect()
    };
    let natives_in = |m: &str| native.iter().filter(|n| n.function.module == m).count();
    for n in &native {
        let m = &n.function.module;
        let candidates = in_module(m, &emulated);
        let best = match (natives_in(m), candidates.as_slice()) {
            (1, [only]) => Some(*only),
            _ => best_match(n, &native, &emulated, &candidates),
        };
        match best.and_then(|k| emulated[k].take()) {
            Some(e) => out.pairs.push((n.clone(), e)),
            None => out.native_only.push(n.clone()),
        }
    }
    out.emulated_only = emulated.into_iter().flatten().collect();
    out
}

/// Bytes two names start with alike.
fn common_start(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Bytes two names are alike in: their common start and, after it, their
/// common end (`__memcmp_evex_movbe` and `__memcmp_avx2_movbe` differ in
/// one word in the middle, their ISA); None unless they start alike for
/// four bytes and are alike in half the shorter name.
fn alike_names(a: &str, b: &str) -> Option<usize> {
    let start = common_start(a, b);
    let room = a.len().min(b.len()) - start;
    let end = (a.bytes().rev().zip(b.bytes().rev()))
        .take_while(|(x, y)| x == y)
        .count()
        .min(room);
    let c = start + end;
    (start >= 4 && 2 * c >= a.len().min(b.len())).then_some(c)
}

/// The emulated candidate whose name is most like `n`'s
/// ([`alike_names`]), when `n` is that candidate's best native match too.
fn best_match(
    n: &OneSided,
    native: &[OneSided],
    emulated: &[Option<OneSided>],
    candidates: &[usize],
) -> Option<usize> {
    let name = |k: usize| {
        emulated[k]
            .as_ref()
            .map_or("", |e| e.function.name.as_str())
    };
    // Code without a symbol is named by its file and address: alike by
    // its file only.
    let alike = |a: &str, b: &str| {
        if crate::results::apps::is_unnamed(a) || crate::results::apps::is_unnamed(b) {
            return None;
        }
        alike_names(a, b)
    };
    let (k, c) = (candidates.iter())
        .filter_map(|&k| Some((k, alike(&n.function.name, name(k))?)))
        .max_by_key(|x| x.1)?;
    let rivals = (native.iter())
        .filter(|o| o.function != n.function && o.function.module == n.function.module)
        .filter_map(|o| alike(&o.function.name, name(k)));
    let unique = candidates
        .iter()
        .filter(|&&j| alike(&n.function.name, name(j)) == Some(c))
        .count()
        == 1;
    (unique && rivals.into_iter().all(|r| r < c)).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::measured::work::Work;
    use carmbench_counts::Counts;

    fn cost(samples: u64, instructions: u64) -> Cost {
        Cost {
            work: Work::Counted(Counts {
                instructions,
                ..Counts::default()
            }),
            samples,
            ..Cost::default()
        }
    }

    fn f(module: &str, name: &str) -> Function {
        Function {
            module: module.into(),
            name: name.into(),
        }
    }

    #[test]
    fn glibc_variants_that_differ_in_their_isa_word_are_paired() {
        let libc = "/lib/x86_64-linux-gnu/libc.so.6";
        let costs = BTreeMap::from([
            (f("/bin/app", "main"), cost(100, 1000)),
            (f(libc, "__memcmp_evex_movbe"), cost(400, 0)),
            (f(libc, "__memcmp_avx2_movbe"), cost(0, 4000)),
            (f(libc, "__memset_evex_unaligned_erms"), cost(300, 0)),
            (f(libc, "__memset_avx2_unaligned_erms"), cost(0, 3000)),
            (f(libc, "__strcmp_evex"), cost(200, 0)),
            (f(libc, "__strcmp_avx2"), cost(0, 2000)),
        ]);
        let c = compare(&costs, 1000);
        let pairs: Vec<(&str, &str)> = (c.pairs.iter())
            .map(|(n, e)| (n.function.name.as_str(), e.function.name.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("__memcmp_evex_movbe", "__memcmp_avx2_movbe"),
                (
                    "__memset_evex_unaligned_erms",
                    "__memset_avx2_unaligned_erms"
                ),
                ("__strcmp_evex", "__strcmp_avx2"),
            ]
        );
        assert!(
            c.native_only.is_empty() && c.emulated_only.is_empty(),
            "{c:?}"
        );
        // A common end alone does not make two functions alike.
        assert_eq!(alike_names("foo_init", "bar_init"), None);
    }

    #[test]
    fn the_same_code_in_both_runs_agrees() {
        let costs = BTreeMap::from([
            (f("/a", "main"), cost(10, 100)),
            (f("/a", "kernel"), cost(990, 9900)),
        ]);
        assert!(compare(&costs, 1000).agree());
    }

    #[test]
    fn a_path_each_run_took_alone_is_paired_by_file_and_name() {
        let blas = "/lib/libopenblas.so";
        let costs = BTreeMap::from([
            (f("/bin/python3", "eval"), cost(100, 1000)),
            (f(blas, "dgemm_kernel_SKYLAKEX"), cost(700, 0)),
            (f(blas, "dgemm_kernel_HASWELL"), cost(0, 8000)),
            (f(blas, "dgemm_beta_SKYLAKEX"), cost(100, 0)),
            (f(blas, "dgemm_beta_HASWELL"), cost(0, 900)),
            (f("/lib/libm.so", "exp_fma"), cost(40, 0)),
        ]);
        let c = compare(&costs, 1000);
        assert_eq!(c.pairs.len(), 2, "{c:?}");
        let kernel = f(blas, "dgemm_kernel_SKYLAKEX");
        assert_eq!(c.counted_as(&kernel).unwrap().name, "dgemm_kernel_HASWELL");
        let mut merged = costs.clone();
        apply(&mut merged, &c);
        let k = &merged[&kernel];
        assert_eq!(
            (k.samples, k.counted_as.as_deref()),
            (700, Some("dgemm_kernel_HASWELL"))
        );
        assert_eq!(k.work.counts().unwrap().instructions, 8000);
        assert!(!merged.contains_key(&f(blas, "dgemm_kernel_HASWELL")));
        let beta = f(blas, "dgemm_beta_SKYLAKEX");
        assert_eq!(c.counted_as(&beta).unwrap().name, "dgemm_beta_HASWELL");
        // A share under 5 % of the samples is not judged.
        assert!(c.native_only.is_empty() && c.emulated_only.is_empty());
        // Alone in its file on each side: paired whatever the names.
        let costs = BTreeMap::from([
            (f("/a", "k_avx512"), cost(900, 0)),
            (f("/a", "kernel_sse"), cost(0, 9000)),
        ]);
        assert_eq!(compare(&costs, 1000).pairs.len(), 1);
        // In different files: one-sided each.
        let costs = BTreeMap::from([
            (f("/a", "k_avx512"), cost(900, 0)),
            (f("/b", "k_avx2"), cost(0, 9000)),
        ]);
        let c = compare(&costs, 1000);
        assert!(c.pairs.is_empty());
        assert_eq!((c.native_only.len(), c.emulated_only.len()), (1, 1));
        // Too few samples to say the emulated path did not run natively,
        // unless a native one pairs with it.
        let c = compare(&costs, 50);
        assert!(c.emulated_only.is_empty() && c.native_only.len() == 1);
        let same_file = BTreeMap::from([
            (f("/a", "k_avx512"), cost(45, 0)),
            (f("/a", "k_avx2"), cost(0, 9000)),
            (f("/a", "main"), cost(5, 100)),
        ]);
        assert_eq!(compare(&same_file, 50).pairs.len(), 1);
    }

    #[test]
    fn a_tiny_wrapper_without_samples_is_no_path_of_the_emulated_run_alone() {
        // A loop calling rand(): its wrapper's instructions (6 % of them)
        // are so quick natively that no sample fell in it, as few would
        // at the fastest any sampled function ran (20.8 M a sample).
        let libc = "/lib/libc.so.6";
        let m = 1_000_000;
        let costs = BTreeMap::from([
            (f("/r", "main"), cost(76, 90 * m)),
            (f(libc, "__random"), cost(52, 180 * m)),
            (f(libc, "__random_r"), cost(12, 250 * m)),
            (f(libc, "rand"), cost(0, 36 * m)),
        ]);
        let c = compare(&costs, 140);
        assert!(c.agree(), "{c:?}");
        // Ten times its instructions would have met some: one-sided.
        let mut slow = costs.clone();
        slow.insert(f(libc, "rand"), cost(0, 360 * m));
        assert_eq!(compare(&slow, 140).emulated_only.len(), 1);
    }

    #[test]
    fn code_without_symbols_is_not_paired_by_its_name() {
        let lib = "/lib/_umath.so";
        let costs = BTreeMap::from([
            (f(lib, "_umath.so+0xc78e0"), cost(400, 0)),
            (f(lib, "_umath.so+0xca7b0"), cost(400, 0)),
            (f(lib, "_umath.so+0xdcab0"), cost(0, 9000)),
        ]);
        let c = compare(&costs, 1000);
        assert!(c.pairs.is_empty(), "{c:?}");
        assert_eq!((c.native_only.len(), c.emulated_only.len()), (2, 1));
    }

    #[test]
    fn names_alike_for_two_natives_pair_neither() {
        let costs = BTreeMap::from([
            (f("/a", "kern_x1"), cost(400, 0)),
            (f("/a", "kern_x2"), cost(400, 0)),
            (f("/a", "kern_y"), cost(0, 9000)),
        ]);
        let c = compare(&costs, 1000);
        assert!(c.pairs.is_empty(), "{c:?}");
        assert_eq!(c.native_only.len(), 2);
    }
}
