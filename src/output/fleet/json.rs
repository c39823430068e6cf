//! The fleet report as JSON: {"threshold", "groups", "outliers", "unreadable"}.

use crate::fleet::Fleet;

pub(super) fn render(f: &Fleet) -> String {
    let mut s = serde_json::to_string_pretty(f).expect("the fleet report serializes");
    s.push('\n');
    s
}
