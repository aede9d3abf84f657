//! From raw per-PU facts to a nested [`Topology`].
//!
//! Every source (sysfs, synthetic spec, hwloc, flat fallback) only gathers
//! [`Facts`]: for each online PU the raw sets it belongs to. This module turns
//! them into a tree in which every level nests in the next, so that the layout
//! can later give every domain a contiguous range of worker indices.
//!
//! # How nesting is enforced (decisions)
//!
//! Levels, outermost first: package, NUMA node, LLC, cluster, core, PU. When
//! every package lies inside one NUMA node but a node holds several packages
//! (IBM x3950 M2: 4 nodes of 4 packages), the two outer levels swap: NUMA
//! node outside package ([`Topology::package_inside_numa`]).
//!
//! A PU's domain at a level is the intersection of its raw set at that level
//! with its domain one level out (refinement). So where a real machine does
//! not nest, the inner level is clipped:
//! - an L3 larger than its NUMA node (Intel sub-NUMA clustering, the
//!   `memorysidecaches` snapshot): the LLC domain is the L3 ∩ the node, as
//!   the Linux scheduler does ("llc-sibling ... is not on the same node ...
//!   Ignoring dependency"). The raw L3 sets are still reported
//!   ([`Topology::l3_cpusets`]), so the L3 count matches hwloc's;
//! - a cluster crossing an LLC boundary is clipped likewise.
//!
//! Overlapping NUMA nodes (buggy firmware lists CPUs 0-7 in all 8 nodes): a PU
//! belongs to the node its source names (sysfs `cpuN/nodeM` link) or else to
//! the lowest-numbered node listing it; nodes left without PUs are kept as
//! CPU-less nodes, like memory-only nodes.
//!
//! A missing level collapses into its neighbour: no cluster information, a
//! cluster is the L2 if shared by several cores, else the core; no cache
//! information, the LLC is the NUMA node's part of the package; no NUMA, one
//! node; no package id, the package is the whole machine (clipped by NUMA).
//! Package ids known for only some PUs (a garbage file) are all dropped.
//!
//! Domains are classes of PUs whose raw sets agree at their level and every
//! level outside it, so they partition the PUs and nest even when the
//! source's files contradict each other (for consistent input this equals
//! the intersection of the raw sets).

use super::{CpuSet, Domain, Level, LevelsSeen, Pu, Source, Topology};
use std::collections::BTreeMap;

/// What a source knows about one online PU. `None` means "not reported".
#[derive(Debug, Clone, Default)]
pub(crate) struct PuFacts {
    /// OS index (Linux CPU number).
    pub os: usize,
    /// The PU's SMT siblings, itself included.
    pub core: Option<CpuSet>,
    /// CPUs sharing the cluster (L2 or L3 tag) with it.
    pub cluster: Option<CpuSet>,
    /// CPUs sharing its L2 (unified or data) cache.
    pub l2: Option<CpuSet>,
    /// CPUs sharing its L3 cache.
    pub l3: Option<CpuSet>,
    /// OS index of its NUMA node.
    pub node: Option<usize>,
    /// Package id.
    pub package: Option<usize>,
    /// Capacity on the arm64 scale (1024 = biggest core) or any relative
    /// performance figure; normalized to 1024 = max by the builder.
    pub capacity: Option<u32>,
}

/// Everything a source gathered.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Online PUs (order does not matter).
    pub pus: Vec<PuFacts>,
    /// NUMA nodes by OS index with the CPUs they list (possibly empty:
    /// memory-only nodes). May be empty when the machine reports no NUMA.
    pub nodes: Vec<(usize, CpuSet)>,
    /// Distance matrix between the nodes of `nodes`, same order, if known.
    pub distances: Option<Vec<Vec<u32>>>,
    /// CPUs this process may use; `None` means all PUs.
    pub allowed: Option<CpuSet>,
    /// Whether the source saw cluster information (`cluster_cpus_list`).
    pub saw_cluster: bool,
    /// Remarks about decisions and fallbacks, shown to the user.
    pub notes: Vec<String>,
}

