//! Step 3 of the builder: each PU's raw set at every level, as an id, and
//! the order of the levels.
//!
//! Invariants of [`RawKeys`]: two PUs have the same key at a level exactly
//! when their raw sets there are equal; a level the source did not report
//! takes its neighbour's set (the fallbacks of [`level_keys`]); every PU
//! has exactly one NUMA node (`node_id`), so the nodes' members partition
//! the PUs.

use super::facts::Facts;
use super::idmap::IdMap;
use super::normalise::LevelSets;
use super::online::Online;
use super::partition::Blocks;
use crate::topology::{CpuSet, Level, LevelsSeen, level_order};
use std::collections::BTreeMap;

/// The raw set of every PU at every level, as ids (step 3).
pub(super) struct RawKeys {
    /// `keys[i][k]`: PU `i`'s raw set at level `order[k]`. Two ids are equal
    /// exactly when the sets are.
    pub(super) keys: Vec<[usize; 5]>,
    pub(super) order: [Level; 5],
    pub(super) package_inside_numa: bool,
    /// OS index of each PU's NUMA node.
    pub(super) node_id: Vec<usize>,
    /// The PUs of each node, by node OS index.
    pub(super) node_members: BTreeMap<usize, CpuSet>,
}

/// Ids of sets by value: equal sets get equal ids.
#[derive(Default)]
struct Interner<'a> {
    ids: IdMap<&'a CpuSet, usize>,
}

impl<'a> Interner<'a> {
    fn id(&mut self, s: &'a CpuSet) -> usize {
        let next = self.ids.len();
        *self.ids.entry(s).or_insert(next)
    }

    /// The ids of the sets of `blocks`, by block.
    fn ids(&mut self, blocks: &'a Blocks) -> Vec<usize> {
        blocks.sets.iter().map(|s| self.id(s)).collect()
    }
}

/// Whether every online member of `set` has the same `key`.
fn uniform<K: PartialEq>(online: &Online, set: &CpuSet, key: impl Fn(usize) -> K) -> bool {
    let mut it = online.positions(set).map(key);
    let Some(first) = it.next() else { return true };
    it.all(|k| k == first)
}

/// Each PU's NUMA node (the node its source names, else the first node
/// listing it, else the first node) and the PUs of each node.
fn nodes(facts: &Facts, online: &Online) -> (Vec<usize>, BTreeMap<usize, CpuSet>) {
    let mut node_id: Vec<Option<usize>> = facts.pus.iter().map(|p| p.node).collect();
    for (id, set) in &facts.nodes {
        for i in online.positions(set) {
            node_id[i].get_or_insert(*id);
        }
    }
    let default_node = facts.nodes.first().map_or(0, |nd| nd.0);
    let node_id: Vec<usize> = node_id
        .into_iter()
        .map(|x| x.unwrap_or(default_node))
        .collect();
    let members = group(online, |i| Some(node_id[i]));
    (node_id, members)
}

/// The PUs with each `key`, by key (PUs without one left out).
fn group(online: &Online, key: impl Fn(usize) -> Option<usize>) -> BTreeMap<usize, CpuSet> {
    let mut m: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, &os) in online.os.iter().enumerate() {
        if let Some(k) = key(i) {
            m.entry(k).or_default().push(os);
        }
    }
    m.into_iter()
        .map(|(k, v)| (k, CpuSet::from_ids(v)))
        .collect()
}

/// Whether NUMA is the outer level: every package lies within one node
/// while some node holds several packages. A package lies within the node
/// of its members when they all have one node (nodes partition the PUs),
/// and is then smaller than that node exactly when they differ.
fn numa_outside_packages(
    online: &Online,
    node_id: &[usize],
    nodes: &BTreeMap<usize, CpuSet>,
    packages: &BTreeMap<usize, CpuSet>,
    seen: &LevelsSeen,
) -> bool {
    let node_of = |s: &CpuSet| online.positions(s).next().map(|j| node_id[j]);
    let node_len: BTreeMap<usize, usize> = nodes.iter().map(|(&nd, s)| (nd, s.len())).collect();
    seen.package
        && seen.numa
        && packages
            .values()
            .all(|s| uniform(online, s, |j| node_id[j]))
        && packages
            .values()
            .any(|s| node_of(s).is_some_and(|nd| node_len[&nd] != s.len()))
}

