//! Layouts of synthetic topologies: contiguity, dense ids, pin sets, steal
//! tiers, LLC order, thread-count spreading, errors and the text form.

#![allow(clippy::single_range_in_vec_init)] // `[0..4]` is a list of worker ranges here

mod common;

use common::tiers::{shapes, tier};
use locus::layout::{LayoutError, MAX_WORKERS};
use locus::{Layout, LayoutOptions, Pinning, StealOrder, TierKind, Topology};
use std::ops::Range;

fn layout(spec: &str, opts: LayoutOptions) -> Layout {
    let t = Topology::synthetic(spec).unwrap();
    let l = Layout::new(&t, &opts).unwrap();
    check_invariants(&l);
    l
}

fn default_layout(spec: &str) -> Layout {
    layout(spec, LayoutOptions::default())
}

fn threads(n: usize) -> LayoutOptions {
    LayoutOptions {
        num_threads: Some(n),
        ..Default::default()
    }
}

/// The ranges of one level must be consecutive, cover all workers, and agree
/// with each worker's dense id.
fn check_level(l: &Layout, name: &str, ranges: &[Range<usize>], id: impl Fn(usize) -> usize) {
    let n = l.workers().len();
    let mut next = 0;
    for (k, r) in ranges.iter().enumerate() {
        assert_eq!(
            r.start,
            next,
            "{name} {k} does not start where {name} {} ends",
            k.wrapping_sub(1)
        );
        assert!(!r.is_empty(), "{name} {k} is empty");
        for w in r.clone() {
            assert_eq!(
                id(w),
                k,
                "worker {w} has {name} {} but lies in the range of {name} {k}",
                id(w)
            );
        }
        next = r.end;
    }
    assert_eq!(next, n, "{name} ranges do not cover the {n} workers");
}

/// Checks every documented invariant of a layout.
fn check_invariants(l: &Layout) {
    let ws = l.workers();
    let n = ws.len();
    assert!(n > 0);
    check_level(l, "core", l.core_ranges(), |w| ws[w].core);
    check_level(l, "cluster", l.cluster_ranges(), |w| ws[w].cluster);
    check_level(l, "llc", l.llc_ranges(), |w| ws[w].llc);
    check_level(l, "numa", l.numa_ranges(), |w| ws[w].numa);
    check_level(l, "package", l.package_ranges(), |w| ws[w].package);
    let t = l.topology();
    for (i, w) in ws.iter().enumerate() {
        assert_eq!(w.index, i);
        assert!(
            t.allowed().contains(w.pu),
            "worker {i} on PU {} which is not allowed",
            w.pu
        );
        assert!(
            w.cpus.is_subset(t.allowed()),
            "worker {i} pinned outside the allowed CPUs"
        );
        // Nesting: the core range is inside the cluster range, and so on.
        let chain = [
            &l.core_ranges()[w.core],
            &l.cluster_ranges()[w.cluster],
            &l.llc_ranges()[w.llc],
            if t.package_inside_numa() {
                &l.package_ranges()[w.package]
            } else {
                &l.numa_ranges()[w.numa]
            },
            if t.package_inside_numa() {
                &l.numa_ranges()[w.numa]
            } else {
                &l.package_ranges()[w.package]
            },
        ];
        for pair in chain.windows(2) {
            assert!(
                pair[1].start <= pair[0].start && pair[0].end <= pair[1].end,
                "worker {i}: {chain:?} do not nest"
            );
        }
        // Tiers: disjoint, not self, non-empty, maximal ascending ranges, covering all others.
        let mut seen = vec![false; n];
        seen[i] = true;
        for tier in &w.tiers {
            assert!(!tier.is_empty(), "worker {i}: empty tier {tier:?}");
            for pair in tier.ranges.windows(2) {
                assert!(
                    pair[0].end < pair[1].start,
                    "worker {i}: ranges not maximal/ascending in {tier:?}"
                );
            }
            for v in tier.iter() {
                assert!(
                    !seen[v],
                    "worker {i}: worker {v} twice in the tiers (or self)"
                );
                seen[v] = true;
            }
        }
        assert!(
            seen.iter().all(|s| *s),
            "worker {i}: tiers do not cover every other worker"
        );
    }
    // No pin set but the whole allowed set holds more workers than CPUs.
    for w in ws
        .iter()
        .filter(|w| !w.cpus.is_empty() && w.cpus != *t.allowed())
    {
        let sharing = ws.iter().filter(|v| v.cpus.is_subset(&w.cpus)).count();
        assert!(
            sharing <= w.cpus.len(),
            "worker {}: {sharing} workers confined to CPUs {}",
            w.index,
            w.cpus
        );
    }
    for a in 0..l.llc_ranges().len() {
        let runs = l.llc_order_runs(a);
        assert!(
            runs.iter().all(|r| !r.is_empty()),
            "llc_order_runs({a}): empty run in {runs:?}"
        );
        let flat: Vec<usize> = runs.iter().flat_map(|r| r.clone()).collect();
        assert_eq!(
            flat,
            l.llc_order(a),
            "llc_order_runs({a}) and llc_order({a}) differ"
        );
        let mut order = l.llc_order(a).to_vec();
        assert!(!order.contains(&a));
        order.push(a);
        order.sort();
        assert_eq!(
            order,
            (0..l.llc_ranges().len()).collect::<Vec<_>>(),
            "llc_order({a})"
        );
    }
}

