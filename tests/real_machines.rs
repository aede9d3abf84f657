//! The sysfs reader against hwloc's real-machine snapshots.
//!
//! For every `hwloc-linux/*.tar.bz2` of the fixtures directory
//! (hwloc's own test data, see `tests/common/snapshot.rs`), the tarball is extracted
//! into a temporary directory at run time, read with
//! [`Topology::from_sysfs`], and compared with hwloc's expected output for
//! that machine (`NAME.console`, else `NAME.xml`; a few machines use another
//! of hwloc's expected files, see [`expected_file`]) on: numbers of PUs,
//! cores, L2, L3, NUMA nodes and packages; the CPU set of every LLC (hwloc's
//! L3 sets, or L2 when there is no L3) and of every NUMA node; the allowed
//! CPUs; NUMA latencies.
//!
//! Where locus deliberately differs from hwloc, [`DIFFERENCES`] states the
//! difference per machine and field, with both values and the reason, and
//! the test asserts that the difference is exactly that (and that every
//! listed difference still occurs).
//!
//! The test is ignored unless run with `--ignored`; then the fixtures are
//! required: when they are missing it fails with a message saying where to
//! put them.

mod common;

use common::fixtures::linux_dir;
use common::hwloc::{Expected, L2, L3};
use common::json;
use common::snapshot::{expected_file, load_expected, read};
use locus::{CpuSet, Topology};
use std::collections::BTreeMap;

/// Deliberate differences from hwloc: (machine, field, hwloc's value,
/// locus's value, reason).
const DIFFERENCES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "64amd64-4s2n4ca2co",
        "cores",
        "64",
        "32",
        "AMD Bulldozer: Linux reports the two cores of a module as thread siblings and schedules them as SMT; \
         locus follows thread_siblings, hwloc splits modules by core_id",
    ),
    (
        "8em64t-2s2ca2c-buggynuma",
        "numa",
        "1",
        "8",
        "buggy firmware lists CPUs 0-7 in all 8 nodes: hwloc merges them into one node; locus keeps the 8 nodes, \
         all CPUs in the first (the others without CPUs)",
    ),
    (
        "8em64t-2s2ca2c-buggynuma",
        "numa_sets",
        "0:0-7",
        "0:0-7 1: 2: 3: 4: 5: 6: 7:",
        "same buggy firmware (see numa)",
    ),
    (
        "offline-cpu0-node0",
        "numa",
        "1",
        "2",
        "node0 is offline (no directory) but CPUs 4,6,..,20 still link to it: locus keeps node 0 for them, \
         hwloc leaves them outside any node",
    ),
    (
        "offline-cpu0-node0",
        "numa_sets",
        "1:5,7,9,11,13,15,17,19",
        "0:4,6,8,10,12,14,16,18,20 1:5,7,9,11,13,15,17,19",
        "same offline node (see numa)",
    ),
    (
        "fakeheteromemtiers",
        "numa_sets",
        "0:0-1 1:2-3 2:4-5 4:2-3 6:2-3 8:0-1 9:4-5",
        "0:0-1 1:2-3 2:4-5 4: 6: 8: 9:",
        "memory-only nodes: hwloc gives them the CPUs near them (HMAT initiators); locus reports the kernel's \
         node CPU list, empty",
    ),
    (
        "nvidiagpunumanodes",
        "numa_sets",
        "0:0-15 8:88-103 250:88-103 251:88-103 252:88-103 253:0-15 254:0-15 255:0-15",
        "0:0-15 8:88-103 250: 251: 252: 253: 254: 255:",
        "GPU memory nodes have no CPUs: hwloc attaches them to the package of their GPU, locus reports them empty",
    ),
    (
        "nvidiagpunumanodes",
        "allowed",
        "0-15,88-103",
        "0-15",
        "the process's cgroup v1 cpuset has cpuset.cpus 0-175 but cpuset.effective_cpus 0-87, which the kernel \
         enforces; locus reads the effective set, hwloc the configured one",
    ),
    (
        "fakeheterocpunuma",
        "numa_sets",
        "0:0-3 1:8-11 2:0-3,8-11 3:20-23 4:16-23 5:12-23",
        "0:0-7 1:8-11 2: 3:20-23 4:16-19 5:12-15",
        "hand-made overlapping node cpumaps, kept by hwloc only under HWLOC_DEBUG_ALLOW_OVERLAPPING_NODE_CPUSETS \
         (set in its .test): locus gives each CPU to the first node listing it (CPUs 4-7, in no node, to the first \
         node) and reports the CPU-less node 2 empty where hwloc places it by distance",
    ),
    // hwloc's expected output for the cgroup v2 snapshot is its default
    // view, which removes the PUs (and the nodes, caches and packages left
    // empty) outside cpuset.cpus.effective = 0-5 and cpuset.mems.effective = 0-5.
    // locus keeps the whole machine and restricts `allowed` (checked equal).
    ("32amd64-4s2n4c-cgroup2", "pus", "6", "32", CGROUP2),
    ("32amd64-4s2n4c-cgroup2", "cores", "6", "32", CGROUP2),
    ("32amd64-4s2n4c-cgroup2", "l2", "6", "32", CGROUP2),
    ("32amd64-4s2n4c-cgroup2", "l3", "6", "8", CGROUP2),
    (
        "32amd64-4s2n4c-cgroup2",
        "llc_sets",
        "{} {} {} {} 0-3 4-5",
        "0-3 4-7 8-11 12-15 16-19 20-23 24-27 28-31",
        CGROUP2,
    ),
    ("32amd64-4s2n4c-cgroup2", "numa", "6", "8", CGROUP2),
    (
        "32amd64-4s2n4c-cgroup2",
        "numa_sets",
        "0:0-3 1:4-5 2: 3: 4: 5:",
        "0:0-3 1:4-7 2:8-11 3:12-15 4:16-19 5:20-23 6:24-27 7:28-31",
        CGROUP2,
    ),
    ("32amd64-4s2n4c-cgroup2", "packages", "3", "4", CGROUP2),
];

