//! One entry of a document being checked, and the rules a field can break:
//! each failure one line naming the file, the entry, the field, the rule and
//! the fix.

use crate::error::{Error, Result};
use crate::units::num;
use std::fmt::Display;

/// Values derived from others (per cycle from the value and the clock, a
/// percentage from per cycle and the limit) agree within this, relatively:
/// what survives a round trip through text.
const ROUNDING: f64 = 1e-6;

/// The widest arithmetic intensity (flop/B) and rate (GFLOP/s) a point may
/// have: ten decades beyond any machine, so only counts that cannot be right
/// (bytes 1e-300) are refused, before a chart's log axis meets them.
pub const POINT_RANGE: (f64, f64) = (1e-10, 1e10);

/// One entry of a document being checked.
pub struct Entry<'a> {
    doc: &'a str,
    entry: String,
    fix: &'a str,
}

impl<'a> Entry<'a> {
    /// Entry `entry` of document `doc`; `fix` says how to mend a failure.
    pub fn new(doc: &'a str, entry: impl Into<String>, fix: &'a str) -> Self {
        Entry {
            doc,
            entry: entry.into(),
            fix,
        }
    }

    /// The one-line error for `field`, of value `value`, breaking `rule`.
    pub fn fail(&self, field: &str, value: impl Display, rule: &str) -> Error {
        Error::input(format!(
            "{}: {}: {field} is {value}, {rule}; {}",
            self.doc, self.entry, self.fix
        ))
    }

    /// A number above zero.
    pub fn positive(&self, field: &str, v: f64) -> Result<()> {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(self.fail(field, num(v), "it must be a positive number"))
        }
    }

    /// A number of zero or more.
    pub fn non_negative(&self, field: &str, v: f64) -> Result<()> {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(self.fail(field, num(v), "it must be a number of zero or more"))
        }
    }

    /// A finite number.
    pub fn finite(&self, field: &str, v: f64) -> Result<()> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(self.fail(field, num(v), "it must be a finite number"))
        }
    }

    /// A count of at least `min`.
    pub fn at_least(&self, field: &str, v: u64, min: u64) -> Result<()> {
        if v >= min {
            Ok(())
        } else {
            Err(self.fail(field, v, &format!("it must be at least {min}")))
        }
    }

    /// `low` not above `high` (within rounding).
    pub fn ordered(&self, low: (&str, f64), high: (&str, f64)) -> Result<()> {
        if low.1 <= high.1 * (1.0 + ROUNDING) {
            Ok(())
        } else {
            Err(self.fail(
                low.0,
                num(low.1),
                &format!("above {} ({})", high.0, num(high.1)),
            ))
        }
    }

    /// `v` equal to what it derives from, `want`, within rounding.
    pub fn agrees(&self, field: &str, v: f64, want: f64, from: &str) -> Result<()> {
        if (v - want).abs() <= ROUNDING * want.abs().max(v.abs()) {
            Ok(())
        } else {
            Err(self.fail(field, num(v), &format!("but {from} gives {}", num(want))))
        }
    }

    /// A derived value (`what`, from `from`) inside [`POINT_RANGE`].
    pub fn plottable(&self, what: &str, v: f64, from: &str) -> Result<()> {
        let (lo, hi) = POINT_RANGE;
        if v.is_finite() && (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(self.fail(
                what,
                num(v),
                &format!(
                    "from {from}; it must lie between {} and {}, so the counts cannot be right",
                    num(lo),
                    num(hi)
                ),
            ))
        }
    }

    /// Present.
    pub fn present<T>(&self, field: &str, v: Option<T>) -> Result<T> {
        v.ok_or_else(|| self.fail(field, "missing", "it must be given"))
    }
}
