//! What this machine is: its topology read from hwloc once and turned into
//! plain data ([`Machine`]), its memory levels ([`level`]), the buffer
//! sizes that measure each ([`sizing`]), what its CPU runs ([`isa`]) and
//! which CPU it is ([`cpuid`]).
//!
//! The walk follows each core's ancestry upwards, keeping the data and
//! unified caches (instruction caches are skipped), and counts how many cores
//! sit under one instance of each level. NUMA nodes are hwloc "memory
//! children", not ancestors, so they are collected separately.

pub mod cgroup;
pub mod cpuid;
pub mod isa;
pub mod level;
pub mod sizing;

pub use level::{Level, Scope};

use crate::error::{Error, Result};
use hwlocality::Topology;
use hwlocality::object::TopologyObject;
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::{CacheType, ObjectType};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Where the topology came from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The machine we run on.
    Live,
    /// An hwloc XML export (`lstopo --of xml`).
    Xml(std::path::PathBuf),
    /// An hwloc synthetic description, e.g. `"pack:2 l3:1(size=32MiB) core:8 pu:2"`.
    Synthetic(String),
}

/// One data-cache level as seen from a core.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheLevel {
    /// "L1d", "L2", "L3", ... (see [`Level::cache_name`]).
    pub name: String,
    /// Cache depth (1 for L1).
    pub depth: usize,
    /// Capacity of one instance, bytes.
    pub size_bytes: u64,
    /// Line size, bytes (None when hwloc does not know).
    pub line_bytes: Option<u64>,
    /// Ways; 0 means fully associative, None unknown.
    pub associativity: Option<u32>,
    /// Cores under one instance.
    pub cores_sharing: usize,
    /// Number of instances in the machine.
    pub instances: usize,
    /// For each core (in hwloc logical order), the index of its instance.
    #[serde(skip)]
    pub core_instance: Vec<usize>,
}

/// One NUMA node.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NumaNode {
    /// OS index of the node.
    pub os_index: usize,
    /// Memory local to the node, bytes.
    pub memory_bytes: u64,
    /// Cores whose PUs belong to the node.
    pub cores: usize,
}

/// The machine, as plain data.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Machine {
    /// "live", "xml:PATH" or "synthetic:DESC".
    pub source: String,
    /// CPU model string from hwloc (Package info "CPUModel").
    pub cpu_model: Option<String>,
    /// CPU vendor string.
    pub cpu_vendor: Option<String>,
    /// Packages (sockets).
    pub packages: usize,
    /// Physical cores.
    pub cores: usize,
    /// Hardware threads (PUs).
    pub hardware_threads: usize,
    /// NUMA nodes.
    pub numa_nodes: Vec<NumaNode>,
    /// Data cache levels, L1d first.
    pub caches: Vec<CacheLevel>,
    /// Total memory in the topology, bytes.
    pub total_memory_bytes: u64,
    /// Memory a process may take (live machine only): MemAvailable from
    /// /proc/meminfo, or the room under this process's cgroup memory limit
    /// when that is smaller.
    pub mem_available_bytes: Option<u64>,
    /// The machine's cores, where this process's CPU affinity mask
    /// (`taskset`, `numactl`) leaves fewer: `cores` counts those it leaves,
    /// as hwloc leaves those of a cgroup's cpuset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores_of: Option<usize>,
    /// For each core in hwloc logical order, the OS index of its first PU:
    /// the CPU a benchmark thread for that core is pinned to.
    #[serde(skip)]
    pub core_first_pu: Vec<usize>,
    /// For each core, the OS index of its NUMA node (first one found).
    #[serde(skip)]
    pub core_numa: Vec<usize>,
}

impl Machine {
    /// Whether `threads` threads from core `first` on fit this machine's
    /// cores (`carmbench kernel --first-core --threads`); else the largest
    /// first core that would.
    pub fn check_cores(&self, first: usize, threads: usize) -> Result<()> {
        if threads == 0 || threads > self.cores {
            return Err(Error::input(format!(
                "--threads {threads} is not between 1 and the {} cores of this machine",
                self.cores
            )));
        }
        // threads >= 1 here; the last core can be past any number.
        let last = first.checked_add(threads - 1);
        if last.is_none_or(|l| l >= self.cores) {
            let needs = match last {
                Some(l) => format!("cores {first} to {l}"),
                None => "cores past the largest number".to_string(),
            };
            return Err(Error::input(format!(
                "--first-core {first} with --threads {threads} needs {needs}, but this machine has cores 0 to {}; give a --first-core of at most {}",
                self.cores - 1,
                self.cores - threads
            )));
        }
        Ok(())
    }

