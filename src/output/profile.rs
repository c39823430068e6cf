//! What `profile` prints: each program's and region's place under the
//! roofs (and its levels' traffic, when simulated), and the table of a
//! program's functions.

use crate::profile::measured::samples::FEW_SAMPLES;
use crate::results::Document;
use crate::results::advice::{self, Code};
use crate::results::apps::{AppPoint, RanOnly};
use crate::results::placement::{self, BoundBy};
use std::fmt::Write;
use std::path::Path;

/// A point's unit of work and of rate: flop and GFLOP/s, or op and GOP/s
/// for integer arithmetic.
fn units(p: &AppPoint) -> (&'static str, &'static str) {
    match p.precision.is_some_and(|x| x.is_integer()) {
        true => ("op", "GOP/s"),
        false => ("flop", "GFLOP/s"),
    }
}

/// How a loop ran: its nesting, trip count, and what its FP instructions
/// are ("depth 2, 1024 trips x 20000 entries, 256-bit 100%, FMA 100%").
pub fn loop_note(p: &AppPoint, l: &crate::results::apps::LoopInfo) -> String {
    let mut s = format!(
        "[depth {}, {:.0} trip(s) x {} entr{}",
        l.depth,
        l.trip_count(),
        l.entries,
        if l.entries == 1 { "y" } else { "ies" }
    );
    if l.irreducible {
        s += ", irreducible";
    }
    if let Some(m) = &p.mix {
        let widths = [
            ("scalar", m.fp_scalar),
            ("128-bit", m.fp_128),
            ("256-bit", m.fp_256),
            ("512-bit", m.fp_512),
        ];
        let all: f64 = widths.iter().map(|w| w.1).sum();
        if all > 0.0 {
            let (name, most) = widths
                .iter()
                .copied()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or(("scalar", 0.0));
            let flops = m.dp_flops + m.sp_flops;
            s += &format!(", {name} {:.0}%", 100.0 * most / all);
            if flops > 0.0 {
                s += &format!(", FMA {:.0}%", 100.0 * m.fma_flops / flops);
            }
        }
    }
    s + "]"
}

/// The line that places a point under a results file's roofs: the roof
/// that bounds it by the evidence its run has (with simulated caches, the
/// level whose dot is nearest its roof, or the peak every dot sits under;
/// without, the CARM's roof, a memory roof's level unknown).
pub fn placed(doc: &Document, p: &AppPoint) -> String {
    let (ai, perf) = (p.ai(), p.gflop_per_s());
    let (u, rate) = units(p);
    let Some(place) = placement::place(doc, p) else {
        let q = p.precision.map_or("dp", |q| q.name());
        return format!(
            "{}; these results have no {q} roofs (measure them with `carmbench run --precision {q}`)",
            unplaced(p)
        );
    };
    let head = format!("{}: AI {ai:.3} {u}/B, {perf:.2} {rate}", p.name);
    let t = place.threads;
    let note = place.note();
    let Some(b) = &place.bound else {
        return format!(
            "{head}: above every roof of the {t}-thread results at its intensity; check the counts{note}"
        );
    };
    let pct = 100.0 * b.share;
    let at = format!("{:.2} {rate} at this AI, {t} thread(s)", b.at);
    match b.by {
        BoundBy::Peak if !place.dots.is_empty() => format!(
            "{head}; every level's dot sits under the {}, which bounds it ({at}): {pct:.1}% of it{note}",
            b.label
        ),
        BoundBy::Peak => format!(
            "{head}; bound by the {} ({at}): {pct:.1}% of it{note}",
            b.label
        ),
        BoundBy::Level(l) => format!(
            "{head}; by each level's own bytes the {} bounds it ({:.2} {rate} at its {l} AI, {t} thread(s)): {pct:.1}% of it{note}",
            b.label, b.at
        ),
        BoundBy::UnknownLevel => format!(
            "{head}; under the {} ({at}): {pct:.1}% of it; which level its bytes come from is unknown without simulated caches (--traffic){note}",
            b.label
        ),
    }
}

/// What a point's W counts: "flop", or the integer type's ops ("int",
/// "int8").
fn work(p: &AppPoint) -> &'static str {
    match p.precision {
        Some(q) if q.is_integer() => q.name(),
        _ if p.flops == 0.0 => "-",
        Some(q) => q.name(),
        None => "flop",
    }
}

/// A point's line without roofs.
pub fn unplaced(p: &AppPoint) -> String {
    let (u, rate) = units(p);
    format!(
        "{}: AI {:.3} {u}/B, {:.2} {rate}, {:.3} s",
        p.name,
        p.ai(),
        p.gflop_per_s(),
        p.seconds
    )
}

