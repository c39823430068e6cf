//! `carmbench validate` (and `carmbench run --validate`): variable-intensity
//! kernels against every roof of a results document.

use crate::cli::ValidateArgs;
use crate::error::{Error, Result};
use crate::isa::Isa;
use crate::kernels::{self, Kind, Mix, Op, Precision};
use crate::measure::interrupt;
use crate::measure::runner::{self, Settings};
use crate::output::Format;
use crate::results::{self, Document, Roof, ValidationPoint};
use crate::topology::sizing::{self, human_bytes};
use crate::topology::{Machine, Source};
use crate::validate::{self, Fit};
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// Whether a level's bandwidth follows the core clock (private caches).
pub fn core_clocked(level: &str) -> bool {
    matches!(level, "L1" | "L2")
}

/// CV above which a validation point is measured again: 3% on the levels that
/// follow the core clock, 5% on L3, L4 and DRAM, whose bandwidth other cores
/// and the fabric share (the run-to-run agreement asked of their roofs).
pub fn cv_limit(level: &str) -> f64 {
    if core_clocked(level) { 0.03 } else { 0.05 }
}

/// What to validate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Access mixes (default: load, whose accesses overlap FP work on every
    /// core measured, and 2ld1st, the mix of the chart).
    pub mixes: Vec<Mix>,
    /// FP ops (default: fma).
    pub ops: Vec<Op>,
    /// A level fails when its median |deviation| exceeds this (fraction).
    pub threshold: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mixes: vec![Mix::Load, Mix::TwoLdOneSt],
            ops: vec![Op::Fma],
            threshold: 0.10,
        }
    }
}

impl Options {
    /// What `carmbench run --validate` validates: the default mixes and ops
    /// that the plan measures. An error, raised before anything runs, when
    /// the plan measures none of them.
    pub fn for_plan(plan: &crate::config::plan::Plan) -> Result<Options> {
        let d = Options::default();
        let mixes: Vec<Mix> = d
            .mixes
            .into_iter()
            .filter(|m| plan.mixes.contains(m))
            .collect();
        let ops: Vec<Op> = d.ops.into_iter().filter(|o| plan.ops.contains(o)).collect();
        if mixes.is_empty() || ops.is_empty() {
            return Err(Error::input(
                "--validate needs the load or 2ld1st roofs and the fma roof; add them (--mixes load,2ld1st --ops fma) or leave --validate out",
            ));
        }
        Ok(Options { mixes, ops, ..d })
    }
}

/// One level's verdict.
#[derive(Debug, Clone)]
pub struct LevelResult {
    /// Threads, ISA, precision, op and mix of the sweep.
    pub threads: usize,
    /// ISA.
    pub isa: Isa,
    /// Precision.
    pub precision: Precision,
    /// Op.
    pub op: Op,
    /// Mix.
    pub mix: Mix,
    /// Level.
    pub level: String,
    /// Ridge AI with the FP roof.
    pub ridge: f64,
    /// Fit of the points.
    pub fit: Fit,
}

fn find<'a>(
    doc: &'a Document,
    pred: impl Fn(&Roof) -> bool,
    what: String,
    fix: &str,
) -> Result<&'a Roof> {
    doc.roofs
        .iter()
        .find(|r| pred(r) && r.value().is_finite() && r.value() > 0.0)
        .ok_or_else(|| Error::input(format!("the results have no {what} roof; {fix}")))
}

/// The ISA validated: the widest with compute roofs in the results.
fn isa_of(doc: &Document) -> Result<Isa> {
    doc.roofs
        .iter()
        .filter(|r| r.kind == Kind::Compute)
        .map(|r| r.isa)
        .max()
        .ok_or_else(|| {
            Error::input("the results have no compute roof to validate against; run `carmbench run` with --ops fma")
        })
}