/// Notes LLCs that span several NUMA nodes (refinement clips them). The
/// LLC sets some PU has: the L3s, the L2s of PUs without an L3, and all
/// PUs for PUs without either.
fn note_split_llcs(
    online: &Online,
    node_id: &[usize],
    sets: &LevelSets,
    seen: &LevelsSeen,
    notes: &mut Vec<String>,
) {
    let mut l2_is_llc = vec![false; sets.l2.sets.len()];
    let mut online_is_llc = false;
    for (l3, l2) in sets.l3.of.iter().zip(&sets.l2.of) {
        match (l3, l2) {
            (Some(_), _) => {}
            (None, Some(b)) => l2_is_llc[*b] = true,
            (None, None) => online_is_llc = true,
        }
    }
    let in_node = |s: &CpuSet| uniform(online, s, |j| node_id[j]);
    let llc_in_node = sets.l3.sets.iter().all(in_node)
        && sets
            .l2
            .sets
            .iter()
            .zip(&l2_is_llc)
            .all(|(s, &llc)| !llc || in_node(s))
        && (!online_is_llc || in_node(&online.set));
    if (seen.l2 || seen.l3) && !llc_in_node {
        notes.push(
            "an LLC spans several NUMA nodes (sub-NUMA clustering): \
             LLC domains are clipped to their node, as Linux does"
                .into(),
        );
    }
}

/// The core of each PU without SMT siblings (itself); an empty set for the
/// others, which have their core's set.
fn singles(online: &Online, sets: &LevelSets) -> Vec<CpuSet> {
    (0..online.len())
        .map(|i| match sets.core.of[i] {
            None => CpuSet::from_ids([online.os[i]]),
            Some(_) => CpuSet::new(),
        })
        .collect()
}

/// Whether each L2 lies inside one core: all its members have one core
/// (`core`: each PU's core id; cores partition the PUs).
fn l2_in_core(online: &Online, sets: &LevelSets, core: &[usize]) -> Vec<bool> {
    sets.l2
        .sets
        .iter()
        .map(|s| uniform(online, s, |j| core[j]))
        .collect()
}

/// The raw set ids of every PU, in `order`. Each distinct set is interned
/// once, so that a PU only looks up ids. Package: the PUs with its package
/// id, else all. NUMA: the PUs of its node. LLC: its L3, else its L2, else
/// all. Core: its SMT siblings, else itself. Cluster: its cluster, else its
/// L2 when shared by several cores (and an L3 exists above it), else its
/// core.
fn level_keys(
    facts: &Facts,
    online: &Online,
    sets: &LevelSets,
    node_id: &[usize],
    nodes: &BTreeMap<usize, CpuSet>,
    packages: &BTreeMap<usize, CpuSet>,
    order: [Level; 5],
) -> Vec<[usize; 5]> {
    let n = online.len();
    let singles = singles(online, sets);
    let mut ids = Interner::default();
    let all = ids.id(&online.set);
    let node_key: BTreeMap<usize, usize> = nodes.iter().map(|(&k, s)| (k, ids.id(s))).collect();
    let package_key: BTreeMap<usize, usize> =
        packages.iter().map(|(&k, s)| (k, ids.id(s))).collect();
    let (cluster_key, l2_key, l3_key) =
        (ids.ids(&sets.cluster), ids.ids(&sets.l2), ids.ids(&sets.l3));
    let core_key = ids.ids(&sets.core);
    let core: Vec<usize> = (0..n)
        .map(|i| sets.core.of[i].map_or_else(|| ids.id(&singles[i]), |b| core_key[b]))
        .collect();
    let l2_in_core = l2_in_core(online, sets, &core);
    let key = |i: usize, l: Level| match l {
        Level::Package => facts.pus[i].package.map_or(all, |k| package_key[&k]),
        Level::Numa => node_key[&node_id[i]],
        Level::Llc => match (sets.l3.of[i], sets.l2.of[i]) {
            (Some(b), _) => l3_key[b],
            (None, Some(b)) => l2_key[b],
            (None, None) => all,
        },
        Level::Cluster => match (sets.cluster.of[i], sets.l2.of[i]) {
            (Some(b), _) => cluster_key[b],
            (None, Some(b)) if sets.l3.of[i].is_some() && !l2_in_core[b] => l2_key[b],
            _ => core[i],
        },
        _ => core[i],
    };
    (0..n).map(|i| order.map(|l| key(i, l))).collect()
}

/// Step 3: each PU's raw set at every level, as ids ([`level_keys`]), in
/// refinement order: NUMA outside packages when nodes hold several
/// packages ([`numa_outside_packages`]). Notes that decision and LLCs
/// clipped to their node.
pub(super) fn raw_keys(
    facts: &Facts,
    online: &Online,
    sets: &LevelSets,
    seen: &LevelsSeen,
    notes: &mut Vec<String>,
) -> RawKeys {
    let (node_id, node_members) = nodes(facts, online);
    let packages = group(online, |i| facts.pus[i].package);
    let package_inside_numa =
        numa_outside_packages(online, &node_id, &node_members, &packages, seen);
    if package_inside_numa {
        notes.push("NUMA nodes hold several packages: NUMA is the outer level".into());
    }
    note_split_llcs(online, &node_id, sets, seen, notes);
    let order = level_order(package_inside_numa);
    let keys = level_keys(
        facts,
        online,
        sets,
        &node_id,
        &node_members,
        &packages,
        order,
    );
    RawKeys {
        keys,
        order,
        package_inside_numa,
        node_id,
        node_members,
    }
}