    /// Load the topology from hwloc and convert it.
    pub fn load(source: &Source) -> Result<Self> {
        let mut topo = build_topology(source)?;
        let all = matches!(source, Source::Live).then(|| cores_in(&topo));
        let bound = matches!(source, Source::Live) && restrict_to_binding(&mut topo);
        let mut m = from_hwloc(&topo, source)?;
        if bound {
            m.cores_of = all.filter(|&n| n > m.cores);
        }
        if matches!(source, Source::Live) {
            m.mem_available_bytes = match (read_mem_available(), cgroup::room()) {
                (Some(a), Some(c)) => Some(a.min(c)),
                (a, c) => a.or(c),
            };
        }
        Ok(m)
    }

    /// Memory a DRAM buffer may take from: MemAvailable on the live machine,
    /// the topology's total memory otherwise.
    pub fn usable_memory(&self) -> u64 {
        self.mem_available_bytes.unwrap_or(self.total_memory_bytes)
    }

    /// Each cache's instance per core as a compact placement gives them
    /// (`cores_sharing` cores in turn), for a topology read back from a
    /// results file, which does not keep them.
    pub fn restore_instances(&mut self) {
        let cores = self.cores;
        for c in &mut self.caches {
            if c.core_instance.len() != cores {
                let n = c.cores_sharing.max(1);
                c.core_instance = (0..cores).map(|i| i / n).collect();
            }
        }
    }

    /// Last-level cache, if the machine has caches at all.
    pub fn llc(&self) -> Option<&CacheLevel> {
        self.caches.last()
    }

    /// Its memory levels, in hierarchy order: each data cache, then DRAM.
    pub fn levels(&self) -> Vec<Level> {
        self.caches
            .iter()
            .map(CacheLevel::level)
            .chain(std::iter::once(Level::Dram))
            .collect()
    }

    /// Whom `level` serves on this machine; a level it does not have counts
    /// as shared.
    pub fn scope(&self, level: Level) -> Scope {
        match level {
            Level::Dram => Scope::Memory,
            l => match self.caches.iter().find(|c| c.level() == l) {
                Some(c) if c.cores_sharing <= 1 => Scope::Core,
                _ => Scope::Shared,
            },
        }
    }
}

impl CacheLevel {
    /// The memory level this cache is.
    pub fn level(&self) -> Level {
        Level::cache(self.depth)
    }
}

/// The largest topology XML file read.
pub const MAX_XML_BYTES: u64 = 64 << 20;

/// The most hardware threads a synthetic topology may describe: the largest
/// machines have a few thousand, and hwloc takes time growing with the cube
/// of the count to build one (10,000 cores: about a minute).
pub const MAX_SYNTHETIC_PUS: u64 = 4096;

/// A synthetic description whose levels multiply to at most
/// [`MAX_SYNTHETIC_PUS`], checked before hwloc builds it.
fn bounded_synthetic(desc: &str) -> Result<String> {
    let mut pus: u64 = 1;
    for level in desc.split_whitespace() {
        let count = level
            .split_once(':')
            .map(|(_, n)| n.split('(').next().unwrap_or(n))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(n) = count {
            pus = pus.saturating_mul(n);
        }
    }
    if pus > MAX_SYNTHETIC_PUS {
        return Err(Error::input(format!(
            "the synthetic topology \"{desc}\" has {pus} hardware threads; give at most {MAX_SYNTHETIC_PUS}"
        )));
    }
    Ok(desc.to_string())
}

fn build_topology(source: &Source) -> Result<Topology> {
    let builder = Topology::builder();
    let builder = match source {
        Source::Live => builder,
        Source::Xml(path) => {
            if !Path::new(path).is_file() {
                return Err(Error::input(format!(
                    "topology XML file '{}' does not exist or is not a file; give a file written by `lstopo --of xml FILE`",
                    path.display()
                )));
            }
            // lstopo writes a few hundred kilobytes for the largest machines.
            let len = std::fs::metadata(path).map_or(0, |m| m.len());
            if len > MAX_XML_BYTES {
                return Err(Error::input(format!(
                    "topology XML file '{}' is {} bytes, more than any machine's ({MAX_XML_BYTES} at most); give a file written by `lstopo --of xml FILE`",
                    path.display(),
                    len
                )));
            }
            builder.from_xml_file(path).map_err(|e| {
                Error::input(format!(
                    "cannot use '{}' as a topology: {e}; give a file written by `lstopo --of xml FILE`",
                    path.display()
                ))
            })?
        }
        Source::Synthetic(desc) => builder.from_synthetic(&bounded_synthetic(desc)?).map_err(|_| {
            Error::input(format!(
                "invalid hwloc synthetic topology \"{desc}\"; expected e.g. \"pack:2 numa:1 l3:1(size=32MiB) core:8 l2:1(size=1MiB) l1d:1(size=48KiB) pu:2\""
            ))
        })?,
    };
    builder.build().map_err(|e| match source {
        Source::Live => Error::Io(format!("hwloc could not read this machine's topology: {e}")),
        Source::Xml(p) => Error::input(format!(
            "hwloc rejected the topology XML '{}' ({e}); give a file written by `lstopo --of xml FILE`",
            p.display()
        )),
        Source::Synthetic(d) => Error::input(format!(
            "hwloc rejected the synthetic topology \"{d}\" ({e}); check its levels and attributes"
        )),
    })
}