const SPEC: &str = "numa:2 llc:2 cluster:2 core:4 smt:2";

#[test]
fn invariants_on_many_shapes() {
    let specs = [
        "core:1",
        "smt:4",
        "core:3",
        SPEC,
        "package:2 numa:2 llc:2 cluster:2 core:4 smt:2",
        "package:3 llc:3 core:5 smt:2",
        "cluster:3 core:4 big:1",
        "numa:4 core:1",
    ];
    for spec in specs {
        let t = Topology::synthetic(spec).unwrap();
        let pus = t.pus().len();
        for n in [
            None,
            Some(1),
            Some(2),
            Some(3),
            Some(pus.saturating_sub(1).max(1)),
            Some(pus + 3),
            Some(3 * pus),
        ] {
            for steal_order in [StealOrder::Hierarchical, StealOrder::Flat] {
                for cluster_aware in [true, false] {
                    let opts = LayoutOptions {
                        num_threads: n,
                        steal_order,
                        cluster_aware,
                        ..Default::default()
                    };
                    let l = Layout::new(&t, &opts).unwrap();
                    check_invariants(&l);
                    assert_eq!(l.len(), n.unwrap_or(pus), "{spec} {n:?}");
                }
            }
        }
    }
}

#[test]
fn default_is_one_worker_per_pu_depth_first() {
    let l = default_layout(SPEC);
    assert_eq!(l.len(), 64);
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, (0..64).collect::<Vec<_>>());
    assert_eq!(l.cluster_ranges().len(), 8);
    assert_eq!(l.llc_ranges(), [0..16, 16..32, 32..48, 48..64]);
    assert_eq!(l.numa_ranges(), [0..32, 32..64]);
    assert_eq!(l.package_ranges(), [0..64]);
    assert_eq!(l.cluster_ranges()[3], 24..32);
    let w = &l.workers()[37];
    assert_eq!(
        (w.core, w.cluster, w.llc, w.numa, w.package, w.capacity),
        (18, 4, 2, 1, 0, 1024)
    );
}

#[test]
fn tiers_of_worker_0_and_a_middle_worker() {
    let l = default_layout(SPEC);
    use TierKind::*;
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [
            tier(Smt, &[1..2], 0),
            tier(Cluster, &[2..8], 0),
            tier(Llc, &[8..16], 0),
            tier(Numa, &[16..32], 0),
            tier(Package, &[32..64], 0),
        ]
    );
    // Worker 37: core 36-37, cluster 32-39, LLC 32-47, node 32-63.
    assert_eq!(
        shapes(&l.workers()[37].tiers),
        [
            tier(Smt, &[36..37], 0),
            tier(Cluster, &[32..36, 38..40], 0),
            tier(Llc, &[40..48], 0),
            tier(Numa, &[48..64], 0),
            tier(Package, &[0..32], 0),
        ]
    );
}

#[test]
fn remote_tiers_by_distance() {
    // Synthetic distances: 10 local, 20 same package, 30 other package.
    let l = default_layout("package:2 numa:2 llc:2 core:2");
    use TierKind::*;
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [
            tier(Llc, &[1..2], 0),
            tier(Numa, &[2..4], 0),
            tier(Package, &[4..8], 0),
            tier(Remote, &[8..16], 30)
        ]
    );
    let w = &l.workers()[13]; // package 1, node 3, LLC 6 (12-13)
    assert_eq!(
        shapes(&w.tiers),
        [
            tier(Llc, &[12..13], 0),
            tier(Numa, &[14..16], 0),
            tier(Package, &[8..12], 0),
            tier(Remote, &[0..8], 30)
        ]
    );
    assert_eq!(w.tiers[3].to_string(), "other-node(30) 0-7");
}

