//! The sysfs reader against hwloc's real-machine snapshots.
//!
//! For every `hwloc-linux/*.tar.bz2` in `<manifest>/../shared/topologies`
//! (hwloc's own test data; see its `SOURCES.md`), the tarball is extracted
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
//! The fixtures are required: when the directory is missing the tests fail
//! with a message saying where to put them.

mod common;

use common::hwloc::{self, Expected};
use common::json;
use locus::{CpuSet, Topology};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn topologies_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/topologies");
    assert!(
        d.join("hwloc-linux").is_dir(),
        "real-machine fixtures missing: expected hwloc's test snapshots in {} (hwloc-linux/*.tar.bz2 with their \
         .console/.xml/.test files, from hwloc's tests/hwloc/linux). CI provides them; locally, put them there. \
         These tests refuse to pass without them.",
        d.join("hwloc-linux").display()
    );
    d
}

fn linux_dir() -> PathBuf {
    topologies_dir().join("hwloc-linux")
}

/// An extracted snapshot; the directory is removed on drop.
struct Snapshot {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

/// Extracts `NAME.tar.bz2` and returns the tree to read: the single top
/// directory (or its `fsroot/` for hwloc's x86+linux snapshots).
fn extract(name: &str) -> Snapshot {
    let tarball = linux_dir().join(format!("{name}.tar.bz2"));
    assert!(tarball.is_file(), "missing fixture {}", tarball.display());
    // Extracting ~60000 small files is ten times faster in tmpfs.
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() { tempfile::TempDir::new_in(shm).or_else(|_| tempfile::TempDir::new()) } else { tempfile::TempDir::new() }
        .expect("temp dir");
    let status = Command::new("tar")
        .arg("-xjf")
        .arg(&tarball)
        .arg("-C")
        .arg(tmp.path())
        .status()
        .expect("run tar (needed to extract the fixtures)");
    assert!(status.success(), "tar -xjf {} failed", tarball.display());
    let tops: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .expect("read temp dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(tops.len(), 1, "{name}: expected a single top directory, found {tops:?}");
    let top = tops[0].clone();
    let root = if top.join("fsroot").is_dir() { top.join("fsroot") } else { top };
    Snapshot { _tmp: tmp, root }
}

fn read(name: &str) -> (Snapshot, Topology) {
    let s = extract(name);
    let t = Topology::from_sysfs(&s.root).unwrap_or_else(|e| panic!("{name}: {e}"));
    (s, t)
}

/// hwloc's expected output used for a machine, when not `NAME.console` /
/// `NAME.xml`: with several, the one whose hwloc options match locus's
/// model.
fn expected_file(name: &str) -> PathBuf {
    let special = match name {
        // locus keeps disallowed PUs in the tree and restricts `allowed`;
        // that is what `lstopo --disallowed` shows.
        "16amd64-8n2c-cpusets" => Some("16amd64-8n2c-cpusets-disallowed.console"),
        // locus keeps every NUMA node the kernel reports; hwloc hides
        // NVIDIA GPU memory nodes unless HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES=1.
        "nvidiagpunumanodes" => Some("nvidiagpunumanodes-kept.console"),
        _ => None,
    };
    let dir = linux_dir();
    if let Some(f) = special {
        return dir.join(f);
    }
    let console = dir.join(format!("{name}.console"));
    if console.is_file() {
        return console;
    }
    let xml = dir.join(format!("{name}.xml"));
    assert!(xml.is_file(), "{name}: no expected output (.console or .xml)");
    xml
}

fn load_expected(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "xml") { hwloc::parse_xml(&text) } else { hwloc::parse_console(&text) }
}

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
    ("32amd64-4s2n4c-cgroup2", "llc_sets", "{} {} {} {} 0-3 4-5", "0-3 4-7 8-11 12-15 16-19 20-23 24-27 28-31", CGROUP2),
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
    v.iter().map(|s| if s.is_empty() { "{}".to_string() } else { s.to_string() }).collect::<Vec<_>>().join(" ")
}

fn numa_text(nodes: &[(usize, CpuSet)]) -> String {
    let mut v = nodes.to_vec();
    v.sort_by_key(|(id, _)| *id);
    v.iter().map(|(id, s)| format!("{id}:{s}")).collect::<Vec<_>>().join(" ")
}

