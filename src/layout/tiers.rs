//! Steal tiers of every worker (see the [layout module docs](super) for the
//! rules). Ranges of worker indices only: no allocation per steal later.

use super::Layout;
use super::options::StealOrder;
use super::place::{Tier, TierKind};
use std::collections::BTreeMap;
use std::ops::Range;

/// `outer` without `inner` (`inner` inside `outer`): at most two ranges,
/// empty ones left out.
pub(super) fn minus(outer: &Range<usize>, inner: &Range<usize>) -> Vec<Range<usize>> {
    debug_assert!(outer.start <= inner.start && inner.end <= outer.end);
    [outer.start..inner.start, inner.end..outer.end]
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect()
}

/// Appends `r` to ascending, disjoint `ranges`, joining it to the last one
/// when they touch, so that the ranges stay maximal.
pub(super) fn push_merged(ranges: &mut Vec<Range<usize>>, r: Range<usize>) {
    match ranges.last_mut() {
        Some(last) if last.end == r.start => last.end = r.end,
        _ => ranges.push(r),
    }
}

/// Appends a tier of kind `kind` over `ranges` (distance 0) in a layout
/// of `llcs` LLCs, unless `ranges` is empty.
fn push_tier(tiers: &mut Vec<Tier>, kind: TierKind, ranges: Vec<Range<usize>>, llcs: usize) {
    if !ranges.is_empty() {
        tiers.push(Tier::new(kind, ranges, 0, llcs));
    }
}

/// The remote tiers of the workers of dense NUMA node `a`: the nodes outside
/// its outer domain, one tier per distance, nearest first.
///
/// The outer domain (its package, or the node itself when nodes enclose
/// packages) is a union of whole nodes, and the nodes tile the workers, so
/// the nodes outside it are the workers before and after it. Without a
/// distance matrix they are all at one distance
/// ([`Topology::numa_distance`](crate::topology::Topology::numa_distance)):
/// one tier of at most two ranges. With a matrix, one pass over the nodes.
fn remote_tiers(l: &Layout, a: usize) -> Vec<Tier> {
    let t = &l.topology;
    let outer = if t.package_inside_numa() {
        l.numa_ranges[a].clone()
    } else {
        l.package_ranges[l.workers[l.numa_ranges[a].start].package].clone()
    };
    let nodes = &l.numa_ranges;
    // Dense nodes before and after the outer domain.
    let before = 0..nodes.partition_point(|r| r.start < outer.start);
    let after = nodes.partition_point(|r| r.start < outer.end)..nodes.len();
    let mut by_distance: BTreeMap<u32, Vec<Range<usize>>> = BTreeMap::new();
    for side in [before, after].into_iter().filter(|s| !s.is_empty()) {
        let na = l.numa_topo[a];
        if t.distance_matrix().is_none() {
            let d = t.numa_distance(na, l.numa_topo[side.start]);
            push_merged(
                by_distance.entry(d).or_default(),
                nodes[side.start].start..nodes[side.end - 1].end,
            );
            continue;
        }
        for b in side {
            let d = t.numa_distance(na, l.numa_topo[b]);
            push_merged(by_distance.entry(d).or_default(), nodes[b].clone());
        }
    }
    by_distance
        .into_iter()
        .map(|(distance, ranges)| Tier::new(TierKind::Remote, ranges, distance, l.llc_ranges.len()))
        .collect()
}

/// The tiers of every worker, by worker index, with or without a cluster
/// tier (`cluster_aware`; the layout's own option is not consulted).
pub(super) fn all(l: &Layout, cluster_aware: bool) -> Vec<Vec<Tier>> {
    let n = l.workers.len();
    let llcs = l.llc_ranges.len();
    if l.options.steal_order == StealOrder::Flat {
        return (0..n)
            .map(|w| {
                let ranges = minus(&(0..n), &(w..w + 1));
                if ranges.is_empty() {
                    Vec::new()
                } else {
                    vec![Tier::flat(ranges)]
                }
            })
            .collect();
    }
    let remote: Vec<Vec<Tier>> = (0..l.numa_ranges.len())
        .map(|a| remote_tiers(l, a))
        .collect();
    let swap = l.topology.package_inside_numa();
    l.workers
        .iter()
        .map(|w| {
            let mut tiers = Vec::new();
            let me = w.index..w.index + 1;
            let core = &l.core_ranges[w.core];
            push_tier(&mut tiers, TierKind::Smt, minus(core, &me), llcs);
            let cluster = &l.cluster_ranges[w.cluster];
            let below_llc = if cluster_aware {
                push_tier(&mut tiers, TierKind::Cluster, minus(cluster, core), llcs);
                cluster
            } else {
                core
            };
            let llc = &l.llc_ranges[w.llc];
            push_tier(&mut tiers, TierKind::Llc, minus(llc, below_llc), llcs);
            let numa = &l.numa_ranges[w.numa];
            let package = &l.package_ranges[w.package];
            if swap {
                push_tier(&mut tiers, TierKind::Package, minus(package, llc), llcs);
                push_tier(&mut tiers, TierKind::Numa, minus(numa, package), llcs);
            } else {
                push_tier(&mut tiers, TierKind::Numa, minus(numa, llc), llcs);
                push_tier(&mut tiers, TierKind::Package, minus(package, numa), llcs);
            }
            tiers.extend(remote[w.numa].iter().cloned());
            tiers
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn minus_and_merge() {
        assert_eq!(minus(&(0..8), &(2..4)), [0..2, 4..8]);
        assert_eq!(minus(&(0..8), &(0..4)), [4..8]);
        assert_eq!(minus(&(0..8), &(4..8)), [0..4]);
        assert!(minus(&(3..4), &(3..4)).is_empty());
        let mut v = Vec::new();
        push_merged(&mut v, 0..4);
        push_merged(&mut v, 4..8);
        push_merged(&mut v, 12..16);
        assert_eq!(v, [0..8, 12..16]);
    }
}
