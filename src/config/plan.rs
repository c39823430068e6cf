//! The benchmark plan: what `carmbench run` measures. The embedded default
//! (`configs/default-plan.yaml`), a user's YAML file and the command-line
//! flags are merged in that order, then resolved against the machine.

pub use super::choice::Threads;
use super::choice::{IsaChoice, LevelChoice, Listed, values};
use super::parse_yaml;
use crate::error::{Error, Result};
use crate::kernels::{Mix, Op, Precision};
use crate::machine::isa::{self, Isa};
use crate::machine::{Level, Machine};
use serde::{Deserialize, Serialize};

/// The embedded default plan.
pub const DEFAULT_PLAN_YAML: &str = include_str!("../../configs/default-plan.yaml");

/// What a level's roof is taken from, of the sizes of its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RoofFrom {
    /// The best rate adjacent sizes hold (see `roofs::plateau`).
    #[default]
    Plateau,
    /// The median of the sizes (LARM's rule, and results of earlier
    /// versions).
    Median,
}

impl RoofFrom {
    /// Its name in plans.
    pub fn name(self) -> &'static str {
        match self {
            RoofFrom::Plateau => "plateau",
            RoofFrom::Median => "median",
        }
    }

    /// What results written before the choice existed used.
    pub fn earlier() -> RoofFrom {
        RoofFrom::Median
    }
}

/// What --quick changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct QuickPlan {
    /// Sizes per level.
    pub sizes_per_level: Option<usize>,
    /// Samples per size.
    pub samples: Option<usize>,
    /// Minimum sample length, ms.
    pub min_sample_ms: Option<f64>,
}

/// A plan as written (every key optional in a user file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    /// "best", "all" or ISAs.
    pub isa: Option<Vec<IsaChoice>>,
    /// Precisions.
    pub precision: Option<Vec<Listed<Precision>>>,
    /// Thread counts.
    pub threads: Option<Vec<Threads>>,
    /// "all" or levels.
    pub levels: Option<Vec<LevelChoice>>,
    /// Access mixes.
    pub mixes: Option<Vec<Listed<Mix>>>,
    /// FP ops.
    pub ops: Option<Vec<Listed<Op>>>,
    /// Sizes per level.
    pub sizes_per_level: Option<usize>,
    /// Samples per size.
    pub samples: Option<usize>,
    /// Minimum sample length, ms.
    pub min_sample_ms: Option<f64>,
    /// What a level's roof is taken from.
    pub roof_from: Option<RoofFrom>,
    /// What --quick changes.
    pub quick: Option<QuickPlan>,
}

impl PlanFile {
    /// Parse a plan file's text; `what` names it in errors.
    pub fn parse(text: &str, what: &str) -> Result<Self> {
        if text.trim().is_empty() {
            return Ok(PlanFile::default());
        }
        let p: PlanFile = parse_yaml(text, what)?;
        p.check_ranges(what)?;
        Ok(p)
    }

    /// The numbers a file gives, each in its range, the file named: the
    /// same bounds as [`resolve`] applies to the merged plan.
    fn check_ranges(&self, what: &str) -> Result<()> {
        let q = self.quick.clone().unwrap_or_default();
        let counts = [
            ("sizes_per_level", self.sizes_per_level, MAX_SIZES_PER_LEVEL),
            (
                "quick.sizes_per_level",
                q.sizes_per_level,
                MAX_SIZES_PER_LEVEL,
            ),
            ("samples", self.samples, MAX_SAMPLES),
            ("quick.samples", q.samples, MAX_SAMPLES),
        ];
        for (key, v, max) in counts {
            if let Some(n) = v.filter(|n| !(1..=max).contains(n)) {
                return Err(Error::input(format!(
                    "{what}: '{key}' is {n}; give 1 to {max}"
                )));
            }
        }
        for (key, v) in [
            ("min_sample_ms", self.min_sample_ms),
            ("quick.min_sample_ms", q.min_sample_ms),
        ] {
            if let Some(x) = v.filter(|x| !(*x > 0.0 && *x <= MAX_MIN_SAMPLE_MS)) {
                return Err(Error::input(format!(
                    "{what}: '{key}' is {}; give more than 0 and at most {MAX_MIN_SAMPLE_MS} ms",
                    crate::units::num(x)
                )));
            }
        }
        Ok(())
    }