fn ours(t: &Topology) -> Summary {
    let seen = t.levels_seen();
    let mut m = Summary::new();
    m.insert("pus", t.pus().len().to_string());
    m.insert("cores", t.cores().len().to_string());
    m.insert("l2", t.l2_cpusets().len().to_string());
    m.insert("l3", t.l3_cpusets().len().to_string());
    // hwloc always shows one NUMA node when the kernel reports none.
    let nodes: Vec<(usize, CpuSet)> =
        if t.numa_nodes().is_empty() { vec![(0, t.online())] } else { t.numa_nodes().to_vec() };
    m.insert("numa", nodes.len().to_string());
    m.insert("numa_sets", numa_text(&nodes));
    // hwloc shows no package when the kernel reports none; locus collapses
    // the level into the machine.
    m.insert("packages", if seen.package { t.packages().len() } else { 0 }.to_string());
    let llc = if t.l3_cpusets().is_empty() { t.l2_cpusets() } else { t.l3_cpusets() };
    m.insert("llc_sets", join_sets(llc.iter()));
    m.insert("allowed", t.allowed().to_string());
    m
}

const L2: &[&str] = &["L2Cache", "L2dCache"];
const L3: &[&str] = &["L3Cache", "L3dCache"];

fn theirs(e: &Expected) -> Summary {
    let mut m = Summary::new();
    m.insert("pus", e.count(&["PU"]).to_string());
    m.insert("cores", e.count(&["Core"]).to_string());
    m.insert("l2", e.count(L2).to_string());
    m.insert("l3", e.count(L3).to_string());
    m.insert("numa", e.count(&["NUMANode"]).to_string());
    let nodes: Vec<(usize, CpuSet)> =
        e.of(&["NUMANode"]).map(|o| (o.os.expect("NUMANode without P#"), o.cpuset.clone())).collect();
    m.insert("numa_sets", numa_text(&nodes));
    m.insert("packages", e.count(&["Package"]).to_string());
    let llc: Vec<&CpuSet> = if e.count(L3) > 0 { e.of(L3).map(|o| &o.cpuset).collect() } else { e.of(L2).map(|o| &o.cpuset).collect() };
    m.insert("llc_sets", join_sets(llc.into_iter()));
    m.insert("allowed", e.allowed.clone().unwrap_or_else(|| e.pus()).to_string());
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
    let v = json::parse(&text).unwrap_or_else(|e| panic!("{name}: to_json does not parse: {e}\n{text}"));
    let n = |k: &str| v.get(k).and_then(|x| x.as_usize()).unwrap_or_else(|| panic!("{name}: json lacks {k}"));
    assert_eq!(n("pus"), t.pus().len(), "{name} json pus");
    assert_eq!(n("cores"), t.cores().len(), "{name} json cores");
    assert_eq!(n("clusters"), t.clusters().len(), "{name} json clusters");
    assert_eq!(n("llcs"), t.llcs().len(), "{name} json llcs");
    assert_eq!(n("l3"), t.l3_cpusets().len(), "{name} json l3");
    assert_eq!(n("packages"), t.packages().len(), "{name} json packages");
    let llc_sets = v.get("llc_cpusets").and_then(|x| x.as_arr()).expect("llc_cpusets");
    assert_eq!(llc_sets.len(), t.llcs().len(), "{name} json llc_cpusets");
    let total: usize =
        llc_sets.iter().map(|s| s.as_str().expect("set").parse::<CpuSet>().expect("cpulist").len()).sum();
    assert_eq!(total, t.pus().len(), "{name}: json LLC sets must partition the PUs");
    let allowed: CpuSet = v.get("allowed").and_then(|x| x.as_str()).expect("allowed").parse().expect("cpulist");
    assert_eq!(&allowed, t.allowed(), "{name} json allowed");
}

/// Structural invariants every topology must satisfy.
fn check_invariants(name: &str, t: &Topology) {
    assert!(!t.pus().is_empty(), "{name}");
    assert!(t.allowed().is_subset(&t.online()) && !t.allowed().is_empty(), "{name}: allowed");
    for level in [locus::Level::Core, locus::Level::Cluster, locus::Level::Llc, locus::Level::Numa, locus::Level::Package] {
        let ds = t.domains(level);
        let mut covered = 0;
        for d in ds {
            assert_eq!(d.pus.start, covered, "{name}: {level:?} domains must tile the PUs");
            covered = d.pus.end;
            let set: CpuSet = t.pus()[d.pus.clone()].iter().map(|p| p.os_index).collect();
            assert_eq!(set, d.cpuset, "{name}: {level:?} domain set");
        }
        assert_eq!(covered, t.pus().len(), "{name}: {level:?}");
    }
}

