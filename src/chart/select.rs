//! Which roofs of which results files the CARM chart draws: a [`Filter`]
//! of ISA, precision, threads, mix and ops resolved against the files into
//! a [`Selection`] of series, each file's absence said rather than dropped.

use crate::error::{Error, Result};
use crate::kernels::{Kind, Mix, Op, Precision};
use crate::machine::isa::Isa;
use crate::results::apps::{AppPoint, Side};
use crate::results::view::{default_mix, default_ops, default_precision, distinct, shown_with};
use crate::results::{Document, Roof, ValidationPoint};

/// What to draw (None: the default).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// ISA (default: the widest in the results).
    pub isa: Option<Isa>,
    /// Precisions (default: dp): the first's compute roofs by `ops`, with
    /// its validation points; every other's own compute roofs beside them,
    /// under the same memory roofs.
    pub precision: Option<Vec<Precision>>,
    /// Thread counts (default: every count run).
    pub threads: Option<Vec<usize>>,
    /// Bandwidth mix (default: 2ld1st, else load).
    pub mix: Option<Mix>,
    /// FP ops (default: fma_add, fma, add; those present).
    pub ops: Option<Vec<Op>>,
    /// The points' intensity in the bytes of one side, under that side's
    /// roofs (default: the bytes read and written, under `mix`'s).
    pub side: Option<Side>,
}

/// One set of roofs drawn in one line style.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Bandwidth roofs, fastest first.
    pub bandwidth: Vec<Roof>,
    /// Compute roofs, highest first.
    pub compute: Vec<Roof>,
    /// Validation points of the same ISA, precision and threads.
    pub validation: Vec<ValidationPoint>,
    /// The core overlaps the points' memory and FP units only in part:
    /// their expected values bend below the roofs and are drawn.
    pub partial_overlap: bool,
}

/// Everything the chart shows.
#[derive(Debug, Clone)]
pub struct Selection {
    /// Title.
    pub title: String,
    /// Series, one line style each.
    pub series: Vec<Series>,
    /// Application points.
    pub apps: Vec<AppPoint>,
    /// Thread counts of the roofs drawn.
    pub threads: Vec<usize>,
    /// Precisions whose compute roofs are drawn.
    pub precisions: Vec<Precision>,
    /// Points that moved between two profiles, each drawn as an arrow from
    /// where it was to where it is.
    pub moves: Vec<Move>,
    /// Each program's path through its phases, an arrow from each to the
    /// next.
    pub trajectory: Vec<Move>,
    /// Each program's arrow up to the roof that limits it.
    pub limits: Vec<Limit>,
    /// The side whose bytes the points' intensity counts (None: both).
    pub side: Option<Side>,
    /// The points left out for that side, said.
    pub one_sided: Vec<String>,
}

/// One point's way up to its roof, at (AI, GFLOP/s per node).
#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    /// The point's name.
    pub name: String,
    /// Where it is.
    pub from: (f64, f64),
    /// The roof above it at its intensity.
    pub to: (f64, f64),
    /// The roof's label.
    pub roof: String,
}

impl Limit {
    /// The speed-up reaching the roof would bring.
    pub fn gain(&self) -> f64 {
        self.to.1 / self.from.1
    }
}

/// A point of an earlier profile and the same point now, each at (AI,
/// GFLOP/s).
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// The point's name.
    pub name: String,
    /// Where it was.
    pub from: (f64, f64),
    /// Where it is.
    pub to: (f64, f64),
}

impl Selection {
    /// The same without the validation points (a chart of applications).
    pub fn without_validation(&mut self) {
        for s in &mut self.series {
            s.validation.clear();
            s.partial_overlap = false;
        }
    }

    /// " [2 threads]" when the chart has several series, else nothing.
    pub fn tag(&self, si: usize) -> String {
        if self.series.len() > 1 {
            format!(" [{}]", self.series[si].label)
        } else {
            String::new()
        }
    }

