//! Topologies and layouts of 64k PUs build in linear time and memory
//! (`Topology::synthetic` used to be quadratic: `core:65536` took minutes).
//! No timing assertion here (the growth is measured by the
//! `topology_scale` bench); these tests check that the big shapes build
//! with the right counts and the compact per-worker and per-LLC data, in a
//! debug build in a few seconds.

#![allow(clippy::single_range_in_vec_init)] // `[0..65536]` is a list of ranges here

use locus::{Layout, LayoutOptions, Level, TierKind, Topology};

/// Every domain of every level is the contiguous range its cpuset says.
fn check_domains(t: &Topology) {
    for l in [
        Level::Core,
        Level::Cluster,
        Level::Llc,
        Level::Numa,
        Level::Package,
    ] {
        for d in t.domains(l) {
            let first = t.pus()[d.pus.start].os_index;
            let last = t.pus()[d.pus.end - 1].os_index;
            assert_eq!(d.cpuset.len(), d.pus.len(), "{l:?} {d:?}");
            assert_eq!(
                (d.cpuset.min(), d.cpuset.max()),
                (Some(first), Some(last)),
                "{l:?} {d:?}"
            );
        }
    }
}

/// Per worker at most one tier per level plus the remote ones, each of at
/// most two ranges; per LLC an order of at most six runs.
fn check_compact(l: &Layout) {
    for w in l.workers() {
        assert!(w.tiers.len() <= 6, "worker {}: {:?}", w.index, w.tiers);
        assert!(
            w.tiers.iter().all(|t| t.ranges.len() <= 2),
            "worker {}: {:?}",
            w.index,
            w.tiers
        );
    }
    for a in 0..l.llc_ranges().len() {
        assert!(
            l.llc_order_runs(a).len() <= 6,
            "LLC {a}: {:?}",
            l.llc_order_runs(a)
        );
    }
}

#[test]
fn one_llc_of_65536_cores() {
    let t = Topology::synthetic("core:65536").unwrap();
    assert_eq!(t.pus().len(), 65536);
    assert_eq!(
        (t.cores().len(), t.clusters().len(), t.llcs().len()),
        (65536, 65536, 1)
    );
    assert_eq!((t.numa_domains().len(), t.packages().len()), (1, 1));
    assert_eq!(t.llcs()[0].cpuset.len(), 65536);
    assert!(t.notes().is_empty(), "{:?}", t.notes());
    check_domains(&t);

    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    assert_eq!(l.len(), 65536);
    assert_eq!(l.llc_ranges(), [0..65536]);
    check_compact(&l);
    let kinds: Vec<TierKind> = l.workers()[70].tiers.iter().map(|t| t.kind).collect();
    assert_eq!(kinds, [TierKind::Llc]);
    assert_eq!(l.workers()[70].tiers[0].ranges, [0..70, 71..65536]);
    assert_eq!(l.workers()[65535].cpus.to_string(), "65535");

    let half = LayoutOptions {
        num_threads: Some(32769),
        ..Default::default()
    };
    let l = Layout::new(&t, &half).unwrap();
    assert_eq!(l.len(), 32769);
    assert_eq!(
        l.core_ranges().len(),
        32769,
        "one worker per core, no core twice"
    );
}

#[test]
fn sixteen_nodes_of_4096_cores() {
    let t = Topology::synthetic("numa:16 core:4096").unwrap();
    assert_eq!(t.pus().len(), 65536);
    assert_eq!(
        (t.llcs().len(), t.numa_domains().len(), t.packages().len()),
        (16, 16, 1)
    );
    assert_eq!(t.numa_nodes().len(), 16);
    assert_eq!(t.numa_distance(3, 3), 10);
    assert_eq!(t.numa_distance(3, 12), 20);
    check_domains(&t);

    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    assert_eq!(l.len(), 65536);
    assert_eq!(l.numa_ranges()[5], 5 * 4096..6 * 4096);
    check_compact(&l);
    // From node 5: its own node's LLC only, then the rest of the package.
    let w = &l.workers()[5 * 4096 + 7];
    let kinds: Vec<TierKind> = w.tiers.iter().map(|t| t.kind).collect();
    assert_eq!(kinds, [TierKind::Llc, TierKind::Package]);
    assert_eq!(w.tiers[1].ranges, [0..5 * 4096, 6 * 4096..65536]);
    assert_eq!(l.llc_order_runs(5), [0..5, 6..16]);
    assert_eq!(
        l.llc_order(5),
        [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    );
}

#[test]
fn one_pu_per_package_and_per_llc() {
    // 16384 packages (as many NUMA domains, no distance matrix) and 16384
    // LLCs: per-node and per-LLC orders must not be lists of all others
    // (that was 2 GB here). 16k, not 64k, to stay quick in debug builds.
    for spec in ["package:16384", "llc:16384"] {
        let t = Topology::synthetic(spec).unwrap();
        assert_eq!((t.pus().len(), t.llcs().len()), (16384, 16384), "{spec}");
        // Printing finds each domain's children by search, not by a pass
        // over the level (that was 16384² subset tests).
        let text = t.to_string();
        assert_eq!(
            text.lines()
                .filter(|l| l.trim_start().starts_with("LLC #"))
                .count(),
            16384,
            "{spec}"
        );
        assert!(text.contains("LLC #16383: PUs 16383, 1 core"), "{spec}");
        let l = Layout::new(
            &t,
            &LayoutOptions {
                num_threads: Some(1000),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(l.len(), 1000, "{spec}");
        check_compact(&l);
        // A CPU whose LLC has no worker maps to the nearest LLC with one.
        assert!(l.llc_of_cpu(16383).is_some_and(|x| x < 1000), "{spec}");
    }
}

#[test]
fn too_many_numa_nodes_is_an_error() {
    let e = Topology::synthetic("package:2 numa:1024 core:2")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2048 NUMA nodes") && e.contains("at most 1024"),
        "{e}"
    );
    assert_eq!(
        Topology::synthetic("package:2 numa:512 core:2")
            .unwrap()
            .numa_domains()
            .len(),
        1024
    );
}