#[test]
fn every_snapshot_matches_hwloc_except_documented_differences() {
    let names = tarball_names();
    assert!(names.len() >= 20, "expected hwloc's ~24 Linux snapshots, found {}", names.len());
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
            let listed = DIFFERENCES.iter().position(|(m, f, _, _, _)| m == name && f == field);
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
                if let (Some(i), Some(j)) = (ids.iter().position(|&x| x == from), ids.iter().position(|&x| x == to)) {
                    latencies_compared += 1;
                    if m[i][j] as u64 != d {
                        unexpected.push(format!("{name}: distance {from}->{to}: hwloc {d}, locus {}", m[i][j]));
                    }
                }
            }
        } else if e.latencies.values().any(|&d| d != 10) && e.latencies.len() > 1 {
            unexpected.push(format!("{name}: hwloc has NUMA latencies, locus has none"));
        }
    }
    for (i, u) in used.iter().enumerate() {
        if !u {
            unexpected.push(format!("documented difference {:?} was not checked (machine missing?)", DIFFERENCES[i]));
        }
    }
    assert!(latencies_compared > 500, "only {latencies_compared} NUMA latencies compared");
    assert!(unexpected.is_empty(), "{} unexpected differences:\n{}", unexpected.len(), unexpected.join("\n"));
}

// ---------------------------------------------------------------------------
// Per-machine assertions: the cases each snapshot is in the set for.

fn set(s: &str) -> CpuSet {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn capacity_of(t: &Topology, os: usize) -> u32 {
    t.pus()[t.pu_position(os).expect("PU")].capacity
}

#[test]
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
    assert_eq!(m, &[vec![10, 16, 32, 33], vec![16, 10, 25, 32], vec![32, 25, 10, 16], vec![33, 32, 16, 10]]);
    assert_eq!(t.numa_distance(0, 3), 33);
    assert_eq!(t.numa_distance(2, 1), 25);
    // cpu_capacity is 1024 everywhere: no differentiation.
    assert!(!t.levels_seen().capacity);
    assert_eq!(t.kinds().len(), 1);
}

#[test]
fn raptor_lake_has_e_core_clusters_of_4_and_smaller_e_cores() {
    let (_s, t) = read("20em64t-hybrid-1p6c2t+2ca4co1t");
    let clusters: Vec<String> = t.clusters().iter().map(|c| c.cpuset.to_string()).collect();
    assert_eq!(clusters, ["0-1", "2-3", "4-5", "6-7", "8-9", "10-11", "12-15", "16-19"]);
    assert_eq!(t.cores().len(), 14);
    assert_eq!(t.smt_width(), 2);
    assert!(t.levels_seen().capacity);
    let kinds = t.kinds();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert_eq!((kinds[0].0.to_string(), kinds[0].1), ("0-11".to_string(), 1024));
    assert_eq!(kinds[1].0, set("12-19"));
    // base_frequency 1.4 GHz vs 1.9 GHz.
    assert_eq!(kinds[1].1, 1_400_000 * 1024 / 1_900_000);
    assert!(t.notes().iter().any(|n| n.contains("base_frequency")));
}

#[test]
fn lakefield_has_one_big_core_and_a_cluster_of_4_small_ones() {
    let (_s, t) = read("5intel64-hybrid-lakefield");
    assert_eq!(t.pus().len(), 5);
    assert_eq!(t.l2_cpusets(), &[set("0-3"), set("4")]);
    let clusters: Vec<CpuSet> = t.clusters().iter().map(|c| c.cpuset.clone()).collect();
    assert_eq!(clusters, [set("0-3"), set("4")], "an L2 shared by cores is a cluster");
    assert_eq!(capacity_of(&t, 4), 1024);
    assert!((0..4).all(|i| capacity_of(&t, i) < 1024));
}

#[test]
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
                let max_b = b.iter().map(|os| capacity_of(&t, os)).max().unwrap_or(u32::MAX);
                assert!(min_a > max_b, "hwloc kind {a} (eff {ea}) must be above {b} (eff {eb})");
            }
        }
    }
}

#[test]
fn offline_cpu0_snapshot_has_17_pus() {
    let (_s, t) = read("offline-cpu0-node0");
    assert_eq!(t.pus().len(), 17);
    assert_eq!(t.online(), set("4-20"));
    assert_eq!(t.l3_cpusets(), &[set("4,6,8,10,12,14,16,18,20"), set("5,7,9,11,13,15,17,19")]);
}

#[test]
fn cgroup_v1_cpuset_restricts_allowed_like_hwloc() {
    let (_s, t) = read("16amd64-8n2c-cpusets");
    assert_eq!(t.pus().len(), 15, "cpu4 is offline");
    assert_eq!(t.allowed(), &set("0-3,5-6,12-15"));
    // hwloc's default view shows exactly the allowed PUs.
    let e = load_expected(&linux_dir().join("16amd64-8n2c-cpusets.console"));
    assert_eq!(&e.pus(), t.allowed());
}

