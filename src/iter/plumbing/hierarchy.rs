//! The first split of an indexed parallel iterator along the cache
//! hierarchy, as pure code over a [`Layout`]: the runtime calls
//! [`first_split`] for every such run, and a simulator can call the same
//! function on layouts of machines it does not have.
//!
//! An iterator of `len` items is cut into contiguous pieces, one per LLC,
//! each LLC's piece in proportion to the summed capacity of its workers
//! (so on a hybrid machine an LLC of big cores gets more items than one of
//! little cores); then each LLC's piece likewise per cluster, and, at
//! [`SplitDepth::Worker`] (affinity replay), per worker. How the pieces
//! run is described in [`plumbing`](super) ("The first split").
//!
//! Invariants of the pieces [`first_split`] returns:
//! - they are non-empty (unless `len` is 0: then one empty piece),
//!   contiguous, in order, and cover `0..len` exactly;
//! - their domains follow the layout's worker order: a piece's domain's
//!   workers come after those of the piece before;
//! - each holds at least `min_len` items, or the whole iterator (a level
//!   whose cut would give a child fewer than `min_len` items is not cut);
//! - the cut of a domain into its children gives child `i` either
//!   `floor(n * w_i / W)` or one more items (`w_i` its capacity, `W` their
//!   sum, `n` the parent's items: largest remainders first, ties to the
//!   lower index), so the sizes depend only on the layout and `len`.

use std::ops::Range;

use crate::layout::Layout;

/// How far down the hierarchy [`first_split`] cuts. An LLC whose clusters
/// are single cores (no cluster level on the machine) is not cut per
/// cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum SplitDepth {
    /// One piece per LLC.
    Llc,
    /// One piece per cluster (per LLC where the machine has no cluster
    /// level: every cluster a single core).
    Cluster,
    /// One piece per worker (affinity replay records who ran each).
    Worker,
}

/// The domain a piece of the first split belongs to (dense ids of the
/// [`Layout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Domain {
    /// The whole pool: the iterator was not cut.
    Pool,
    /// An LLC ([`Layout::llc_ranges`]).
    Llc(usize),
    /// A cluster ([`Layout::cluster_ranges`]).
    Cluster(usize),
    /// A worker.
    Worker(usize),
}

impl Domain {
    /// Its workers.
    pub(crate) fn workers(&self, layout: &Layout) -> Range<usize> {
        match *self {
            Domain::Pool => 0..layout.workers().len(),
            Domain::Llc(l) => layout.llc_ranges()[l].clone(),
            Domain::Cluster(c) => layout.cluster_ranges()[c].clone(),
            Domain::Worker(w) => w..w + 1,
        }
    }

    /// The LLC it lies in (`None` for [`Domain::Pool`]).
    pub(crate) fn llc(&self, layout: &Layout) -> Option<usize> {
        match *self {
            Domain::Pool => None,
            Domain::Llc(l) => Some(l),
            _ => Some(layout.workers()[self.workers(layout).start].llc),
        }
    }

    /// The cluster it lies in (`None` for the pool and for LLCs).
    pub(crate) fn cluster(&self, layout: &Layout) -> Option<usize> {
        match *self {
            Domain::Pool | Domain::Llc(_) => None,
            Domain::Cluster(c) => Some(c),
            Domain::Worker(w) => Some(layout.workers()[w].cluster),
        }
    }
}

/// One piece of the first split: items `range`, started in `domain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    /// The items (indices into the iterator).
    pub range: Range<usize>,
    /// Where it starts.
    pub domain: Domain,
}

/// Cuts `len` items along `layout`'s hierarchy down to `depth`: see the
/// [module docs](self) for the rules. A layout with one LLC and
/// [`SplitDepth::Llc`] gives one piece.
pub(crate) fn first_split(
    layout: &Layout,
    len: usize,
    min_len: usize,
    depth: SplitDepth,
) -> Vec<Piece> {
    let mut out = Vec::new();
    if layout.workers().is_empty() {
        out.push(Piece {
            range: 0..len,
            domain: Domain::Pool,
        });
        return out;
    }
    cut(
        layout,
        Piece {
            range: 0..len,
            domain: Domain::Pool,
        },
        min_len.max(1),
        depth,
        &mut out,
    );
    out
}

