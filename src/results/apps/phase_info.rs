//! What an apps file says of a phase's point (`profile --timeline`): where
//! it lies in the native run, the code that ran in it, and its windows.

use serde::{Deserialize, Serialize};

/// One phase of a program's run: consecutive windows alike in intensity
/// and rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseInfo {
    /// The name of the program's own point.
    pub program: String,
    /// Its place among the program's phases, from 1.
    pub index: usize,
    /// Its start in the native run, seconds from the command's start.
    pub start: f64,
    /// Its end, likewise.
    pub end: f64,
    /// Its hottest functions, with their shares of its native time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<Share>,
    /// Its windows of the program's timeline, each `[end, W, Q]` (seconds,
    /// W in the program's unit, bytes): together, the phases' windows are
    /// the whole run's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<[f64; 3]>,
}

/// A function's share of a phase's time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Share {
    /// The function, as its point would be named.
    pub name: String,
    /// Its share of the phase's native samples (of its instructions, where
    /// the run was not sampled).
    pub share: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::{APPS_SCHEMA, AppPoint, AppsFile, Of, check};

    #[test]
    fn a_phase_out_of_order_is_named_and_one_without_work_is_kept() {
        let phase = |start: f64, end: f64, windows: Vec<[f64; 3]>| AppsFile {
            schema: APPS_SCHEMA,
            applications: vec![AppPoint {
                of: Of::Phase(PhaseInfo {
                    program: "app".into(),
                    index: 1,
                    start,
                    end,
                    functions: vec![],
                    windows,
                }),
                ..AppPoint::new("app: phase 1", 0.0, 1e6, 1.0)
            }],
        };
        // A wait: no flops, listed.
        assert!(
            check(
                &phase(0.0, 1.0, vec![[0.5, 0.0, 5e5], [1.0, 0.0, 5e5]]),
                "a"
            )
            .is_ok()
        );
        let e = check(&phase(2.0, 1.0, vec![]), "a")
            .unwrap_err()
            .to_string();
        assert!(e.contains("phase.start is 2"), "{e}");
        let e = (check(
            &phase(0.0, 1.0, vec![[0.6, 0.0, 1.0], [0.5, 0.0, 1.0]]),
            "a",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("a window's start is 0.6"), "{e}");
    }
}
