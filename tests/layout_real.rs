//! Layouts of real machines: hwloc's sysfs snapshots (`hwloc-linux` of the
//! fixtures directory), read with `Topology::from_sysfs` after extracting
//! them into a temporary directory (with the shared helpers of
//! `tests/common`). The tests are ignored unless run with `--ignored`; then
//! the snapshots are required: a missing directory fails them.

#![allow(clippy::single_range_in_vec_init)] // `[0..4]` is a list of worker ranges here

mod common;

use common::tiers::{shapes, tier};
use locus::{Layout, LayoutOptions, TierKind, Topology};

/// The layout of `t` with `num_threads` and otherwise default options; its
/// tiers are checked to cover every other worker once.
fn layout(t: &Topology, num_threads: Option<usize>) -> Layout {
    let opts = LayoutOptions {
        num_threads,
        ..Default::default()
    };
    let l = Layout::new(t, &opts).unwrap();
    check_tiers_cover(&l);
    l
}

/// Tiers are disjoint, exclude the worker, and cover all other workers.
fn check_tiers_cover(l: &Layout) {
    let n = l.len();
    for w in l.workers() {
        let mut seen = vec![false; n];
        seen[w.index] = true;
        for t in &w.tiers {
            for v in t.iter() {
                assert!(
                    !seen[v],
                    "worker {}: worker {v} twice in its tiers",
                    w.index
                );
                seen[v] = true;
            }
        }
        assert!(
            seen.iter().all(|s| *s),
            "worker {}: tiers miss some worker",
            w.index
        );
    }
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn kunpeng_920_clusters_llcs_and_remote_nodes() {
    // 2 packages x 2 nodes; each node one L3 of 8 clusters x 4 cores.
    // Distances from node 0: node 1 16 (same package), node 2 32, node 3 33.
    let (_tmp, t) = common::snapshot::read("128arm-2pa2n8cluster4co");
    let l = layout(&t, None);
    assert_eq!(l.len(), 128);
    assert_eq!(l.cluster_ranges().len(), 32);
    assert!(
        l.cluster_ranges()
            .iter()
            .enumerate()
            .all(|(i, r)| *r == (4 * i..4 * i + 4))
    );
    assert_eq!(l.llc_ranges(), [0..32, 32..64, 64..96, 96..128]);
    assert_eq!(l.numa_ranges(), [0..32, 32..64, 64..96, 96..128]);
    assert_eq!(l.package_ranges(), [0..64, 64..128]);
    use TierKind::*;
    // Worker 0: its cluster, its LLC (= its node: no other LLC in the node),
    // the rest of its package (node 1), then nodes 2 and 3 by distance.
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [
            tier(Cluster, &[1..4], 0),
            tier(Llc, &[4..32], 0),
            tier(Package, &[32..64], 0),
            tier(Remote, &[64..96], 32),
            tier(Remote, &[96..128], 33),
        ]
    );
    // Worker 45 (node 1): from node 1, node 2 is at 25 and node 3 at 32.
    assert_eq!(
        shapes(&l.workers()[45].tiers),
        [
            tier(Cluster, &[44..45, 46..48], 0),
            tier(Llc, &[32..44, 48..64], 0),
            tier(Package, &[0..32], 0),
            tier(Remote, &[64..96], 25),
            tier(Remote, &[96..128], 32),
        ]
    );
    assert_eq!(l.workers()[5].cpus.to_string(), "4-7");
    assert_eq!(l.llc_order(0), [1, 2, 3]);
    assert_eq!(l.llc_order(1), [0, 2, 3]);
    assert_eq!(
        l.llc_order(3),
        [2, 1, 0],
        "from node 3: node 2 same package, node 1 at 32, node 0 at 33"
    );
    assert_eq!(l.llc_of_cpu(70), Some(2));
    // 8 threads: 4 per package, 2 per node, on different clusters.
    let l8 = layout(&t, Some(8));
    let pus: Vec<usize> = l8.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [0, 4, 32, 36, 64, 68, 96, 100]);
    // The text form is compact (one row per cluster) for 128 workers.
    let full = l.to_string();
    assert_eq!(full.lines().count(), 1 + 1 + 32 + 1, "{full}");
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn raptor_lake_hybrid() {
    // i7-1370P: 6 P-cores with 2 threads (CPUs 0-11, each core its own
    // cluster), 2 clusters of 4 E-cores (12-15, 16-19), one L3.
    let (_tmp, t) = common::snapshot::read("20em64t-hybrid-1p6c2t+2ca4co1t");
    let l = layout(&t, None);
    assert_eq!(l.len(), 20);
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, (0..20).collect::<Vec<_>>());
    assert_eq!(
        l.cluster_ranges(),
        [0..2, 2..4, 4..6, 6..8, 8..10, 10..12, 12..16, 16..20]
    );
    assert_eq!(l.llc_ranges(), [0..20]);
    use TierKind::*;
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [tier(Smt, &[1..2], 0), tier(Llc, &[2..20], 0)]
    );
    assert_eq!(
        shapes(&l.workers()[13].tiers),
        [
            tier(Cluster, &[12..13, 14..16], 0),
            tier(Llc, &[0..12, 16..20], 0)
        ]
    );
    assert_eq!(l.workers()[0].cpus.to_string(), "0-1");
    assert_eq!(l.workers()[13].cpus.to_string(), "12-15");
    // P-cores never have less capacity than E-cores (equal if not reported).
    let p_min = l.workers()[..12].iter().map(|w| w.capacity).min().unwrap();
    let e_max = l.workers()[12..].iter().map(|w| w.capacity).max().unwrap();
    assert!(
        p_min >= e_max,
        "P-core capacity {p_min} < E-core capacity {e_max}"
    );
    // 4 threads: 4 different clusters, no two on SMT siblings; on P-cores
    // when the capacities tell them apart.
    let l = layout(&t, Some(4));
    let clusters: Vec<usize> = l.workers().iter().map(|w| w.cluster).collect();
    assert_eq!(clusters, [0, 1, 2, 3], "dense cluster ids, one worker each");
    let cores: Vec<usize> = l.workers().iter().map(|w| w.core).collect();
    assert_eq!(cores, [0, 1, 2, 3], "one worker per core");
    if t.levels_seen().capacity {
        assert!(l.workers().iter().all(|w| w.pu < 12), "{l}");
    }
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn cascade_lake_sub_numa_clusters() {
    // 2 packages (even CPUs / odd CPUs), SNC2: 4 nodes of 10 cores x 2
    // threads (siblings n, n+40), each node half of its package's L3.
    // Distances: 11 to the other node of the package, 21 across.
    let (_tmp, t) = common::snapshot::read("memorysidecaches");
    let l = layout(&t, None);
    assert_eq!(l.len(), 80);
    assert_eq!(
        l.llc_ranges(),
        [0..20, 20..40, 40..60, 60..80],
        "LLCs clipped to nodes"
    );
    assert_eq!(l.numa_ranges(), [0..20, 20..40, 40..60, 60..80]);
    assert_eq!(l.package_ranges(), [0..40, 40..80]);
    assert_eq!(
        (l.workers()[0].pu, l.workers()[1].pu),
        (0, 40),
        "SMT siblings are neighbours"
    );
    use TierKind::*;
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [
            tier(Smt, &[1..2], 0),
            tier(Llc, &[2..20], 0),
            tier(Package, &[20..40], 0),
            tier(Remote, &[40..80], 21)
        ]
    );
    assert_eq!(l.llc_order(0), [1, 2, 3]);
    // The caller on CPU 2 (node 2, the package-0 node listed second) is in LLC 1.
    assert_eq!(l.llc_of_cpu(2), Some(1));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn x3950_nodes_enclose_packages() {
    // IBM x3950 M2: 4 nodes of 4 packages of 6 cores, L2 shared by core
    // pairs, sharing sets non-contiguous (package of CPU 0: 0,4,...,20).
    let (_tmp, t) = common::snapshot::read("96em64t-4no4pa3ca2co");
    assert!(t.package_inside_numa());
    let l = layout(&t, None);
    assert_eq!(l.len(), 96);
    let first: Vec<usize> = l.workers()[..6].iter().map(|w| w.pu).collect();
    assert_eq!(first, [0, 4, 8, 12, 16, 20]);
    use TierKind::*;
    // The package is the LLC here, so no package tier; then the rest of the node.
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [
            tier(Cluster, &[1..2], 0),
            tier(Llc, &[2..6], 0),
            tier(Numa, &[6..24], 0),
            tier(Remote, &[24..96], 26)
        ]
    );
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn cpuset_restricted_machine() {
    // 8 nodes of 2 single-thread cores; the snapshot's cpuset allows only
    // CPUs 0-3,5-6,12-15. Workers go on exactly those, pinned inside them.
    let (_tmp, t) = common::snapshot::read("16amd64-8n2c-cpusets");
    assert_eq!(t.allowed().to_string(), "0-3,5-6,12-15");
    let l = layout(&t, None);
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [0, 1, 2, 3, 5, 6, 12, 13, 14, 15]);
    assert!(l.workers().iter().all(|w| w.cpus.is_subset(t.allowed())));
    // Only the 6 nodes with allowed CPUs count, densely numbered.
    assert_eq!(l.numa_ranges(), [0..2, 2..4, 4..5, 5..6, 6..8, 8..10]);
    // CPU 7 is online but not allowed: its caller is placed in the LLC of
    // its node's allowed CPU 6 (worker 5). CPU 4 is offline: unknown.
    assert_eq!(l.llc_of_cpu(7), Some(l.workers()[5].llc));
    assert_eq!(l.llc_of_cpu(4), None);
}