    /// Read a plan file.
    pub fn load(path: &std::path::Path) -> Result<Self> {
        let what = format!("config '{}'", path.display());
        Self::parse(&crate::files::read_input(path, &what)?, &what)
    }

    /// The embedded default.
    pub fn default_plan() -> Self {
        Self::parse(DEFAULT_PLAN_YAML, "the embedded default plan").expect("embedded plan is valid")
    }

    /// `other`'s keys override ours.
    pub fn overlay(self, other: PlanFile) -> PlanFile {
        PlanFile {
            isa: other.isa.or(self.isa),
            precision: other.precision.or(self.precision),
            threads: other.threads.or(self.threads),
            levels: other.levels.or(self.levels),
            mixes: other.mixes.or(self.mixes),
            ops: other.ops.or(self.ops),
            sizes_per_level: other.sizes_per_level.or(self.sizes_per_level),
            samples: other.samples.or(self.samples),
            min_sample_ms: other.min_sample_ms.or(self.min_sample_ms),
            roof_from: other.roof_from.or(self.roof_from),
            quick: other.quick.or(self.quick),
        }
    }
}

/// The plan actually run, resolved against the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// ISAs measured.
    pub isa: Vec<Isa>,
    /// Precisions measured.
    pub precision: Vec<Precision>,
    /// Thread counts measured.
    pub threads: Vec<usize>,
    /// Levels measured.
    pub levels: Vec<Level>,
    /// Access mixes.
    pub mixes: Vec<Mix>,
    /// FP ops.
    pub ops: Vec<Op>,
    /// Sizes per level.
    pub sizes_per_level: usize,
    /// Samples per size.
    pub samples: usize,
    /// Minimum sample length, ms.
    pub min_sample_ms: f64,
    /// What a level's roof is taken from.
    #[serde(default = "RoofFrom::earlier")]
    pub roof_from: RoofFrom,
    /// Whether --quick applied.
    pub quick: bool,
}

/// Resolve a plan against the machine; every problem is an input error
/// raised before anything runs.
pub fn resolve(p: &PlanFile, m: &Machine, quick: bool) -> Result<Plan> {
    resolve_with(p, m, quick, isa::supported)
}

/// [`resolve`] with a chosen answer to "does this CPU run that ISA?".
pub fn resolve_with(
    p: &PlanFile,
    m: &Machine,
    quick: bool,
    supported: impl Fn(Isa) -> bool,
) -> Result<Plan> {
    let isas = resolve_isas(p, &supported)?;
    let mut precision = values(need(&p.precision, "precision")?);
    precision.dedup();
    let threads = resolve_threads(p, m)?;
    let levels = resolve_levels(p, m)?;
    let mixes = values(p.mixes.as_deref().unwrap_or_default());
    let ops = values(p.ops.as_deref().unwrap_or_default());
    if let Some(op) = ops.iter().find(|o| !crate::kernels::Op::FP.contains(o)) {
        return Err(Error::input(format!(
            "'{op}' is an op of the narrow types, not of dp or sp: list int8, int16 or bf16 under 'precision' (or --precision) instead"
        )));
    }
    if mixes.is_empty() && ops.is_empty() {
        return Err(Error::input(
            "the plan has neither 'mixes' nor 'ops': nothing to measure",
        ));
    }
    let (sizes_per_level, samples, min_sample_ms) = resolve_counts(p, quick)?;
    let plan = Plan {
        isa: isas,
        precision,
        threads,
        levels,
        mixes,
        ops,
        sizes_per_level,
        samples,
        min_sample_ms,
        roof_from: p.roof_from.unwrap_or_default(),
        quick,
    };
    let hours = plan.longest_seconds() / 3600.0;
    if hours > MAX_RUN_HOURS {
        return Err(Error::input(format!(
            "the plan could take {hours:.0} hours ({} roofs x {} sizes x {} samples of {} ms, attempts and rounds); at most {MAX_RUN_HOURS} hours: give fewer samples, sizes, ISAs, levels, mixes or ops",
            plan.roofs(),
            plan.sizes_per_level,
            plan.samples,
            plan.min_sample_ms
        )));
    }
    Ok(plan)
}

