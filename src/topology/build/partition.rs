//! One level's reported sets made a partition of the PUs (step 1 of the
//! builder, for each of core, cluster, L2 and L3).
//!
//! Invariants of the result ([`Blocks`]): every block holds at least one
//! PU that reported a set, its members are online, blocks are disjoint, a
//! PU that reported a set is in a block, and blocks are numbered in the
//! order of their smallest PU. Each distinct set is clipped and walked
//! once, however many PUs share it.

use super::facts::PuFacts;
use super::idmap::IdMap;
use super::online::Online;
use crate::topology::CpuSet;
use std::sync::Arc;

/// The sets one level reported, made a partition of the PUs by
/// [`partition`]: `of[i]` is the block of PU `i` (`None`: it reported no set
/// and no PU names it), `sets[b]` the OS indexes of block `b`. Blocks are
/// numbered in the order of their smallest PU.
pub(super) struct Blocks {
    pub(super) of: Vec<Option<usize>>,
    pub(super) sets: Vec<CpuSet>,
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The distinct sets of one level, clipped to the online PUs, and the set
/// of each PU (an index into them). Recognized by pointer first (shared
/// `Arc`s), then by value, so each distinct set is clipped once.
fn distinct_sets(
    pus: &[PuFacts],
    field: impl Fn(&PuFacts) -> Option<&Arc<CpuSet>>,
    online: &Online,
) -> (Vec<CpuSet>, Vec<Option<usize>>) {
    let mut by_ptr: IdMap<*const CpuSet, usize> = IdMap::default();
    let mut by_value: IdMap<&CpuSet, usize> = IdMap::default();
    let mut clipped: Vec<CpuSet> = Vec::new();
    let mut set_of: Vec<Option<usize>> = vec![None; pus.len()];
    for (i, p) in pus.iter().enumerate() {
        let Some(s) = field(p) else { continue };
        let k = *by_ptr.entry(Arc::as_ptr(s)).or_insert_with(|| {
            *by_value.entry(s.as_ref()).or_insert_with(|| {
                clipped.push(s.intersection(&online.set));
                clipped.len() - 1
            })
        });
        set_of[i] = Some(k);
    }
    (clipped, set_of)
}

/// Union-find over positions: the members of a set are one component, and
/// a PU joins the component of its own set. Returns each PU's root.
fn components(online: &Online, clipped: &[CpuSet], set_of: &[Option<usize>]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..online.len()).collect();
    let mut first_member: Vec<Option<usize>> = vec![None; clipped.len()];
    for (k, s) in clipped.iter().enumerate() {
        for j in online.positions(s) {
            match first_member[k] {
                None => first_member[k] = Some(j),
                Some(f) => {
                    let (a, b) = (find(&mut parent, f), find(&mut parent, j));
                    parent[a] = b;
                }
            }
        }
    }
    for (i, k) in set_of.iter().enumerate() {
        if let Some(f) = k.and_then(|k| first_member[k]) {
            let (a, b) = (find(&mut parent, i), find(&mut parent, f));
            parent[a] = b;
        }
    }
    (0..online.len()).map(|i| find(&mut parent, i)).collect()
}

/// Makes the raw sets of one level a partition of the PUs: PUs whose sets
/// name each other (directly or through others) end up in one set, the
/// union; a PU that reported no set but is named by others gets theirs.
/// Real files disagree with each other (an L2 list that names only the
/// PU itself while its mask names its module sibling); merging is the
/// conservative reading, and a note records it.
///
/// Each set is first clipped to the online PUs, and a PU always belongs to
/// its own set (sources with a list that omits the PU itself are repaired).
/// A distinct set is clipped and walked once, however many PUs share it.
pub(super) fn partition(
    pus: &[PuFacts],
    field: impl Fn(&PuFacts) -> Option<&Arc<CpuSet>>,
    online: &Online,
    what: &str,
    notes: &mut Vec<String>,
) -> Blocks {
    let (clipped, set_of) = distinct_sets(pus, field, online);
    let root = components(online, &clipped, &set_of);
    let comps = Components::of(&root, &set_of);
    if comps.merged_some(online, &clipped, &set_of, &root) {
        notes.push(format!(
            "{what} sets reported by different CPUs disagree: merged into their union"
        ));
    }
    comps.blocks(online, &root)
}

/// The size of each union-find component and whether it holds a reported
/// set, indexed by root (a PU that reported nothing, a garbage file, but
/// is named by others joins their set).
struct Components {
    size: Vec<usize>,
    reported: Vec<bool>,
}

impl Components {
    fn of(root: &[usize], set_of: &[Option<usize>]) -> Self {
        let mut size = vec![0usize; root.len()];
        let mut reported = vec![false; root.len()];
        for (i, &r) in root.iter().enumerate() {
            size[r] += 1;
            reported[r] |= set_of[i].is_some();
        }
        Components { size, reported }
    }

    /// Whether some PU's repaired set differs from its component's union.
    /// The set lies inside the component, so it differs exactly when it is
    /// smaller. (Sizes once per set, not per PU.)
    fn merged_some(
        &self,
        online: &Online,
        clipped: &[CpuSet],
        set_of: &[Option<usize>],
        root: &[usize],
    ) -> bool {
        let len: Vec<usize> = clipped.iter().map(CpuSet::len).collect();
        set_of.iter().enumerate().any(|(i, k)| {
            k.is_some_and(|k| {
                let own = len[k] + usize::from(!clipped[k].contains(online.os[i]));
                own != self.size[root[i]]
            })
        })
    }

    /// The components holding a reported set, as blocks numbered in the
    /// order of their smallest PU.
    fn blocks(&self, online: &Online, root: &[usize]) -> Blocks {
        let mut block_of_root = vec![usize::MAX; root.len()];
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut of = vec![None; root.len()];
        for (i, &r) in root.iter().enumerate() {
            if !self.reported[r] {
                continue;
            }
            if block_of_root[r] == usize::MAX {
                block_of_root[r] = members.len();
                members.push(Vec::new());
            }
            members[block_of_root[r]].push(online.os[i]);
            of[i] = Some(block_of_root[r]);
        }
        Blocks {
            of,
            sets: members.into_iter().map(CpuSet::from_ids).collect(),
        }
    }
}