/// Cuts `piece` into its domain's children (recursively), or keeps it.
fn cut(layout: &Layout, piece: Piece, min: usize, depth: SplitDepth, out: &mut Vec<Piece>) {
    let kids = children(layout, piece.domain, depth);
    match kids.len() {
        0 => out.push(piece),
        1 => cut(
            layout,
            Piece {
                range: piece.range,
                domain: kids[0],
            },
            min,
            depth,
            out,
        ),
        _ => {
            let weights: Vec<u64> = kids
                .iter()
                .map(|d| capacity(layout, d.workers(layout)))
                .collect();
            let sizes = apportion(piece.range.len(), &weights);
            if sizes.iter().any(|&s| s < min) {
                out.push(piece);
                return;
            }
            let mut start = piece.range.start;
            for (&domain, size) in kids.iter().zip(sizes) {
                let range = start..start + size;
                start += size;
                cut(layout, Piece { range, domain }, min, depth, out);
            }
        }
    }
}

/// The domains one level below `d`, down to `depth`.
fn children(layout: &Layout, d: Domain, depth: SplitDepth) -> Vec<Domain> {
    match d {
        Domain::Pool => (0..layout.llc_ranges().len()).map(Domain::Llc).collect(),
        Domain::Llc(l) if depth >= SplitDepth::Cluster && has_clusters(layout, l) => {
            let r = &layout.llc_ranges()[l];
            let first = layout.workers()[r.start].cluster;
            let last = layout.workers()[r.end - 1].cluster;
            (first..=last).map(Domain::Cluster).collect()
        }
        Domain::Llc(l) if depth == SplitDepth::Worker => {
            layout.llc_ranges()[l].clone().map(Domain::Worker).collect()
        }
        Domain::Cluster(c) if depth == SplitDepth::Worker => layout.cluster_ranges()[c]
            .clone()
            .map(Domain::Worker)
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether LLC `l` has a cluster level: some cluster of it spans more
/// than one core (where the machine reports none, each core is its own
/// cluster, and cutting per cluster would be cutting per core).
pub(crate) fn has_clusters(layout: &Layout, l: usize) -> bool {
    let w = layout.workers();
    let r = &layout.llc_ranges()[l];
    let (first, last) = (w[r.start].cluster, w[r.end - 1].cluster);
    (first..=last).any(|c| {
        let cr = &layout.cluster_ranges()[c];
        w[cr.start].core != w[cr.end - 1].core
    })
}

/// Summed capacity of workers `r` (each at least 1).
fn capacity(layout: &Layout, r: Range<usize>) -> u64 {
    layout.workers()[r]
        .iter()
        .map(|w| u64::from(w.capacity.max(1)))
        .sum()
}

/// `n` split in proportion to `weights` (largest remainders, ties to the
/// lower index); the sizes sum to `n`.
fn apportion(n: usize, weights: &[u64]) -> Vec<usize> {
    let total: u128 = weights.iter().map(|&w| u128::from(w.max(1))).sum();
    let n128 = n as u128;
    let mut sizes = Vec::with_capacity(weights.len());
    let mut rems = Vec::with_capacity(weights.len());
    for (i, &w) in weights.iter().enumerate() {
        let p = n128 * u128::from(w.max(1));
        // Each share is at most `n`, so it fits in a usize.
        sizes.push((p / total) as usize);
        rems.push((p % total, i));
    }
    let left = n - sizes.iter().sum::<usize>();
    // Largest remainder first, lower index on ties.
    rems.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in rems.iter().take(left) {
        sizes[i] += 1;
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LayoutOptions, Topology};

    fn layout(spec: &str) -> Layout {
        Layout::new(
            &Topology::synthetic(spec).unwrap(),
            &LayoutOptions::default(),
        )
        .unwrap()
    }

    /// The invariants of the module docs.
    fn check(l: &Layout, len: usize, min: usize, p: &[Piece]) {
        assert!(!p.is_empty());
        assert_eq!(p[0].range.start, 0);
        assert_eq!(p.last().unwrap().range.end, len);
        for w in p.windows(2) {
            assert_eq!(w[0].range.end, w[1].range.start, "contiguous");
            assert!(
                w[0].domain.workers(l).end <= w[1].domain.workers(l).start,
                "in worker order"
            );
        }
        if p.len() > 1 {
            assert!(p.iter().all(|p| p.range.len() >= min.max(1)), "{p:?}");
        }
        assert_eq!(p.iter().map(|p| p.range.len()).sum::<usize>(), len);
    }

    #[test]
    fn one_piece_per_llc_then_cluster_then_worker() {
        let l = layout("llc:4 cluster:2 core:2");
        let p = first_split(&l, 1000, 1, SplitDepth::Llc);
        check(&l, 1000, 1, &p);
        assert_eq!(
            p.iter().map(|p| p.domain).collect::<Vec<_>>(),
            (0..4).map(Domain::Llc).collect::<Vec<_>>()
        );
        assert!(p.iter().all(|p| p.range.len() == 250));
        let p = first_split(&l, 1000, 1, SplitDepth::Cluster);
        check(&l, 1000, 1, &p);
        assert_eq!(p.len(), 8);
        assert_eq!(p[3].domain, Domain::Cluster(3));
        assert_eq!(p[3].domain.llc(&l), Some(1));
        let p = first_split(&l, 1001, 1, SplitDepth::Worker);
        check(&l, 1001, 1, &p);
        assert_eq!(p.len(), 16);
        assert_eq!(p[5].domain, Domain::Worker(5));
        // 1001 = 251 + 250 * 3 at the LLC level: the extra item goes first.
        assert_eq!(
            p[0].range.len() + p[1].range.len() + p[2].range.len() + p[3].range.len(),
            251
        );
    }

    #[test]
    fn single_llc_single_piece_at_llc_depth() {
        let l = layout("core:4");
        let p = first_split(&l, 100, 1, SplitDepth::Llc);
        assert_eq!(
            p,
            [Piece {
                range: 0..100,
                domain: Domain::Llc(0)
            }]
        );
        let p = first_split(&l, 100, 1, SplitDepth::Worker);
        check(&l, 100, 1, &p);
        assert_eq!(p.len(), 4);
    }

    #[test]
    fn single_core_clusters_are_no_level() {
        // No cluster level in the spec: each core is its own cluster.
        let l = layout("llc:4 core:2");
        let p = first_split(&l, 800, 1, SplitDepth::Cluster);
        assert_eq!(
            p.iter().map(|p| p.domain).collect::<Vec<_>>(),
            (0..4).map(Domain::Llc).collect::<Vec<_>>()
        );
        let p = first_split(&l, 800, 1, SplitDepth::Worker);
        assert_eq!(p.len(), 8);
        // SMT siblings share a core: a cluster of one core with two PUs is
        // still no level.
        let l = layout("llc:2 core:2 smt:2");
        assert_eq!(first_split(&l, 800, 1, SplitDepth::Cluster).len(), 2);
    }

    #[test]
    fn short_inputs_are_not_cut() {
        let l = layout("llc:4 core:2");
        assert_eq!(
            first_split(&l, 3, 1, SplitDepth::Llc),
            [Piece {
                range: 0..3,
                domain: Domain::Pool
            }]
        );
        assert_eq!(
            first_split(&l, 0, 1, SplitDepth::Worker),
            [Piece {
                range: 0..0,
                domain: Domain::Pool
            }]
        );
        // Per LLC yes, per worker not: 10 items, min 2.
        let p = first_split(&l, 10, 2, SplitDepth::Worker);
        check(&l, 10, 2, &p);
        assert_eq!(p.len(), 4);
        assert!(p.iter().all(|p| matches!(p.domain, Domain::Llc(_))));
        // min_len bounds every piece.
        let p = first_split(&l, 80, 10, SplitDepth::Worker);
        check(&l, 80, 10, &p);
        assert_eq!(p.len(), 8);
    }

    #[test]
    fn sizes_sum_to_len_on_many_layouts() {
        for spec in [
            "llc:3 core:3",
            "numa:2 llc:2 cluster:2 core:4 smt:2",
            "llc:2 cluster:3 core:4 big:1",
            "llc:5 core:1",
        ] {
            let l = layout(spec);
            for len in [0, 1, 2, 7, 97, 1000, 65_537, usize::MAX] {
                for min in [1, 3, 1000] {
                    for depth in [SplitDepth::Llc, SplitDepth::Cluster, SplitDepth::Worker] {
                        let p = first_split(&l, len, min, depth);
                        check(&l, len, min, &p);
                    }
                }
            }
        }
    }

    #[test]
    fn hybrid_capacity_weighting() {
        // Each cluster: 1 big core (1024), 3 little (512): weights 2:1:1:1.
        let l = layout("cluster:2 core:4 big:1");
        let p = first_split(&l, 5000, 1, SplitDepth::Worker);
        check(&l, 5000, 1, &p);
        let sizes: Vec<usize> = p.iter().map(|p| p.range.len()).collect();
        assert_eq!(sizes, [1000, 500, 500, 500, 1000, 500, 500, 500]);
        // Per cluster at cluster depth: both clusters weigh the same.
        let p = first_split(&l, 5000, 1, SplitDepth::Cluster);
        assert_eq!(
            p.iter().map(|p| p.range.len()).collect::<Vec<_>>(),
            [2500, 2500]
        );
        // Two big cores of four per cluster: 2:2:1:1 within each.
        let l = layout("llc:2 core:4 big:2");
        let p = first_split(&l, 1200, 1, SplitDepth::Worker);
        let sizes: Vec<usize> = p.iter().map(|p| p.range.len()).collect();
        assert_eq!(sizes, [200, 200, 100, 100, 200, 200, 100, 100]);
    }

    /// The rule `tests/iter_hierarchy.rs` states on its own to check where
    /// items ran: on LLCs of equal workers, LLC `i` of `L` gets `len / L`
    /// items, one more for the first `len % L`, in LLC order; at cluster
    /// depth the pieces of one LLC cover its part.
    #[test]
    fn equal_llcs_get_equal_contiguous_parts() {
        for spec in [
            "llc:4 core:2",
            "llc:2 core:2",
            "llc:3 core:2",
            "llc:4 cluster:2 core:2",
        ] {
            let l = layout(spec);
            let llcs = l.llc_ranges().len();
            for len in [512, 1000, 10_000, 10_001] {
                let (q, r) = (len / llcs, len % llcs);
                let mut start = 0;
                let parts: Vec<(usize, Range<usize>)> = (0..llcs)
                    .map(|i| {
                        let end = start + q + usize::from(i < r);
                        let part = (i, start..end);
                        start = end;
                        part
                    })
                    .collect();
                for p in first_split(&l, len, 1, SplitDepth::Cluster) {
                    let llc = p.domain.llc(&l).unwrap();
                    assert!(
                        parts[llc].1.start <= p.range.start && p.range.end <= parts[llc].1.end,
                        "{spec}, {len} items: piece {p:?} outside LLC {llc}'s part {parts:?}"
                    );
                }
            }
        }
        // Too short to give every LLC 40 items: not cut.
        let l = layout("llc:2 cluster:2 core:2");
        assert_eq!(first_split(&l, 60, 40, SplitDepth::Llc).len(), 1);
    }

    #[test]
    fn apportion_rules() {
        assert_eq!(apportion(10, &[1, 1, 1]), [4, 3, 3]);
        assert_eq!(apportion(10, &[2, 1, 1]), [5, 3, 2]);
        assert_eq!(apportion(0, &[5, 7]), [0, 0]);
        assert_eq!(
            apportion(usize::MAX, &[1, 1]).iter().sum::<usize>(),
            usize::MAX
        );
        assert_eq!(apportion(7, &[1024, 512]), [5, 2]);
    }
}