fn need<'a, T>(o: &'a Option<Vec<T>>, key: &str) -> Result<&'a [T]> {
    o.as_deref()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| Error::input(format!("the plan has no '{key}'; list at least one")))
}

/// The ISAs a plan's words name ("best", "all" or names), each one this
/// CPU runs.
fn resolve_isas(p: &PlanFile, supported: &impl Fn(Isa) -> bool) -> Result<Vec<Isa>> {
    let mut isas = Vec::new();
    for w in need(&p.isa, "isa")? {
        match *w {
            IsaChoice::Best => isas.extend(Isa::native().iter().rev().find(|i| supported(**i))),
            IsaChoice::All => isas.extend(Isa::native().iter().filter(|i| supported(**i))),
            IsaChoice::One(i) => {
                if !supported(i) {
                    let have: Vec<_> = Isa::native()
                        .iter()
                        .filter(|i| supported(**i))
                        .map(|i| i.name())
                        .collect();
                    return Err(Error::input(format!(
                        "this CPU cannot run {} kernels (it lacks {}); it can run: {}",
                        i.name(),
                        i.required_features().join(", "),
                        have.join(", ")
                    )));
                }
                isas.push(i);
            }
        }
    }
    isas.sort();
    isas.dedup();
    Ok(isas)
}

/// The thread counts a plan names (numbers or "all"), each within the cores.
fn resolve_threads(p: &PlanFile, m: &Machine) -> Result<Vec<usize>> {
    let mut threads = Vec::new();
    for t in need(&p.threads, "threads")? {
        let n = match *t {
            Threads::N(n) => n,
            Threads::All => m.cores,
        };
        if n == 0 || n > m.cores {
            return Err(Error::input(format!(
                "{n} threads asked but this machine has {} cores (one thread per core); use 1..{} or 'all'",
                m.cores, m.cores
            )));
        }
        threads.push(n);
    }
    threads.sort();
    threads.dedup();
    Ok(threads)
}