const CGROUP2: &str = "hwloc's expected XML removes what the cgroup v2 cpuset disallows; locus keeps the machine \
                       and restricts allowed() to 0-5";

/// Fields compared, as text, for one side.
type Summary = BTreeMap<&'static str, String>;

fn join_sets<'a>(sets: impl Iterator<Item = &'a CpuSet>) -> String {
    let mut v: Vec<&CpuSet> = sets.collect();
    v.sort_by_key(|s| (s.min(), s.len()));
    v.iter()
        .map(|s| {
            if s.is_empty() {
                "{}".to_string()
            } else {
                s.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn numa_text(nodes: &[(usize, CpuSet)]) -> String {
    let mut v = nodes.to_vec();
    v.sort_by_key(|(id, _)| *id);
    v.iter()
        .map(|(id, s)| format!("{id}:{s}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn ours(t: &Topology) -> Summary {
    let seen = t.levels_seen();
    let mut m = Summary::new();
    m.insert("pus", t.pus().len().to_string());
    m.insert("cores", t.cores().len().to_string());
    m.insert("l2", t.l2_cpusets().len().to_string());
    m.insert("l3", t.l3_cpusets().len().to_string());
    // hwloc always shows one NUMA node when the kernel reports none.
    let nodes: Vec<(usize, CpuSet)> = if t.numa_nodes().is_empty() {
        vec![(0, t.online())]
    } else {
        t.numa_nodes().to_vec()
    };
    m.insert("numa", nodes.len().to_string());
    m.insert("numa_sets", numa_text(&nodes));
    // hwloc shows no package when the kernel reports none; locus collapses
    // the level into the machine.
    m.insert(
        "packages",
        if seen.package { t.packages().len() } else { 0 }.to_string(),
    );
    let llc = if t.l3_cpusets().is_empty() {
        t.l2_cpusets()
    } else {
        t.l3_cpusets()
    };
    m.insert("llc_sets", join_sets(llc.iter()));
    m.insert("allowed", t.allowed().to_string());
    m
}

fn theirs(e: &Expected) -> Summary {
    let mut m = Summary::new();
    m.insert("pus", e.count(&["PU"]).to_string());
    m.insert("cores", e.count(&["Core"]).to_string());
    m.insert("l2", e.count(L2).to_string());
    m.insert("l3", e.count(L3).to_string());
    m.insert("numa", e.count(&["NUMANode"]).to_string());
    let nodes: Vec<(usize, CpuSet)> = e
        .of(&["NUMANode"])
        .map(|o| (o.os.expect("NUMANode without P#"), o.cpuset.clone()))
        .collect();
    m.insert("numa_sets", numa_text(&nodes));
    m.insert("packages", e.count(&["Package"]).to_string());
    let llc: Vec<&CpuSet> = if e.count(L3) > 0 {
        e.of(L3).map(|o| &o.cpuset).collect()
    } else {
        e.of(L2).map(|o| &o.cpuset).collect()
    };
    m.insert("llc_sets", join_sets(llc.into_iter()));
    m.insert(
        "allowed",
        e.allowed.clone().unwrap_or_else(|| e.pus()).to_string(),
    );
    m
}

fn tarball_names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(linux_dir())
        .expect("read fixtures")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".tar.bz2").map(String::from))
        .collect();
    v.sort();
    v
}

/// Checks `to_json` output: it parses and its counts match the topology.
fn check_json(name: &str, t: &Topology) {
    let text = t.to_json();
    let v = json::parse(&text)
        .unwrap_or_else(|e| panic!("{name}: to_json does not parse: {e}\n{text}"));
    let n = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_usize())
            .unwrap_or_else(|| panic!("{name}: json lacks {k}"))
    };
    assert_eq!(n("pus"), t.pus().len(), "{name} json pus");
    assert_eq!(n("cores"), t.cores().len(), "{name} json cores");
    assert_eq!(n("clusters"), t.clusters().len(), "{name} json clusters");
    assert_eq!(n("llcs"), t.llcs().len(), "{name} json llcs");
    assert_eq!(n("l3"), t.l3_cpusets().len(), "{name} json l3");
    assert_eq!(n("packages"), t.packages().len(), "{name} json packages");
    let llc_sets = v
        .get("llc_cpusets")
        .and_then(|x| x.as_arr())
        .expect("llc_cpusets");
    assert_eq!(llc_sets.len(), t.llcs().len(), "{name} json llc_cpusets");
    let total: usize = llc_sets
        .iter()
        .map(|s| {
            s.as_str()
                .expect("set")
                .parse::<CpuSet>()
                .expect("cpulist")
                .len()
        })
        .sum();
    assert_eq!(
        total,
        t.pus().len(),
        "{name}: json LLC sets must partition the PUs"
    );
    let allowed: CpuSet = v
        .get("allowed")
        .and_then(|x| x.as_str())
        .expect("allowed")
        .parse()
        .expect("cpulist");
    assert_eq!(&allowed, t.allowed(), "{name} json allowed");
}

/// Structural invariants every topology must satisfy.
fn check_invariants(name: &str, t: &Topology) {
    assert!(!t.pus().is_empty(), "{name}");
    assert!(
        t.allowed().is_subset(&t.online()) && !t.allowed().is_empty(),
        "{name}: allowed"
    );
    for level in [
        locus::Level::Core,
        locus::Level::Cluster,
        locus::Level::Llc,
        locus::Level::Numa,
        locus::Level::Package,
    ] {
        let ds = t.domains(level);
        let mut covered = 0;
        for d in ds {
            assert_eq!(
                d.pus.start, covered,
                "{name}: {level:?} domains must tile the PUs"
            );
            covered = d.pus.end;
            let set: CpuSet = t.pus()[d.pus.clone()].iter().map(|p| p.os_index).collect();
            assert_eq!(set, d.cpuset, "{name}: {level:?} domain set");
        }
        assert_eq!(covered, t.pus().len(), "{name}: {level:?}");
    }
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn every_snapshot_matches_hwloc_except_documented_differences() {
    let names = tarball_names();
    assert!(
        names.len() >= 20,
        "expected hwloc's ~24 Linux snapshots, found {}",
        names.len()
    );
    let mut unexpected = Vec::new();
    let mut used = vec![false; DIFFERENCES.len()];
    let mut latencies_compared = 0;
    for name in &names {
        let (_s, t) = read(name);
        check_invariants(name, &t);
        check_json(name, &t);
        let exp_path = expected_file(name);
        let e = load_expected(&exp_path);
        let (a, b) = (theirs(&e), ours(&t));
        for (field, hwloc_value) in &a {
            let our_value = &b[field];
            let listed = DIFFERENCES
                .iter()
                .position(|(m, f, _, _, _)| m == name && f == field);
            match listed {
                Some(i) => {
                    used[i] = true;
                    let (_, _, h, o, why) = DIFFERENCES[i];
                    if hwloc_value != h || our_value != o {
                        unexpected.push(format!(
                            "{name} {field}: documented difference ({why}) was hwloc={h:?} locus={o:?}, \
                             now hwloc={hwloc_value:?} locus={our_value:?}"
                        ));
                    }
                }
                None if hwloc_value != our_value => unexpected.push(format!(
                    "{name} {field}: hwloc ({}) says {hwloc_value:?}, locus says {our_value:?}",
                    exp_path.file_name().unwrap_or_default().to_string_lossy()
                )),
                None => {}
            }
        }
        // NUMA latencies, for the nodes both report.
        if let Some(m) = t.distance_matrix() {
            let ids: Vec<usize> = t.numa_nodes().iter().map(|(id, _)| *id).collect();
            for (&(from, to), &d) in &e.latencies {
                if let (Some(i), Some(j)) = (
                    ids.iter().position(|&x| x == from),
                    ids.iter().position(|&x| x == to),
                ) {
                    latencies_compared += 1;
                    if m[i][j] as u64 != d {
                        unexpected.push(format!(
                            "{name}: distance {from}->{to}: hwloc {d}, locus {}",
                            m[i][j]
                        ));
                    }
                }
            }
        } else if e.latencies.values().any(|&d| d != 10) && e.latencies.len() > 1 {
            unexpected.push(format!("{name}: hwloc has NUMA latencies, locus has none"));
        }
    }
    for (i, u) in used.iter().enumerate() {
        if !u {
            unexpected.push(format!(
                "documented difference {:?} was not checked (machine missing?)",
                DIFFERENCES[i]
            ));
        }
    }
    assert!(
        latencies_compared > 500,
        "only {latencies_compared} NUMA latencies compared"
    );
    assert!(
        unexpected.is_empty(),
        "{} unexpected differences:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}
