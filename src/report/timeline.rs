//! A program's run over time (`profile --timeline`): a strip under the
//! applications' chart, W/s and intensity window by window, its phases as
//! bands; pointing at a band (a click keeps it) marks the phase's point on
//! the chart and the rows of its point and of its hottest functions.

use crate::chart::tips::escape;
use crate::results::apps::{AppPoint, PhaseInfo};
use maud::{Markup, PreEscaped, html};
use std::fmt::Write;

/// The strip's size, and its plot's left edge, pixels.
const WIDTH: f64 = 900.0;
const LEFT: f64 = 70.0;
/// The height of each of its two panels, and the gap under each.
const PANEL: f64 = 70.0;
const GAP: f64 = 22.0;

/// The bands' fills, one phase after the other.
const FILLS: [&str; 2] = ["#0072b2", "#e69f00"];

/// A strip for each program of `apps` with phases, in one section; none
/// when no program has.
pub fn strips(apps: &[AppPoint]) -> Option<Markup> {
    let programs: std::collections::BTreeSet<&str> = (apps.iter())
        .filter_map(|a| a.phase().map(|x| x.program.as_str()))
        .collect();
    if programs.is_empty() {
        return None;
    }
    let each: Vec<(&str, String)> = (programs.into_iter())
        .map(|p| {
            let mut phases: Vec<(&AppPoint, &PhaseInfo)> = (apps.iter())
                .filter_map(|a| a.phase().filter(|x| x.program == p).map(|x| (a, x)))
                .collect();
            phases.sort_by_key(|x| x.1.index);
            (p, strip(&phases))
        })
        .collect();
    Some(html! {
        @for (p, svg) in &each {
            h3 { (p) " over time" }
            (PreEscaped(svg))
        }
        p.note { "W/s (top) and intensity (below, log scale) window by window, each band a phase: point at one, or click to keep it, to find its point on the chart and its rows in the tables." }
        script { (PreEscaped(SCRIPT)) }
    })
}

/// A window of the strip: (start, end, W, Q).
type Win = (f64, f64, f64, f64);

/// The scales of a strip: its end in seconds, the highest W/s, and the
/// decades of intensity (low, high).
struct Scales {
    end: f64,
    top: f64,
    decades: (f64, f64),
}

impl Scales {
    fn of(windows: &[Win], end: f64) -> Scales {
        let top = windows.iter().map(rate).fold(0.0, f64::max).max(1e-30);
        let ais: Vec<f64> = (windows.iter())
            .filter(|w| w.2 > 0.0 && w.3 > 0.0)
            .map(|w| w.2 / w.3)
            .collect();
        let lo = ais
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .log10()
            .floor();
        let hi = ais
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
            .log10()
            .ceil();
        Scales {
            end: end.max(1e-9),
            top,
            decades: (lo, hi.max(lo + 1.0)),
        }
    }

    /// The x of time `t`.
    fn x(&self, t: f64) -> f64 {
        LEFT + t / self.end * (WIDTH - LEFT - 10.0)
    }

    /// The y of intensity `ai` in the lower panel.
    fn y(&self, ai: f64) -> f64 {
        let (lo, hi) = self.decades;
        PANEL + GAP + PANEL * (1.0 - (ai.log10() - lo) / (hi - lo))
    }
}

/// A window's W/s.
fn rate(w: &Win) -> f64 {
    w.2 / (w.1 - w.0).max(1e-12)
}

/// One program's strip: its phases' windows and bands, as SVG.
fn strip(phases: &[(&AppPoint, &PhaseInfo)]) -> String {
    let mut windows: Vec<Win> = Vec::new();
    let mut before = 0.0;
    for w in phases.iter().flat_map(|p| &p.1.windows) {
        windows.push((before, w[0], w[1], w[2]));
        before = w[0];
    }
    let sc = Scales::of(&windows, phases.last().map_or(1.0, |p| p.1.end));
    let height = 2.0 * (PANEL + GAP) + 4.0;
    let mut s = format!(
        "<svg class=\"strip\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" font-size=\"11\">"
    );
    bands(&mut s, phases, &sc);
    for w in &windows {
        let h = rate(w) / sc.top * PANEL;
        let _ = write!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#333\" pointer-events=\"none\"/>",
            sc.x(w.0),
            PANEL - h,
            (sc.x(w.1) - sc.x(w.0)).max(0.5)
        );
        if w.2 > 0.0 && w.3 > 0.0 {
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"1.8\" fill=\"#333\" pointer-events=\"none\"/>",
                (sc.x(w.0) + sc.x(w.1)) / 2.0,
                sc.y(w.2 / w.3)
            );
        }
    }
    axes(&mut s, &sc, height);
    s
}

