//! Per-machine assertions on hwloc's Linux snapshots: the cases each
//! snapshot is in the set for (clusters, hybrid capacities, offline CPUs,
//! cpusets, sparse and memory-only NUMA nodes, sub-NUMA clustering, ...).
//! The comparison with hwloc's own output is in `real_machines.rs`. The
//! tests are ignored unless run with `--ignored` (they read hwloc's test
//! data, see `tests/common/snapshot.rs`).

mod common;

use common::fixtures::linux_dir;
use common::snapshot::{load_expected, read};
use locus::{CpuSet, Topology};

fn set(s: &str) -> CpuSet {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn capacity_of(t: &Topology, os: usize) -> u32 {
    t.pus()[t.pu_position(os).expect("PU")].capacity
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn kunpeng_920_has_32_clusters_of_4_in_4_llcs_and_4_nodes() {
    let (_s, t) = read("128arm-2pa2n8cluster4co");
    assert!(t.levels_seen().cluster);
    assert_eq!(t.clusters().len(), 32);
    for (i, c) in t.clusters().iter().enumerate() {
        assert_eq!(c.cpuset, CpuSet::from_ids(4 * i..4 * i + 4), "cluster {i}");
    }
    assert_eq!(t.llcs().len(), 4);
    assert_eq!(t.l3_cpusets().len(), 4);
    for (i, l) in t.llcs().iter().enumerate() {
        assert_eq!(l.cpuset, CpuSet::from_ids(32 * i..32 * i + 32), "llc {i}");
    }
    assert_eq!(t.numa_domains().len(), 4);
    assert_eq!(t.packages().len(), 2);
    assert_eq!(t.packages()[0].os_index, Some(36));
    let m = t.distance_matrix().expect("distances");
    assert_eq!(
        m,
        &[
            vec![10, 16, 32, 33],
            vec![16, 10, 25, 32],
            vec![32, 25, 10, 16],
            vec![33, 32, 16, 10]
        ]
    );
    assert_eq!(t.numa_distance(0, 3), 33);
    assert_eq!(t.numa_distance(2, 1), 25);
    // cpu_capacity is 1024 everywhere: no differentiation.
    assert!(!t.levels_seen().capacity);
    assert_eq!(t.kinds().len(), 1);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn raptor_lake_has_e_core_clusters_of_4_and_smaller_e_cores() {
    let (_s, t) = read("20em64t-hybrid-1p6c2t+2ca4co1t");
    let clusters: Vec<String> = t.clusters().iter().map(|c| c.cpuset.to_string()).collect();
    assert_eq!(
        clusters,
        ["0-1", "2-3", "4-5", "6-7", "8-9", "10-11", "12-15", "16-19"]
    );
    assert_eq!(t.cores().len(), 14);
    assert_eq!(t.smt_width(), 2);
    assert!(t.levels_seen().capacity);
    let kinds = t.kinds();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert_eq!(
        (kinds[0].0.to_string(), kinds[0].1),
        ("0-11".to_string(), 1024)
    );
    assert_eq!(kinds[1].0, set("12-19"));
    // base_frequency 1.4 GHz vs 1.9 GHz.
    assert_eq!(kinds[1].1, 1_400_000 * 1024 / 1_900_000);
    assert!(t.notes().iter().any(|n| n.contains("base_frequency")));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn lakefield_has_one_big_core_and_a_cluster_of_4_small_ones() {
    let (_s, t) = read("5intel64-hybrid-lakefield");
    assert_eq!(t.pus().len(), 5);
    assert_eq!(t.l2_cpusets(), &[set("0-3"), set("4")]);
    let clusters: Vec<CpuSet> = t.clusters().iter().map(|c| c.cpuset.clone()).collect();
    assert_eq!(
        clusters,
        [set("0-3"), set("4")],
        "an L2 shared by cores is a cluster"
    );
    assert_eq!(capacity_of(&t, 4), 1024);
    assert!((0..4).all(|i| capacity_of(&t, i) < 1024));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn gb10_capacities_order_like_hwloc_cpu_kinds() {
    let (_s, t) = read("nvidia-dgx-gb10");
    assert!(t.levels_seen().capacity);
    assert_eq!(t.llcs().len(), 2);
    assert_eq!(t.clusters().len(), 2);
    // Raw cpu_capacity figures are kept.
    assert_eq!(capacity_of(&t, 19), 1024);
    assert_eq!(capacity_of(&t, 15), 1017);
    assert_eq!(capacity_of(&t, 0), 718);
    let e = load_expected(&linux_dir().join("nvidia-dgx-gb10.xml"));
    assert_eq!(e.kinds.len(), 2, "hwloc's GB10 cpukinds");
    for (a, ea) in &e.kinds {
        for (b, eb) in &e.kinds {
            if ea > eb {
                let min_a = a.iter().map(|os| capacity_of(&t, os)).min().unwrap_or(0);
                let max_b = b
                    .iter()
                    .map(|os| capacity_of(&t, os))
                    .max()
                    .unwrap_or(u32::MAX);
                assert!(
                    min_a > max_b,
                    "hwloc kind {a} (eff {ea}) must be above {b} (eff {eb})"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn offline_cpu0_snapshot_has_17_pus() {
    let (_s, t) = read("offline-cpu0-node0");
    assert_eq!(t.pus().len(), 17);
    assert_eq!(t.online(), set("4-20"));
    assert_eq!(
        t.l3_cpusets(),
        &[set("4,6,8,10,12,14,16,18,20"), set("5,7,9,11,13,15,17,19")]
    );
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn cgroup_v1_cpuset_restricts_allowed_like_hwloc() {
    let (_s, t) = read("16amd64-8n2c-cpusets");
    assert_eq!(t.pus().len(), 15, "cpu4 is offline");
    assert_eq!(t.allowed(), &set("0-3,5-6,12-15"));
    // hwloc's default view shows exactly the allowed PUs.
    let e = load_expected(&linux_dir().join("16amd64-8n2c-cpusets.console"));
    assert_eq!(&e.pus(), t.allowed());
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn cgroup_v2_cpuset_restricts_allowed_like_hwloc() {
    let (_s, t) = read("32amd64-4s2n4c-cgroup2");
    assert_eq!(t.pus().len(), 32);
    assert_eq!(t.allowed(), &set("0-5"));
    let e = load_expected(&linux_dir().join("32amd64-4s2n4c-cgroup2.xml"));
    assert_eq!(e.allowed.as_ref(), Some(t.allowed()));
    assert_eq!(&e.pus(), t.allowed());
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn sparse_node_ids_are_kept_with_their_distance_rows() {
    let (_s, t) = read("48amd64-4pa2n6c-sparse");
    let ids: Vec<usize> = t.numa_nodes().iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [0, 1, 2, 33, 34, 45, 72, 73]);
    let dom = |os: usize| {
        t.numa_domains()
            .iter()
            .position(|d| d.os_index == Some(os))
            .expect("node")
    };
    assert_eq!(t.numa_domains()[dom(33)].cpuset, set("18-23"));
    // Row of node33: "22 16 16 10 16 16 22 22".
    let row: Vec<u32> = ids
        .iter()
        .map(|&b| t.numa_distance(dom(33), dom(b)))
        .collect();
    assert_eq!(row, [22, 16, 16, 10, 16, 16, 22, 22]);
    assert_eq!(t.numa_distance(dom(2), dom(45)), 16);
    assert_eq!(t.numa_distance(dom(45), dom(0)), 22);
}

/// OS indexes of the NUMA nodes reported without CPUs.
fn cpuless_nodes(t: &Topology) -> Vec<usize> {
    t.numa_nodes()
        .iter()
        .filter(|(_, s)| s.is_empty())
        .map(|(id, _)| *id)
        .collect()
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn memory_only_nodes_are_kept_without_cpus() {
    let (_s, t) = read("fakeheteromemtiers");
    let empty = cpuless_nodes(&t);
    assert_eq!(empty, [4, 6, 8, 9]);
    assert_eq!(t.numa_nodes().len(), 7);
    assert_eq!(
        t.numa_domains().len(),
        3,
        "only nodes with CPUs are domains"
    );
    // The L3 (0-5) spans the three nodes: LLC domains are clipped.
    assert_eq!(t.l3_cpusets().len(), 1);
    assert_eq!(t.llcs().len(), 3);

    let (_s, t) = read("nvidiagpunumanodes");
    let empty = cpuless_nodes(&t);
    assert_eq!(empty, [250, 251, 252, 253, 254, 255]);
    // node0's cpulist 0-87 includes CPUs that are not present.
    assert_eq!(t.numa_nodes()[0], (0, set("0-15")));
    assert_eq!(t.distance_matrix().map(|m| m.len()), Some(8));

    let (_s, t) = read("128ia64-17n4s2c");
    assert_eq!(t.numa_nodes().len(), 17);
    assert_eq!(t.numa_nodes()[16], (16, CpuSet::new()));
    assert_eq!(t.numa_domains().len(), 16);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn sub_numa_clustering_clips_llcs_to_nodes() {
    let (_s, t) = read("memorysidecaches");
    assert_eq!(t.l3_cpusets().len(), 2);
    assert_eq!(t.llcs().len(), 4);
    for l in t.llcs() {
        let node = &t.numa_domains()[t.pus()[l.pus.start].numa];
        assert_eq!(l.cpuset, node.cpuset);
    }
    assert!(t.notes().iter().any(|n| n.contains("sub-NUMA")));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn bulldozer_l2_comes_from_the_map_not_the_list() {
    let (_s, t) = read("64amd64-4s2n4ca2co");
    assert_eq!(t.l2_cpusets().len(), 32);
    assert!(
        t.l2_cpusets()
            .iter()
            .all(|s| s.len() == 2 && s.min().is_some_and(|m| m % 2 == 0))
    );
    assert!(t.notes().iter().any(|n| n.contains("shared_cpu_map")));
    assert_eq!(t.l3_cpusets().len(), 8);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn x3950_nodes_hold_packages() {
    let (_s, t) = read("96em64t-4no4pa3ca2co");
    assert!(t.package_inside_numa());
    assert_eq!(t.numa_domains().len(), 4);
    assert_eq!(t.packages().len(), 16);
    assert_eq!(
        t.packages()[t.pus()[0].package].os_index,
        Some(1),
        "cpu0 is in package 1"
    );
    // Non-contiguous sharing: L2 {0,4}, L3 {0,4,...,20}.
    assert!(t.l2_cpusets().contains(&set("0,4")));
    assert!(t.l3_cpusets().contains(&set("0,4,8,12,16,20")));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn itanium_unfilled_cache_maps_and_bad_distance() {
    let (_s, t) = read("8ia64-2s2c2t");
    assert_eq!(
        t.l3_cpusets().len(),
        4,
        "all-zero L3 maps: per core, as hwloc"
    );
    assert!(t.distance_matrix().is_none(), "node0/distance is 0");
    assert!(t.notes().iter().any(|n| n.contains("node0/distance")));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn ps3_has_no_package_and_one_smt_core() {
    let (_s, t) = read("2ps3-2t");
    assert!(!t.levels_seen().package);
    assert_eq!(t.cores().len(), 1);
    assert_eq!(t.smt_width(), 2);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn power7_and_s390_group_packages_by_core_siblings() {
    let (_s, t) = read("256ppc-8n8s4t");
    assert_eq!(t.packages().len(), 64);
    let (_s, t) = read("20s390-2g6s4c");
    assert_eq!(t.packages().len(), 8);
    assert!(t.notes().iter().any(|n| n.contains("physical_package_id")));
}
