//! hwloc source (cargo feature `hwloc`): the running machine through any
//! hwloc backend (Linux, Windows, macOS, FreeBSD, ...), or an hwloc XML file
//! saved on any machine.
//!
//! Like every source, this module only gathers [`Facts`] and hands them to
//! [`build`]; nesting decisions are made there.
//!
//! # How hwloc objects map to facts (decisions)
//!
//! - **Disallowed PUs** are loaded too (`INCLUDE_DISALLOWED`), like the sysfs
//!   reader which lists every online CPU: [`Topology::pus`] holds every online
//!   PU and [`Topology::allowed`] is hwloc's allowed cpuset (cgroup/cpuset
//!   restrictions; for XML, the `allowed_cpuset` saved in the file). For the
//!   running machine ([`Topology::from_hwloc`]) the process's CPU binding is
//!   intersected in as well when hwloc can query it.
//! - **Core**: the PUs of the PU's `Core` ancestor.
//! - **Cluster**: the PUs of the innermost `Group` ancestor whose subtype is
//!   `Cluster` (hwloc's Linux backend builds these from
//!   `topology/cluster_cpus`) or `Module` (x86 CPUID module level). hwloc
//!   drops a group whose cpuset equals another object's (a cluster equal to
//!   the core, the L2 or the L3), so such clusters are not reported; the
//!   builder then falls back to "an L2 shared by several cores is a cluster",
//!   which recovers Intel E-core modules. `Die` objects are not clusters (an
//!   AMD die is an L3 domain, which the LLC level covers already).
//! - **L2 / L3**: the PUs of the `L2Cache` / `L3Cache` ancestor whose cache
//!   type is unified or data (instruction caches are separate object types
//!   in hwloc and are ignored).
//! - **NUMA node**: hwloc attaches NUMA nodes to objects as memory children
//!   (possibly below memory-side caches); a node's cpuset is its locality.
//!   A PU belongs to the node with the smallest cpuset that contains it; ties
//!   (DRAM and HBM nodes of the same locality, as on Knights Landing) go to
//!   the node without a subtype or with subtype `DRAM`, then to the lowest OS
//!   index. Nodes that thereby get no PU (HBM, GPU memory, memory-only
//!   nodes) are kept without CPUs, as sysfs lists them.
//! - **Package**: the OS index of the `Package` ancestor (its logical index,
//!   offset, where hwloc has no OS index).
//! - **Capacity** from hwloc's CPU kinds (a single kind: no capacity, all
//!   PUs 1024). The first of these figures that applies, raw (the builder
//!   scales the largest to 1024), as the sysfs reader does:
//!   1. the `LinuxCapacity` info of every kind (Linux `cpu_capacity`);
//!   2. `FrequencyBaseMHz`, then `FrequencyMaxMHz`, if every kind has it,
//!      the largest is at least 15% above the smallest, and it strictly
//!      increases with hwloc's efficiency ranking (Raptor Lake: 1900 vs
//!      1400 MHz base, so E-cores get 754);
//!   3. hwloc's efficiency ranking alone (x86 core types, forced
//!      efficiencies in XML): the kind of rank `r` among `n` distinct
//!      efficiencies (0 = most power-efficient, weakest) gets
//!      `1024 * (r + 1) / n`: two kinds give 512 and 1024, three give 341,
//!      682 and 1024;
//!   4. otherwise (kinds without ranking) no capacity, with a note.
//! - **Distances**: hwloc's NUMA-node distance matrix (preferring one that
//!   means latency, as the firmware's SLIT does), reordered to the node order
//!   of [`Topology::numa_nodes`]; dropped with a note when it does not cover
//!   every node.

use super::build::{self, Facts, PuFacts};
use super::{CpuSet, Source, Topology, TopologyError};
use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet as HwCpuSet;
use hwlocality::object::TopologyObject;
use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::distance::DistancesKind;
use hwlocality::object::types::{CacheType, ObjectType};
use hwlocality::topology::builder::BuildFlags;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// Package id given to a package hwloc reports without OS index: this plus
/// its logical index (far above any real package id).
const NO_OS_PACKAGE_BASE: usize = 1 << 24;

