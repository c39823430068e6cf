//! The quadrant split's application intensities (Konstantinidis): the lines
//! y = AI·x given by hand, and those of an apps file's programs and GPU
//! kernels.

use crate::error::{Error, Result};

/// An application intensity of the quadrant chart: the half-line y = AI·x.
#[derive(Debug, Clone, PartialEq)]
pub struct AiLine {
    /// Flops (or ops) per byte.
    pub ai: f64,
    /// The point whose intensity it is, if any.
    pub name: Option<String>,
}

impl AiLine {
    /// `AI 2` (`AI = 2` with `sep` " = "), or `NAME (AI 4.213)`.
    pub fn label(&self, sep: &str) -> String {
        match &self.name {
            Some(n) => format!("{n} (AI {:.3})", self.ai),
            None => format!("AI{sep}{}", self.ai),
        }
    }
}

/// The application intensities the quadrant chart judges each machine
/// level at: those given (all positive) and those of the points of the
/// apps file `apps` (its programs and GPU kernels: Konstantinidis's half-line per
/// kernel), else 0.25, 2 and 8 flop/byte.
pub fn quadrant_ais(given: Option<&[f64]>, apps: Option<&std::path::Path>) -> Result<Vec<AiLine>> {
    let given = match (given, apps) {
        (None, None) => vec![0.25, 2.0, 8.0],
        (g, _) => g.unwrap_or_default().to_vec(),
    };
    if given.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return Err(Error::input(
            "--ai takes positive intensities, e.g. --ai 0.25,2,8",
        ));
    }
    let mut lines: Vec<AiLine> = (given.iter())
        .map(|&ai| AiLine { ai, name: None })
        .collect();
    // Programs, regions and GPU kernels: each a workload of its own.
    let file = apps.map(crate::results::apps::load).transpose()?;
    let drawn = (file.iter().flat_map(|f| &f.applications))
        .filter(|p| p.placeable() && p.function().is_none() && p.rank().is_none());
    lines.extend(drawn.map(|p| AiLine {
        ai: p.ai(),
        name: Some(p.name.clone()),
    }));
    Ok(lines)
}
