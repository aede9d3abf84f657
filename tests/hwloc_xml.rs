//! The hwloc XML reader against the XML files themselves.
//!
//! Every XML in `hwloc-xml` and `hwloc-x86-xml` of the fixtures directory
//! (see `tests/common/snapshot.rs`; these tests are ignored unless run with
//! `--ignored`) is loaded with `Topology::from_hwloc_xml`, and its counts are
//! checked against the objects the file declares (`PU`, `Core`, `L2Cache`,
//! `L3Cache`, `NUMANode`, `Package` elements, read by the line scanner of
//! `tests/common/hwloc.rs`, no XML crate). Key facts of well-known machines
//! are checked on top.
//!
//! Deliberate differences (see `Expected::count_as_built`):
//! - a file with no `Package` element still yields one package: the builder
//!   makes the whole machine the package when none is reported.
#![cfg(feature = "hwloc")]

mod common;

use common::fixtures::{fixture_files, topologies_dir};
use common::hwloc::{L2, L3, parse_xml};
use locus::{CpuSet, Topology};
use std::path::Path;

fn load(path: &Path) -> Topology {
    Topology::from_hwloc_xml(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check_counts(path: &Path) -> Topology {
    let text = std::fs::read_to_string(path).expect("readable XML");
    let d = parse_xml(&text);
    let t = load(path);
    let n = |kinds: &[&str]| d.count_as_built(kinds);
    let name = path.file_name().unwrap().to_string_lossy();
    assert_eq!(t.pus().len(), n(&["PU"]), "{name}: PUs");
    assert_eq!(t.cores().len(), n(&["Core"]), "{name}: cores");
    assert_eq!(t.l2_cpusets().len(), n(L2), "{name}: L2 caches");
    assert_eq!(t.l3_cpusets().len(), n(L3), "{name}: L3 caches");
    assert_eq!(t.numa_nodes().len(), n(&["NUMANode"]), "{name}: NUMA nodes");
    assert_eq!(t.packages().len(), n(&["Package"]), "{name}: packages");
    let allowed = d
        .allowed
        .expect("the Machine object declares allowed_cpuset");
    assert_eq!(
        *t.allowed(),
        allowed.intersection(&t.online()),
        "{name}: allowed cpuset"
    );
    // The builder's invariant, as seen from outside.
    for dom in t.llcs() {
        let ids: CpuSet = dom.pus.clone().map(|i| t.pus()[i].os_index).collect();
        assert_eq!(ids, dom.cpuset, "{name}: LLC domain not contiguous");
    }
    t
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn every_hwloc_xml_matches_its_declared_objects() {
    let mut seen = 0;
    for sub in ["hwloc-xml", "hwloc-x86-xml"] {
        for path in fixture_files(sub, ".xml") {
            check_counts(&path);
            seen += 1;
        }
    }
    assert!(seen >= 16, "expected at least 16 XML files, found {seen}");
}

fn x86(name: &str) -> Topology {
    check_counts(&topologies_dir().join("hwloc-x86-xml").join(name))
}

fn xml(name: &str) -> Topology {
    check_counts(&topologies_dir().join("hwloc-xml").join(name))
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn epyc_9654_has_24_l3_of_16_pus() {
    let t = x86("AMD-19h-Zen4-2xEpyc-9654.xml");
    assert_eq!(t.pus().len(), 384);
    assert_eq!(t.l3_cpusets().len(), 24);
    assert!(t.l3_cpusets().iter().all(|s| s.len() == 16));
    assert_eq!(t.llcs().len(), 24);
    assert_eq!(t.smt_width(), 2);
    // SMT siblings are n and n + 192.
    let core0 = &t.cores()[t.pus()[0].core].cpuset;
    assert_eq!(core0.to_string(), "0,192");
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn epyc_7763_has_16_l3_of_8() {
    let t = x86("AMD-19h-Zen3-2xEpyc-7763.xml");
    assert_eq!(t.pus().len(), 128);
    assert_eq!(t.l3_cpusets().len(), 16);
    assert!(t.l3_cpusets().iter().all(|s| s.len() == 8));
    assert_eq!(t.smt_width(), 1);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn strix_point_has_two_noncontiguous_l3_and_two_kinds() {
    let t = x86("AMD-1Ah-Zen5StrixPoint-RyzenAI9HX370.xml");
    assert_eq!(t.pus().len(), 24);
    let l3: Vec<String> = t.l3_cpusets().iter().map(|s| s.to_string()).collect();
    assert_eq!(l3, ["0-3,12-15", "4-11,16-23"]);
    let kinds = t.kinds();
    assert_eq!(kinds.len(), 2);
    // Zen5 (performance) cores first, at full capacity.
    assert_eq!(
        (kinds[0].0.to_string(), kinds[0].1),
        ("0-3,12-15".to_string(), 1024)
    );
    assert_eq!(kinds[1].1, 512);
    // LLC domains are still contiguous ranges of workers.
    assert_eq!(t.llcs().len(), 2);
    assert_eq!(t.llcs()[0].pus, 0..8);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn arrow_lake_has_three_kinds() {
    let t = x86("Intel-ArrowLake-CoreUltra5-225U.xml");
    let kinds = t.kinds();
    let got: Vec<(String, u32)> = kinds.iter().map(|(s, c)| (s.to_string(), *c)).collect();
    assert_eq!(
        got,
        [
            ("0-3".to_string(), 1024),
            ("4-11".to_string(), 682),
            ("12-13".to_string(), 341)
        ]
    );
    assert!(t.levels_seen().capacity);
    // E-cores share an L2 by 4: clusters from the L2 fallback.
    assert!(t.clusters().iter().any(|c| c.cpuset.to_string() == "4-7"));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn knights_landing_has_smt_4_and_no_l3() {
    let t = x86("Intel-KnightsLanding-XeonPhi-7210.xml");
    assert_eq!(t.pus().len(), 256);
    assert_eq!(t.smt_width(), 4);
    assert!(t.l3_cpusets().is_empty());
    assert!(!t.levels_seen().l3);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn irregular_groups_disallowed_keeps_all_pus_allows_0_15() {
    let t = xml("irregulargroups-disallowed.xml");
    assert_eq!(t.pus().len(), 64);
    assert_eq!(t.allowed().to_string(), "0-15");
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn heteromem_hbm_nodes_have_no_cpus() {
    let t = xml("64intel64-heteromem.xml");
    assert_eq!(t.numa_nodes().len(), 8);
    let with_cpus = t.numa_nodes().iter().filter(|(_, s)| !s.is_empty()).count();
    assert_eq!(
        with_cpus, 4,
        "the 4 HBM nodes share DRAM's locality and get no PU"
    );
    assert_eq!(t.numa_domains().len(), 4);
    assert_eq!(t.smt_width(), 4);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn sgi_uv_distances_are_read() {
    let t = xml("192em64t-24n8c2t.xml");
    let m = t.distance_matrix().expect("distance matrix");
    assert_eq!(m.len(), 24);
    assert!(
        m.iter()
            .enumerate()
            .all(|(i, r)| r.len() == 24 && r[i] == 10)
    );
    assert!(t.numa_distance(0, 1) > 10);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn fake_cpu_kinds_rank_to_capacities() {
    let t = xml("fakecpukinds.xml");
    let got: Vec<(String, u32)> = t.kinds().iter().map(|(s, c)| (s.to_string(), *c)).collect();
    assert_eq!(
        got,
        [
            ("3".to_string(), 1024),
            ("2".to_string(), 682),
            ("0-1".to_string(), 341)
        ]
    );
}

#[test]
fn missing_or_bad_xml_is_an_error_not_a_panic() {
    let e = Topology::from_hwloc_xml("/nonexistent/machine.xml").unwrap_err();
    assert!(e.to_string().contains("/nonexistent/machine.xml"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xml");
    std::fs::write(&bad, "this is not XML").unwrap();
    let e = Topology::from_hwloc_xml(&bad).unwrap_err();
    assert!(matches!(e, locus::TopologyError::Hwloc(_)), "{e:?}");
    assert!(e.to_string().contains("bad.xml"), "{e}");
}