    /// A line for each application point that ran a thread count whose
    /// roofs are not drawn, or whose work's roofs are not: it is shown
    /// against other roofs, and said so.
    pub fn app_notes(&self) -> Vec<String> {
        let drawn: Vec<String> = self.threads.iter().map(|t| t.to_string()).collect();
        let threads = self.apps.iter().filter_map(|a| {
            let n = a.threads.filter(|n| !self.threads.contains(n))?;
            Some(format!(
                "{} ran {n} thread(s), whose roofs are not drawn (measured or asked for: {}); it is shown against those",
                a.name,
                drawn.join(", ")
            ))
        });
        let work = self.apps.iter().filter_map(|a| {
            let p = a.precision.unwrap_or(Precision::Dp);
            (!self.precisions.contains(&p)).then(|| {
                format!(
                    "{}'s work is {} ops, whose roofs these results lack (measure them with `carmbench run --precision {p}`): it is drawn without them",
                    a.name,
                    p.name()
                )
            })
        });
        (self.one_sided.iter().cloned())
            .chain(threads)
            .chain(work)
            .collect()
    }
}

fn choose<T: Copy + PartialEq + std::fmt::Display>(
    what: &str,
    wanted: Option<T>,
    available: &[T],
    default: impl Fn(&[T]) -> Option<T>,
) -> Result<T> {
    match wanted {
        Some(v) if available.contains(&v) => Ok(v),
        Some(v) => Err(Error::input(format!(
            "no roofs with {what} '{v}' in these results; available: {}",
            available
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        None => default(available)
            .ok_or_else(|| Error::input(format!("these results have no {what} to draw"))),
    }
}

/// The precisions of the points' work, double precision's first, when any
/// is not double precision (the charts' default): each point goes under its
/// own type's roofs.
pub fn apps_precisions(apps: &[AppPoint], docs: &[(String, Document)]) -> Option<Vec<Precision>> {
    let measured =
        |p: Precision| (docs.iter()).any(|(_, d)| d.roofs.iter().any(|r| r.precision == Some(p)));
    let mut v: Vec<Precision> = Vec::new();
    for a in apps {
        let p = a.precision.unwrap_or(Precision::Dp);
        // A type these results lack is drawn without its roofs (and said).
        if !v.contains(&p) && measured(p) {
            v.push(p);
        }
    }
    v.sort_by_key(|p| *p != Precision::Dp);
    (v.iter().any(|p| *p != Precision::Dp)).then_some(v)
}

/// Pick the roofs to draw from several results documents.
pub fn select(docs: &[(String, Document)], f: &Filter, apps: Vec<AppPoint>) -> Result<Selection> {
    let f = &Filter {
        mix: f.mix.or(f.side.map(Side::mix)),
        ..f.clone()
    };
    let (apps, one_sided) = match f.side {
        Some(side) => on_side(apps, side),
        None => (apps, Vec::new()),
    };
    let p = pick(docs, f)?;
    let (series, isas_drawn) = series_of(docs, f, &p)?;
    let mut precisions: Vec<Precision> = p.precision.into_iter().collect();
    precisions.extend(p.also.iter().copied());
    Ok(Selection {
        title: title(docs, &p, &isas_drawn),
        series,
        apps,
        threads: p.threads,
        precisions,
        moves: Vec::new(),
        trajectory: Vec::new(),
        limits: Vec::new(),
        side: f.side,
        one_sided,
    })
}

/// `apps` on the roofline of `side`, and what was left out, said.
fn on_side(apps: Vec<AppPoint>, side: Side) -> (Vec<AppPoint>, Vec<String>) {
    let (mut kept, mut notes) = (Vec::new(), Vec::new());
    for a in apps {
        match a.one_side(side) {
            Some(p) => kept.push(p),
            None if a.sides.is_none() => notes.push(format!(
                "{} has no bytes read and written apart (counts given by hand, or a file before schema 11): not drawn with --intensity {}",
                a.name,
                side.name()
            )),
            None => notes.push(format!(
                "{} {} no byte: not drawn with --intensity {}",
                a.name,
                ["read", "wrote"][usize::from(side == Side::Write)],
                side.name()
            )),
        }
    }
    (kept, notes)
}

/// The points of an apps file the CARM chart draws: a function without FP
/// work is in the table, not on the chart; an MPI program's ranks and its
/// phases are drawn when asked; a GPU kernel is on its GPU's chart.
pub fn drawn_apps(all: &[AppPoint], ranks: bool, phases: bool) -> Vec<AppPoint> {
    (all.iter())
        .filter(|p| p.placeable() && p.kernel().is_none())
        .filter(|p| (ranks || p.rank().is_none()) && (phases || p.phase().is_none()))
        .cloned()
        .collect()
}

/// What the filters resolve to against the files' roofs.
struct Picked {
    isa: Isa,
    precision: Option<Precision>,
    /// The other precisions whose compute roofs are drawn too.
    also: Vec<Precision>,
    mix: Option<Mix>,
    ops: Vec<Op>,
    threads: Vec<usize>,
}

/// Each filter resolved: the value asked for, which must be measured, else
/// the default among those measured.
fn pick(docs: &[(String, Document)], f: &Filter) -> Result<Picked> {
    let all: Vec<&Roof> = docs.iter().flat_map(|(_, d)| d.roofs.iter()).collect();
    if all.is_empty() {
        return Err(Error::input(
            "the results hold no roofs; run `carmbench run` (an interrupted run may have measured none)",
        ));
    }
    let good: Vec<&Roof> = all.iter().copied().filter(|r| r.usable()).collect();
    if good.is_empty() {
        return Err(Error::input(
            "every roof in the results is zero or not a number; re-run `carmbench run`",
        ));
    }
    let isas: Vec<Isa> = distinct(&good, |r| Some(r.isa));
    let isa = choose("ISA", f.isa, &isas, |v| v.last().copied())?;
    let precs: Vec<Precision> = distinct(&good, |r| r.precision);
    let asked = f.precision.as_deref().unwrap_or_default();
    let precision = if precs.is_empty() {
        None
    } else {
        Some(choose(
            "precision",
            asked.first().copied(),
            &precs,
            default_precision,
        )?)
    };
    let mut also = Vec::new();
    for &q in asked.iter().skip(1) {
        let q = choose("precision", Some(q), &precs, |_| None)?;
        if Some(q) != precision && !also.contains(&q) {
            also.push(q);
        }
    }
    let of_isa: Vec<&Roof> = good.iter().copied().filter(|r| r.isa == isa).collect();
    let mixes: Vec<Mix> = distinct(&of_isa, |r| r.mix);
    let mix = if mixes.is_empty() {
        None
    } else {
        Some(choose("mix", f.mix, &mixes, default_mix)?)
    };
    let ops_avail: Vec<Op> = distinct(&of_isa, |r| r.op.filter(|_| r.precision == precision));
    let ops: Vec<Op> = match &f.ops {
        Some(list) => list
            .iter()
            .map(|&o| choose("op", Some(o), &ops_avail, |_| None))
            .collect::<Result<_>>()?,
        None => default_ops(&ops_avail),
    };
    let threads_avail: Vec<usize> = distinct(&of_isa, |r| Some(r.threads));
    let threads = match &f.threads {
        Some(t) => {
            for n in t {
                if !threads_avail.contains(n) {
                    return Err(Error::input(format!(
                        "no roofs with {n} threads in these results; available: {}",
                        threads_avail
                            .iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
            t.clone()
        }
        None => threads_avail,
    };

    Ok(Picked {
        isa,
        precision,
        also,
        mix,
        ops,
        threads,
    })
}

/// A series per file and thread count: its roofs, validation points and
/// whether its core overlaps memory and FP work only in part; and the ISAs
/// drawn.
fn series_of(
    docs: &[(String, Document)],
    f: &Filter,
    p: &Picked,
) -> Result<(Vec<Series>, Vec<Isa>)> {
    let mut series = Vec::new();
    let mut isas_drawn = Vec::new();
    for (name, d) in docs {
        // Several files without --isa: each machine with its own widest ISA.
        let isa = if f.isa.is_none() && docs.len() > 1 {
            crate::results::view::widest_isa(&d.roofs).unwrap_or(p.isa)
        } else {
            p.isa
        };
        if !isas_drawn.contains(&isa) {
            isas_drawn.push(isa);
        }
        for &t in &p.threads {
            let one = one_series(d, isa, t, p);
            if one.bandwidth.is_empty() && one.compute.is_empty() {
                // A file without what was asked for is said, not dropped.
                if f.isa.is_some() || f.threads.is_some() {
                    return Err(Error::input(format!(
                        "{name} has no {isa} roofs with {t} thread(s) (it has {}); leave it out or ask for what it has with --isa and --threads",
                        measured_sets(d)
                    )));
                }
                continue;
            }
            let plural = if t == 1 { "" } else { "s" };
            let label = match docs.len() > 1 {
                true => format!("{name}, {isa}, {t} thread{plural}"),
                false => format!("{t} thread{plural}"),
            };
            series.push(Series { label, ..one });
        }
    }
    if series.is_empty() {
        return Err(Error::input("no roofs match the filters"));
    }
    Ok((series, isas_drawn))
}

/// The series of `d` for `isa` and `t` threads as `p` picks them,
/// unlabelled: its roofs, fastest first, and its validation points.
fn one_series(d: &Document, isa: Isa, t: usize, p: &Picked) -> Series {
    let usable = |r: &&Roof| r.usable() && r.threads == t && shown_with(r, isa);
    let mut bandwidth: Vec<Roof> = (d.roofs.iter())
        .filter(usable)
        .filter(|r| r.kind == Kind::Bandwidth && r.mix == p.mix)
        .cloned()
        .collect();
    bandwidth.sort_by(|a, b| b.value().total_cmp(&a.value()));
    let asked = |r: &&Roof| {
        (r.precision == p.precision && r.op.is_some_and(|o| p.ops.contains(&o)))
            || r.precision.is_some_and(|q| p.also.contains(&q))
    };
    let mut compute: Vec<Roof> = (d.roofs.iter())
        .filter(usable)
        .filter(|r| r.kind == Kind::Compute)
        .filter(asked)
        .cloned()
        .collect();
    compute.sort_by(|a, b| b.value().total_cmp(&a.value()));
    let ours = |isa2: Isa, threads: usize, precision, mix| {
        isa2 == isa && threads == t && Some(precision) == p.precision && Some(mix) == p.mix
    };
    let validation = (d.validation.iter())
        .filter(|v| ours(v.isa, v.threads, v.precision, v.mix))
        .filter(|v| {
            v.ai > 0.0 && v.gflop_per_s > 0.0 && v.ai.is_finite() && v.gflop_per_s.is_finite()
        })
        .cloned()
        .collect();
    let partial_overlap =
        (d.coissue.iter()).any(|c| c.partial() && ours(c.isa, t, c.precision, c.mix));
    Series {
        label: String::new(),
        bandwidth,
        compute,
        validation,
        partial_overlap,
    }
}

/// "Cache-aware Roofline: CPU (µarch) | AVX512 DP | 2ld1st | 1, 2 thread(s) | 4.12 GHz".
fn title(docs: &[(String, Document)], p: &Picked, isas_drawn: &[Isa]) -> String {
    let mut cpus: Vec<String> = docs.iter().map(|(_, d)| d.cpu_title()).collect();
    cpus.dedup();
    let clocks: Vec<String> = docs
        .iter()
        .map(|(_, d)| format!("{:.2}", d.machine.clock.measured.core_ghz()))
        .collect();
    format!(
        "Cache-aware Roofline: {} | {}{}{} | {} thread(s) | {} GHz",
        cpus.join(" vs "),
        isas_drawn
            .iter()
            .map(|i| i.name().to_uppercase())
            .collect::<Vec<_>>()
            .join(" / "),
        p.precision
            .iter()
            .chain(&p.also)
            .map(|p| format!(" {}", p.name().to_uppercase()))
            .collect::<Vec<_>>()
            .join(" +"),
        p.mix.map(|m| format!(" | {m}")).unwrap_or_default(),
        p.threads
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        clocks.join(" / ")
    )
}

/// "avx2 with 1, 2 threads; avx512 with 1 thread": what a file measured.
fn measured_sets(d: &Document) -> String {
    let isas: Vec<Isa> = distinct(&d.roofs.iter().collect::<Vec<_>>(), |r| Some(r.isa));
    isas.iter()
        .map(|&i| {
            let t: Vec<String> = d
                .thread_counts()
                .into_iter()
                .filter(|&t| d.roofs.iter().any(|r| r.isa == i && r.threads == t))
                .map(|t| t.to_string())
                .collect();
            format!("{i} with {} thread(s)", t.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