/// One line: each level's bytes and AI, and its dot's share of its roof
/// (the roof in the bytes the level moves, so a stream at full speed sits
/// near 100 %); none without simulated traffic.
pub fn traffic(doc: &Document, p: &AppPoint) -> Option<String> {
    let place = placement::place(doc, p);
    let dots = match &place {
        Some(x) => x.dots.clone(),
        None => placement::level_dots(p, None),
    };
    if dots.is_empty() {
        return None;
    }
    let unit = p.precision.map_or("flop", |q| q.unit());
    let perf = p.gflop_per_s();
    let list: Vec<String> = dots
        .iter()
        .map(|d| {
            // Sampled levels say how far their bytes may be off.
            let error = match (d.level, &p.traffic) {
                (crate::machine::Level::L1, _) | (_, None) => 0.0,
                (_, Some(t)) => t.expected_error(d.bytes),
            };
            let error = match error >= 0.01 {
                true => format!(", ±{:.0} % sampled", 100.0 * error),
                false => String::new(),
            };
            let share = match d.share(perf) {
                s if s.is_finite() && d.under_peak => format!(", {:.0} % of the peak", 100.0 * s),
                s if s.is_finite() => format!(", {:.0} % of its roof", 100.0 * s),
                _ => String::new(),
            };
            format!(
                "{} {} (AI {:.3} {unit}/B{error}{share})",
                d.level,
                crate::units::human_bytes(d.bytes.max(0.0) as u64),
                d.ai
            )
        })
        .collect();
    Some(format!("  traffic: {}", list.join(", ")))
}

/// How a region's time and work spread over an MPI job's ranks: whether
/// its slowest rank had more work or did the same work slower.
fn spread_line(p: &AppPoint) -> Option<String> {
    let s = p.spread.as_ref()?;
    let t = &s.seconds;
    let mut line = format!(
        "  over the ranks: T {:.4} s (rank {}) to {:.4} s (rank {}), the most {:.2}x the median",
        t.min,
        t.min_rank,
        t.max,
        t.max_rank,
        t.imbalance()
    );
    if let Some(w) = &s.work {
        let _ = write!(
            line,
            "; W {:.4e} (rank {}) to {:.4e} (rank {}), the most {:.2}x the median",
            w.min,
            w.min_rank,
            w.max,
            w.max_rank,
            w.imbalance()
        );
    }
    Some(line)
}

/// Each program's and region's place under the roofs (and its levels'
/// traffic when simulated), or why there is none.
pub fn placements(points: &[AppPoint], results: Option<&Document>, results_path: &Path) -> String {
    let mut out = String::new();
    let programs = points.iter().filter(|p| p.function().is_none());
    match results {
        Some(doc) => programs.for_each(|p| {
            let _ = writeln!(out, "{}", placed(doc, p));
            if let Some(v) = traffic(doc, p) {
                let _ = writeln!(out, "{v}");
            }
            out += &advice_lines(p, "  ");
            if let Some(v) = spread_line(p) {
                let _ = writeln!(out, "{v}");
            }
        }),
        None => {
            programs.for_each(|p| {
                let _ = writeln!(out, "{}", unplaced(p));
                out += &advice_lines(p, "  ");
            });
            let _ = writeln!(
                out,
                "(no results at {}: run `carmbench run` or give --results to see the bounding roof)",
                results_path.display()
            );
        }
    }
    out
}

/// `p`'s advice but its bound (its placement line's), a line each after
/// `indent`.
fn advice_lines(p: &AppPoint, indent: &str) -> String {
    (p.advice.iter())
        .filter(|a| a.code != Code::Bound)
        .map(|a| format!("{indent}{}: {}\n", a.name(), advice::words(a)))
        .collect()
}

/// The bounding roof of a function point and how close it is, or why it
/// has none.
fn bound(doc: Option<&Document>, p: &AppPoint) -> String {
    match p.function().and_then(|f| f.ran_only) {
        Some(RanOnly::Natively) => return "not placed: not run emulated".into(),
        Some(RanOnly::Emulated) => return "not placed: not run natively".into(),
        None => {}
    }
    let by_bandwidth = || {
        let b = placement::by_bandwidth(doc?, p, 1)?;
        Some(format!("{} bandwidth {:.0}%", b.level, 100.0 * b.share))
    };
    match (p.placeable(), doc) {
        (false, _) if p.seconds <= 0.0 => "not placed: no samples".to_string(),
        (false, _) if p.flops == 0.0 && p.bytes > 0.0 => {
            by_bandwidth().unwrap_or_else(|| "no arithmetic: by bandwidth".into())
        }
        (false, _) => "not placed: no work".to_string(),
        (true, None) => String::new(),
        (true, Some(d)) => match placement::place(d, p).map(|x| x.bound) {
            Some(Some(b)) if b.by == BoundBy::UnknownLevel => {
                format!("{} {:.0}% (level?)", b.label, 100.0 * b.share)
            }
            Some(Some(b)) => format!("{} {:.0}%", b.label, 100.0 * b.share),
            Some(None) => "above every roof".into(),
            None => format!("no {} roofs measured", work(p)),
        },
    }
}

