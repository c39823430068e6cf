//! The comparison as JSON: the files, the matched roofs and the ridges.

use super::Comparison;
use crate::compare::{RidgeTable, Row};
use serde::Serialize;

#[derive(Serialize)]
struct Out<'a> {
    files: &'a [String],
    machines: &'a [String],
    roofs: &'a [Row],
    ridges: &'a [RidgeTable],
}

pub(super) fn render(c: &Comparison) -> String {
    serde_json::to_string_pretty(&Out {
        files: c.names,
        machines: c.about,
        roofs: c.rows,
        ridges: c.ridges,
    })
    .unwrap_or_default()
        + "\n"
}
