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
//!
//! # Steps and cost
//!
//! [`build`] runs six named steps, each in its own module:
//! [`normalise`](normalise::normalise) (PUs sorted, raw sets clipped to
//! online PUs and made partitions by [`partition`](partition::partition),
//! partial package ids dropped), [`levels_seen`],
//! [`raw_keys`] (each PU's raw set at every level, as an
//! id), [`refine`] (the classes above),
//! [`number_domains`] (depth-first order, domains
//! and PU records) and [`finish`](finish::finish) (the reported sets, NUMA
//! nodes, allowed CPUs). The sources' side of the contract is in [`facts`].
//!
//! Time and memory are linear in the number of PUs times the number of
//! levels, plus the size of the distinct sets the source reports: every
//! distinct set is read once however many PUs share it (sources share one
//! set between the PUs of a domain, [`PuFacts`] holds `Arc`s; equal sets
//! reported separately are recognized by value), and the steps after
//! [`normalise`](normalise::normalise) work on ids of sets
//! ([`IdMap`](idmap::IdMap)), never on a set per PU. Only the distance
//! matrix, which the source gives, is quadratic, in NUMA nodes.

mod domains;
mod facts;
mod finish;
mod idmap;
mod keys;
mod normalise;
mod online;
mod partition;

pub(crate) use facts::{Facts, PuFacts};

use super::{Source, Topology, TopologyError};
use domains::{number_domains, refine};
use finish::{Parts, finish};
use keys::raw_keys;
use normalise::{levels_seen, normalise};

/// Builds the nested topology. Fails only when there is no PU at all.
pub(crate) fn build(mut facts: Facts, source: Source) -> Result<Topology, TopologyError> {
    if facts.pus.is_empty() {
        return Err(TopologyError::NoPus {
            source: source.to_string(),
        });
    }
    let mut notes = std::mem::take(&mut facts.notes);
    let (online, sets) = normalise(&mut facts, &mut notes);
    let seen = levels_seen(&facts, &sets);
    let raw = raw_keys(&facts, &online, &sets, &seen, &mut notes);
    let class = refine(&raw.keys);
    let numbered = number_domains(&facts, &online, &raw, &class, &seen);
    Ok(finish(
        facts,
        source,
        Parts {
            online,
            sets,
            raw,
            numbered,
            seen,
            notes,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::CpuSet;
    use std::sync::Arc;

    /// 8 PUs in LLCs of 4 and cores of 2; `shared`: one `Arc` per domain,
    /// else a separate copy per PU (as sysfs reads them).
    fn facts(shared: bool) -> Facts {
        let set = |lo: usize, len: usize| Arc::new(CpuSet::from_ids(lo..lo + len));
        let llcs = [set(0, 4), set(4, 4)];
        let cores: Vec<Arc<CpuSet>> = (0..4).map(|c| set(2 * c, 2)).collect();
        let pick = |a: &Arc<CpuSet>| {
            if shared {
                a.clone()
            } else {
                Arc::new((**a).clone())
            }
        };
        let pus = (0..8)
            .rev() // sources may list PUs in any order
            .map(|os| PuFacts {
                os,
                core: Some(pick(&cores[os / 2])),
                l3: Some(pick(&llcs[os / 4])),
                ..Default::default()
            })
            .collect();
        Facts {
            pus,
            ..Default::default()
        }
    }

    fn summary(t: &Topology) -> String {
        format!(
            "{:?} {:?} {:?} {:?}",
            t.pus(),
            t.cores(),
            t.llcs(),
            t.notes()
        )
    }

    #[test]
    fn shared_and_separate_sets_build_alike() {
        let a = build(facts(true), Source::Synthetic("a".into())).unwrap();
        let b = build(facts(false), Source::Synthetic("a".into())).unwrap();
        assert_eq!(summary(&a), summary(&b));
        assert_eq!(a.llcs().len(), 2);
        assert_eq!(a.cores()[3].cpuset.to_string(), "6-7");
        assert!(a.notes().is_empty(), "{:?}", a.notes());
    }

    #[test]
    fn disagreeing_sets_merge_with_a_note() {
        // PU 5 names only itself and PU 6 (offline 9 is clipped); PU 7
        // reports nothing but is named by PU 6: one L3 of 4-7, noted.
        let mut f = facts(true);
        for p in &mut f.pus {
            match p.os {
                5 => p.l3 = Some(Arc::new(CpuSet::from_ids([6, 9]))),
                7 => p.l3 = None,
                _ => {}
            }
        }
        let t = build(f, Source::Synthetic("b".into())).unwrap();
        assert_eq!(t.llcs()[1].cpuset.to_string(), "4-7");
        assert_eq!(t.l3_cpusets().len(), 2);
        assert_eq!(
            t.notes(),
            ["L3 sets reported by different CPUs disagree: merged into their union"]
        );
    }
}
