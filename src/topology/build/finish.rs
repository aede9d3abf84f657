//! Step 6 of the builder: the [`Topology`] from the numbered domains, with
//! what is reported beside the tree (raw L2/L3 sets, the NUMA node list and
//! distance rows, the allowed CPUs).
//!
//! Invariants: every node the source listed stays listed (with the PUs it
//! got, possibly none, noted); the allowed set is a non-empty subset of the
//! online PUs (all of them, noted, when the source's set has none).

use super::domains::Numbered;
use super::facts::Facts;
use super::keys::RawKeys;
use super::normalise::LevelSets;
use super::online::Online;
use crate::topology::{CpuSet, Domain, Level, LevelsSeen, Pu, Source, Topology};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The nodes the source listed, each with the PUs it got; a note for each
/// node left without any (its CPUs went to other nodes).
fn node_list(
    mut nodes: Vec<(usize, CpuSet)>,
    members: &BTreeMap<usize, CpuSet>,
    notes: &mut Vec<String>,
) -> Vec<(usize, CpuSet)> {
    let listed_empty: HashSet<usize> = nodes
        .iter()
        .filter(|(_, s)| s.is_empty())
        .map(|(i, _)| *i)
        .collect();
    for (id, set) in &mut nodes {
        *set = members.get(id).cloned().unwrap_or_default();
        if set.is_empty() && !listed_empty.contains(id) {
            notes.push(format!(
                "NUMA node {id} lists only CPUs claimed by other nodes: kept without CPUs"
            ));
        }
    }
    nodes
}

/// The row in the distance matrix (the position in `nodes`) of each NUMA
/// domain, so that [`Topology::numa_distance`] is one lookup.
fn numa_rows(nodes: &[(usize, CpuSet)], numa: &[Domain]) -> Vec<Option<usize>> {
    let mut row_of_node: HashMap<usize, usize> = HashMap::new();
    for (row, (id, _)) in nodes.iter().enumerate() {
        row_of_node.entry(*id).or_insert(row);
    }
    numa.iter()
        .map(|d| d.os_index.and_then(|o| row_of_node.get(&o).copied()))
        .collect()
}

/// The domains by level (`order`: the level of each list of `domains`).
fn by_level(
    order: [Level; 5],
    domains: Vec<Vec<Domain>>,
    pus: &[Pu],
) -> BTreeMap<Level, Vec<Domain>> {
    let by_level: BTreeMap<Level, Vec<Domain>> = order.into_iter().zip(domains).collect();
    // A domain set was built from a possibly non-contiguous sort; check the
    // invariant that each domain's PUs are exactly its range.
    debug_assert!(by_level.values().flatten().all(|d: &Domain| {
        CpuSet::from_ids(d.pus.clone().map(|p| pus[p].os_index)) == d.cpuset
    }));
    by_level
}

/// The allowed CPUs: the source's set clipped to the `online` ones, or all
/// online CPUs (with a note when the source's set has none of them).
fn allowed(allowed: Option<&CpuSet>, online: CpuSet, notes: &mut Vec<String>) -> CpuSet {
    let allowed = allowed.map_or_else(|| online.clone(), |a| a.intersection(&online));
    if !allowed.is_empty() {
        return allowed;
    }
    notes.push(
        "the allowed CPU set does not intersect the online CPUs: treating all CPUs as allowed"
            .into(),
    );
    online
}

/// What steps 1 to 5 found, for [`finish`].
pub(super) struct Parts {
    pub(super) online: Online,
    pub(super) sets: LevelSets,
    pub(super) raw: RawKeys,
    pub(super) numbered: Numbered,
    pub(super) seen: LevelsSeen,
    pub(super) notes: Vec<String>,
}

/// Step 6: the domains by level, the reported L2/L3 sets, the NUMA node
/// list (with the PUs each node got; notes for nodes left without any),
/// each NUMA domain's row in the distance matrix, and the allowed CPUs.
pub(super) fn finish(facts: Facts, source: Source, parts: Parts) -> Topology {
    let Parts {
        online,
        sets,
        raw,
        numbered,
        seen,
        mut notes,
    } = parts;
    let Numbered { pus, domains } = numbered;
    let by_level = by_level(raw.order, domains, &pus);
    let nodes = node_list(facts.nodes, &raw.node_members, &mut notes);
    let numa_rows = numa_rows(
        &nodes,
        by_level.get(&Level::Numa).map_or(&[], |d| d.as_slice()),
    );
    let allowed = allowed(facts.allowed.as_ref(), online.set, &mut notes);
    Topology {
        source,
        pus,
        domains: by_level,
        package_inside_numa: raw.package_inside_numa,
        l2_sets: sets.l2.sets,
        l3_sets: sets.l3.sets,
        numa_nodes: nodes,
        numa_rows,
        distances: facts.distances,
        allowed,
        cpu_quota: None,
        seen,
        notes,
    }
}