impl Topology {
    /// Reads the running machine through hwloc (feature `hwloc`).
    ///
    /// Uses hwloc's native backend for this OS; hwloc's environment variables
    /// apply (for example `HWLOC_FSROOT` to read a Linux sysfs snapshot, or
    /// `HWLOC_XMLFILE`). [`Topology::allowed`] is hwloc's allowed cpuset
    /// intersected with this process's CPU binding. How hwloc objects map to
    /// cores, clusters, caches, NUMA nodes and capacities is documented in
    /// the `hwloc` module source.
    ///
    /// # Errors
    /// [`TopologyError::Hwloc`] when hwloc cannot build the topology (the
    /// message names the hwloc call that failed), [`TopologyError::NoPus`]
    /// when it reports no PU.
    ///
    /// ```no_run
    /// # #[cfg(feature = "hwloc")] {
    /// let t = locus::Topology::from_hwloc().unwrap();
    /// println!("{t}");
    /// # }
    /// ```
    pub fn from_hwloc() -> Result<Topology, TopologyError> {
        let topo = hwlocality::Topology::builder()
            .with_flags(BuildFlags::INCLUDE_DISALLOWED)
            .map_err(|e| hwloc_err("cannot set hwloc build flags", e))?
            .build()
            .map_err(|e| hwloc_err("hwloc could not read this machine's topology", e))?;
        let mut facts = gather(&topo);
        if topo.is_this_system() {
            match topo.cpu_binding(CpuBindingFlags::PROCESS) {
                Ok(bound) => {
                    let online: CpuSet = facts.pus.iter().map(|p| p.os).collect();
                    let bound = convert(&bound, &online);
                    let allowed = facts.allowed.take().unwrap_or_else(|| online.clone());
                    facts.allowed = Some(allowed.intersection(&bound));
                }
                Err(e) => facts
                    .notes
                    .push(format!("hwloc could not read this process's CPU binding ({e}): using hwloc's allowed cpuset only")),
            }
        }
        build::build(facts, Source::Hwloc(None))
    }

    /// Reads an hwloc XML file (as written by `lstopo file.xml` or
    /// `hwloc-gather-topology`) saved on any machine (feature `hwloc`).
    ///
    /// The file need not describe the running machine: it is loaded as a
    /// foreign topology (hwloc's default for XML), so nothing of the running
    /// machine (binding, cgroup) is mixed in. [`Topology::allowed`] is the
    /// allowed cpuset saved in the file (disallowed PUs are kept in
    /// [`Topology::pus`]). hwloc XML v2 and v3 files are accepted. Only the
    /// `HWLOC_THISSYSTEM*` environment variables, if the user sets them,
    /// make hwloc mix in the running machine.
    ///
    /// # Errors
    /// [`TopologyError::Io`] if the file cannot be read,
    /// [`TopologyError::Hwloc`] if hwloc rejects it (not hwloc XML, or
    /// malformed), [`TopologyError::NoPus`] if it describes no PU.
    ///
    /// ```no_run
    /// # #[cfg(feature = "hwloc")] {
    /// let t = locus::Topology::from_hwloc_xml("machine.xml").unwrap();
    /// println!("{} PUs, {} L3", t.pus().len(), t.l3_cpusets().len());
    /// # }
    /// ```
    pub fn from_hwloc_xml(path: impl AsRef<Path>) -> Result<Topology, TopologyError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| TopologyError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        // hwloc 2.x writes `version="2.0"`, hwloc 3 `version="3.0"`; the
        // objects the two describe are the same for what is read here, and
        // hwloc 2.x refuses the newer number. Present it as 2.0.
        let text = match text.find("<topology version=\"3.0\"") {
            Some(at) if at < 512 => {
                let mut t = text;
                t.replace_range(
                    at..at + "<topology version=\"3.0\"".len(),
                    "<topology version=\"2.0\"",
                );
                t
            }
            _ => text,
        };
        let what = path.display();
        let topo = hwlocality::Topology::builder()
            .from_xml(&text)
            .map_err(|e| {
                TopologyError::Hwloc(format!("{what} is not a usable hwloc XML file: {e}"))
            })?
            .with_flags(BuildFlags::INCLUDE_DISALLOWED)
            .map_err(|e| hwloc_err("cannot set hwloc build flags", e))?
            .build()
            .map_err(|e| {
                TopologyError::Hwloc(format!(
                    "hwloc could not load {what}: {e} (is it hwloc XML, from `lstopo file.xml`?)"
                ))
            })?;
        let facts = gather(&topo);
        build::build(facts, Source::Hwloc(Some(path.to_path_buf())))
    }
}