#[test]
fn cgroup_v2_cpuset_restricts_allowed_like_hwloc() {
    let (_s, t) = read("32amd64-4s2n4c-cgroup2");
    assert_eq!(t.pus().len(), 32);
    assert_eq!(t.allowed(), &set("0-5"));
    let e = load_expected(&linux_dir().join("32amd64-4s2n4c-cgroup2.xml"));
    assert_eq!(e.allowed.as_ref(), Some(t.allowed()));
    assert_eq!(&e.pus(), t.allowed());
}

#[test]
fn sparse_node_ids_are_kept_with_their_distance_rows() {
    let (_s, t) = read("48amd64-4pa2n6c-sparse");
    let ids: Vec<usize> = t.numa_nodes().iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [0, 1, 2, 33, 34, 45, 72, 73]);
    let dom = |os: usize| t.numa_domains().iter().position(|d| d.os_index == Some(os)).expect("node");
    assert_eq!(t.numa_domains()[dom(33)].cpuset, set("18-23"));
    // Row of node33: "22 16 16 10 16 16 22 22".
    let row: Vec<u32> = ids.iter().map(|&b| t.numa_distance(dom(33), dom(b))).collect();
    assert_eq!(row, [22, 16, 16, 10, 16, 16, 22, 22]);
    assert_eq!(t.numa_distance(dom(2), dom(45)), 16);
    assert_eq!(t.numa_distance(dom(45), dom(0)), 22);
}

#[test]
fn memory_only_nodes_are_kept_without_cpus() {
    let (_s, t) = read("fakeheteromemtiers");
    let empty: Vec<usize> = t.numa_nodes().iter().filter(|(_, s)| s.is_empty()).map(|(id, _)| *id).collect();
    assert_eq!(empty, [4, 6, 8, 9]);
    assert_eq!(t.numa_nodes().len(), 7);
    assert_eq!(t.numa_domains().len(), 3, "only nodes with CPUs are domains");
    // The L3 (0-5) spans the three nodes: LLC domains are clipped.
    assert_eq!(t.l3_cpusets().len(), 1);
    assert_eq!(t.llcs().len(), 3);

    let (_s, t) = read("nvidiagpunumanodes");
    let empty: Vec<usize> = t.numa_nodes().iter().filter(|(_, s)| s.is_empty()).map(|(id, _)| *id).collect();
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
fn bulldozer_l2_comes_from_the_map_not_the_list() {
    let (_s, t) = read("64amd64-4s2n4ca2co");
    assert_eq!(t.l2_cpusets().len(), 32);
    assert!(t.l2_cpusets().iter().all(|s| s.len() == 2 && s.min().is_some_and(|m| m % 2 == 0)));
    assert!(t.notes().iter().any(|n| n.contains("shared_cpu_map")));
    assert_eq!(t.l3_cpusets().len(), 8);
}

#[test]
fn x3950_nodes_hold_packages() {
    let (_s, t) = read("96em64t-4no4pa3ca2co");
    assert!(t.package_inside_numa());
    assert_eq!(t.numa_domains().len(), 4);
    assert_eq!(t.packages().len(), 16);
    assert_eq!(t.packages()[t.pus()[0].package].os_index, Some(1), "cpu0 is in package 1");
    // Non-contiguous sharing: L2 {0,4}, L3 {0,4,...,20}.
    assert!(t.l2_cpusets().contains(&set("0,4")));
    assert!(t.l3_cpusets().contains(&set("0,4,8,12,16,20")));
}

#[test]
fn itanium_unfilled_cache_maps_and_bad_distance() {
    let (_s, t) = read("8ia64-2s2c2t");
    assert_eq!(t.l3_cpusets().len(), 4, "all-zero L3 maps: per core, as hwloc");
    assert!(t.distance_matrix().is_none(), "node0/distance is 0");
    assert!(t.notes().iter().any(|n| n.contains("node0/distance")));
}

#[test]
fn ps3_has_no_package_and_one_smt_core() {
    let (_s, t) = read("2ps3-2t");
    assert!(!t.levels_seen().package);
    assert_eq!(t.cores().len(), 1);
    assert_eq!(t.smt_width(), 2);
}

#[test]
fn power7_and_s390_group_packages_by_core_siblings() {
    let (_s, t) = read("256ppc-8n8s4t");
    assert_eq!(t.packages().len(), 64);
    let (_s, t) = read("20s390-2g6s4c");
    assert_eq!(t.packages().len(), 8);
    assert!(t.notes().iter().any(|n| n.contains("physical_package_id")));
}
