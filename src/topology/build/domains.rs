//! Steps 4 and 5 of the builder: from raw keys to classes ([`refine`]) and
//! from classes to numbered domains and PU records ([`number_domains`]).
//!
//! Invariants of the result ([`Numbered`]): the PUs are in depth-first
//! order; every domain is a contiguous run of them whose members are
//! exactly its set; each domain's parent is the domain one level out that
//! holds it; classes and domains of a level are numbered in that order.

use super::facts::Facts;
use super::idmap::IdMap;
use super::keys::RawKeys;
use super::online::Online;
use crate::topology::{CpuSet, Domain, Level, LevelsSeen, Pu};

/// Step 4: the effective domain of each PU at each level is its class: the
/// PUs whose raw sets agree with its own at this level and every level
/// outside it. For consistent input this is the intersection chain of the
/// raw sets; for inconsistent input (a package id missing on some PUs only,
/// garbage files) it is still a partition that nests, which the
/// intersection chain alone would not be. `class[i][k]` numbers the classes
/// of level `k` in the order of their smallest PU.
pub(super) fn refine(keys: &[[usize; 5]]) -> Vec<[usize; 5]> {
    let mut class = vec![[0usize; 5]; keys.len()];
    for k in 0..5 {
        let mut ids: IdMap<(usize, usize), usize> = IdMap::default();
        for (i, key) in keys.iter().enumerate() {
            let outer = if k == 0 { 0 } else { class[i][k - 1] };
            let next = ids.len();
            class[i][k] = *ids.entry((outer, key[k])).or_insert(next);
        }
    }
    class
}

/// Step 5 result: the PUs in depth-first order and the domains of each
/// level in refinement order.
pub(super) struct Numbered {
    pub(super) pus: Vec<Pu>,
    pub(super) domains: Vec<Vec<Domain>>,
}

/// The smallest OS index and the OS indexes of each class, by level and
/// class. Classes are numbered in PU order, so a class's first PU is its
/// smallest.
fn class_sets(online: &Online, class: &[[usize; 5]]) -> ([Vec<usize>; 5], [Vec<CpuSet>; 5]) {
    let mut min_os: [Vec<usize>; 5] = Default::default();
    let mut members: [Vec<Vec<usize>>; 5] = Default::default();
    for (i, c) in class.iter().enumerate() {
        for k in 0..5 {
            if c[k] == min_os[k].len() {
                min_os[k].push(online.os[i]);
                members[k].push(Vec::new());
            }
            members[k][c[k]].push(online.os[i]);
        }
    }
    (
        min_os,
        members.map(|level| level.into_iter().map(CpuSet::from_ids).collect()),
    )
}

/// The PUs in depth-first order: sorted by the smallest OS index of their
/// class at each level, outermost first, then by OS index.
fn depth_first(online: &Online, class: &[[usize; 5]], min_os: &[Vec<usize>; 5]) -> Vec<usize> {
    let sort_key = |i: usize| -> ([usize; 5], usize) {
        (
            std::array::from_fn(|k| min_os[k][class[i][k]]),
            online.os[i],
        )
    };
    let mut idx: Vec<usize> = (0..online.len()).collect();
    idx.sort_by_cached_key(|&i| sort_key(i));
    idx
}

/// The domains of each level in refinement order, grown one PU at a time
/// in depth-first order: a PU extends the last domain of a level when it
/// has the same class and parent, else starts a new one.
struct Runs {
    domains: Vec<Vec<Domain>>,
    last_class: [usize; 5],
}

impl Runs {
    fn new() -> Self {
        Runs {
            domains: vec![Vec::new(); 5],
            last_class: [usize::MAX; 5],
        }
    }

    /// Places the PU at position `pos`, of classes `class`; a new domain of
    /// level `k` for class `c` gets the set and OS index `new(k, c)`.
    /// Returns the PU's domain index at each level.
    fn place(
        &mut self,
        pos: usize,
        class: [usize; 5],
        new: impl Fn(usize, usize) -> (CpuSet, Option<usize>),
    ) -> [usize; 5] {
        let mut dom_idx = [0usize; 5];
        for k in 0..5 {
            let parent = if k == 0 { 0 } else { dom_idx[k - 1] };
            let c = class[k];
            match self.domains[k].last_mut() {
                Some(d) if self.last_class[k] == c && d.parent == parent => d.pus.end = pos + 1,
                _ => {
                    let (cpuset, os_index) = new(k, c);
                    self.domains[k].push(Domain {
                        cpuset,
                        pus: pos..pos + 1,
                        parent,
                        os_index,
                    });
                }
            }
            self.last_class[k] = c;
            dom_idx[k] = self.domains[k].len() - 1;
        }
        dom_idx
    }
}

/// A PU's capacity on the 1024 = biggest scale, 1024 for all when the
/// source reported no differences.
fn capacity(facts: &Facts, i: usize, max_cap: u32, seen: &LevelsSeen) -> u32 {
    match facts.pus[i].capacity {
        Some(c) if max_cap > 0 && seen.capacity => ((c as u64 * 1024) / max_cap as u64) as u32,
        _ => 1024,
    }
}

/// Step 5: depth-first order ([`depth_first`]), domains as runs of PUs with
/// the same class and parent ([`Runs`]), and the PU records.
pub(super) fn number_domains(
    facts: &Facts,
    online: &Online,
    raw: &RawKeys,
    class: &[[usize; 5]],
    seen: &LevelsSeen,
) -> Numbered {
    let (min_os, sets) = class_sets(online, class);
    let order = depth_first(online, class, &min_os);
    let max_cap = facts
        .pus
        .iter()
        .filter_map(|p| p.capacity)
        .max()
        .unwrap_or(0);
    let level_at = |l: Level| raw.order.iter().position(|&x| x == l).unwrap_or(0);
    let mut pus: Vec<Pu> = Vec::with_capacity(order.len());
    let mut runs = Runs::new();
    for (pos, &i) in order.iter().enumerate() {
        let dom_idx = runs.place(pos, class[i], |k, c| {
            let os_index = match raw.order[k] {
                Level::Numa if seen.numa => Some(raw.node_id[i]),
                Level::Package => facts.pus[i].package,
                _ => None,
            };
            (sets[k][c].clone(), os_index)
        });
        let at = |l: Level| dom_idx[level_at(l)];
        pus.push(Pu {
            os_index: online.os[i],
            core: at(Level::Core),
            cluster: at(Level::Cluster),
            llc: at(Level::Llc),
            numa: at(Level::Numa),
            package: at(Level::Package),
            capacity: capacity(facts, i, max_cap, seen),
        });
    }
    Numbered {
        pus,
        domains: runs.domains,
    }
}