/// The table of a program's function points: time share, seconds, AI,
/// GFLOP/s, the bounding roof and how close the point is to it.
pub fn function_table(doc: Option<&Document>, points: &[AppPoint]) -> String {
    let functions: Vec<&AppPoint> = points.iter().filter(|p| p.function().is_some()).collect();
    let Some(first) = functions.first().and_then(|p| p.function()) else {
        return String::new();
    };
    let samples: u64 = (functions.iter())
        .filter_map(|p| p.function())
        .map(|f| f.samples)
        .sum();
    let mut t = format!(
        "functions of {} (W and Q: their own work, flops or integer ops as `work` says; T: {samples} samples of the CPU time, per core; * fewer than {FEW_SAMPLES} samples):\n{:>6} {:>9} {:>9} {:>9} {:<6}  {:<28} function (file)\n",
        first.program, "time", "T s", "W/Q", "G/s", "work", "bound: % of the roof"
    );
    let rate = |v: f64| match v.is_finite() {
        true => format!("{v:.3}"),
        false => "-".into(),
    };
    for p in &functions {
        let Some(f) = p.function() else { continue };
        let _ = writeln!(
            t,
            "{:>5.1}%{} {:>9.4} {:>9} {:>9} {:<6}  {:<28} {}{}",
            100.0 * f.share,
            if f.samples < FEW_SAMPLES { "*" } else { " " },
            p.seconds,
            rate(p.ai()),
            rate(p.gflop_per_s()),
            work(p),
            bound(doc, p),
            p.name,
            match (f.module.is_empty(), &f.location, p.loop_info()) {
                (true, _, _) => String::new(),
                (false, _, Some(l)) => format!(" ({}) {}", f.module, loop_note(p, l)),
                (false, None, None) => format!(" ({})", f.module),
                (false, Some(at), None) => format!(" ({}, {at})", f.module),
            } + &f
                .counted_as
                .as_ref()
                .map_or(String::new(), |c| format!(" [counted as {c}]"))
                + &p.spread.as_ref().map_or(String::new(), |s| {
                    format!(
                        " [ranks: most {:.4} s in rank {}, {:.2}x the median]",
                        s.seconds.max,
                        s.seconds.max_rank,
                        s.seconds.imbalance()
                    )
                })
        );
    }
    let advised: Vec<&&AppPoint> = (functions.iter())
        .filter(|p| p.advice.iter().any(|a| a.code != Code::Bound))
        .collect();
    if !advised.is_empty() {
        t += "what to do next, by function (each one's bound is in the table):\n";
    }
    for p in advised {
        let _ = writeln!(t, "  {}", p.name);
        t += &advice_lines(p, "    ");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::{ReadWrite, Traffic};

    fn doc() -> Document {
        let text = include_str!("../../tests/fixtures/emr-xeon-2core.yaml");
        crate::results::parse(text, "emr-xeon-2core.yaml").unwrap()
    }

    /// Every byte requested from L2, `far` bytes read from L3 and DRAM.
    fn traffic(p: &AppPoint, far: f64) -> Traffic {
        let rw = |read| ReadWrite { read, write: 0.0 };
        Traffic {
            l2: rw(p.bytes),
            l3: rw(far),
            dram: rw(far),
            hits: [0.0; 3],
            model: "test".into(),
            sample: 1,
            line: 64,
            exclusive_l3: None,
        }
    }

    #[test]
    fn the_headline_gives_the_bound_the_run_s_evidence_has() {
        let d = doc();
        // AI 1 at 97 % of the DRAM roof by the bytes the core requested.
        let mut p = AppPoint::new("loop", 1e10, 1e10, 1.0);
        p.threads = Some(1);
        let at = placement::place(&d, &p).unwrap().roof.unwrap().1;
        p.seconds = 10.0 / (0.97 * at);
        let line = placed(&d, &p);
        assert!(
            line.contains("under the DRAM") && line.contains("(--traffic)"),
            "{line}"
        );
        // Its bytes from L1: no memory roof bounds it, headline included.
        p.traffic = Some(traffic(&p, p.bytes / 1000.0));
        let line = placed(&d, &p);
        assert!(
            !line.contains("DRAM") && !line.contains("--traffic"),
            "{line}"
        );
        assert!(line.contains("every level's dot sits under the"), "{line}");
        // Its bytes from DRAM: the DRAM roof, by its own bytes.
        p.traffic = Some(traffic(&p, p.bytes));
        let line = placed(&d, &p);
        assert!(
            line.contains("by each level's own bytes the DRAM"),
            "{line}"
        );
        let t = super::traffic(&d, &p).unwrap();
        assert!(t.contains("% of its roof"), "{t}");
    }
}