#[test]
fn no_cluster_tier_without_cluster_awareness() {
    let opts = LayoutOptions {
        cluster_aware: false,
        ..Default::default()
    };
    let l = layout(SPEC, opts);
    use TierKind::*;
    assert_eq!(
        shapes(&l.workers()[37].tiers),
        [
            tier(Smt, &[36..37], 0),
            tier(Llc, &[32..36, 38..48], 0),
            tier(Numa, &[48..64], 0),
            tier(Package, &[0..32], 0),
        ]
    );
    // Pinning is unchanged: still the cluster.
    assert_eq!(l.workers()[37].cpus.to_string(), "32-39");
    // Clusters are still reported.
    assert_eq!(l.cluster_ranges().len(), 8);
}

#[test]
fn flat_order_is_one_tier_of_all_others() {
    let flat = LayoutOptions {
        steal_order: StealOrder::Flat,
        ..Default::default()
    };
    let l = layout(SPEC, flat.clone());
    assert_eq!(
        shapes(&l.workers()[5].tiers),
        [tier(TierKind::Remote, &[0..5, 6..64], 0)]
    );
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [tier(TierKind::Remote, &[1..64], 0)]
    );
    assert_eq!(
        shapes(&l.workers()[63].tiers),
        [tier(TierKind::Remote, &[0..63], 0)]
    );
    // Its text says what it is, not a place.
    assert_eq!(l.workers()[0].tiers[0].to_string(), "all-others 1-63");
    let one = layout("core:1", flat);
    assert!(one.workers()[0].tiers.is_empty());
}

#[test]
fn pin_sets() {
    let cases = [
        (Pinning::Cluster, "16-23"),
        (Pinning::Core, "18-19"),
        (Pinning::Cpu, "19"),
        (Pinning::None, ""),
    ];
    for (pinning, want) in cases {
        let l = layout(
            SPEC,
            LayoutOptions {
                pinning,
                ..Default::default()
            },
        );
        assert_eq!(l.workers()[19].cpus.to_string(), want, "{pinning}");
        let v = layout(
            SPEC,
            LayoutOptions {
                pinning,
                virtual_topology: true,
                ..Default::default()
            },
        );
        assert!(
            v.workers().iter().all(|w| w.cpus.is_empty()),
            "virtual topology must not pin ({pinning})"
        );
    }
    // With fewer threads the pin set is still the whole (allowed) cluster.
    let l = layout("llc:2 cluster:2 core:4", threads(4));
    let sets: Vec<String> = l.workers().iter().map(|w| w.cpus.to_string()).collect();
    assert_eq!(sets, ["0-3", "4-7", "8-11", "12-15"]);
}

#[test]
fn num_threads_spread_over_llcs_clusters_cores() {
    // 4 threads on 2 LLCs x 2 clusters: one per cluster.
    let l = layout("llc:2 cluster:2 core:4 smt:2", threads(4));
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [0, 8, 16, 24]);
    assert_eq!(l.cluster_ranges(), [0..1, 1..2, 2..3, 3..4]);
    assert_eq!(l.llc_ranges(), [0..2, 2..4]);
    // Dense ids: cluster 1 of the layout is the topology's cluster 1.
    assert_eq!(l.workers()[1].cluster, 1);
    // One node: the other LLC is the rest of the node.
    assert_eq!(
        shapes(&l.workers()[1].tiers),
        [
            tier(TierKind::Llc, &[0..1], 0),
            tier(TierKind::Numa, &[2..4], 0)
        ]
    );
    // 8 threads: two per cluster, on different cores (no SMT sharing).
    let l = layout("llc:2 cluster:2 core:4 smt:2", threads(8));
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [0, 2, 8, 10, 16, 18, 24, 26]);
    // 2 threads on 2 nodes: one per node.
    let l = layout(SPEC, threads(2));
    assert_eq!(
        l.workers().iter().map(|w| w.pu).collect::<Vec<_>>(),
        [0, 32]
    );
    assert_eq!(l.numa_ranges(), [0..1, 1..2]);
    // 17 threads on 16 cores x 2: all first PUs, then one second PU.
    let l = layout("llc:2 cluster:2 core:4 smt:2", threads(17));
    let second: Vec<usize> = l
        .workers()
        .iter()
        .map(|w| w.pu)
        .filter(|p| p % 2 == 1)
        .collect();
    assert_eq!(second, [1]);
}

