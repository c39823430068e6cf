//! Application points: where each sits and the roof right above it; and
//! the points of a program's functions, in a table sorted by a click on
//! any column.

use crate::results::Document;
use crate::results::advice::{Code, Others};
use crate::results::apps::AppPoint;
use crate::results::placement::{Bound, BoundBy, place};
use maud::{Markup, PreEscaped, html};

/// A row per application, placed against `doc`'s roofs, with what to do
/// next (`all`: every point of the file, where a program finds its
/// functions).
pub fn section(doc: &Document, apps: &[AppPoint], all: &[AppPoint]) -> Markup {
    let others = Others::of(all);
    html! {
        div.scroll {
            table.apps {
                thead { tr {
                    th { "Application" } th { "Work" } th { "AI (per byte)" } th { "AI read / written" } th { "G/s" } th { "Seconds" }
                    th { "Bound by" } th { "Of that roof" } th { "What to do next" }
                } }
                tbody {
                    @for a in apps {
                        @let place = place(doc, a);
                        tr data-point=(a.name) {
                            td { (a.name) }
                            td { (work(a)) }
                            td.n { (finite(a.ai(), 3)) }
                            td.n { (per_side(a)) }
                            td.n { (finite(a.gflop_per_s(), 2)) }
                            td.n { (format!("{:.3}", a.seconds)) }
                            @match place.as_ref().and_then(|p| p.bound.as_ref().map(|b| (p, b))) {
                                Some((p, b)) => {
                                    td { (bound_cell(b)) " (" (p.threads) " thread(s), " (format!("{:.1}", b.at)) " GFLOP/s)" (p.note()) }
                                    td.n { (format!("{:.0}%", 100.0 * b.share)) }
                                }
                                None => { td { (unplaced(doc, a)) } td.n { "-" } }
                            }
                            (next_steps(doc, a, &others))
                        }
                    }
                }
            }
        }
        // Simulated traffic: each level's bytes and the level that bounds.
        @for a in apps {
            @if let Some(v) = crate::output::profile::traffic(doc, a) {
                p.note { (a.name) ":" (v.trim_start().trim_start_matches("traffic:")) }
            }
        }
        @if let Some(t) = apps.iter().find_map(|a| a.traffic.as_ref()) {
            p.note { "(" (t.model) ")" }
        }
    }
}

/// Each sized region's series as a section with its table, its sizes in order: n, W, Q, I,
/// P and the roof that bounds it (None without a series).
pub fn series(doc: &Document, apps: &[AppPoint]) -> Option<Markup> {
    let mut sized: Vec<&AppPoint> = apps.iter().filter(|a| a.sized.is_some()).collect();
    if sized.is_empty() {
        return None;
    }
    let key = |a: &AppPoint| {
        let s = a
            .sized
            .as_ref()
            .map_or((String::new(), 0.0), |s| (s.series.clone(), s.n));
        (
            a.name.split('/').next().unwrap_or_default().to_string(),
            s.0,
            s.1,
        )
    };
    sized.sort_by(|a, b| {
        let (x, y) = (key(a), key(b));
        (&x.0, &x.1).cmp(&(&y.0, &y.1)).then(x.2.total_cmp(&y.2))
    });
    Some(html! { section.apps {
        h2 { "Sized regions" }
        p { "Each sized region over its sizes (Ofenbeck et al.'s line per kernel): how its intensity and rate move as its data leaves each cache." }
        div.scroll { table.apps {
            thead { tr {
                th { "Series" } th { "n" } th { "Calls" } th { "Work" } th { "Bytes" }
                th { "AI (per byte)" } th { "G/s" } th { "Bound by" }
            } }
            tbody { @for a in sized {
                @let (program, name, n) = key(a);
                tr data-point=(a.name) {
                    td { (program) "/" (name) }
                    td.n { (n) }
                    td.n { (a.sized.as_ref().map_or(0, |s| s.calls)) }
                    td { (work(a)) }
                    td.n { (format!("{:.3e}", a.bytes)) }
                    td.n { (finite(a.ai(), 3)) }
                    td.n { (finite(a.gflop_per_s(), 2)) }
                    td { (place(doc, a).and_then(|p| p.bound).map_or("-".to_string(), |b| bound_cell(&b))) }
                }
            } }
        } }
    } })
}

/// Work over the bytes read and over those written, or "-" where they
/// were not told apart.
fn per_side(a: &AppPoint) -> String {
    match a.sides {
        Some(s) => format!(
            "{} / {}",
            finite(a.flops / s.read, 3),
            finite(a.flops / s.write, 3)
        ),
        None => "-".into(),
    }
}