fn hwloc_err(what: &str, e: impl std::fmt::Display) -> TopologyError {
    TopologyError::Hwloc(format!("{what}: {e}"))
}

/// The members of an hwloc bitmap among `universe` (the online PUs). Going
/// through the universe keeps infinite bitmaps (a binding to "all") finite.
fn convert(b: &HwCpuSet, universe: &CpuSet) -> CpuSet {
    universe.iter().filter(|&i| b.is_set(i)).collect()
}

/// The first ancestor of `pu` that passes `pred`.
fn ancestor(
    pu: &TopologyObject,
    pred: impl Fn(&TopologyObject) -> bool,
) -> Option<&TopologyObject> {
    pu.ancestors().find(|o| pred(o))
}

fn is_data_cache(o: &TopologyObject) -> bool {
    match o.attributes() {
        Some(ObjectAttributes::Cache(c)) => c.cache_type() != CacheType::Instruction,
        _ => true,
    }
}

fn subtype(o: &TopologyObject) -> Option<String> {
    o.subtype().map(|s| s.to_string_lossy().into_owned())
}

fn gather(topo: &hwlocality::Topology) -> Facts {
    let mut notes = Vec::new();
    let pu_objs: Vec<&TopologyObject> = topo.objects_with_type(ObjectType::PU).collect();
    let online: CpuSet = pu_objs.iter().filter_map(|p| p.os_index()).collect();
    let numa = numa_nodes(topo, &online);
    let node_of = |os: usize| -> Option<usize> {
        numa.iter()
            .filter(|(_, set, _)| set.contains(os))
            .min_by_key(|(id, set, normal)| (set.len(), !normal, *id))
            .map(|n| n.0)
    };
    let kinds = capacities(topo, &online, &mut notes);
    let capacity_of = |os: usize| kinds.iter().find(|(set, _)| set.contains(os)).map(|k| k.1);
    let pus: Vec<PuFacts> = pu_objs
        .iter()
        .filter_map(|pu| {
            let os = pu.os_index()?;
            Some(pu_facts(pu, os, &online, node_of(os), capacity_of(os)))
        })
        .collect();
    let saw_cluster = pus.iter().any(|p| p.cluster.is_some());
    // Node CPU lists as sysfs gives them: the PUs assigned to the node.
    let nodes: Vec<(usize, CpuSet)> = numa
        .iter()
        .map(|(id, _, _)| {
            (
                *id,
                pus.iter()
                    .filter(|p| p.node == Some(*id))
                    .map(|p| p.os)
                    .collect(),
            )
        })
        .collect();
    let distances = distances(topo, &nodes, &mut notes);
    let allowed = Some(convert(&topo.allowed_cpuset(), &online));
    Facts {
        pus,
        nodes,
        distances,
        allowed,
        saw_cluster,
        notes,
    }
}

/// The CPUs of `o`, limited to the `online` PUs.
fn set_of(o: &TopologyObject, online: &CpuSet) -> Option<CpuSet> {
    o.cpuset().map(|s| convert(&s, online))
}