/// The levels a plan names ("all" or names), each one the machine has.
fn resolve_levels(p: &PlanFile, m: &Machine) -> Result<Vec<Level>> {
    let available = m.levels();
    let names = || {
        available
            .iter()
            .map(|l| l.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut levels = Vec::new();
    for l in need(&p.levels, "levels")? {
        match *l {
            LevelChoice::All => levels.extend(available.iter().copied()),
            LevelChoice::One(level) if available.contains(&level) => levels.push(level),
            LevelChoice::One(level) => {
                return Err(Error::input(format!(
                    "this machine has no level '{level}'; its levels are {}",
                    names()
                )));
            }
        }
    }
    levels.sort();
    levels.dedup();
    Ok(levels)
}

/// Sizes per level, samples and the shortest sample, --quick's where given.
fn resolve_counts(p: &PlanFile, quick: bool) -> Result<(usize, usize, f64)> {
    let q = p.quick.clone().unwrap_or_default();
    let pick = |full: Option<usize>, fast: Option<usize>, key: &str, max: usize| -> Result<usize> {
        let v = if quick { fast.or(full) } else { full };
        match v {
            Some(n) if (1..=max).contains(&n) => Ok(n),
            Some(n) if n > max => Err(Error::input(format!(
                "'{key}' is {n}; at most {max}, so that a run fits in memory and in a day"
            ))),
            _ => Err(Error::input(format!(
                "'{key}' must be a number of at least 1"
            ))),
        }
    };
    let min_ms = if quick {
        q.min_sample_ms.or(p.min_sample_ms)
    } else {
        p.min_sample_ms
    };
    let min_sample_ms = match min_ms {
        Some(x) if x > 0.0 && x <= MAX_MIN_SAMPLE_MS => x,
        Some(x) if x > MAX_MIN_SAMPLE_MS && x.is_finite() => {
            return Err(Error::input(format!(
                "'min_sample_ms' is {x}; at most {MAX_MIN_SAMPLE_MS} ms, so that a run fits in a day"
            )));
        }
        _ => {
            return Err(Error::input(
                "'min_sample_ms' must be a positive number of milliseconds",
            ));
        }
    };
    Ok((
        pick(
            p.sizes_per_level,
            q.sizes_per_level,
            "sizes_per_level",
            MAX_SIZES_PER_LEVEL,
        )?,
        pick(p.samples, q.samples, "samples", MAX_SAMPLES)?,
        min_sample_ms,
    ))
}

/// Most samples per size: each sample's time is kept in memory.
pub const MAX_SAMPLES: usize = 1000;
/// Most sizes per level.
pub const MAX_SIZES_PER_LEVEL: usize = 64;
/// Longest minimum sample, ms.
pub const MAX_MIN_SAMPLE_MS: f64 = 1000.0;
/// Longest a plan may take at most, hours.
pub const MAX_RUN_HOURS: f64 = 24.0;

impl Plan {
    /// Roofs the plan measures at most (bandwidth roofs count each level and
    /// mix, compute roofs each precision and op).
    pub fn roofs(&self) -> usize {
        let per = self.threads.len() * self.isa.len();
        per * (self.levels.len() * self.mixes.len() + self.compute_roofs())
    }

    /// Compute roofs per thread count and ISA, at most: the plan's ops for
    /// double and single, their own for the narrow types.
    fn compute_roofs(&self) -> usize {
        if self.ops.is_empty() {
            return 0;
        }
        self.precision
            .iter()
            .map(|p| p.own_ops().map_or(self.ops.len(), <[_]>::len))
            .sum()
    }

    /// The longest the plan can take: every sample of every size at its
    /// minimum length, each measurement with its 3 attempts, and the rounds
    /// of measuring again taking as long again.
    pub fn longest_seconds(&self) -> f64 {
        let per = self.threads.len() * self.isa.len();
        let measurements = per
            * (self.levels.len() * self.mixes.len() * self.sizes_per_level + self.compute_roofs());
        measurements as f64 * self.samples as f64 * self.min_sample_ms / 1e3 * 3.0 * 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_plan_parses_and_overlays() {
        let d = PlanFile::default_plan();
        assert_eq!(d.isa.as_deref(), Some(&[IsaChoice::Best][..]));
        assert_eq!(d.threads, Some(vec![Threads::N(1), Threads::All]));
        let user = PlanFile::parse("samples: 3\nops: [fma]\n", "test").unwrap();
        let p = d.overlay(user);
        assert_eq!(p.samples, Some(3));
        assert_eq!(p.ops, Some(vec![Listed(Some(Op::Fma))]));
        assert_eq!(p.sizes_per_level, Some(6));
        assert_eq!(p.roof_from, Some(RoofFrom::Plateau));
    }

    fn machine() -> Machine {
        Machine::load(&crate::machine::Source::Synthetic(
            "pack:1 numa:1(memory=8GiB) l3:1(size=16MiB) core:4 l2:1(size=1MiB) l1d:1(size=32KiB) pu:2".into(),
        ))
        .unwrap()
    }

    fn with(yaml: &str) -> PlanFile {
        PlanFile::default_plan().overlay(PlanFile::parse(yaml, "t").unwrap())
    }

    #[test]
    fn resolves_against_the_machine() {
        let no512 = |i: Isa| i != Isa::Avx512;
        let p = resolve_with(&PlanFile::default_plan(), &machine(), false, no512).unwrap();
        assert_eq!(p.isa, vec![Isa::Avx2], "best without AVX-512");
        assert_eq!(p.threads, vec![1, 4]);
        assert_eq!(p.levels, [Level::L1, Level::L2, Level::L3, Level::Dram]);
        let q = resolve_with(&PlanFile::default_plan(), &machine(), true, no512).unwrap();
        assert_eq!((q.sizes_per_level, q.samples, q.quick), (2, 3, true));
        let median = resolve_with(&with("roof_from: median"), &machine(), false, no512).unwrap();
        assert_eq!(median.roof_from, RoofFrom::Median);
        let all = resolve_with(&with("isa: [all]"), &machine(), false, no512).unwrap();
        assert_eq!(all.isa, vec![Isa::Scalar, Isa::Sse, Isa::Avx2]);
    }

    #[test]
    fn bad_plans_are_refused_with_the_reason() {
        let m = machine();
        let no512 = |i: Isa| i != Isa::Avx512;
        // Out-of-range numbers are refused when the file is read, naming it.
        let err = |y: &str| {
            PlanFile::parse(y, "t")
                .and_then(|p| resolve_with(&PlanFile::default_plan().overlay(p), &m, false, no512))
                .unwrap_err()
                .to_string()
        };
        let e = err("isa: [avx512]");
        assert!(
            e.contains("cannot run avx512") && e.contains("avx512f") && e.contains("avx2"),
            "{e}"
        );
        assert!(err("isa: [avx1024]").contains("unknown ISA 'avx1024'"));
        let e = err("threads: [5]");
        assert!(e.contains("5 threads") && e.contains("4 cores"), "{e}");
        assert!(err("threads: [0]").contains("0 threads"));
        assert!(err("threads: [many]").contains("'many'"));
        let e = err("levels: [L4]");
        assert!(
            e.contains("no level 'L4'") && e.contains("L1, L2, L3, DRAM"),
            "{e}"
        );
        assert!(err("mixes: [copy]").contains("unknown mix 'copy'"));
        assert!(err("ops: [sqrt]").contains("unknown op 'sqrt'"));
        assert!(err("mixes: []\nops: []").contains("nothing to measure"));
        assert!(err("samples: 0").contains("samples"));
        assert!(err("min_sample_ms: -1").contains("min_sample_ms"));
        // Bounds that keep a run in memory and in a day, each named.
        let e = err("samples: 1000000000000");
        assert!(
            e.contains("t: 'samples' is 1000000000000; give 1 to 1000"),
            "{e}"
        );
        assert!(err("sizes_per_level: 65").contains("'sizes_per_level' is 65; give 1 to 64"));
        assert!(err("quick: {samples: 0}").contains("t: 'quick.samples' is 0"));
        assert!(err("min_sample_ms: 5000").contains("at most 1000 ms"));
        assert!(err("min_sample_ms: .inf").contains("'min_sample_ms' is inf"));
        let e = err("samples: 1000\nsizes_per_level: 64\nmin_sample_ms: 1000");
        assert!(e.contains("could take") && e.contains("hours"), "{e}");
        assert!(resolve_with(&with("samples: 1000"), &m, false, no512).is_ok());
    }

    #[test]
    fn malformed_plan_says_where() {
        let e = PlanFile::parse("samples: 3\nisaa: [avx2]\n", "plan.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("plan.yaml") && e.contains("line 2") && e.contains("isaa"),
            "{e}"
        );
        let e = PlanFile::parse("samples: [3\n", "p.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line"), "{e}");
        let e = PlanFile::parse("samples: many\n", "p.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
    }
}