/// A bound's roof, and how it is known where that matters: a level's by
/// its own bytes, a memory roof's level unknown without simulated caches.
fn bound_cell(b: &Bound) -> String {
    match b.by {
        BoundBy::Level(l) => format!("{} (by its {l} bytes)", b.label),
        BoundBy::UnknownLevel => format!("{} (level unknown: --traffic)", b.label),
        BoundBy::Peak => b.label.clone(),
    }
}

/// A cell of `a`'s advice under `doc`'s roofs in words, its bound left to
/// the cells before it.
fn next_steps(doc: &Document, a: &AppPoint, others: &Others) -> Markup {
    let advice = crate::results::advice::advise(Some(doc), a, others);
    let shown = advice.iter().filter(|x| x.code != Code::Bound);
    html! {
        td.advice { ul { @for x in shown {
            li { code { (x.name()) } " " (crate::results::advice::words(x)) }
        } } }
    }
}

/// Sorts a `table.sortable` by the column whose header is clicked: by each
/// cell's `data-v` number where it has one, else by its text; a second
/// click reverses. Inline, as the whole page is.
pub const SORT_SCRIPT: &str = r#"
document.querySelectorAll('table.sortable').forEach(function (t) {
  t.querySelectorAll('th').forEach(function (th, k) {
    th.addEventListener('click', function () {
      var down = th.dataset.order !== 'down';
      t.querySelectorAll('th').forEach(function (h) { delete h.dataset.order; });
      th.dataset.order = down ? 'down' : 'up';
      var key = function (r) {
        var c = r.cells[k];
        return c.dataset.v !== undefined ? parseFloat(c.dataset.v) : c.textContent;
      };
      var body = t.tBodies[0];
      Array.from(body.rows).sort(function (a, b) {
        var x = key(a), y = key(b);
        var o = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
        return down ? -o : o;
      }).forEach(function (r) { body.appendChild(r); });
    });
  });
});
"#;

/// What placed a point: its W's unit (flops, or the integer type's ops).
fn work(a: &AppPoint) -> String {
    match a.precision {
        Some(p) if p.is_integer() => format!("{} ops", p.name()),
        Some(p) => format!("{} flops", p.name()),
        None => "flops".into(),
    }
}

/// Why a function has no roof: above them all, placed by its bandwidth
/// (no arithmetic), or no place.
fn unplaced(doc: &Document, a: &AppPoint) -> String {
    if a.placeable() {
        return match place(doc, a) {
            Some(_) => "above every roof".into(),
            None => format!(
                "no {} roofs measured",
                a.precision.map_or("dp", |p| p.name())
            ),
        };
    }
    match crate::results::placement::by_bandwidth(doc, a, 1).filter(|_| a.flops == 0.0) {
        Some(b) => format!("{} bandwidth {:.0}%", b.level, 100.0 * b.share),
        None => "not placed: no work or no samples".into(),
    }
}

/// `v` with `digits` decimals; "-" for no number (an AI of no bytes).
fn finite(v: f64, digits: usize) -> String {
    match v.is_finite() {
        true => format!("{v:.digits$}"),
        false => "-".into(),
    }
}

/// A number cell that sorts by its value; "-" for no number (an AI of
/// no bytes).
fn cell(v: f64, text: String) -> Markup {
    let (key, text) = match v.is_finite() {
        true => (v, text),
        false => (0.0, "-".to_string()),
    };
    html! { td.n data-v=(key) { (text) } }
}

/// A table per MPI program: each rank's node, time, W, Q, AI and its work
/// in the MPI runtime's code; the ranks that failed after it.
pub fn ranks(doc: &Document, programs: &[AppPoint], ranks: &[&AppPoint]) -> Markup {
    let share = |x: f64, of: f64| if of > 0.0 { 100.0 * x / of } else { 0.0 };
    html! {
        @for p in programs.iter().filter(|p| p.mpi().is_some()) {
            @let mpi = p.mpi().unwrap_or_else(|| unreachable!());
            p {
                (p.name) ": " (mpi.ranks) " rank(s) launched by " (mpi.launcher)
                "; T is rank " (mpi.slowest) "'s, the slowest; W and Q their sums."
            }
            div.scroll { table.apps.sortable {
                thead { tr {
                    th { "Rank" } th { "Node" } th { "Seconds" } th { "Work" } th { "W" } th { "Q (bytes)" }
                    th { "AI" } th { "G/s" } th { "W in the MPI runtime" } th { "Q in the MPI runtime" } th { "Of the roof" }
                } }
                tbody {
                    @for r in ranks.iter().filter(|r| r.rank().is_some_and(|k| k.program == p.name)) {
                        @let k = r.rank().unwrap_or_else(|| unreachable!());
                        @let rt = k.runtime;
                        @let bound = place(doc, r).and_then(|x| x.bound);
                        tr data-point=(r.name) {
                            (cell(f64::from(k.rank), k.rank.to_string()))
                            td { (k.host) }
                            (cell(r.seconds, format!("{:.3}", r.seconds)))
                            td { (work(r)) }
                            (cell(r.flops, format!("{:.4e}", r.flops)))
                            (cell(r.bytes, format!("{:.4e}", r.bytes)))
                            (cell(r.ai(), format!("{:.3}", r.ai())))
                            (cell(r.gflop_per_s(), format!("{:.2}", r.gflop_per_s())))
                            @match rt {
                                Some(w) => {
                                    (cell(share(w.flops, r.flops), format!("{:.0}%", share(w.flops, r.flops))))
                                    (cell(share(w.bytes, r.bytes), format!("{:.0}%", share(w.bytes, r.bytes))))
                                }
                                None => { td.n { "-" } td.n { "-" } }
                            }
                            @match bound {
                                Some(b) => td { (bound_cell(&b)) " " (format!("{:.0}%", 100.0 * b.share)) },
                                None => td { (unplaced(doc, r)) },
                            }
                        }
                    }
                }
            } }
            @for f in &mpi.failed {
                p.note { "Rank " (f.rank) " " (f.why) ": left out of the sums." }
            }
        }
    }
}