/// The NUMA nodes by OS index, with their CPUs and whether they are
/// normal memory (no subtype, or DRAM).
fn numa_nodes(topo: &hwlocality::Topology, online: &CpuSet) -> Vec<(usize, CpuSet, bool)> {
    let mut numa: Vec<(usize, CpuSet, bool)> = topo
        .objects_with_type(ObjectType::NUMANode)
        .filter_map(|n| {
            let os = n.os_index()?;
            let normal = matches!(subtype(n).as_deref(), None | Some("DRAM"));
            Some((os, set_of(n, online).unwrap_or_default(), normal))
        })
        .collect();
    numa.sort_by_key(|n| n.0);
    numa.dedup_by_key(|n| n.0);
    numa
}

/// What hwloc says of PU `pu` (OS index `os`): its core, cluster, caches
/// and package from its ancestors, with its `node` and `capacity`.
fn pu_facts(
    pu: &TopologyObject,
    os: usize,
    online: &CpuSet,
    node: Option<usize>,
    capacity: Option<u32>,
) -> PuFacts {
    let of_type = |t: ObjectType| {
        ancestor(pu, |o| o.object_type() == t && is_data_cache(o))
            .and_then(|o| set_of(o, online))
            .map(Arc::new)
    };
    let cluster = ancestor(pu, |o| {
        o.object_type() == ObjectType::Group
            && matches!(subtype(o).as_deref(), Some("Cluster" | "Module"))
    })
    .and_then(|o| set_of(o, online))
    .map(Arc::new);
    let package = ancestor(pu, |o| o.object_type() == ObjectType::Package).map(|p| {
        p.os_index()
            .unwrap_or(NO_OS_PACKAGE_BASE + p.logical_index())
    });
    PuFacts {
        os,
        core: of_type(ObjectType::Core),
        cluster,
        l2: of_type(ObjectType::L2Cache),
        l3: of_type(ObjectType::L3Cache),
        node,
        package,
        capacity,
    }
}

/// Figures of two kinds must differ by at least this many percent to tell
/// kinds apart (the sysfs reader's threshold).
const MIN_SPREAD_PERCENT: u64 = 15;

/// One hwloc CPU kind: its PUs, efficiency rank and numeric infos.
struct Kind {
    cpus: CpuSet,
    efficiency: Option<usize>,
    linux_capacity: Option<u32>,
    base_mhz: Option<u32>,
    max_mhz: Option<u32>,
}

/// A figure usable as capacity: present on every kind, spread by at least
/// [`MIN_SPREAD_PERCENT`], and (when hwloc ranked the kinds) strictly
/// increasing with the rank, so it never contradicts hwloc's order.
fn usable(kinds: &[Kind], figure: impl Fn(&Kind) -> Option<u32>) -> Option<Vec<u32>> {
    let values: Option<Vec<u32>> = kinds.iter().map(&figure).collect();
    let values = values?;
    let (lo, hi) = (*values.iter().min()?, *values.iter().max()?);
    if lo == 0 || u64::from(hi) * 100 < u64::from(lo) * (100 + MIN_SPREAD_PERCENT) {
        return None;
    }
    if kinds.iter().all(|k| k.efficiency.is_some()) {
        let mut order: Vec<(usize, u32)> = kinds
            .iter()
            .zip(&values)
            .map(|(k, &v)| (k.efficiency.unwrap_or(0), v))
            .collect();
        order.sort();
        if order
            .windows(2)
            .any(|w| w[0].0 == w[1].0 || w[0].1 >= w[1].1)
        {
            return None;
        }
    }
    Some(values)
}

