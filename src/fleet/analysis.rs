//! A fleet's nodes against each other: groups of peers (the same CPU by
//! CPUID, widest ISA and core count), each
//! roof's median, range and spread over a group, and the nodes whose roofs
//! fall below their peers'.
//!
//! A node is an outlier on a roof when its value is more than `threshold`
//! below the group's median and further below it than the group's own
//! scatter explains: more than [`MAD_FACTOR`] times the median absolute
//! deviation scaled to a standard deviation (1.4826 × MAD). The median and
//! the MAD are robust: the slow nodes themselves barely move them.

use super::gather::NodeResult;
use crate::compare::{self, RoofKey};
use crate::measure::stats::median;
use crate::results::Document;
use serde::Serialize;

/// Groups smaller than this get no outlier verdict: with two nodes, which
/// one is slow cannot be told.
pub const MIN_GROUP: usize = 3;

/// How many robust standard deviations below the median an outlier sits.
pub const MAD_FACTOR: f64 = 3.0;

/// The median absolute deviation's scale to a normal standard deviation.
const MAD_TO_SIGMA: f64 = 1.4826;

/// One roof over a group's nodes.
#[derive(Debug, Clone, Serialize)]
pub struct RoofStats {
    /// Which roof.
    pub key: RoofKey,
    /// "1 thr avx512 L1 load".
    pub roof: String,
    /// GB/s or GFLOP/s.
    pub unit: &'static str,
    /// Nodes that have it.
    pub nodes: usize,
    /// Median over them.
    pub median: f64,
    /// Lowest.
    pub min: f64,
    /// Highest.
    pub max: f64,
    /// max / min − 1.
    pub spread: f64,
    /// Median absolute deviation.
    pub mad: f64,
    /// Each node's value, in the group's node order (None: it lacks the roof).
    pub values: Vec<Option<f64>>,
}

/// A group of peer nodes.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// The CPU, its ISA and cores: "AMD EPYC (zen5; AuthenticAMD family 0x1a
    /// model 0x11), avx512, 2 cores".
    pub cpu: String,
    /// Its nodes, by name.
    pub nodes: Vec<String>,
    /// Whether it has nodes enough for outlier verdicts ([`MIN_GROUP`]).
    pub judged: bool,
    /// Each roof over its nodes.
    pub roofs: Vec<RoofStats>,
    /// The node whose roofs sit lowest against the medians (the median of
    /// its value / median ratios).
    pub slowest: Option<String>,
    /// The node closest to the medians.
    pub median_node: Option<String>,
}

/// A roof that makes a node an outlier.
#[derive(Debug, Clone, Serialize)]
pub struct OutlierRoof {
    /// "1 thr avx512 DRAM load".
    pub roof: String,
    /// The node's value.
    pub value: f64,
    /// The group's median.
    pub median: f64,
    /// How far below the median, a fraction.
    pub below: f64,
}

/// A node below its peers.
#[derive(Debug, Clone, Serialize)]
pub struct Outlier {
    /// Its name.
    pub node: String,
    /// Its group's CPU model.
    pub cpu: String,
    /// The roofs that make it one.
    pub roofs: Vec<OutlierRoof>,
}

/// A node whose results lack roofs its group has, or whose run was
/// interrupted.
#[derive(Debug, Clone, Serialize)]
pub struct Incomplete {
    /// Its name.
    pub node: String,
    /// Whether its run was stopped before its plan was done.
    pub interrupted: bool,
    /// How many roofs it has.
    pub roofs: usize,
    /// The roofs of its group it lacks.
    pub missing: Vec<String>,
}

/// A node without readable results.
#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    /// Its name.
    pub node: String,
    /// Why, in one line.
    pub error: String,
}

/// The whole analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Fleet {
    /// The threshold outliers are judged at (a fraction).
    pub threshold: f64,
    /// What the nodes are grouped by.
    pub grouped_by: &'static str,
    /// Groups of peer nodes ([`GROUPED_BY`]).
    pub groups: Vec<Group>,
    /// Nodes below their peers.
    pub outliers: Vec<Outlier>,
    /// Nodes with roofs missing or an interrupted run.
    pub incomplete: Vec<Incomplete>,
    /// Nodes without readable results.
    pub unreadable: Vec<Unreadable>,
}

/// "1 thr avx512 L1 load".
fn roof_name(k: &RoofKey) -> String {
    format!(
        "{} thr {} {}",
        k.threads,
        k.isa.map_or("best".to_string(), |i| i.to_string()),
        k.label()
    )
}

