//! Steps 1 and 2 of the builder: the source's facts made consistent, and
//! which levels they report.
//!
//! Invariants after [`normalise`]: `Facts::pus` is sorted by OS index
//! without repeats, and a PU is known from then on by its position in it
//! ([`Online`]); each of the four levels reported as sets (core, cluster,
//! L2, L3) is a partition of the PUs that reported one ([`LevelSets`]);
//! package ids are known for all PUs or for none.

use super::facts::Facts;
use super::online::Online;
use super::partition::{Blocks, partition};
use crate::topology::{CpuSet, LevelsSeen};

/// The partitions of the four levels sources report as sets.
pub(super) struct LevelSets {
    pub(super) core: Blocks,
    pub(super) cluster: Blocks,
    pub(super) l2: Blocks,
    pub(super) l3: Blocks,
}

/// Step 1: sorts the PUs by OS index (dropping repeated ones), makes the
/// four reported levels partitions ([`partition`]), and drops package ids
/// that only some PUs report (the level cannot be trusted to partition the
/// PUs).
pub(super) fn normalise(facts: &mut Facts, notes: &mut Vec<String>) -> (Online, LevelSets) {
    facts.pus.sort_by_key(|p| p.os);
    facts.pus.dedup_by_key(|p| p.os);
    let os: Vec<usize> = facts.pus.iter().map(|p| p.os).collect();
    let online = Online {
        set: CpuSet::from_ids(os.iter().copied()),
        os,
    };
    let pus = &facts.pus;
    let sets = LevelSets {
        core: partition(pus, |p| p.core.as_ref(), &online, "core", notes),
        cluster: partition(pus, |p| p.cluster.as_ref(), &online, "cluster", notes),
        l2: partition(pus, |p| p.l2.as_ref(), &online, "L2", notes),
        l3: partition(pus, |p| p.l3.as_ref(), &online, "L3", notes),
    };
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
    (online, sets)
}

/// Step 2: which levels the source reported.
pub(super) fn levels_seen(facts: &Facts, sets: &LevelSets) -> LevelsSeen {
    LevelsSeen {
        smt: sets.core.sets.iter().any(|c| c.len() > 1),
        cluster: facts.saw_cluster,
        l2: !sets.l2.sets.is_empty(),
        l3: !sets.l3.sets.is_empty(),
        numa: !facts.nodes.is_empty(),
        package: facts.pus.iter().any(|p| p.package.is_some()),
        capacity: {
            let caps: Vec<u32> = facts.pus.iter().filter_map(|p| p.capacity).collect();
            caps.len() == facts.pus.len() && caps.iter().any(|&c| c != caps[0])
        },
    }
}
