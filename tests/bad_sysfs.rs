//! The sysfs reader on broken trees: truncated, empty, garbage and missing
//! files, an empty root, bad NUMA distances. It must never panic; it either
//! sees fewer levels (with a note naming the file) or returns an error
//! naming the file.

use locus::{CpuSet, Topology, TopologyError};
use std::path::Path;

mod common;
use common::work::env_sets_count;

const CPU: &str = "sys/devices/system/cpu";
const NODE: &str = "sys/devices/system/node";

/// A temporary directory, in tmpfs when there is one (many small files).
fn temp_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::TempDir::new_in(shm) {
            return d;
        }
    }
    tempfile::TempDir::new().expect("temp dir")
}

/// A temporary tree with these files (parents created).
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = temp_dir();
    for (path, text) in files {
        write(d.path(), path, text.as_bytes());
    }
    d
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, bytes).expect("write");
}

/// Borrows owned (path, content) pairs for [`tree`].
fn as_refs(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

/// A healthy 4-PU machine: 2 cores x 2 threads, L2 and L3 per core, one
/// package, 2 nodes (one core each).
fn good_files() -> Vec<(String, String)> {
    let mut v = vec![(format!("{CPU}/online"), "0-3\n".to_string())];
    for c in 0..4 {
        let core = if c < 2 { "0-1" } else { "2-3" };
        let d = format!("{CPU}/cpu{c}");
        v.push((
            format!("{d}/topology/thread_siblings_list"),
            format!("{core}\n"),
        ));
        v.push((format!("{d}/topology/physical_package_id"), "0\n".into()));
        v.push((format!("{d}/cache/index2/level"), "2\n".into()));
        v.push((format!("{d}/cache/index2/type"), "Unified\n".into()));
        v.push((
            format!("{d}/cache/index2/shared_cpu_list"),
            format!("{core}\n"),
        ));
        v.push((format!("{d}/cache/index3/level"), "3\n".into()));
        v.push((format!("{d}/cache/index3/type"), "Unified\n".into()));
        v.push((
            format!("{d}/cache/index3/shared_cpu_list"),
            format!("{core}\n"),
        ));
    }
    v.push((format!("{NODE}/node0/cpulist"), "0-1\n".into()));
    v.push((format!("{NODE}/node0/distance"), "10 20\n".into()));
    v.push((format!("{NODE}/node1/cpulist"), "2-3\n".into()));
    v.push((format!("{NODE}/node1/distance"), "20 10\n".into()));
    v
}

/// The good tree with some files replaced (`None`: removed).
fn good_with<P: AsRef<str>>(changes: &[(P, Option<&str>)]) -> tempfile::TempDir {
    let mut files = good_files();
    for (path, text) in changes {
        let path = path.as_ref();
        files.retain(|(p, _)| p != path);
        if let Some(t) = text {
            files.push((path.to_string(), t.to_string()));
        }
    }
    let refs = as_refs(&files);
    tree(&refs)
}

fn noted(t: &Topology, file_part: &str) -> bool {
    t.notes().iter().any(|n| n.contains(file_part))
}

#[test]
fn the_good_tree_reads() {
    let d = good_with::<&str>(&[]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.pus().len(), 4);
    assert_eq!(t.cores().len(), 2);
    let s = t.levels_seen();
    assert!(s.smt && s.l2 && s.l3 && s.numa && s.package);
    assert_eq!(t.distance_matrix().map(|m| m.len()), Some(2));
    assert!(t.notes().is_empty(), "{:?}", t.notes());
}

#[test]
fn empty_or_missing_root_is_an_error() {
    let d = tree(&[]);
    match Topology::from_sysfs(d.path()) {
        Err(TopologyError::NoPus { source }) => {
            assert!(source.contains(&d.path().display().to_string()))
        }
        other => panic!("expected NoPus, got {other:?}"),
    }
    assert!(Topology::from_sysfs(d.path().join("does-not-exist")).is_err());
    // A cpu directory with nothing in it.
    let d = tree(&[(&format!("{CPU}/kernel_max"), "8191\n")]);
    assert!(matches!(
        Topology::from_sysfs(d.path()),
        Err(TopologyError::NoPus { .. })
    ));
}

#[test]
fn garbage_online_without_cpu_dirs_is_a_parse_error_naming_the_file() {
    for text in ["garbage\n", "0-\n", "3-1", "\u{0}\u{1}x"] {
        let d = tree(&[(&format!("{CPU}/online"), text)]);
        match Topology::from_sysfs(d.path()) {
            Err(e @ TopologyError::Parse { .. }) => {
                assert!(e.to_string().contains("cpu/online"), "{e}")
            }
            other => panic!("{text:?}: expected Parse, got {other:?}"),
        }
    }
    // Absurdly many CPUs and nothing to confirm them.
    let d = tree(&[(&format!("{CPU}/online"), "0-1000000")]);
    assert!(matches!(
        Topology::from_sysfs(d.path()),
        Err(TopologyError::Parse { .. })
    ));
}

#[test]
fn garbage_online_falls_back_to_cpu_dirs() {
    let d = good_with(&[(&format!("{CPU}/online"), Some("zz\n"))]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(
        t.pus().len(),
        4,
        "cpuN/topology directories say all 4 are online"
    );
    assert!(noted(&t, "cpu/online"));
    // Empty online file: same.
    let d = good_with(&[(&format!("{CPU}/online"), Some(""))]);
    assert_eq!(Topology::from_sysfs(d.path()).unwrap().pus().len(), 4);
    // No online file, one CPU says online=0 and has no topology dir.
    let mut files = good_files();
    files.retain(|(p, _)| {
        !p.ends_with("/online") && !p.starts_with(&format!("{CPU}/cpu3/topology"))
    });
    files.push((format!("{CPU}/cpu3/online"), "0\n".into()));
    let refs = as_refs(&files);
    let d = tree(&refs);
    assert_eq!(
        Topology::from_sysfs(d.path()).unwrap().online(),
        "0-2".parse::<CpuSet>().unwrap()
    );
}

#[test]
fn online_naming_cpus_without_directories_drops_them() {
    let d = good_with(&[(&format!("{CPU}/online"), Some("0-7\n"))]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.pus().len(), 4);
    assert!(noted(&t, "4-7"));
}

#[test]
fn truncated_and_garbage_topology_files_cost_only_their_fact() {
    let d = good_with(&[
        (
            &format!("{CPU}/cpu0/topology/thread_siblings_list"),
            Some("0-"),
        ),
        (
            &format!("{CPU}/cpu1/topology/physical_package_id"),
            Some("abc\n"),
        ),
        (
            &format!("{CPU}/cpu2/topology/thread_siblings_list"),
            Some("\u{0}"),
        ),
    ]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.pus().len(), 4);
    assert!(noted(&t, "cpu0/topology/thread_siblings_list"));
    assert!(noted(&t, "cpu1/topology/physical_package_id"));
    // cpu1 still names cpu0 as its sibling: the core survives; the package
    // id, now known for 3 PUs of 4, is dropped.
    assert_eq!(t.cores().len(), 2);
    assert!(!t.levels_seen().package);
    assert!(noted(&t, "package level ignored"));
}

#[test]
fn garbage_cache_files_are_skipped_with_a_note() {
    let mut changes: Vec<(String, Option<&str>)> = Vec::new();
    for c in 0..4 {
        changes.push((
            format!("{CPU}/cpu{c}/cache/index3/shared_cpu_list"),
            Some("x-y"),
        ));
        changes.push((format!("{CPU}/cpu{c}/cache/index2/type"), Some("Sideways")));
    }
    let d = good_with(&changes);
    let t = Topology::from_sysfs(d.path()).unwrap();
    let s = t.levels_seen();
    assert!(!s.l2 && !s.l3, "{s:?}");
    assert!(noted(&t, "index3/shared_cpu_list"));
    assert!(noted(&t, "index2/type"));
    assert_eq!(
        t.llcs().len(),
        2,
        "without caches the LLC is the node's part of the package"
    );
}

#[test]
fn missing_cache_and_topology_dirs_mean_fewer_levels() {
    let mut files = good_files();
    files.retain(|(p, _)| !p.contains("/cache/") && !p.contains("/topology/"));
    let refs = as_refs(&files);
    let d = tree(&refs);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.pus().len(), 4, "the online file still names them");
    let s = t.levels_seen();
    assert!(!s.smt && !s.l2 && !s.l3 && !s.package && s.numa);
    assert_eq!(t.cores().len(), 4);
}

#[test]
fn bad_node_distances_are_dropped_with_a_note() {
    for bad in ["10 x\n", "10\n", "", "10 20 30\n", "0 20\n", "-1 20"] {
        let d = good_with(&[(&format!("{NODE}/node1/distance"), Some(bad))]);
        let t = Topology::from_sysfs(d.path()).unwrap();
        assert!(t.distance_matrix().is_none(), "{bad:?}");
        assert_eq!(t.numa_domains().len(), 2);
        assert_eq!(t.numa_distance(0, 1), 20, "default distance");
        assert!(
            noted(&t, "node1/distance") || noted(&t, "distances ignored"),
            "{bad:?}: {:?}",
            t.notes()
        );
    }
    let d = good_with(&[(&format!("{NODE}/node0/cpulist"), Some("bogus"))]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert!(noted(&t, "node0/cpulist"));
    assert_eq!(t.numa_nodes().len(), 2);
}

#[test]
fn kunpeng_style_values_with_nul_are_read() {
    let mut files = good_files();
    for (_, text) in &mut files {
        text.push('\0');
    }
    let refs = as_refs(&files);
    let d = tree(&refs);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(
        (t.pus().len(), t.cores().len(), t.l3_cpusets().len()),
        (4, 2, 2)
    );
    assert!(t.notes().is_empty(), "{:?}", t.notes());
}

#[test]
fn non_text_and_directory_where_a_file_should_be() {
    let d = good_with::<&str>(&[]);
    write(
        d.path(),
        &format!("{CPU}/cpu0/cache/index3/shared_cpu_list"),
        &[0xff, 0xfe, 0x00],
    );
    std::fs::remove_file(
        d.path()
            .join(format!("{CPU}/cpu1/topology/physical_package_id")),
    )
    .unwrap();
    std::fs::create_dir_all(
        d.path()
            .join(format!("{CPU}/cpu1/topology/physical_package_id")),
    )
    .unwrap();
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.pus().len(), 4);
    assert!(noted(&t, "shared_cpu_list"));
}

#[test]
fn cgroup_files_restrict_allowed_and_garbage_cgroup_is_ignored() {
    let v1_mount = ("proc/mounts", Some("none /dev/cpuset cpuset rw 0 0\n"));
    let d = good_with(&[
        v1_mount,
        ("proc/self/cpuset", Some("/job\n")),
        ("dev/cpuset/job/cpus", Some("1-2\n")),
    ]);
    assert_eq!(
        Topology::from_sysfs(d.path()).unwrap().allowed(),
        &"1-2".parse::<CpuSet>().unwrap()
    );
    // cgroup v2 whose leaf lacks the file: the parent's applies.
    let d = good_with(&[
        (
            "proc/mounts",
            Some("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n"),
        ),
        ("proc/self/cgroup", Some("0::/a/b\n")),
        ("sys/fs/cgroup/a/cpuset.cpus.effective", Some("3\n")),
        ("sys/fs/cgroup/a/b/cgroup.procs", Some("1\n")),
    ]);
    assert_eq!(
        Topology::from_sysfs(d.path()).unwrap().allowed(),
        &"3".parse::<CpuSet>().unwrap()
    );
    // Garbage everywhere: no restriction.
    let d = good_with(&[
        ("proc/mounts", Some("\u{1}garbage\n  \n")),
        ("proc/self/cgroup", Some("::::\n")),
        ("proc/self/cpuset", Some("not-a-path")),
    ]);
    assert_eq!(Topology::from_sysfs(d.path()).unwrap().allowed().len(), 4);
    // A path escaping the tree is refused.
    let d = good_with(&[
        v1_mount,
        ("proc/self/cpuset", Some("/../../x\n")),
        ("x/cpus", Some("1\n")),
    ]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.allowed().len(), 4);
    assert!(noted(&t, "\"..\""));
    // A cpuset allowing only offline CPUs: treated as unrestricted, noted.
    let d = good_with(&[
        v1_mount,
        ("proc/self/cpuset", Some("/\n")),
        ("dev/cpuset/cpus", Some("8-9\n")),
    ]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.allowed().len(), 4);
    assert!(noted(&t, "does not intersect the online CPUs"));
}

// ---- cgroup CPU bandwidth (quota) ---------------------------------------------

const V2_MOUNT: (&str, Option<&str>) = (
    "proc/mounts",
    Some("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n"),
);

/// The default pool on the tree `d`: its workers' NUMA nodes. `None` when
/// the environment sets the default count (`LOCUS_NUM_THREADS`, rayon's
/// variables): the variable then decides, not the quota, so there is
/// nothing to check.
fn default_pool_nodes(d: &tempfile::TempDir) -> Option<Vec<usize>> {
    if env_sets_count() {
        return None;
    }
    let t = Topology::from_sysfs(d.path()).unwrap();
    let pool = locus::ThreadPoolBuilder::new().topology(t).build().unwrap();
    Some(pool.layout().workers().iter().map(|w| w.numa).collect())
}

#[test]
fn a_cgroup_v2_quota_caps_the_default_pool() {
    let d = good_with(&[
        V2_MOUNT,
        ("proc/self/cgroup", Some("0::/job\n")),
        ("sys/fs/cgroup/job/cpu.max", Some("150000 100000\n")),
    ]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.cpu_quota(), Some(1.5));
    assert!(noted(&t, "cpu.max"), "{:?}", t.notes());
    assert_eq!(t.allowed().len(), 4, "a quota is not a cpuset");
    // 1.5 CPUs: 2 workers, spread over the two nodes.
    if let Some(nodes) = default_pool_nodes(&d) {
        assert_eq!(nodes, [0, 1]);
    }
    // An explicit count wins.
    let pool = locus::ThreadPoolBuilder::new()
        .topology(t)
        .num_threads(4)
        .build()
        .unwrap();
    assert_eq!(pool.current_num_threads(), 4);
}

#[test]
fn the_smallest_quota_on_the_cgroup_path_wins() {
    let d = good_with(&[
        V2_MOUNT,
        ("proc/self/cgroup", Some("0::/a/b\n")),
        ("sys/fs/cgroup/cpu.max", Some("max 100000\n")),
        ("sys/fs/cgroup/a/cpu.max", Some("50000 100000\n")),
        ("sys/fs/cgroup/a/b/cpu.max", Some("max 100000\n")),
    ]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.cpu_quota(), Some(0.5));
    assert!(noted(&t, "a/cpu.max"), "{:?}", t.notes());
    if let Some(nodes) = default_pool_nodes(&d) {
        assert_eq!(nodes.len(), 1, "half a CPU still runs one worker");
    }
}

#[test]
fn a_cgroup_v1_cfs_quota_caps_the_default_pool() {
    let v1 = |quota: &'static str| {
        good_with(&[
            (
                "proc/mounts",
                Some("cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n"),
            ),
            (
                "proc/self/cgroup",
                Some("5:memory:/x\n4:cpu,cpuacct:/job\n"),
            ),
            (
                "sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us",
                Some(quota),
            ),
            (
                "sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us",
                Some("100000\n"),
            ),
        ])
    };
    let d = v1("300000\n");
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.cpu_quota(), Some(3.0));
    assert!(noted(&t, "cpu.cfs_quota_us"), "{:?}", t.notes());
    if let Some(nodes) = default_pool_nodes(&d) {
        assert_eq!(nodes.len(), 3);
    }
    // -1: no limit.
    let d = v1("-1\n");
    assert_eq!(Topology::from_sysfs(d.path()).unwrap().cpu_quota(), None);
    if let Some(nodes) = default_pool_nodes(&d) {
        assert_eq!(nodes.len(), 4);
    }
}

