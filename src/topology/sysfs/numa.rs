//! NUMA nodes and distances from `node/nodeN/{cpulist,cpumap,distance}` and
//! the `cpuN/nodeM` links.
//!
//! - Node ids may be sparse (`0,1,2,33,34,45,72,73`); they are kept as the
//!   nodes' OS indexes. Nodes without CPUs (memory-only: HBM, NVM, GPU
//!   memory) are kept with an empty set.
//! - A node's CPUs: `cpulist`, else `cpumap` (Itanium has only masks). These
//!   may list offline or non-present CPUs (POWER9: node0 lists 0-87 while
//!   only 0-15 are present); the builder keeps only online PUs.
//! - A PU's `cpuN/nodeM` link names its node, except when node lists
//!   overlap: buggy firmware (the `buggynuma` snapshot) lists CPUs 0-7 in all
//!   8 nodes and links cpuK to nodeK, with all distances 10; the links are
//!   then ignored for CPUs some node lists, and the builder gives each CPU to
//!   the first node listing it (hwloc merges the nodes into one). A link to a node that has
//!   no directory (an offline node, as in the `offline-cpu0-node0` snapshot)
//!   keeps that node, with the CPUs linking to it, so those CPUs are not
//!   silently moved into another node; hwloc leaves such CPUs outside any
//!   node instead.
//! - Distances: row `i` of the matrix is `nodeI/distance`, columns in
//!   increasing node id order (the kernel prints one value per online node,
//!   in id order). The matrix is used only when every node has a row of the
//!   right length with positive values; otherwise it is dropped with a note
//!   naming the file (the Itanium snapshot has a distance `0`; the offline
//!   node snapshot has 2 values for 1 node).

use super::cpus::cpu_dir;
use super::{NODE_DIR, SetFormat, Tree, numbered, parse_distances};
use crate::topology::CpuSet;
use crate::topology::build::PuFacts;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the NUMA files say.
#[derive(Debug, Default)]
pub(crate) struct Numa {
    /// Nodes by id (increasing), with the CPUs they list.
    pub nodes: Vec<(usize, CpuSet)>,
    /// Distance matrix in the order of `nodes`.
    pub distances: Option<Vec<Vec<u32>>>,
}

/// Checks a distance matrix: square, `n` rows of `n` positive values.
/// Returns the index of the first bad row.
pub(crate) fn check_matrix(rows: &[Option<Vec<u32>>], n: usize) -> Result<Vec<Vec<u32>>, usize> {
    let mut m = Vec::with_capacity(n);
    for (i, r) in rows.iter().enumerate() {
        match r {
            Some(r) if r.len() == n && r.iter().all(|&d| d > 0) => m.push(r.clone()),
            _ => return Err(i),
        }
    }
    if m.len() == n { Ok(m) } else { Err(m.len()) }
}

/// Reads the nodes and distances, and sets `node` of every PU that links to one.
pub(crate) fn read(tree: &mut Tree<'_>, pus: &mut [PuFacts]) -> Numa {
    let dir_ids = tree.numbered_entries(NODE_DIR, "node");
    let mut nodes: BTreeMap<usize, CpuSet> = BTreeMap::new();
    for &id in &dir_ids {
        let set = tree
            .first_set(
                &node_dir(id),
                &[("cpulist", SetFormat::List), ("cpumap", SetFormat::Mask)],
            )
            .unwrap_or_default();
        nodes.insert(id, set);
    }
    link_pus(tree, pus, &mut nodes);
    let distances = if nodes.is_empty() {
        None
    } else {
        distances(tree, &nodes, &dir_ids)
    };
    Numa {
        nodes: nodes.into_iter().collect(),
        distances,
    }
}

/// The directory of node `id`.
fn node_dir(id: usize) -> PathBuf {
    PathBuf::from(format!("{NODE_DIR}/node{id}"))
}

/// Sets `node` of every PU from its `cpuN/nodeM` link, unless the node
/// lists overlap (buggy firmware: the links are as wrong as the lists); a
/// node linked to that has no directory is added to `nodes`, empty.
fn link_pus(tree: &mut Tree<'_>, pus: &mut [PuFacts], nodes: &mut BTreeMap<usize, CpuSet>) {
    let mut seen = CpuSet::new();
    let mut overlap = false;
    for set in nodes.values() {
        overlap |= seen.intersects(set);
        seen = seen.union(set);
    }
    if overlap {
        tree.note("NUMA node CPU lists overlap (buggy firmware?): each CPU goes to the first node listing it; cpuN/nodeM links ignored".into());
    }
    let mut missing: BTreeMap<usize, CpuSet> = BTreeMap::new();
    for p in pus.iter_mut() {
        let links: Vec<usize> = tree
            .list(cpu_dir(p.os))
            .iter()
            .filter_map(|n| numbered(n, "node"))
            .collect();
        let Some(&m) = links.first() else { continue };
        if overlap && nodes.values().any(|s| s.contains(p.os)) {
            continue;
        }
        if links.len() > 1 {
            tree.note(format!(
                "cpu{} links to several nodes {links:?}: node{m} used",
                p.os
            ));
        }
        p.node = Some(m);
        if !nodes.contains_key(&m) {
            missing.entry(m).or_default().insert(p.os);
        }
    }
    for (id, cpus) in &missing {
        tree.note(format!(
            "CPUs {cpus} link to node{id}, which has no directory in {NODE_DIR} (offline node?): kept as node {id}"
        ));
        nodes.insert(*id, CpuSet::new());
    }
}

/// The distance matrix of `nodes` (those of `dir_ids` have a directory),
/// or `None` with a note naming the first node without a good row.
fn distances(
    tree: &mut Tree<'_>,
    nodes: &BTreeMap<usize, CpuSet>,
    dir_ids: &[usize],
) -> Option<Vec<Vec<u32>>> {
    let rows: Vec<Option<Vec<u32>>> = nodes
        .keys()
        .map(|&id| {
            if !dir_ids.contains(&id) {
                return None;
            }
            tree.read(node_dir(id).join("distance"))
                .and_then(|t| parse_distances(&t))
        })
        .collect();
    match check_matrix(&rows, nodes.len()) {
        Ok(m) => Some(m),
        Err(i) => {
            let id = nodes.keys().nth(i).copied().unwrap_or(0);
            let file = tree.path(node_dir(id).join("distance"));
            if dir_ids.contains(&id) && tree.exists(node_dir(id).join("distance")) {
                tree.note(format!(
                    "malformed {}: expected {} positive distances; NUMA distances ignored",
                    file.display(),
                    nodes.len()
                ));
            } else {
                tree.note(format!(
                    "no NUMA distances for node {id}: distances ignored"
                ));
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices() {
        let ok = vec![Some(vec![10, 20]), Some(vec![20, 10])];
        assert_eq!(check_matrix(&ok, 2), Ok(vec![vec![10, 20], vec![20, 10]]));
        assert_eq!(check_matrix(&[Some(vec![0])], 1), Err(0));
        assert_eq!(check_matrix(&[Some(vec![21, 10])], 1), Err(0));
        assert_eq!(check_matrix(&[Some(vec![10, 20]), None], 2), Err(1));
        assert_eq!(check_matrix(&[], 0), Ok(vec![]));
    }
}