#[test]
fn more_threads_than_pus_wrap_around() {
    let l = layout("core:2", threads(5));
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [0, 0, 0, 1, 1]);
    assert_eq!(l.core_ranges(), [0..3, 3..5]);
    use TierKind::*;
    assert_eq!(
        shapes(&l.workers()[0].tiers),
        [tier(Smt, &[1..3], 0), tier(Llc, &[3..5], 0)]
    );
    // Five workers on two CPUs: no domain holds them, so every worker may
    // run on either CPU (see the next test).
    assert!(l.workers().iter().all(|w| w.cpus.to_string() == "0-1"));
}

fn pins(l: &Layout) -> Vec<String> {
    l.workers().iter().map(|w| w.cpus.to_string()).collect()
}

#[test]
fn more_workers_than_cpus_never_stack_on_one_cpu() {
    // The case: 3 workers on 2 CPUs without SMT, each pinning
    // granularity. Workers 0 and 1 share PU 0: they are not confined to
    // CPU 0 (before, both were, and worker 2 had CPU 1 to itself).
    for p in [Pinning::Cpu, Pinning::Core, Pinning::Cluster] {
        let opts = LayoutOptions {
            pinning: p,
            ..threads(3)
        };
        let l = layout("core:2", opts);
        assert_eq!(pins(&l), ["0-1", "0-1", "1"], "{p}");
        // What they share is the core, and the layout names no SMT.
        assert_eq!(l.relation(0, 1), TierKind::Smt);
        assert_eq!(TierKind::Smt.name(), "same-core");
        assert!(!l.to_string().contains("smt"), "{l}");
    }
    // Twice as many workers as CPUs, evenly: still no CPU of their own.
    assert_eq!(pins(&layout("core:2", threads(4))), ["0-1"; 4]);
    // 9 workers on 8 CPUs, pinned per CPU: the two of PU 0 fit in no
    // domain (core, node 0 and the machine all hold more workers than
    // CPUs), so they may run anywhere; the seven alone on their PU keep it.
    let l = layout(
        "numa:2 core:4",
        LayoutOptions {
            pinning: Pinning::Cpu,
            ..threads(9)
        },
    );
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [0, 0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(pins(&l), ["0-7", "0-7", "1", "2", "3", "4", "5", "6", "7"]);
    // Cluster pinning: the first cluster holds three workers (two on PU
    // 0) on two CPUs, its LLC five on four, so those three may run
    // anywhere; the other clusters' workers keep their cluster.
    let l = layout("llc:2 cluster:2 core:2", threads(9));
    assert_eq!(
        pins(&l),
        [
            "0-7", "0-7", "0-7", "2-3", "2-3", "4-5", "4-5", "6-7", "6-7"
        ]
    );
    // 11 workers on `llc:2 cluster:2 core:2`: LLC 0 gets six on four CPUs
    // (its two PUs 0 and 2 get two each), LLC 1 five on four (PU 4 two):
    // every cluster and LLC is over, so all go to the machine but the
    // cluster whose two workers fit it.
    let l = layout("llc:2 cluster:2 core:2", threads(11));
    let pus: Vec<usize> = l.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 7]);
    assert_eq!(
        pins(&l),
        [
            "0-7", "0-7", "0-7", "0-7", "0-7", "0-7", "0-7", "0-7", "0-7", "6-7", "6-7"
        ]
    );
    // SMT: 3 workers on a core of 2 threads, cluster pinning: the cluster
    // (the core here) holds 3 > 2, so they float on the machine's 4 CPUs;
    // the other core's two workers keep their core.
    let l = layout("core:2 smt:2", threads(5));
    assert_eq!(pins(&l), ["0-3", "0-3", "0-3", "2-3", "2-3"]);
    // No more workers than PUs: pinned exactly as before.
    let l = layout("llc:2 cluster:2 core:2", threads(8));
    assert_eq!(
        pins(&l),
        ["0-1", "0-1", "2-3", "2-3", "4-5", "4-5", "6-7", "6-7"]
    );
}