/// A band for each phase, naming its point and hottest functions.
fn bands(s: &mut String, phases: &[(&AppPoint, &PhaseInfo)], sc: &Scales) {
    for (k, (a, p)) in phases.iter().enumerate() {
        let hottest: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
        let _ = write!(
            s,
            "<rect x=\"{:.1}\" y=\"0\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" fill-opacity=\"0.18\" data-phase=\"{}\" data-functions=\"{}\"><title>{}: {:.3} s to {:.3} s, {:.3} flop/B, {:.3} GFLOP/s{}</title></rect>",
            sc.x(p.start),
            (sc.x(p.end) - sc.x(p.start)).max(1.0),
            2.0 * PANEL + GAP,
            FILLS[k % 2],
            escape(&a.name),
            escape(&hottest.join("|")),
            escape(&a.name),
            p.start,
            p.end,
            a.ai(),
            a.gflop_per_s(),
            match hottest.is_empty() {
                true => String::new(),
                false => format!("; hottest {}", escape(&hottest.join(", "))),
            }
        );
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"11\" pointer-events=\"none\">{}</text>",
            sc.x(p.start) + 3.0,
            p.index
        );
    }
}

/// The panels' base lines, their scales' ends and the time's.
fn axes(s: &mut String, sc: &Scales, height: f64) {
    for y in [PANEL, 2.0 * PANEL + GAP] {
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#999\"/>",
            WIDTH - 10.0
        );
    }
    let (lo, hi) = sc.decades;
    let texts = [
        (12.0, tick(sc.top / 1e9)),
        (PANEL - 2.0, "GFLOP/s".into()),
        (PANEL + GAP + 10.0, tick(10f64.powf(hi))),
        (PANEL + GAP + PANEL / 2.0, "flop/B".into()),
        (2.0 * PANEL + GAP - 2.0, tick(10f64.powf(lo))),
    ];
    for (y, t) in texts {
        let _ = write!(s, "<text x=\"2\" y=\"{y:.0}\">{t}</text>");
    }
    let _ = write!(
        s,
        "<text x=\"{LEFT}\" y=\"{:.0}\">0 s</text><text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"end\">{:.3} s</text></svg>",
        height - 2.0,
        WIDTH - 10.0,
        height - 2.0,
        sc.end
    );
}

/// A value on an axis, as the charts write theirs.
fn tick(v: f64) -> String {
    crate::chart::canvas::fmt_tick(v)
}

/// A band pointed at (or clicked, until clicked again) marks the points and
/// rows its phase and functions name.
const SCRIPT: &str = r#"
document.querySelectorAll('rect[data-phase]').forEach(function (band) {
  var names = [band.dataset.phase].concat(band.dataset.functions.split('|').filter(Boolean));
  var mark = function (on) {
    on = on || band.dataset.kept === '1';
    band.setAttribute('fill-opacity', on ? '0.45' : '0.18');
    names.forEach(function (n) {
      var q = '[data-point="' + CSS.escape(n) + '"]';
      document.querySelectorAll('tr' + q).forEach(function (r) { r.classList.toggle('hl', on); });
      document.querySelectorAll('circle' + q).forEach(function (c) {
        c.setAttribute('stroke', on ? 'crimson' : 'transparent');
        c.setAttribute('stroke-width', on ? '3' : '0');
      });
    });
  };
  band.addEventListener('mouseenter', function () { mark(true); });
  band.addEventListener('mouseleave', function () { mark(false); });
  band.addEventListener('click', function () {
    band.dataset.kept = band.dataset.kept === '1' ? '' : '1';
    mark(false);
  });
});
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::{Of, Share};

    fn phase(index: usize, start: f64, end: f64, flops: f64, bytes: f64) -> AppPoint {
        let x = PhaseInfo {
            program: "app".into(),
            index,
            start,
            end,
            functions: vec![Share {
                name: format!("f<{index}>"),
                share: 0.9,
            }],
            windows: vec![
                [(start + end) / 2.0, flops / 2.0, bytes / 2.0],
                [end, flops / 2.0, bytes / 2.0],
            ],
        };
        AppPoint {
            of: Of::Phase(x),
            ..AppPoint::new(format!("app: phase {index}"), flops, bytes, end - start)
        }
    }

    #[test]
    fn a_strip_has_a_band_per_phase_naming_its_point_and_functions() {
        let apps = vec![
            AppPoint::new("app", 3e9, 1e9, 1.0),
            phase(2, 0.4, 1.0, 1e9, 1e10),
            phase(1, 0.0, 0.4, 2e9, 1e8),
        ];
        let html = strips(&apps).unwrap().into_string();
        assert_eq!(html.matches("data-phase=").count(), 2);
        assert!(
            html.contains("data-phase=\"app: phase 1\" data-functions=\"f&lt;1&gt;\""),
            "{html}"
        );
        // Four windows: the first phase's rate is the highest (5 GFLOP/s).
        assert_eq!(
            html.matches("fill=\"#333\" pointer-events=\"none\"/>")
                .count(),
            8
        );
        assert!(html.contains(">5<"), "the top of the W/s panel: {html}");
        // Intensities 20 and 0.1 flop/B: a scale of 0.1 to 100.
        assert!(html.contains(">100<") && html.contains(">0.1<"), "{html}");
        assert!(strips(&apps[..1]).is_none());
    }
}
