//! What sampling a native run found: samples per place in a file, in
//! time and per process, and the thresholds below which they are too few
//! to share a run's time out (the sampler is `launch::sampler`).

use std::collections::{BTreeMap, HashMap};

/// Samples a function's time rests on below which it is shown as uncertain
/// (and told so in its advice).
pub use crate::results::advice::FEW_SAMPLES;

/// Runs shorter than this get too few samples to share their time out.
pub const MIN_SECONDS: f64 = 0.01;

/// What sampling a run found.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Samples per place: (file path, file offset); path "" for code in no
    /// file (generated at run time, the vDSO).
    pub places: HashMap<(String, u64), u64>,
    /// Samples in all.
    pub total: u64,
    /// Samples the kernel could not record (a full buffer).
    pub lost: u64,
    /// Samples of hardware events taken beside the time (the PMU path):
    /// by event name, per place, each standing for `event_period` events.
    pub events: BTreeMap<String, HashMap<(String, u64), u64>>,
    /// Events between two samples of a hardware event.
    pub event_period: u64,
    /// User-mode CPU time of the command's processes, seconds: what the
    /// samples share out.
    pub cpu_seconds: f64,
    /// Each time sample in order: (seconds since the command started,
    /// place), for a timeline.
    pub timed: Vec<Stamped>,
    /// The process of each of `timed` (empty where not known): a tree's
    /// processes running side by side are placed in time each by its own.
    pub timed_pid: Vec<u32>,
    /// When each hardware event's samples were taken (the PMU path), by
    /// event name, seconds since the command started, in order.
    pub event_times: BTreeMap<String, Vec<f64>>,
    /// The sampled run's wall time, seconds (0: not known).
    pub wall_seconds: f64,
}

/// A time sample: seconds since the command started, and its place (file
/// path, file offset).
pub type Stamped = (f64, (String, u64));