#[test]
fn llc_order_nearest_first() {
    let l = default_layout("package:2 numa:2 llc:2 core:2");
    // LLC 0: same node (1), same package (2, 3), other package (4..8).
    assert_eq!(l.llc_order(0), [1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(l.llc_order(5), [4, 6, 7, 0, 1, 2, 3]);
    assert_eq!(l.llc_numa(5), 2);
    let single = default_layout("core:4");
    assert!(single.llc_order(0).is_empty());
}

#[test]
fn llc_of_cpu() {
    let l = default_layout("numa:2 llc:2 core:2");
    assert_eq!(l.llc_of_cpu(0), Some(0));
    assert_eq!(l.llc_of_cpu(5), Some(2));
    assert_eq!(l.llc_of_cpu(8), None, "not a CPU of the topology");
    // 2 threads: LLCs 0 and 2 have workers (dense 0 and 1); CPUs of LLC 1
    // go to the nearest LLC with workers (same node: dense 0), of LLC 3 to dense 1.
    let l = layout("numa:2 llc:2 core:2", threads(2));
    assert_eq!(l.llc_ranges().len(), 2);
    assert_eq!(
        (0..8).map(|c| l.llc_of_cpu(c).unwrap()).collect::<Vec<_>>(),
        [0, 0, 0, 0, 1, 1, 1, 1]
    );
    let v = layout(
        "numa:2 llc:2 core:2",
        LayoutOptions {
            virtual_topology: true,
            ..Default::default()
        },
    );
    assert_eq!(v.llc_of_cpu(0), None);
}

#[test]
fn capacity_is_carried() {
    let l = default_layout("cluster:2 core:2 big:1");
    let caps: Vec<u32> = l.workers().iter().map(|w| w.capacity).collect();
    assert_eq!(caps, [1024, 512, 1024, 512]);
}

#[test]
fn errors_say_what_to_fix() {
    let t = Topology::synthetic("core:4").unwrap();
    let e = Layout::new(&t, &threads(0)).unwrap_err();
    assert_eq!(e, LayoutError::ZeroThreads { allowed: 4 });
    assert!(e.to_string().contains("at least 1"), "{e}");
    let e = Layout::new(&t, &threads(MAX_WORKERS + 1)).unwrap_err();
    assert!(matches!(e, LayoutError::TooManyThreads { requested } if requested == MAX_WORKERS + 1));
    assert!(e.to_string().contains("at most 65536"), "{e}");
    assert_eq!(
        Layout::new(&t, &threads(MAX_WORKERS)).unwrap().len(),
        MAX_WORKERS
    );
}

#[test]
fn options_parse_and_print() {
    for p in Pinning::ALL {
        assert_eq!(p.to_string().parse::<Pinning>().unwrap(), p);
    }
    for s in StealOrder::ALL {
        assert_eq!(s.to_string().parse::<StealOrder>().unwrap(), s);
    }
    assert_eq!(" CPU\n".parse::<Pinning>().unwrap(), Pinning::Cpu);
    let e = "numa".parse::<Pinning>().unwrap_err().to_string();
    assert_eq!(
        e,
        "invalid pinning \"numa\": accepted values are cluster, core, cpu, none"
    );
    let e = "nearest".parse::<StealOrder>().unwrap_err().to_string();
    assert!(e.contains("hierarchical, flat"), "{e}");
    assert_eq!(LayoutOptions::default().pinning, Pinning::Cluster);
    assert_eq!(
        LayoutOptions::default().steal_order,
        StealOrder::Hierarchical
    );
    assert!(LayoutOptions::default().cluster_aware);
    let names: Vec<String> = locus::TIER_KINDS.iter().map(|k| k.to_string()).collect();
    assert_eq!(
        names,
        [
            "same-core",
            "same-cluster",
            "same-llc",
            "same-node",
            "same-package",
            "other-node"
        ]
    );
}

#[test]
fn display_table() {
    let l = default_layout("llc:2 cluster:2 core:2");
    let text = l.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(
            "layout: 8 workers on 8 of 8 PUs (synthetic:llc:2 cluster:2 core:2); pinning cluster"
        ),
        "{text}"
    );
    assert_eq!(
        lines[1],
        "worker  PU  CPUs  core  cluster  LLC  node  capacity"
    );
    assert_eq!(lines[2], "0       0   0-1   0     0        0    0     1024");
    assert_eq!(lines[9], "7       7   6-7   7     3        1    0     1024");
    assert_eq!(
        lines[10],
        "steal order of worker 0: same-cluster 1 | same-llc 2-3 | same-node 4-7"
    );
    assert_eq!(lines.len(), 11);
    // 128 workers and more: one row per cluster.
    let l = default_layout("package:2 numa:2 llc:2 cluster:2 core:4 smt:2");
    let text = l.to_string();
    assert_eq!(text.lines().count(), 1 + 1 + 16 + 1, "{text}");
    assert!(
        text.lines()
            .any(|r| r.starts_with("8-15     8-15     8-15     4-7    1        0    0     1024")),
        "{text}"
    );
    // Unpinned: "-" in the CPUs column.
    let l = layout(
        "core:2",
        LayoutOptions {
            pinning: Pinning::None,
            ..Default::default()
        },
    );
    assert!(
        l.to_string()
            .lines()
            .nth(2)
            .unwrap()
            .starts_with("0       0   -     0"),
        "{l}"
    );
}