/// The median absolute deviation of `v` around `m`.
fn mad(v: &[f64], m: f64) -> f64 {
    median(&v.iter().map(|x| (x - m).abs()).collect::<Vec<_>>())
}

/// Whether `v` is an outlier below `median` with the group's `mad`.
pub fn is_low(v: f64, median: f64, mad: f64, threshold: f64) -> bool {
    v < median * (1.0 - threshold) && median - v > MAD_FACTOR * MAD_TO_SIGMA * mad
}

/// The statistics of each roof the group's nodes share.
fn roof_stats(docs: &[&Document]) -> Vec<RoofStats> {
    compare::match_roofs(docs, false)
        .into_iter()
        .filter_map(|row| {
            let values: Vec<Option<f64>> = row.cells.iter().map(|c| c.map(|c| c.value)).collect();
            let present: Vec<f64> = values.iter().flatten().copied().collect();
            let m = median(&present);
            let (min, max) = present
                .iter()
                .fold((f64::INFINITY, 0.0_f64), |(lo, hi), &x| {
                    (lo.min(x), hi.max(x))
                });
            (!present.is_empty()).then(|| RoofStats {
                roof: roof_name(&row.key),
                unit: row.key.unit(),
                nodes: present.len(),
                median: m,
                min,
                max,
                spread: if min > 0.0 { max / min - 1.0 } else { 0.0 },
                mad: mad(&present, m),
                values,
                key: row.key,
            })
        })
        .collect()
}

/// The nodes (by index among the group's members) below their group on
/// some roof, each with those roofs.
fn outliers(
    roofs: &[RoofStats],
    members: &[(&str, &Document)],
    cpu: &str,
    threshold: f64,
) -> Vec<Outlier> {
    let mut out = Vec::new();
    for (i, (node, _)) in members.iter().enumerate() {
        let low: Vec<OutlierRoof> = roofs
            .iter()
            .filter_map(|r| {
                let v = r.values[i]?;
                is_low(v, r.median, r.mad, threshold).then(|| OutlierRoof {
                    roof: r.roof.clone(),
                    value: v,
                    median: r.median,
                    below: 1.0 - v / r.median,
                })
            })
            .collect();
        if !low.is_empty() {
            out.push(Outlier {
                node: node.to_string(),
                cpu: cpu.to_string(),
                roofs: low,
            });
        }
    }
    out
}

/// Each node's standing: the median of its value / median ratios.
fn standing(roofs: &[RoofStats], nodes: usize) -> Vec<f64> {
    (0..nodes)
        .map(|i| {
            let ratios: Vec<f64> = roofs
                .iter()
                .filter(|r| r.median > 0.0)
                .filter_map(|r| Some(r.values[i]? / r.median))
                .collect();
            if ratios.is_empty() {
                1.0
            } else {
                median(&ratios)
            }
        })
        .collect()
}

/// One group's statistics and outliers.
fn group(cpu: String, members: &[(&str, &Document)], threshold: f64) -> (Group, Vec<Outlier>) {
    let docs: Vec<&Document> = members.iter().map(|m| m.1).collect();
    let judged = members.len() >= MIN_GROUP;
    let roofs = roof_stats(&docs);
    let outliers = match judged {
        true => outliers(&roofs, members, &cpu, threshold),
        false => Vec::new(),
    };
    let standing = standing(&roofs, members.len());
    let name = |i: usize| members[i].0.to_string();
    let slowest = (0..members.len())
        .min_by(|&a, &b| standing[a].total_cmp(&standing[b]))
        .map(name);
    let mid = median(&standing);
    let median_node = (0..members.len())
        .min_by(|&a, &b| {
            (standing[a] - mid)
                .abs()
                .total_cmp(&(standing[b] - mid).abs())
        })
        .map(name);
    let g = Group {
        cpu,
        nodes: members.iter().map(|m| m.0.to_string()).collect(),
        judged,
        roofs,
        slowest: slowest.filter(|_| members.len() > 1),
        median_node: median_node.filter(|_| members.len() > 1),
    };
    (g, outliers)
}

/// What nodes are grouped by, as the report says it.
pub const GROUPED_BY: &str = "CPU (vendor, family, model), widest ISA measured and core count";

/// The peers a node is judged against: the same CPU by CPUID (a VM's
/// generic name, "AMD EPYC", covers several generations), the same widest
/// ISA and as many cores.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct GroupKey {
    vendor: String,
    family: u32,
    model: u32,
    isa: Option<crate::machine::isa::Isa>,
    cores: usize,
}

