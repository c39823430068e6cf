//! What an apps file says of an MPI program (`profile --mpi`): on the
//! program's point, its launch and ranks; on each rank's point, which rank
//! it is; on a function's or region's point, how its time spread over the
//! ranks (load imbalance).

use serde::{Deserialize, Serialize};

/// The launch of an MPI program, on its point: W and Q summed over its
/// ranks, T its slowest rank's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpiInfo {
    /// The launcher ("Open MPI's mpirun", "Slurm's srun", ...).
    pub launcher: String,
    /// The ranks counted.
    pub ranks: usize,
    /// The slowest rank, whose time is the point's.
    pub slowest: u32,
    /// The nodes its ranks ran on: a job over several is placed under as
    /// many times one node's roofs.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub nodes: usize,
    /// The ranks that failed (crashed, or ended without their record):
    /// left out of the sums.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<FailedRank>,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// A rank left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailedRank {
    /// Its rank.
    pub rank: u32,
    /// What happened ("was stopped by signal 11 (SIGSEGV)").
    pub why: String,
}

/// The point of one rank of an MPI program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankInfo {
    /// The name of the program's own point.
    pub program: String,
    /// Its rank in `MPI_COMM_WORLD`.
    pub rank: u32,
    /// The node it ran on.
    pub host: String,
    /// Its work in the MPI runtime's code (its libraries), in the point's
    /// units: what the rank did waiting for the others is there, and a
    /// wait under emulation lasts as long as the emulated ranks take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeWork>,
}

/// W and Q of a rank in the MPI runtime's code.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeWork {
    /// W, in the point's units.
    pub flops: f64,
    /// Q, bytes.
    pub bytes: f64,
}

/// How one function's or region's time (and a region's work) spread over
/// the ranks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spread {
    /// Its seconds in each rank.
    pub seconds: Range,
    /// Its W in each rank, in the point's units (a region's): whether the
    /// slow rank had more work or did it slower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<Range>,
}

/// The least, median and most of one value over the ranks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// The least in one rank.
    pub min: f64,
    /// The median over the ranks.
    pub median: f64,
    /// The most in one rank.
    pub max: f64,
    /// The rank of the least.
    pub min_rank: u32,
    /// The rank of the most.
    pub max_rank: u32,
}

impl Range {
    /// The range of `(rank, value)` over every rank; none for no rank.
    pub fn of(per_rank: &[(u32, f64)]) -> Option<Range> {
        let mut v = per_rank.to_vec();
        v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        let (first, last) = (v.first()?, v.last()?);
        let values: Vec<f64> = v.iter().map(|x| x.1).collect();
        Some(Range {
            min: first.1,
            median: crate::measure::stats::quantile_sorted(&values, 0.5),
            max: last.1,
            min_rank: first.0,
            max_rank: last.0,
        })
    }

    /// The most over the median: 1 when the ranks are even.
    pub fn imbalance(&self) -> f64 {
        match self.median > 0.0 {
            true => self.max / self.median,
            false => 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_names_its_least_and_most_ranks_and_the_median() {
        let s = Range::of(&[(0, 2.0), (1, 1.0), (2, 4.0), (3, 3.0)]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 2.5, 4.0));
        assert_eq!((s.min_rank, s.max_rank), (1, 2));
        assert_eq!(s.imbalance(), 1.6);
        assert_eq!(Range::of(&[(5, 1.0)]).unwrap().median, 1.0);
        assert!(Range::of(&[]).is_none());
    }
}
