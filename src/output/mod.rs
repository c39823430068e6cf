//! What the commands print and write: documents as YAML or JSON, and the
//! tables people read, one module per table (the comparison one format per
//! file).

pub mod compare;
pub mod fleet;
pub mod gpu;
pub mod profile;
pub mod summary;
pub mod topology;
pub mod validation;

use crate::error::Result;
use crate::measure::guard::{SHARED_BELOW, Sharing};
use crate::results::DocFormat;
use clap::ValueEnum;
use serde::Serialize;

/// How a subcommand prints its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text with units.
    Text,
    /// YAML document.
    Yaml,
    /// JSON document.
    Json,
}

/// Serialize a document as YAML or JSON text (text: YAML).
pub fn to_string<T: Serialize>(doc: &T, format: Format) -> Result<String> {
    match format {
        Format::Json => DocFormat::Json.encode(doc),
        Format::Yaml | Format::Text => DocFormat::Yaml.encode(doc),
    }
}

/// Text from a file or a folder name (a node, a results file, a CPU string)
/// as Markdown shows it literally: HTML and table syntax escaped, on one line.
pub fn markdown_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// GHz with two decimals.
pub fn ghz(x: f64) -> String {
    format!("{x:.2} GHz")
}

/// What the core guard found, when it found shared cores: `what` is what
/// each probe followed, `kept` how many of those were kept while shared.
pub fn sharing_note(s: &Sharing, what: &str, kept: usize) -> Option<String> {
    (s.shared > 0).then(|| {
        format!(
            "threads sharing a core: at {} of {} probes ({} on every thread, after each {what}) the threads ran under {:.0}% of their 1-thread rate, one physical core's worth or a tenant's share; the {what} before each such probe was measured again once they had their cores back (waited {:.2} s in all), {kept} kept without",
            s.shared,
            s.probes,
            if s.load_probes > 0 {
                "FMA, and L1 loads at the core's own levels,"
            } else {
                "FMA"
            },
            SHARED_BELOW * 100.0,
            s.waited,
        )
    })
}