/// The cores (or PUs, where it has no core objects) of `topo`.
fn cores_in(topo: &Topology) -> usize {
    match topo.objects_with_type(ObjectType::Core).count() {
        0 => topo.objects_with_type(ObjectType::PU).count(),
        n => n,
    }
}

/// Restrict `topo` to the CPUs this thread may run on, where fewer than
/// it has: a run under `taskset -c 0` measures one core, as one in a
/// cgroup's cpuset of one does. Whether it restricted it.
fn restrict_to_binding(topo: &mut Topology) -> bool {
    use hwlocality::cpu::binding::CpuBindingFlags;
    use hwlocality::topology::editor::RestrictFlags;
    let Ok(mask) = topo.cpu_binding(CpuBindingFlags::THREAD) else {
        return false;
    };
    let narrower = matches!((mask.weight(), topo.cpuset().weight()),
        (Some(a), Some(all)) if a > 0 && a < all);
    narrower
        && topo.cpuset().intersects(&mask)
        && topo.edit(|e| e.restrict(&mask, RestrictFlags::empty()).is_ok())
}

fn cpu_count(obj: &TopologyObject) -> usize {
    obj.cpuset().and_then(|c| c.weight()).unwrap_or(0)
}

fn info(obj: &TopologyObject, key: &str) -> Option<String> {
    obj.info(key)
        .map(|s| s.to_string_lossy().trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The data-cache levels over `core_objs`, by depth, from every core's
/// ancestry: each level's geometry, instances and the cores sharing one.
fn cache_levels(core_objs: &[&TopologyObject]) -> Result<Vec<CacheLevel>> {
    let mut caches: Vec<CacheLevel> = Vec::new();
    let mut instance_ids: Vec<Vec<u64>> = Vec::new(); // per level: gp index per instance
    for (ci, core) in core_objs.iter().enumerate() {
        for anc in core.ancestors() {
            let Some(ObjectAttributes::Cache(attr)) = anc.attributes() else {
                continue;
            };
            if attr.cache_type() == CacheType::Instruction {
                continue;
            }
            let depth = attr.depth();
            let pos = match caches.iter().position(|c| c.depth == depth) {
                Some(p) => p,
                None => {
                    let assoc = match attr.associativity() {
                        hwlocality::object::attributes::CacheAssociativity::Full => Some(0),
                        hwlocality::object::attributes::CacheAssociativity::Ways(w) => {
                            Some(w.get() as u32)
                        }
                        _ => None,
                    };
                    caches.push(CacheLevel {
                        name: Level::cache(depth).cache_name(),
                        depth,
                        size_bytes: attr.size().map(|s| s.get()).unwrap_or(0),
                        line_bytes: attr.line_size().map(|l| l.get() as u64),
                        associativity: assoc,
                        cores_sharing: 0,
                        instances: 0,
                        core_instance: vec![usize::MAX; core_objs.len()],
                    });
                    instance_ids.push(Vec::new());
                    caches.len() - 1
                }
            };
            let gp = anc.global_persistent_index();
            let ids = &mut instance_ids[pos];
            let inst = match ids.iter().position(|&g| g == gp) {
                Some(i) => i,
                None => {
                    ids.push(gp);
                    ids.len() - 1
                }
            };
            caches[pos].core_instance[ci] = inst;
        }
    }
    for (c, ids) in caches.iter_mut().zip(&instance_ids) {
        c.instances = ids.len();
        // Cores sharing one instance: the largest count over instances.
        let mut per = vec![0usize; ids.len()];
        for &i in &c.core_instance {
            if i != usize::MAX {
                per[i] += 1;
            }
        }
        c.cores_sharing = per.into_iter().max().unwrap_or(0);
        if c.core_instance.contains(&usize::MAX) {
            // A core without this level (heterogeneous machine): give it its
            // own pseudo instance so sharing counts stay right.
            for i in c.core_instance.iter_mut().filter(|i| **i == usize::MAX) {
                *i = usize::MAX - 1;
            }
        }
        if c.size_bytes == 0 {
            return Err(Error::input(format!(
                "the topology gives no size for the {} cache; give sizes, e.g. l3:1(size=32MiB) in a synthetic description",
                c.name
            )));
        }
    }
    caches.sort_by_key(|c| c.depth);

    Ok(caches)
}

/// The NUMA nodes, and the node of each core (by its first PU).
fn numa_of(
    topo: &Topology,
    core_cpusets: &[Option<hwlocality::cpu::cpuset::CpuSet>],
) -> (Vec<NumaNode>, Vec<usize>) {
    let mut numa_nodes = Vec::new();
    let mut core_numa = vec![0usize; core_cpusets.len()];
    for node in topo.objects_with_type(ObjectType::NUMANode) {
        let os_index = node.os_index().unwrap_or(0);
        let memory_bytes = match node.attributes() {
            Some(ObjectAttributes::NUMANode(a)) => a.local_memory().map(|m| m.get()).unwrap_or(0),
            _ => 0,
        };
        let mut n = 0;
        if let Some(ns) = node.cpuset() {
            for (ci, cs) in core_cpusets.iter().enumerate() {
                if let Some(cs) = cs
                    && cs.first_set().is_some_and(|pu| ns.is_set(pu))
                {
                    n += 1;
                    core_numa[ci] = os_index;
                }
            }
        }
        numa_nodes.push(NumaNode {
            os_index,
            memory_bytes,
            cores: n,
        });
    }

    (numa_nodes, core_numa)
}

/// Convert an hwloc topology into a [`Machine`].
pub fn from_hwloc(topo: &Topology, source: &Source) -> Result<Machine> {
    let cores: Vec<&TopologyObject> = topo.objects_with_type(ObjectType::Core).collect();
    // Some synthetic or odd topologies have PUs but no Core objects: then each
    // PU is its own core.
    let core_objs: Vec<&TopologyObject> = if cores.is_empty() {
        topo.objects_with_type(ObjectType::PU).collect()
    } else {
        cores
    };
    if core_objs.is_empty() {
        return Err(Error::input(
            "the topology has no cores or processing units; it cannot be benchmarked",
        ));
    }

    let caches = cache_levels(&core_objs)?;
    let core_cpusets: Vec<Option<hwlocality::cpu::cpuset::CpuSet>> = core_objs
        .iter()
        .map(|c| c.cpuset().map(|s| s.clone_target()))
        .collect();
    let (numa_nodes, core_numa) = numa_of(topo, &core_cpusets);

    let core_first_pu = core_cpusets
        .iter()
        .map(|cs| {
            cs.as_ref()
                .and_then(|s| s.first_set())
                .map(usize::from)
                .unwrap_or(0)
        })
        .collect();

    let packages: Vec<&TopologyObject> = topo.objects_with_type(ObjectType::Package).collect();
    let root = topo.root_object();
    let cpu_model = packages
        .iter()
        .find_map(|p| info(p, "CPUModel"))
        .or_else(|| info(root, "CPUModel"));
    let cpu_vendor = packages
        .iter()
        .find_map(|p| info(p, "CPUVendor"))
        .or_else(|| info(root, "CPUVendor"));

    Ok(Machine {
        source: match source {
            Source::Live => "live".to_string(),
            Source::Xml(p) => format!("xml:{}", p.display()),
            Source::Synthetic(d) => format!("synthetic:{d}"),
        },
        cpu_model,
        cpu_vendor,
        packages: packages.len().max(1),
        cores: core_objs.len(),
        hardware_threads: cpu_count(root),
        numa_nodes,
        caches,
        total_memory_bytes: root.total_memory(),
        mem_available_bytes: None,
        cores_of: None,
        core_first_pu,
        core_numa,
    })
}

/// The hardware threads online (at least 1), without walking the topology:
/// what bounds a thread count a user gives for a program.
pub fn online_cpus() -> usize {
    // SAFETY: sysconf reads a system value and has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// MemAvailable from /proc/meminfo, in bytes.
pub fn read_mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

/// Parse the MemAvailable line of a /proc/meminfo text.
pub fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_parses_kib() {
        let t = "MemTotal: 100 kB\nMemAvailable:   24469076 kB\n";
        assert_eq!(parse_mem_available(t), Some(24469076 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
    }
}