#[test]
fn no_quota_garbage_quota_and_a_quota_above_the_cpus() {
    // No cgroup information, or `max`: no limit.
    let d = good_with::<&str>(&[]);
    assert_eq!(Topology::from_sysfs(d.path()).unwrap().cpu_quota(), None);
    let d = good_with(&[
        V2_MOUNT,
        ("proc/self/cgroup", Some("0::/\n")),
        ("sys/fs/cgroup/cpu.max", Some("max 100000\n")),
    ]);
    assert_eq!(Topology::from_sysfs(d.path()).unwrap().cpu_quota(), None);
    // Garbage: noted, ignored.
    let d = good_with(&[
        V2_MOUNT,
        ("proc/self/cgroup", Some("0::/job\n")),
        ("sys/fs/cgroup/job/cpu.max", Some("lots of CPUs\n")),
    ]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert_eq!(t.cpu_quota(), None);
    assert!(noted(&t, "malformed"), "{:?}", t.notes());
    if let Some(nodes) = default_pool_nodes(&d) {
        assert_eq!(nodes.len(), 4);
    }
    // More bandwidth than CPUs: one worker per allowed CPU.
    let d = good_with(&[
        V2_MOUNT,
        ("proc/self/cgroup", Some("0::/job\n")),
        ("sys/fs/cgroup/job/cpu.max", Some("800000 100000\n")),
    ]);
    assert_eq!(
        Topology::from_sysfs(d.path()).unwrap().cpu_quota(),
        Some(8.0)
    );
    if let Some(nodes) = default_pool_nodes(&d) {
        assert_eq!(nodes.len(), 4);
    }
}

#[test]
fn hybrid_pmu_devices_and_small_spreads() {
    let d = good_with(&[
        ("sys/devices/cpu_core/cpus", Some("0-1\n")),
        ("sys/devices/cpu_atom/cpus", Some("2-3\n")),
    ]);
    let t = Topology::from_sysfs(d.path()).unwrap();
    assert!(t.levels_seen().capacity);
    assert_eq!(
        t.kinds().iter().map(|(_, c)| *c).collect::<Vec<_>>(),
        [1024, 640]
    );
    // Turbo Boost Max style 64 vs 67: uniform.
    let perf: Vec<(String, Option<&str>)> = (0..4)
        .map(|c| {
            let v = if c == 0 { "67\n" } else { "64\n" };
            (format!("{CPU}/cpu{c}/acpi_cppc/highest_perf"), Some(v))
        })
        .collect();
    let t = Topology::from_sysfs(good_with(&perf).path()).unwrap();
    assert!(!t.levels_seen().capacity);
    assert!(noted(&t, "highest_perf"));
}

/// Every file of the good tree replaced by mutated bytes, many times: the
/// reader must never panic (errors are fine).
#[test]
fn mutated_trees_never_panic() {
    let base = good_files();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let samples: [&[u8]; 10] = [
        b"",
        b"\0",
        b"0-",
        b"-1",
        b"99999999999999999999",
        b"ffffffff,ffffffff",
        b"0-3,,",
        b" \n",
        b"\xff\xfe",
        b"1-0",
    ];
    let d = temp_dir();
    for round in 0..60 {
        let root = d.path().join(format!("r{round}"));
        for (path, text) in &base {
            let r = next();
            let bytes: Vec<u8> = match r % 4 {
                0 => samples[(r >> 8) as usize % samples.len()].to_vec(),
                1 => {
                    let mut b = text.as_bytes().to_vec();
                    b.truncate((r >> 8) as usize % (b.len() + 1));
                    b
                }
                2 => continue, // missing
                _ => text.as_bytes().to_vec(),
            };
            write(&root, path, &bytes);
        }
        if let Ok(t) = Topology::from_sysfs(&root) {
            assert!(!t.pus().is_empty());
            assert!(t.allowed().is_subset(&t.online()));
            let _ = t.to_json();
            let _ = t.to_string();
        }
    }
}
