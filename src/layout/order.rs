//! The LLC search order ([`Layout::llc_order`](super::Layout::llc_order))
//! and the nearest LLC of a CPU, without a list per LLC.
//!
//! # The order, as ranges (why it is linear)
//! Seen from a place (a topology NUMA domain `na` and package `pa`), LLC `b`
//! sorts by (rank, NUMA distance from `na`, `b`), where rank 0 is the LLCs
//! of the same NUMA domain and package, rank 1 those sharing only the outer
//! of the two (the package, or the NUMA domain when NUMA domains enclose
//! packages), rank 2 the rest. Dense LLC ids follow the depth-first worker
//! order, so the LLCs of a NUMA domain or a package are a contiguous range
//! of ids: rank 0 is `inner ∩ outer`, rank 1 `outer \ inner`, rank 2
//! everything outside `outer`. Within a rank the LLCs of one NUMA domain
//! share their distance, so each rank is sorted by cutting it at NUMA
//! domain boundaries. Without a distance matrix every other NUMA domain is
//! at one distance ([`Topology::numa_distance`]), so no cutting is needed.
//!
//! An order is a few ranges: O(1) without a matrix, O(NUMA domains) with
//! one, computed once per place. Each LLC keeps its place's order with
//! itself cut out ([`Layout::llc_order_runs`](super::Layout::llc_order_runs));
//! its list ([`Layout::llc_order`](super::Layout::llc_order)) is made from
//! that on first use.
//!
//! [`Topology::numa_distance`]: crate::topology::Topology::numa_distance

use super::tiers::push_merged;
use crate::topology::Topology;
use std::collections::HashMap;
use std::ops::Range;

/// `a ∩ b` (empty when they do not meet).
fn meet(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    let r = a.start.max(b.start)..a.end.min(b.end);
    if r.is_empty() { 0..0 } else { r }
}

/// `a \ b` as at most two ranges, empty ones left out.
fn without(a: &Range<usize>, b: &Range<usize>) -> [Range<usize>; 2] {
    let b = meet(a, b);
    if b.is_empty() {
        return [a.clone(), 0..0];
    }
    [a.start..b.start, b.end..a.end]
}

/// Where the LLCs with workers are in the topology.
pub(super) struct LlcPlaces {
    /// Dense LLCs of each topology NUMA domain (empty: none with workers).
    by_numa: Vec<Range<usize>>,
    /// Dense LLCs of each topology package.
    by_package: Vec<Range<usize>>,
    /// Topology NUMA domain of each dense LLC.
    numa_of: Vec<usize>,
}

impl LlcPlaces {
    /// `llc_place[b]`: topology NUMA domain and package of dense LLC `b`.
    pub(super) fn new(topo: &Topology, llc_place: &[(usize, usize)]) -> LlcPlaces {
        let mut by_numa = vec![0..0; topo.numa_domains().len()];
        let mut by_package = vec![0..0; topo.packages().len()];
        for (b, &(n, p)) in llc_place.iter().enumerate() {
            for r in [&mut by_numa[n], &mut by_package[p]] {
                if r.start == r.end {
                    *r = b..b + 1;
                } else {
                    r.end = b + 1;
                }
            }
        }
        LlcPlaces {
            by_numa,
            by_package,
            numa_of: llc_place.iter().map(|p| p.0).collect(),
        }
    }

    /// All dense LLCs seen from NUMA domain `na` and package `pa`
    /// (topology indexes), nearest first, as maximal ascending runs.
    pub(super) fn order(&self, topo: &Topology, na: usize, pa: usize) -> Vec<Range<usize>> {
        let (numa, package) = (&self.by_numa[na], &self.by_package[pa]);
        let (inner, outer) = if topo.package_inside_numa() {
            (package, numa)
        } else {
            (numa, package)
        };
        let all = 0..self.numa_of.len();
        let mut out = Vec::new();
        let own = meet(inner, outer);
        if !own.is_empty() {
            push_merged(&mut out, own);
        }
        let ranks = [without(outer, inner), without(&all, outer)];
        for rank in &ranks {
            self.by_distance(topo, na, rank, &mut out);
        }
        out
    }