/// The CPU kinds with their capacity (mapping in the module docs); empty
/// when hwloc reports one kind or cannot tell them apart.
fn capacities(
    topo: &hwlocality::Topology,
    online: &CpuSet,
    notes: &mut Vec<String>,
) -> Vec<(CpuSet, u32)> {
    let kinds: Vec<Kind> = match topo.cpu_kinds() {
        Ok(kinds) => kinds
            .map(|k| {
                let info = |name: &str| {
                    k.infos
                        .iter()
                        .find(|i| i.name().to_bytes() == name.as_bytes())
                        .and_then(|i| i.value().to_str().ok()?.trim().parse::<u32>().ok())
                };
                Kind {
                    cpus: convert(&k.cpuset, online),
                    efficiency: k.efficiency,
                    linux_capacity: info("LinuxCapacity"),
                    base_mhz: info("FrequencyBaseMHz"),
                    max_mhz: info("FrequencyMaxMHz"),
                }
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    if kinds.len() < 2 {
        return Vec::new();
    }
    let figures = if let Some(v) = kinds
        .iter()
        .map(|k| k.linux_capacity)
        .collect::<Option<Vec<u32>>>()
    {
        v
    } else if let Some(v) = usable(&kinds, |k| k.base_mhz).or_else(|| usable(&kinds, |k| k.max_mhz))
    {
        v
    } else if kinds.iter().all(|k| k.efficiency.is_some()) {
        let ranks: Vec<usize> = kinds
            .iter()
            .filter_map(|k| k.efficiency)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let n = ranks.len() as u64;
        kinds
            .iter()
            .map(|k| {
                let r = ranks
                    .iter()
                    .position(|&e| Some(e) == k.efficiency)
                    .unwrap_or(0) as u64;
                (1024 * (r + 1) / n) as u32
            })
            .collect()
    } else {
        notes.push(format!(
            "hwloc reports {} CPU kinds without efficiency ranking: capacities not used",
            kinds.len()
        ));
        return Vec::new();
    };
    kinds
        .into_iter()
        .zip(figures)
        .map(|(k, f)| (k.cpus, f))
        .collect()
}

/// hwloc's NUMA distance matrix in the order of `nodes`.
fn distances(
    topo: &hwlocality::Topology,
    nodes: &[(usize, CpuSet)],
    notes: &mut Vec<String>,
) -> Option<Vec<Vec<u32>>> {
    if nodes.len() < 2 {
        return None;
    }
    let all = topo.distances_with_type(None, ObjectType::NUMANode).ok()?;
    let d = all
        .iter()
        .find(|d| d.kind().contains(DistancesKind::MEANS_LATENCY))
        .or_else(|| all.first())?;
    let ids: Vec<Option<usize>> = d.objects().map(|o| o.and_then(|o| o.os_index())).collect();
    let n = ids.len();
    let pos: Option<Vec<usize>> = nodes
        .iter()
        .map(|(id, _)| ids.iter().position(|&x| x == Some(*id)))
        .collect();
    let Some(pos) = pos else {
        notes.push(
            "hwloc's NUMA distance matrix does not cover every node: distances not used".into(),
        );
        return None;
    };
    let values = d.distances();
    Some(
        pos.iter()
            .map(|&i| {
                pos.iter()
                    .map(|&j| u32::try_from(values[i * n + j]).unwrap_or(u32::MAX))
                    .collect()
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_machine() {
        let t = Topology::from_hwloc().expect("hwloc reads the running machine");
        assert!(!t.pus().is_empty());
        assert!(!t.allowed().is_empty() && t.allowed().is_subset(&t.online()));
        assert_eq!(t.source(), &Source::Hwloc(None));
        #[cfg(target_os = "linux")]
        {
            // The process's affinity mask bounds the allowed set.
            let mask = crate::topology::sysfs::allowed::affinity()
                .expect("sched_getaffinity works on Linux");
            for cpu in t.allowed().iter() {
                assert!(
                    mask.contains(cpu),
                    "CPU {cpu} allowed by hwloc but not in the affinity mask"
                );
            }
        }
    }

    #[test]
    fn mask_conversion_stays_finite() {
        let universe = CpuSet::from_cpulist("0-3,8").unwrap();
        let full = HwCpuSet::full();
        assert_eq!(convert(&full, &universe), universe);
        let mut some = HwCpuSet::new();
        some.set(2);
        some.set(9);
        assert_eq!(convert(&some, &universe).to_string(), "2");
    }
}
