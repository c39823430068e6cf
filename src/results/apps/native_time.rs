//! How a program's native run used the CPUs: the run behind its T, which
//! may have shared its cores with other work or spent its time waiting.

use serde::{Deserialize, Serialize};

/// The CPU time of a program's native run beside its wall time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativeTime {
    /// The CPU time of its processes, user and system, seconds.
    pub cpu_seconds: f64,
    /// The time its threads were ready to run but waited for a CPU that
    /// other work held, seconds: at least this (what a thread waited after
    /// the last look at it is not seen).
    pub waited_seconds: f64,
    /// The share of the machine's CPU time its host took (a VM's steal)
    /// while it ran.
    #[serde(default)]
    pub steal: f64,
    /// The wall time of the emulated run its work was counted in, where
    /// one was, seconds: emulation runs code several times slower, so one
    /// about as long as the native run did less work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulated_seconds: Option<f64>,
}
