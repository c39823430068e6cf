//! Fleet mode: every node of a cluster measured through Slurm
//! ([`slurm`]), each node's results in `DIR/nodes/<node>/carm.yaml`
//! ([`gather`](mod@gather)), and the nodes judged against their peers
//! ([`analysis`]); what `fleet run` and `fleet report` do ([`run`]).

pub mod analysis;
pub mod gather;
pub mod run;
pub mod slurm;

pub use analysis::{Fleet, analyse};
pub use gather::{NodeResult, gather};

/// What a node's task writes beside its results when its run failed: the
/// error, for `fleet run` to list.
pub const ERROR_FILE: &str = "error.txt";