/// Run the sweep on this machine against `doc`'s roofs; the points replace
/// any earlier points of the same sweep in `doc.validation`.
pub fn validate_doc(
    doc: &mut Document,
    machine: &Machine,
    o: &Options,
) -> Result<Vec<LevelResult>> {
    if doc.machine.topology.cpu_model != machine.cpu_model
        || doc.machine.topology.cores != machine.cores
    {
        return Err(Error::input(format!(
            "these results were measured on {} ({} cores), not on this machine ({}, {} cores); validate on the machine that measured them",
            doc.machine
                .topology
                .cpu_model
                .as_deref()
                .unwrap_or("an unknown CPU"),
            doc.machine.topology.cores,
            machine.cpu_model.as_deref().unwrap_or("unknown CPU"),
            machine.cores
        )));
    }
    let isa = isa_of(doc)?;
    let levels = doc.plan.levels.clone();
    if levels.is_empty() {
        return Err(Error::input("the results hold no memory level to validate"));
    }
    // Every roof needed must exist before anything runs.
    let mut jobs = Vec::new();
    for &t in &doc.plan.threads {
        let ranges = sizing::ranges(machine, t);
        for &p in &doc.plan.precision {
            for &op in &o.ops {
                let fix = "run `carmbench run` with that op, precision and thread count";
                let fp = find(
                    doc,
                    |r| {
                        r.kind == Kind::Compute
                            && r.op == Some(op)
                            && r.isa == isa
                            && r.precision == Some(p)
                            && r.threads == t
                    },
                    format!("{op} {p} {isa} {t}-thread"),
                    fix,
                )?;
                for &mix in &o.mixes {
                    let k = kernels::validation(mix, op, isa, p)
                        .expect("validation kernels cover every mix, op, ISA");
                    for level in &levels {
                        let bw = find(
                            doc,
                            |r| {
                                r.kind == Kind::Bandwidth
                                    && r.level.as_deref() == Some(level)
                                    && r.mix == Some(mix)
                                    && r.isa == isa
                                    && r.threads == t
                            },
                            format!("{level} {mix} {isa} {t}-thread"),
                            "run `carmbench run` with that level (--levels) and mix (--mixes)",
                        )?;
                        let range = ranges.iter().find(|r| &r.level == level).ok_or_else(|| {
                            Error::input(format!(
                                "this machine has no level {level}, which the results hold"
                            ))
                        })?;
                        // The middle of a cache level's range, safe from both of its
                        // edges; for memory the low end, already several times
                        // every cache (each pass of a larger buffer only costs time).
                        let sizes = sizing::sizes_in_range(range, 3);
                        let bytes = if range.level == "DRAM" {
                            sizes[0]
                        } else {
                            sizes[sizes.len() / 2]
                        };
                        let ridge = fp.value() / bw.value();
                        let (fp, bw) = ((fp.per_cycle, fp.value()), (bw.per_cycle, bw.value()));
                        let shapes = validate::shapes(&k.decl, &validate::targets(&[ridge]));
                        jobs.push((
                            t,
                            p,
                            op,
                            mix,
                            level.clone(),
                            k,
                            bytes,
                            fp,
                            bw,
                            ridge,
                            shapes,
                        ));
                    }
                }
            }
        }
    }
    let settings = Settings {
        min_sample: Duration::from_secs_f64(doc.plan.min_sample_ms / 1e3),
        samples: doc.plan.samples.clamp(3, 5),
        clock_runs: 7,
        clock_run: Duration::from_micros(600),
    };
    interrupt::install();
    let total: usize = jobs.iter().map(|j| j.10.len()).sum();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} validating {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // One pool per thread count and level, shared by every sweep there.
    let level_pos = |l: &str| levels.iter().position(|x| x == l);
    jobs.sort_by_key(|j| (j.0, level_pos(&j.4)));
    let mut out = Vec::new();
    let mut start = 0;
    while start < jobs.len() && !interrupt::requested() {
        let (t, lvl) = (jobs[start].0, jobs[start].4.clone());
        let end = jobs[start..]
            .iter()
            .position(|j| j.0 != t || j.4 != lvl)
            .map_or(jobs.len(), |p| start + p);
        let group = &jobs[start..end];
        let alloc = group
            .iter()
            .flat_map(|j| j.10.iter().map(|s| runner::alloc_for(j.5, j.6, *s)))
            .max()
            .unwrap_or(0);
        let done = runner::with_pool(
            &machine.core_first_pu[..t],
            alloc,
            |pool| -> Result<Vec<(LevelResult, Vec<ValidationPoint>)>> {
                let mut done = Vec::new();
                for (t, p, op, mix, level, k, bytes, fp, bw, ridge, shapes) in group.iter().cloned()
                {
                    let mut pts = Vec::new();
                    for s in shapes {
                        if interrupt::requested() {
                            break;
                        }
                        bar.set_message(format!(
                            "{level} {mix} {op} {t} thread(s) {}",
                            human_bytes(bytes)
                        ));
                        let m =
                            runner::measure_steady(pool, k, bytes, &settings, s, cv_limit(&level))
                                .map_err(|e| Error::Io(format!("{}: {e}", k.decl.name)))?;
                        bar.inc(1);
                        // The clock of a shared machine moves between the roofs and the
                        // sweep: what runs on the core clock (FP, L1, L2) is compared per
                        // cycle at the point's clock; L3, L4 and DRAM, which do not follow
                        // the core clock, in GB/s.
                        let ai = k.decl.intensity(s);
                        let clock = m.clock_ghz();
                        let measured = m.rates.median / 1e9;
                        let band = if core_clocked(&level) {
                            bw.0 * clock
                        } else {
                            bw.1
                        };
                        let exp = validate::expected(ai, fp.0 * clock, band);
                        let overlap = validate::overlap(measured, ai, fp.0 * clock, band);
                        pts.push(ValidationPoint {
                            level: level.clone(),
                            isa,
                            precision: p,
                            threads: t,
                            mix,
                            op,
                            kernel: k.decl.name.to_string(),
                            j: s.j,
                            k: s.k,
                            bytes_per_thread: m.bytes_per_thread,
                            ai,
                            gflop_per_s: measured,
                            expected_gflop_per_s: exp,
                            clock_ghz: clock,
                            deviation: validate::deviation(measured, exp),
                            overlap,
                        });
                    }
                    if pts.is_empty() {
                        continue;
                    }
                    let fit = validate::fit(
                        &pts.iter().map(|v| (v.ai, v.deviation)).collect::<Vec<_>>(),
                        ridge,
                        &pts.iter().filter_map(|v| v.overlap).collect::<Vec<_>>(),
                    );
                    done.push((
                        LevelResult {
                            threads: t,
                            isa,
                            precision: p,
                            op,
                            mix,
                            level,
                            ridge,
                            fit,
                        },
                        pts,
                    ));
                }
                Ok(done)
            },
        )
        .map_err(Error::Io)??;
        for (r, pts) in done {
            doc.validation.retain(|v| {
                !(v.level == r.level
                    && v.isa == r.isa
                    && v.precision == r.precision
                    && v.threads == r.threads
                    && v.mix == r.mix
                    && v.op == r.op)
            });
            doc.validation.extend(pts);
            out.push(r);
        }
        start = end;
    }
    // Report in the order of the sweeps: threads, precision, op, mix, level.
    out.sort_by_key(|r| (r.threads, r.precision, r.op, r.mix, level_pos(&r.level)));
    bar.finish_and_clear();
    Ok(out)
}