/// Makes the raw sets of one level a partition of the PUs: PUs whose sets
/// name each other (directly or through others) end up in one set, the
/// union; a PU that reported no set but is named by others gets theirs.
/// Real files disagree with each other (an L2 list that names only the
/// PU itself while its mask names its module sibling); merging is the
/// conservative reading, and a note records it.
fn partition(
    pus: &mut [PuFacts],
    field: impl Fn(&mut PuFacts) -> &mut Option<CpuSet>,
    what: &str,
    notes: &mut Vec<String>,
) {
    let pos: BTreeMap<usize, usize> = pus.iter().enumerate().map(|(i, p)| (p.os, i)).collect();
    let mut parent: Vec<usize> = (0..pus.len()).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (i, p) in pus.iter_mut().enumerate() {
        let members: Vec<usize> = field(p).as_ref().map(|s| s.iter().collect()).unwrap_or_default();
        for m in members {
            if let Some(&j) = pos.get(&m) {
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    // Components holding at least one reported set; a PU that reported
    // nothing (a garbage file) but is named by others joins their set.
    let mut comp: BTreeMap<usize, CpuSet> = BTreeMap::new();
    let mut reported: BTreeMap<usize, bool> = BTreeMap::new();
    for (i, p) in pus.iter_mut().enumerate() {
        let r = find(&mut parent, i);
        comp.entry(r).or_default().insert(p.os);
        *reported.entry(r).or_default() |= field(p).is_some();
    }
    let mut merged = false;
    for (i, p) in pus.iter_mut().enumerate() {
        let r = find(&mut parent, i);
        if !reported[&r] {
            continue;
        }
        let c = &comp[&r];
        let f = field(p);
        match f {
            Some(s) if s == c => {}
            Some(s) => {
                merged = true;
                *s = c.clone();
            }
            None => *f = Some(c.clone()),
        }
    }
    if merged {
        notes.push(format!("{what} sets reported by different CPUs disagree: merged into their union"));
    }
}

fn ordinal_key(set: &Option<CpuSet>, os: usize) -> CpuSet {
    set.clone().unwrap_or_else(|| CpuSet::from_ids([os]))
}

/// Builds the nested topology. Fails only when there is no PU at all.
pub(crate) fn build(mut facts: Facts, source: Source) -> Result<Topology, super::TopologyError> {
    if facts.pus.is_empty() {
        return Err(super::TopologyError::NoPus { source: source.to_string() });
    }
    facts.pus.sort_by_key(|p| p.os);
    facts.pus.dedup_by_key(|p| p.os);
    let online: CpuSet = facts.pus.iter().map(|p| p.os).collect();
    let mut notes = std::mem::take(&mut facts.notes);

    // Raw sets restricted to online PUs.
    let restrict = |s: &Option<CpuSet>| s.as_ref().map(|s| s.intersection(&online));
    for p in &mut facts.pus {
        // A PU always belongs to its own sets; sources with inconsistent files
        // (a list that omits the PU itself) are repaired here.
        let fix = |s: Option<CpuSet>, os: usize| {
            s.map(|mut s| {
                s.insert(os);
                s
            })
        };
        p.core = fix(restrict(&p.core), p.os);
        p.cluster = fix(restrict(&p.cluster), p.os);
        p.l2 = fix(restrict(&p.l2), p.os);
        p.l3 = fix(restrict(&p.l3), p.os);
    }
    partition(&mut facts.pus, |p| &mut p.core, "core", &mut notes);
    partition(&mut facts.pus, |p| &mut p.cluster, "cluster", &mut notes);
    partition(&mut facts.pus, |p| &mut p.l2, "L2", &mut notes);
    partition(&mut facts.pus, |p| &mut p.l3, "L3", &mut notes);

    // Package ids reported for some PUs only (a garbage file): the level
    // cannot be trusted to partition the PUs, so it is dropped.
    let with_package = facts.pus.iter().filter(|p| p.package.is_some()).count();
    if with_package > 0 && with_package < facts.pus.len() {
        notes.push(format!(
            "package id known for only {with_package} of {} PUs: package level ignored",
            facts.pus.len()
        ));
        for p in &mut facts.pus {
            p.package = None;
        }
    }

    let seen = LevelsSeen {
        smt: facts.pus.iter().any(|p| p.core.as_ref().is_some_and(|c| c.len() > 1)),
        cluster: facts.saw_cluster,
        l2: facts.pus.iter().any(|p| p.l2.is_some()),
        l3: facts.pus.iter().any(|p| p.l3.is_some()),
        numa: !facts.nodes.is_empty(),
        package: facts.pus.iter().any(|p| p.package.is_some()),
        capacity: {
            let caps: Vec<u32> = facts.pus.iter().filter_map(|p| p.capacity).collect();
            caps.len() == facts.pus.len() && caps.iter().any(|&c| c != caps[0])
        },
    };

    // NUMA membership per PU.
    let mut node_of: BTreeMap<usize, usize> = BTreeMap::new();
    for p in &facts.pus {
        if let Some(n) = p.node {
            node_of.insert(p.os, n);
        }
    }
    for (id, set) in &facts.nodes {
        for cpu in set.iter() {
            node_of.entry(cpu).or_insert(*id);
        }
    }
    let default_node = facts.nodes.first().map_or(0, |n| n.0);
    // Member sets of every node and package, computed once (a per-PU scan
    // would make building quadratic in the number of PUs).
    let mut node_members: BTreeMap<usize, CpuSet> = BTreeMap::new();
    let mut package_members: BTreeMap<Option<usize>, CpuSet> = BTreeMap::new();
    for p in &facts.pus {
        let n = node_of.get(&p.os).copied().unwrap_or(default_node);
        node_members.entry(n).or_default().insert(p.os);
        package_members.entry(p.package).or_default().insert(p.os);
    }
    let node_set = |n: usize| -> CpuSet { node_members.get(&n).cloned().unwrap_or_default() };
    let package_set = |pkg: Option<usize>| -> CpuSet { package_members.get(&pkg).cloned().unwrap_or_default() };

    // Per-PU raw sets at every level (outer to inner, before swap).
    struct Raw {
        os: usize,
        package: CpuSet,
        node: CpuSet,
        node_id: usize,
        llc: CpuSet,
        cluster: CpuSet,
        core: CpuSet,
        capacity: Option<u32>,
    }
    let mut raws = Vec::with_capacity(facts.pus.len());
    for p in &facts.pus {
        let node_id = node_of.get(&p.os).copied().unwrap_or(default_node);
        let llc = p.l3.clone().or_else(|| p.l2.clone()).unwrap_or_else(|| online.clone());
        let core = ordinal_key(&p.core, p.os);
        let cluster = match (&p.cluster, &p.l2) {
            (Some(c), _) => c.clone(),
            // An L2 shared by several cores is a cluster (Intel E-core
            // modules, old Xeon dual-die parts, POWER9 core pairs).
            (None, Some(l2)) if p.l3.is_some() && !l2.is_subset(&core) => l2.clone(),
            _ => core.clone(),
        };
        raws.push(Raw {
            os: p.os,
            package: if p.package.is_some() { package_set(p.package) } else { online.clone() },
            node: node_set(node_id),
            node_id,
            llc,
            cluster,
            core,
            capacity: p.capacity,
        });
    }

    // Does every package lie within one node while some node holds several
    // packages? Then NUMA is the outer level.
    let package_inside_numa = seen.package
        && seen.numa
        && raws.iter().all(|r| r.package.is_subset(&r.node))
        && raws.iter().any(|r| r.package != r.node);
    if package_inside_numa {
        notes.push("NUMA nodes hold several packages: NUMA is the outer level".into());
    }
    if (seen.l2 || seen.l3) && raws.iter().any(|r| !r.llc.is_subset(&r.node)) {
        notes.push("an LLC spans several NUMA nodes (sub-NUMA clustering): LLC domains are clipped to their node, as Linux does".into());
    }

    // Refinement: the key of a PU at each level is the list of its raw sets
    // so far; domains are the distinct keys.
    let order = [Level::Package, Level::Numa, Level::Llc, Level::Cluster, Level::Core];
    let order: Vec<Level> = if package_inside_numa {
        vec![Level::Numa, Level::Package, Level::Llc, Level::Cluster, Level::Core]
    } else {
        order.to_vec()
    };
    let raw_of = |r: &Raw, l: Level| -> CpuSet {
        match l {
            Level::Package => r.package.clone(),
            Level::Numa => r.node.clone(),
            Level::Llc => r.llc.clone(),
            Level::Cluster => r.cluster.clone(),
            Level::Core => r.core.clone(),
            Level::Machine => online.clone(),
        }
    };
    // Effective set of each PU at each level: the PUs whose raw sets agree
    // with its own at this level and every level outside it. For consistent
    // input this is the intersection chain of the raw sets; for
    // inconsistent input (a package id missing on some PUs only, garbage
    // files) it is still a partition that nests, which the intersection
    // chain alone would not be.
    let mut eff: Vec<Vec<CpuSet>> = vec![Vec::with_capacity(order.len()); raws.len()];
    let mut class: Vec<usize> = vec![0; raws.len()];
    for &l in &order {
        let mut ids: std::collections::HashMap<(usize, CpuSet), usize> = std::collections::HashMap::new();
        for (i, r) in raws.iter().enumerate() {
            let n = ids.len();
            class[i] = *ids.entry((class[i], raw_of(r, l))).or_insert(n);
        }
        let mut members: Vec<CpuSet> = vec![CpuSet::new(); ids.len()];
        for (i, r) in raws.iter().enumerate() {
            members[class[i]].insert(r.os);
        }
        for i in 0..raws.len() {
            eff[i].push(members[class[i]].clone());
        }
    }
    // Depth-first order: sort PUs by the minimum id of their domain at each
    // level, outermost first, then by OS index.
    let mut idx: Vec<usize> = (0..raws.len()).collect();
    idx.sort_by(|&a, &b| {
        let ka: Vec<usize> = eff[a].iter().map(|s| s.min().unwrap_or(0)).collect();
        let kb: Vec<usize> = eff[b].iter().map(|s| s.min().unwrap_or(0)).collect();
        ka.cmp(&kb).then(raws[a].os.cmp(&raws[b].os))
    });

    let max_cap = raws.iter().filter_map(|r| r.capacity).max().unwrap_or(0);
    let mut pus: Vec<Pu> = Vec::with_capacity(raws.len());
    let mut domains: Vec<Vec<Domain>> = vec![Vec::new(); order.len()];
    for (pos, &i) in idx.iter().enumerate() {
        let r = &raws[i];
        let mut dom_idx = [0usize; 5];
        for (k, set) in eff[i].iter().enumerate() {
            let level_domains = &mut domains[k];
            let parent = if k == 0 { 0 } else { dom_idx[k - 1] };
            match level_domains.last_mut() {
                Some(d) if d.cpuset == *set && d.parent == parent => {
                    d.pus.end = pos + 1;
                }
                _ => {
                    let os_index = match order[k] {
                        Level::Numa if seen.numa => Some(r.node_id),
                        Level::Package => facts.pus[i].package,
                        _ => None,
                    };
                    level_domains.push(Domain { cpuset: set.clone(), pus: pos..pos + 1, parent, os_index });
                }
            }
            dom_idx[k] = domains[k].len() - 1;
        }
        let at = |l: Level| dom_idx[order.iter().position(|&x| x == l).unwrap_or(0)];
        let capacity = match (r.capacity, max_cap) {
            (Some(c), m) if m > 0 && seen.capacity => ((c as u64 * 1024) / m as u64) as u32,
            _ => 1024,
        };
        pus.push(Pu {
            os_index: r.os,
            core: at(Level::Core),
            cluster: at(Level::Cluster),
            llc: at(Level::Llc),
            numa: at(Level::Numa),
            package: at(Level::Package),
            capacity,
        });
    }
    let mut by_level = BTreeMap::new();
    for (k, l) in order.iter().enumerate() {
        by_level.insert(*l, std::mem::take(&mut domains[k]));
    }
    // A domain set was built from a possibly non-contiguous sort; check the
    // invariant that each domain's PUs are exactly its range.
    debug_assert!(by_level.values().flatten().all(|d| {
        d.pus.clone().map(|p| pus[p].os_index).collect::<CpuSet>() == d.cpuset
    }));

    let distinct = |f: &dyn Fn(&PuFacts) -> Option<CpuSet>| -> Vec<CpuSet> {
        let mut v: Vec<CpuSet> = Vec::new();
        for p in &facts.pus {
            if let Some(s) = f(p) {
                if !v.contains(&s) {
                    v.push(s);
                }
            }
        }
        v.sort_by_key(|s| s.min());
        v
    };
    let l2_sets = distinct(&|p| p.l2.clone());
    let l3_sets = distinct(&|p| p.l3.clone());

    let mut nodes = facts.nodes.clone();
    for (id, set) in &mut nodes {
        *set = node_set(*id);
        if set.is_empty() && !facts.nodes.iter().any(|(i, s)| i == id && s.is_empty()) {
            notes.push(format!("NUMA node {id} lists only CPUs claimed by other nodes: kept without CPUs"));
        }
    }
    let allowed = facts.allowed.as_ref().map_or_else(|| online.clone(), |a| a.intersection(&online));
    if allowed.is_empty() {
        notes.push("the allowed CPU set does not intersect the online CPUs: treating all CPUs as allowed".into());
    }
    let allowed = if allowed.is_empty() { online.clone() } else { allowed };

    Ok(Topology {
        source,
        pus,
        domains: by_level,
        package_inside_numa,
        l2_sets,
        l3_sets,
        numa_nodes: nodes,
        distances: facts.distances,
        allowed,
        cpu_quota: None,
        seen,
        notes,
    })
}