/// A row per function point, placed against `doc`'s one-thread roofs
/// (their time is per core), hottest first.
pub fn functions(doc: &Document, points: &[&AppPoint], all: &[AppPoint]) -> Markup {
    let others = Others::of(all);
    let mut points = points.to_vec();
    let share = |a: &AppPoint| a.function().map_or(0.0, |f| f.share);
    points.sort_by(|a, b| share(b).total_cmp(&share(a)));
    html! {
        p { "W and Q: each function's own instructions, counted by emulation; time: its share of the native run's samples × the CPU time. "
            "Click a column to sort; * marks a function under " (crate::profile::measured::samples::FEW_SAMPLES) " samples." }
        div.scroll {
            table.functions.sortable {
                thead { tr {
                    th { "Program" } th { "Function" } th { "File" } th { "Source" } th { "Time" } th { "Seconds" }
                    th { "Samples" } th { "AI (per byte)" } th { "G/s" } th { "Bound by" } th { "Of that roof" } th { "Work" } th { "What to do next" }
                } }
                tbody {
                    @for a in &points {
                        @let f = a.function();
                        @let samples = f.map_or(0, |f| f.samples);
                        @let bound = if a.placeable() { place(doc, a).and_then(|p| p.bound) } else { None };
                        tr data-point=(a.name) {
                            td { (f.map_or("", |f| f.program.as_str())) }
                            td { (a.name) }
                            td { (f.map_or("", |f| f.module.as_str())) }
                            td { (f.and_then(|f| f.location.as_deref()).unwrap_or("")) }
                            (cell(share(a), format!("{:.1}%{}", 100.0 * share(a), if samples < crate::profile::measured::samples::FEW_SAMPLES { "*" } else { "" })))
                            (cell(a.seconds, format!("{:.4}", a.seconds)))
                            (cell(samples as f64, samples.to_string()))
                            (cell(a.ai(), format!("{:.3}", a.ai())))
                            (cell(a.gflop_per_s(), format!("{:.3}", a.gflop_per_s())))
                            @match bound {
                                Some(b) => {
                                    td { (bound_cell(&b)) }
                                    (cell(b.share, format!("{:.0}%", 100.0 * b.share)))
                                }
                                None => { td { (unplaced(doc, a)) } (cell(0.0, "-".into())) }
                            }
                            td { (work(a)) }
                            (next_steps(doc, a, &others))
                        }
                    }
                }
            }
        }
        script { (PreEscaped(SORT_SCRIPT)) }
    }
}

/// A table row and its point on the chart light up together: pointing at
/// one marks the other (`data-point`, the point's name, on both).
pub const HOVER_SCRIPT: &str = r#"
document.querySelectorAll('tr[data-point]').forEach(function (row) {
  var sel = 'circle[data-point="' + CSS.escape(row.dataset.point) + '"]';
  var mark = function (on) {
    row.classList.toggle('hl', on);
    document.querySelectorAll(sel).forEach(function (c) {
      c.setAttribute('stroke', on ? 'crimson' : 'transparent');
      c.setAttribute('stroke-width', on ? '3' : '0');
    });
  };
  row.addEventListener('mouseenter', function () { mark(true); });
  row.addEventListener('mouseleave', function () { mark(false); });
  document.querySelectorAll(sel).forEach(function (c) {
    c.addEventListener('mouseenter', function () { mark(true); });
    c.addEventListener('mouseleave', function () { mark(false); });
  });
});
"#;