/// The validation table printed after a sweep.
pub fn report(results: &[LevelResult], threshold: f64) -> String {
    let mut s = String::new();
    let mut last = None;
    for r in results {
        let key = (r.threads, r.isa, r.precision, r.op, r.mix);
        if last != Some(key) {
            let _ = writeln!(
                s,
                "validation: {} {} {} kernels vs the {} and {} roofs, {} thread(s), threshold {:.0}%",
                r.isa,
                r.precision,
                r.mix,
                r.op,
                r.mix,
                r.threads,
                threshold * 100.0
            );
            let _ = writeln!(
                s,
                "  {:<6} {:>9} {:>14} {:>13} {:>22} {:>8}  result",
                "level", "ridge AI", "points (sl/fl)", "median |dev|", "worst (AI: dev)", "overlap"
            );
            last = Some(key);
        }
        let f = &r.fit;
        let ok = f.median_abs_deviation <= threshold;
        let _ = writeln!(
            s,
            "  {:<6} {:>9.3} {:>8} ({}/{}) {:>12.1}% {:>12.3}: {:>+6.1}% {:>8}  {}",
            r.level,
            r.ridge,
            f.n,
            f.sloped,
            f.flat,
            f.median_abs_deviation * 100.0,
            f.worst.0,
            f.worst.1 * 100.0,
            if f.overlap.is_finite() {
                format!("{:.0}%", f.overlap * 100.0)
            } else {
                "-".into()
            },
            if ok {
                "ok".to_string()
            } else {
                format!("FAILED: {}", validate::likely_cause(f, threshold))
            }
        );
    }
    s
}

/// Run the subcommand.
pub fn run(a: &ValidateArgs) -> Result<()> {
    let path = a
        .results
        .clone()
        .unwrap_or_else(|| Path::new("carm-results").join("carm.yaml"));
    let mut doc = results::load(&path)?;
    let machine = Machine::load(&Source::Live)?;
    let o = Options {
        mixes: match &a.mixes {
            Some(v) => v
                .iter()
                .map(|m| Mix::parse(m).map_err(Error::input))
                .collect::<Result<_>>()?,
            None => Options::default().mixes,
        },
        ops: match &a.ops {
            Some(v) => v
                .iter()
                .map(|m| Op::parse(m).map_err(Error::input))
                .collect::<Result<_>>()?,
            None => Options::default().ops,
        },
        threshold: a.threshold / 100.0,
    };
    for m in &o.mixes {
        if !matches!(m, Mix::Load | Mix::TwoLdOneSt) {
            return Err(Error::input(format!(
                "validation kernels exist for the load and 2ld1st mixes, not '{m}'"
            )));
        }
    }
    for op in &o.ops {
        if !matches!(op, Op::Fma | Op::AddMul) {
            return Err(Error::input(format!(
                "validation kernels exist for the fma and addmul ops, not '{op}'"
            )));
        }
    }
    let res = validate_doc(&mut doc, &machine, &o)?;
    let format = if path.extension().is_some_and(|e| e == "json") {
        Format::Json
    } else {
        Format::Yaml
    };
    results::save(&doc, &path, format)?;
    print!("{}", report(&res, o.threshold));
    let charts = super::run::write_charts(&doc, &path);
    println!(
        "wrote {} ({} validation points){charts}",
        path.display(),
        doc.validation.len()
    );
    if interrupt::requested() {
        return Err(Error::Interrupted(format!(
            "interrupted: the points measured so far are in {}",
            path.display()
        )));
    }
    Ok(())
}