    /// Appends the LLCs of `ranges` (ascending) sorted by (NUMA distance
    /// from `na`, index).
    fn by_distance(
        &self,
        topo: &Topology,
        na: usize,
        ranges: &[Range<usize>],
        out: &mut Vec<Range<usize>>,
    ) {
        if topo.distance_matrix().is_none() {
            // One distance for every other NUMA domain: already sorted.
            for r in ranges.iter().filter(|r| !r.is_empty()) {
                push_merged(out, r.clone());
            }
            return;
        }
        // Runs of one NUMA domain each, with their distance.
        let mut runs: Vec<(u32, Range<usize>)> = Vec::new();
        for r in ranges {
            let mut b = r.start;
            while b < r.end {
                let nb = self.numa_of[b];
                let run = b..self.by_numa[nb].end.min(r.end);
                b = run.end;
                runs.push((topo.numa_distance(na, nb), run));
            }
        }
        runs.sort_by_key(|(d, r)| (*d, r.start));
        for (_, r) in runs {
            push_merged(out, r);
        }
    }
}

/// The order of every place asked for, computed once per place.
pub(super) struct LlcOrders<'a> {
    topo: &'a Topology,
    places: LlcPlaces,
    /// Order of each place asked for.
    orders: HashMap<(usize, usize), Vec<Range<usize>>>,
}

impl<'a> LlcOrders<'a> {
    /// `llc_place[b]`: topology NUMA domain and package of dense LLC `b`.
    pub(super) fn new(topo: &'a Topology, llc_place: &[(usize, usize)]) -> LlcOrders<'a> {
        LlcOrders {
            topo,
            places: LlcPlaces::new(topo, llc_place),
            orders: HashMap::new(),
        }
    }

    /// All dense LLCs seen from NUMA domain `na` and package `pa`, nearest
    /// first, as maximal ascending runs.
    fn order(&mut self, na: usize, pa: usize) -> &[Range<usize>] {
        let (topo, places) = (self.topo, &self.places);
        self.orders
            .entry((na, pa))
            .or_insert_with(|| places.order(topo, na, pa))
    }

    /// The dense LLC nearest to place (`na`, `pa`): the first of its order.
    pub(super) fn nearest(&mut self, na: usize, pa: usize) -> usize {
        self.order(na, pa).first().map_or(0, |r| r.start)
    }

    /// The other LLCs seen from dense LLC `llc` at place (`na`, `pa`),
    /// nearest first, as runs: its place's order with `llc` cut out.
    pub(super) fn others(&mut self, llc: usize, na: usize, pa: usize) -> Box<[Range<usize>]> {
        let mut out = Vec::new();
        for r in self.order(na, pa) {
            if r.contains(&llc) {
                out.extend(
                    [r.start..llc, llc + 1..r.end]
                        .into_iter()
                        .filter(|r| !r.is_empty()),
                );
            } else {
                out.push(r.clone());
            }
        }
        out.into()
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn range_algebra() {
        assert_eq!(meet(&(0..8), &(4..12)), 4..8);
        assert!(meet(&(0..4), &(4..8)).is_empty());
        assert_eq!(without(&(0..8), &(2..4)), [0..2, 4..8]);
        assert_eq!(without(&(0..8), &(6..12)), [0..6, 8..8]);
        assert_eq!(without(&(0..8), &(8..12)), [0..8, 0..0]);
    }

    #[test]
    fn orders_by_rank_then_distance() {
        // Two packages of two nodes of two LLCs: from LLC 0, its node's LLC,
        // then its package's, then the rest (all at one distance).
        let t = Topology::synthetic("package:2 numa:2 llc:2 core:1").unwrap();
        let place: Vec<(usize, usize)> = t.pus().iter().map(|p| (p.numa, p.package)).collect();
        let mut o = LlcOrders::new(&t, &place);
        assert_eq!(&*o.others(0, 0, 0), [1..8]);
        assert_eq!(&*o.others(5, 2, 1), [4..5, 6..8, 0..4]);
        assert_eq!(o.nearest(3, 1), 6);
    }
}
