//! One point from one piece of work: what every point of a run shares
//! ([`Own`]: how its work becomes W and Q, its arithmetic, where its counts
//! come from), and the options that say which points are shown
//! ([`Shown`]). Every view makes its points through [`Own::point`].

use crate::kernels::Precision;
use crate::profile::measured::work::{Basis, Work, dominant};
use crate::results::apps::{AppPoint, CountedBy, Of};

/// What the user asked to be shown, and how the points are named.
#[derive(Debug, Clone, Default)]
pub struct Shown {
    /// The program's point's name; the others' start with it.
    pub name: String,
    /// Points for this many of the hottest functions, and the rest.
    pub functions: Option<usize>,
    /// Points for this many of the hottest loops, and the rest of their
    /// functions.
    pub loops: Option<usize>,
    /// The arithmetic the counts are, when given.
    pub precision: Option<Precision>,
    /// Threads the command runs, when given.
    pub threads: Option<usize>,
    /// The run in windows of time, and a point per phase (`--timeline`).
    pub timeline: Option<crate::profile::measured::Every>,
}

/// What every point of one run shares.
pub struct Own<'a> {
    /// How work becomes W and Q.
    pub basis: Basis<'a>,
    /// The arithmetic asked for (`--precision`), else each point's own.
    pub asked: Option<Precision>,
    /// The arithmetic decided for this point beforehand (None: FP), in
    /// place of its own counts' (the whole command's, by `typing`).
    pub decided: Option<Option<Precision>>,
    /// The threads every point runs, unless it says its own.
    pub threads: Option<usize>,
    /// Where the counts come from.
    pub source: &'a str,
    /// How the work was counted.
    pub counted_by: CountedBy,
    /// The twin build counted in the program's place.
    pub counted_with: Option<&'a str>,
}

impl Own<'_> {
    /// The point of `work` in `seconds`; `what` it is, beside where its
    /// counts come from.
    pub fn point(
        &self,
        of: Of,
        name: String,
        work: &Work,
        seconds: f64,
        what: Option<String>,
    ) -> AppPoint {
        let precision = match (self.decided, work.counts()) {
            (Some(p), _) => p,
            (None, Some(c)) => self.asked.or_else(|| dominant(c)),
            (None, None) => self.basis.precision,
        };
        let basis = Basis {
            precision,
            ..self.basis
        };
        let d = basis.derive(work);
        let mut source = self.source.to_string();
        if let Some(w) = what {
            source = format!("{source}; {w}");
        }
        if let Some(n) = &d.note {
            source = format!("{source}: {n}");
        }
        AppPoint {
            of,
            sides: d.sides,
            threads: self.threads,
            fma_flops: d.fma_flops,
            source: Some(source),
            mix: d.mix,
            counted_by: Some(self.counted_by),
            counted_with: self.counted_with.map(String::from),
            traffic: d.traffic,
            precision,
            ..AppPoint::new(name, d.flops, d.bytes, seconds)
        }
    }
}
