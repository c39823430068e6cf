//! The discs of functions and loops on a chart: their labels (short, never
//! two alike: [`super::names`]) and the largest of them, numbered in the
//! legend with their name and share, so that a disc whose name finds no
//! room beside it can still be told.

use super::select::Selection;

/// Functions under this share of their program's time are left off the
/// chart (listed by `profile` and in the report): a start-up routine's
/// point, far below every roof, would stretch the axes for nothing.
pub const MIN_SHARE: f64 = 0.01;

/// Whether an application point is drawn.
pub fn drawn(a: &crate::results::apps::AppPoint) -> bool {
    a.function().is_none_or(|f| f.share >= MIN_SHARE)
}

/// A function's disc: its area grows with its share of the time.
pub fn function_radius(share: f64) -> i32 {
    (4.0 + 16.0 * share.clamp(0.0, 1.0).sqrt()).round() as i32
}

/// Discs numbered in the legend, at most.
pub const NUMBERED: usize = 8;

/// A label for each application of `sel`, by index: a function's or loop's
/// shortened among the others, a program's its name.
pub fn labels(sel: &Selection) -> Vec<String> {
    let discs: Vec<usize> = (0..sel.apps.len())
        .filter(|&k| sel.apps[k].function().is_some())
        .collect();
    let names: Vec<&str> = discs.iter().map(|&k| sel.apps[k].name.as_str()).collect();
    let short = super::names::labels(&names);
    let mut out: Vec<String> = sel.apps.iter().map(|a| a.name.clone()).collect();
    for (k, l) in discs.into_iter().zip(short) {
        out[k] = l;
    }
    out
}

/// The largest discs drawn, largest first: (index among the apps, label,
/// share of the time).
pub fn numbered(sel: &Selection) -> Vec<(usize, String, f64)> {
    let labels = labels(sel);
    let mut discs: Vec<(usize, String, f64)> = (sel.apps.iter().enumerate())
        .filter(|(_, a)| drawn(a))
        .filter_map(|(k, a)| Some((k, labels[k].clone(), a.function()?.share)))
        .collect();
    discs.sort_by(|a, b| b.2.total_cmp(&a.2));
    discs.truncate(NUMBERED);
    discs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discs_grow_with_time() {
        assert!(function_radius(0.0) < function_radius(0.25));
        assert!(function_radius(0.25) < function_radius(1.0));
        assert_eq!(function_radius(4.0), function_radius(1.0));
        // Ticks far below one stay readable.
        assert_eq!(super::super::canvas::fmt_tick(1e-7), "1e-7");
        assert_eq!(super::super::canvas::fmt_tick(0.001), "0.001");
    }
}
