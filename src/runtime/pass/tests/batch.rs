//! Tests of the batch rule ([`steal_batch`]) and of the class each layout
//! tier carries for it ([`TierBatch`]).
use crate::layout::{Layout, LayoutOptions, StealOrder, Tier, TierBatch};
use crate::topology::Topology;

use super::super::near_tiers;
use super::super::tiers::*;

/// The batch rule: one job inside an LLC but from a long deque (a loop of
/// spawns), a batch of up to `BATCH` across it, and half a long deque up to
/// `CROSS_BATCH` across it in a pool of several LLCs, up to `FAR_BATCH`
/// inside it in a pool of one LLC and in the flat order.
#[test]
fn a_long_deque_is_robbed_of_a_far_batch_across_the_llc() {
    use crate::layout::TierKind::{Cluster, Llc, Numa, Package, Remote, Smt};
    // A layout of `llcs` LLCs: 1, the pool is one LLC; 2, it is not.
    let batch = |kind, len, llcs| steal_batch(TierBatch::of(kind, llcs), len);
    for kind in [Smt, Cluster, Llc] {
        for llcs in [1, 2] {
            assert_eq!(batch(kind, 1, llcs), None);
            assert_eq!(batch(kind, LONG_DEQUE - 1, llcs), None);
        }
        assert_eq!(batch(kind, LONG_DEQUE, 2), Some(BATCH));
        assert_eq!(batch(kind, LONG_DEQUE, 1), Some(FAR_BATCH));
    }
    for kind in [Numa, Package, Remote] {
        for llcs in [1, 2] {
            assert_eq!(batch(kind, 1, llcs), Some(BATCH));
            assert_eq!(batch(kind, LONG_DEQUE - 1, llcs), Some(BATCH));
        }
        assert_eq!(batch(kind, LONG_DEQUE, 2), Some(CROSS_BATCH));
        assert_eq!(batch(kind, LONG_DEQUE, 1), Some(FAR_BATCH));
    }
    // The flat order's one tier.
    assert_eq!(steal_batch(TierBatch::Far, 1), Some(BATCH));
    assert_eq!(steal_batch(TierBatch::Far, LONG_DEQUE), Some(FAR_BATCH));
    const { assert!(BATCH < LONG_DEQUE && LONG_DEQUE <= FAR_BATCH && FAR_BATCH < CROSS_BATCH) };
}

/// The layout gives the tiers inside the LLC of a one-LLC pool the far
/// bound for a long deque, and those of a pool of several LLCs `BATCH`
/// (`CROSS_BATCH` across its LLCs); in both cluster modes.
#[test]
fn a_one_llc_pool_takes_the_far_batch_inside_its_llc() {
    let long = |t: &Tier| steal_batch(t.batch, LONG_DEQUE);
    for (spec, llcs, inside) in [
        ("cluster:2 core:2", 1, Some(FAR_BATCH)),
        ("llc:2 cluster:2 core:4", 2, Some(BATCH)),
    ] {
        let t = Topology::synthetic(spec).unwrap();
        let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
        assert_eq!(l.llc_ranges().len(), llcs, "{spec}");
        for w in 0..l.len() {
            for cluster_aware in [true, false] {
                let tiers = l.tiers_for(w, cluster_aware);
                let (near, far): (Vec<_>, Vec<_>) =
                    tiers.iter().partition(|t| !t.kind.crosses_llc());
                assert!(!near.is_empty(), "{spec}: worker {w}");
                assert_eq!(far.is_empty(), llcs == 1, "{spec}: worker {w}");
                for t in near {
                    assert_eq!(long(t), inside, "{spec}: worker {w}, {t}");
                }
                for t in far {
                    assert_eq!(long(t), Some(CROSS_BATCH), "{spec}: worker {w}, {t}");
                }
            }
        }
    }
}

/// A tier's class agrees with the worker's tier list: a tier that
/// crosses the LLC is `Far` in the flat order and in a layout of one LLC,
/// `Cross` in a hierarchical layout of several (a worker alone in its LLC
/// included, whose crossings feed its LLC as anyone's do), and one inside
/// it is `WholePool` exactly when the worker has no steal tier across an
/// LLC (`near_tiers` is `None`), on every shape, worker count, steal order
/// and cluster mode below.
#[test]
fn the_batch_class_agrees_with_the_tier_list() {
    for spec in [
        "core:1",
        "smt:4",
        "core:3",
        "cluster:2 core:2",
        "cluster:3 core:4 big:1",
        "llc:2 cluster:2 core:4",
        "numa:2 llc:2 cluster:2 core:4 smt:2",
        "package:2 numa:2 llc:2 core:1",
        "numa:4 core:1",
    ] {
        let t = Topology::synthetic(spec).unwrap();
        let pus = t.pus().len();
        for num_threads in [None, Some(1), Some(2), Some(3), Some(pus + 3)] {
            for steal_order in [StealOrder::Hierarchical, StealOrder::Flat] {
                let opts = LayoutOptions {
                    num_threads,
                    steal_order,
                    ..Default::default()
                };
                let l = Layout::new(&t, &opts).unwrap();
                let flat = steal_order == StealOrder::Flat;
                for w in 0..l.len() {
                    for cluster_aware in [true, false] {
                        let tiers = l.tiers_for(w, cluster_aware);
                        let one_llc = near_tiers(tiers).is_none();
                        for t in tiers {
                            let want = match (t.kind.crosses_llc(), one_llc) {
                                (true, _) if flat || l.llc_ranges().len() == 1 => TierBatch::Far,
                                (true, _) => TierBatch::Cross,
                                (false, true) => TierBatch::WholePool,
                                (false, false) => TierBatch::Near,
                            };
                            assert_eq!(t.batch, want, "{spec} {opts:?}: worker {w}, {t}");
                        }
                    }
                }
            }
        }
    }
}

/// The flat order's one tier keeps `FAR_BATCH` for a long deque, in a
/// pool of one LLC and of several: the larger bound across the LLC is the
/// hierarchical order's.
#[test]
fn the_flat_order_keeps_the_far_batch() {
    for spec in ["cluster:2 core:2", "llc:2 cluster:2 core:4"] {
        let t = Topology::synthetic(spec).unwrap();
        let opts = LayoutOptions {
            steal_order: StealOrder::Flat,
            ..Default::default()
        };
        let l = Layout::new(&t, &opts).unwrap();
        for w in 0..l.len() {
            let tiers = l.tiers_for(w, true);
            assert_eq!(tiers.len(), 1, "{spec}: worker {w}");
            assert_eq!(tiers[0].batch, TierBatch::Far, "{spec}: worker {w}");
            assert_eq!(steal_batch(tiers[0].batch, LONG_DEQUE), Some(FAR_BATCH));
        }
    }
}
