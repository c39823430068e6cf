//! Tooltips of an SVG chart: each roof and point drawn gets a transparent
//! shape over it holding an SVG `<title>`, which browsers show on hover. The
//! shapes go last, over everything plotters drew, so they catch the pointer.

use std::fmt::Write as _;

/// Pixels either side of a line or around a point that still show its tip.
const REACH: i32 = 6;

/// Where a tip is, in the chart's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Spot {
    /// A line from one point to another (a roof).
    Line((i32, i32), (i32, i32)),
    /// A point and its radius (a marker).
    Dot((i32, i32), i32),
}

/// One tooltip.
#[derive(Debug, Clone, PartialEq)]
pub struct Tip {
    /// Where.
    pub spot: Spot,
    /// What it says.
    pub text: String,
    /// The application point it is over, by name (a report's table finds
    /// it by this).
    pub point: Option<String>,
}

impl Tip {
    /// A tip over a line.
    pub fn line(a: (i32, i32), b: (i32, i32), text: String) -> Tip {
        Tip {
            spot: Spot::Line(a, b),
            text,
            point: None,
        }
    }

    /// A tip over a marker.
    pub fn dot(p: (i32, i32), r: i32, text: String) -> Tip {
        Tip {
            spot: Spot::Dot(p, r),
            text,
            point: None,
        }
    }

    /// The same, over the application point `name`.
    pub fn naming(self, name: &str) -> Tip {
        Tip {
            point: Some(name.to_string()),
            ..self
        }
    }
}

/// Text for XML character data and attributes.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// `svg` (a whole SVG document as plotters writes it) with `tips` added
/// before its end.
pub fn add(svg: &str, tips: &[Tip]) -> String {
    let Some(end) = svg.rfind("</svg>") else {
        return svg.to_string();
    };
    let mut g = String::from("<g class=\"tips\" fill=\"none\" stroke=\"transparent\">\n");
    for t in tips {
        let title = escape(&t.text);
        let _ = match t.spot {
            Spot::Line((x0, y0), (x1, y1)) => writeln!(
                g,
                "<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y1}\" stroke-width=\"{}\" pointer-events=\"stroke\"><title>{title}</title></line>",
                2 * REACH
            ),
            Spot::Dot((x, y), r) => writeln!(
                g,
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"transparent\" pointer-events=\"all\"{}><title>{title}</title></circle>",
                r + REACH / 2,
                t.point
                    .as_ref()
                    .map_or(String::new(), |n| format!(" data-point=\"{}\"", escape(n)))
            ),
        };
    }
    g.push_str("</g>\n");
    format!("{}{g}{}", &svg[..end], &svg[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tips_go_last_escaped_and_each_holds_a_title() {
        let svg = "<svg width=\"10\" height=\"10\"><rect/></svg>\n";
        let out = add(
            svg,
            &[
                Tip::line((0, 1), (5, 6), "L1 load: 200 GB/s".into()),
                Tip::dot((3, 4), 5, "a < b & \"c\"".into()),
            ],
        );
        assert!(out.starts_with("<svg width=\"10\" height=\"10\"><rect/><g class=\"tips\""));
        assert!(out.trim_end().ends_with("</g>\n</svg>"));
        assert!(out.contains("<line x1=\"0\" y1=\"1\" x2=\"5\" y2=\"6\""));
        assert!(out.contains("<title>L1 load: 200 GB/s</title>"));
        assert!(out.contains("<title>a &lt; b &amp; &quot;c&quot;</title>"));
        assert_eq!(out.matches("<title>").count(), 2);
        // Not an SVG document: left as it was.
        assert_eq!(add("nothing", &[]), "nothing");
    }
}