impl GroupKey {
    fn of(d: &Document) -> GroupKey {
        let id = &d.machine.cpuid;
        GroupKey {
            vendor: id.vendor.clone(),
            family: id.family,
            model: id.model,
            isa: crate::results::view::widest_isa(&d.roofs),
            cores: d.machine.topology.cores,
        }
    }

    /// "AMD EPYC (zen5; AuthenticAMD family 0x1a model 0x11), avx512, 2
    /// cores", named after `d`, one of the group.
    fn label(&self, d: &Document) -> String {
        format!(
            "{} ({}{} family {:#x} model {:#x}), {}, {} cores",
            d.cpu_name(),
            d.machine
                .microarchitecture
                .as_deref()
                .map(|u| format!("{u}; "))
                .unwrap_or_default(),
            self.vendor,
            self.family,
            self.model,
            self.isa.map_or("no ISA".to_string(), |i| i.to_string()),
            self.cores
        )
    }
}

/// The analysis of `nodes` at `threshold`.
pub fn analyse(nodes: &[NodeResult], threshold: f64) -> Fleet {
    let mut peers: std::collections::BTreeMap<GroupKey, Vec<(&str, &Document)>> =
        std::collections::BTreeMap::new();
    for n in nodes {
        if let Ok(d) = &n.doc {
            peers
                .entry(GroupKey::of(d))
                .or_default()
                .push((n.node.as_str(), d));
        }
    }
    let (mut groups, mut outliers, mut incomplete) = (Vec::new(), Vec::new(), Vec::new());
    for (key, members) in peers {
        let (g, o) = group(key.label(members[0].1), &members, threshold);
        incomplete.extend(missing_roofs(&g, &members));
        groups.push(g);
        outliers.extend(o);
    }
    let unreadable = nodes
        .iter()
        .filter_map(|n| {
            Some(Unreadable {
                node: n.node.clone(),
                error: n.doc.as_ref().err()?.clone(),
            })
        })
        .collect();
    Fleet {
        threshold,
        grouped_by: GROUPED_BY,
        groups,
        outliers,
        incomplete,
        unreadable,
    }
}

/// The nodes of a group that lack roofs its other nodes have, or whose run
/// was interrupted: not healthy, whatever their roofs measured.
fn missing_roofs(g: &Group, members: &[(&str, &Document)]) -> Vec<Incomplete> {
    members
        .iter()
        .enumerate()
        .filter_map(|(i, (node, d))| {
            let missing: Vec<String> = g
                .roofs
                .iter()
                .filter(|r| r.values[i].is_none())
                .map(|r| r.roof.clone())
                .collect();
            (d.interrupted || !missing.is_empty()).then(|| Incomplete {
                node: node.to_string(),
                interrupted: d.interrupted,
                roofs: d.roofs.len(),
                missing,
            })
        })
        .collect()
}

impl Fleet {
    /// The documents of a group's slowest and median nodes, for `compare`.
    pub fn slowest_pair<'a>(
        &self,
        g: &Group,
        nodes: &'a [NodeResult],
    ) -> Option<[(String, &'a Document); 2]> {
        let doc = |name: &str| {
            nodes
                .iter()
                .find(|n| n.node == name)
                .and_then(|n| n.doc.as_ref().ok())
        };
        let (slow, mid) = (g.slowest.as_deref()?, g.median_node.as_deref()?);
        if slow == mid {
            return None;
        }
        Some([(mid.to_string(), doc(mid)?), (slow.to_string(), doc(slow)?)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_are_far_below_the_median_and_the_scatter() {
        // Seven nodes within 1 %, one 30 % low.
        let v = [100.0, 99.5, 100.4, 99.8, 100.9, 100.2, 99.1, 70.0];
        let m = median(&v);
        let d = mad(&v, m);
        assert!(is_low(70.0, m, d, 0.1));
        assert!(v[..7].iter().all(|&x| !is_low(x, m, d, 0.1)));
        // 8 % below: not past a 10 % threshold, however steady the others.
        assert!(!is_low(92.0, m, d, 0.1));
        // A group that scatters by 15 %: 12 % below is within its noise.
        let wide = [100.0, 85.0, 115.0, 90.0, 110.0, 88.0];
        let (m, d) = (median(&wide), mad(&wide, median(&wide)));
        assert!(!is_low(0.88 * m, m, d, 0.1));
        // All equal (MAD 0): any fall past the threshold.
        assert!(is_low(80.0, 100.0, 0.0, 0.1));
    }
}
