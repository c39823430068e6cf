//! How many cores' worth of time a machine gives its threads, where fewer
//! than its threads: found by `roofs::effective`, kept with the machine.

use serde::{Deserialize, Serialize};

/// How many cores' worth of time a machine gives its threads.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EffectiveCores {
    /// The threads of its all-thread roofs.
    pub threads: usize,
    /// The cores' worth they get.
    pub cores: f64,
    /// How it was found.
    #[serde(flatten)]
    pub found_by: CoresFoundBy,
}

/// How the cores' worth was found.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "found_by", rename_all = "snake_case")]
pub enum CoresFoundBy {
    /// The CPU quota of the run's cgroup.
    Quota,
    /// One kernel's rate as threads were added (1, 2, 4, ... all): the
    /// most it reached over its 1-thread rate.
    Scaling {
        /// The kernel.
        kernel: String,
        /// (threads, rate in G/s) at each count.
        rates: Vec<(usize, f64)>,
    },
}

impl EffectiveCores {
    /// "16 threads get 8.0 cores' worth (a scaling of avx512_dp_fma: ...)".
    pub fn sentence(&self) -> String {
        let how = match &self.found_by {
            CoresFoundBy::Quota => {
                return format!(
                    "this cgroup's CPU quota gives {:.2} cores' worth of time to {} threads: a sample shorter than the quota's period runs at a whole core per thread, so the limits are the hardware's; a program using all {} threads for longer gets {:.2} cores' worth",
                    self.cores, self.threads, self.threads, self.cores
                );
            }
            CoresFoundBy::Scaling { kernel, rates } => {
                let steps: Vec<String> = (rates.iter())
                    .map(|(t, r)| format!("{t}: {r:.1}"))
                    .collect();
                format!(
                    "{kernel} measured at 1, 2, 4, ... threads, G/s: {}",
                    steps.join(", ")
                )
            }
        };
        format!(
            "{} threads get {:.1} cores' worth ({how}): limits count at most {:.1} cores, the roofs are as measured",
            self.threads, self.cores, self.cores
        )
    }
}
