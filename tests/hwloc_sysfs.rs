//! Cross-check of the two Linux readers on hwloc's sysfs snapshots
//! (`hwloc-linux/*.tar.bz2` of the fixtures directory, see
//! `tests/common/snapshot.rs`; the tests that read them are ignored unless
//! run with `--ignored`).
//!
//! Each snapshot is extracted into a temporary directory and read twice:
//! - through hwloc, in a child process (hwloc takes its input from the
//!   environment: `HWLOC_FSROOT=<dir>`, `HWLOC_COMPONENTS=linux,stop`, plus
//!   the `env:` lines of the `.test` file). The child is this test binary
//!   running the ignored test [`hwloc_child`] with `LOCUS_HWLOC_CHILD=1`; it
//!   prints `Topology::from_hwloc()?.to_json()` on one line;
//! - through `Topology::from_sysfs(dir)`.
//!
//! [`hwloc_reads_snapshots_like_lstopo`] checks the harness itself: the
//! child's counts against hwloc's own expected output (`.console` / `.xml`
//! named by each `.test` file); hwloc 2.9 matches the expected outputs
//! (written by hwloc's development version) on every case, no exception is
//! needed. [`hwloc_and_sysfs_readers_agree`] compares
//! the two readers on `pus`, `cores`, `l2`, `l3`, `numa_nodes`, `packages`,
//! `llc_cpusets`, and also `allowed` and `kinds` (capacities); disagreements
//! are allowed only through
//! [`SYSFS_DIFFERENCES`], with the reason.
#![cfg(feature = "hwloc")]

mod common;

use common::fixtures::{self, fixture_files, topologies_dir};
use common::hwloc::{L2, L3, parse_console, parse_xml};
use common::json::{self, Json};
use locus::{CpuSet, Topology};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Allowed disagreements between the hwloc and sysfs readers:
/// (snapshot, field, reason). Each entry must still be needed (the test
/// fails on a stale entry).
const SYSFS_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "20s390-2g6s4c",
        "numa_nodes",
        "no sys/devices/system/node: hwloc invents one NUMA node holding all memory, the sysfs \
         reader reports no NUMA (to_json then counts NUMA domains: one per package, 8)",
    ),
    (
        "64amd64-4s2n4ca2co",
        "cores",
        "AMD Bulldozer: the kernel lists the two integer cores of a compute unit as thread \
         siblings; hwloc knows they are two cores (64), the sysfs reader follows \
         thread_siblings (32 cores of 2 PUs)",
    ),
    (
        "8em64t-2s2ca2c-buggynuma",
        "numa_nodes",
        "all 8 nodes list CPUs 0-7: hwloc discards the NUMA information as buggy (1 node), the \
         sysfs reader keeps node 0 with the CPUs and 7 CPU-less nodes",
    ),
    (
        "nvidiagpunumanodes",
        "numa_nodes",
        "hwloc hides the 6 NVIDIA GPU-memory nodes unless HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES=1 \
         (checked: the -kept case agrees with sysfs), the sysfs reader keeps them without CPUs",
    ),
    (
        "nvidiagpunumanodes",
        "allowed",
        "cgroup v1 cpuset /jjh has cpuset.cpus 0-175 but cpuset.effective_cpus 0-87 (the snapshot \
         was edited to drop CPUs): hwloc uses cpuset.cpus (all 32 PUs allowed, as in hwloc's \
         expected output), the sysfs reader uses effective_cpus (0-15)",
    ),
    (
        "offline-cpu0-node0",
        "numa_nodes",
        "node0 is offline and has no directory: hwloc sees node1 only, the sysfs reader keeps \
         node0 because the cpuN/node0 links of CPUs 4,6,...,20 name it",
    ),
];

/// The compared fields of `Topology::to_json`, under hwloc's object names.
const FIELDS: [(&str, &[&str]); 6] = [
    ("pus", &["PU"]),
    ("cores", &["Core"]),
    ("l2", L2),
    ("l3", L3),
    ("numa_nodes", &["NUMANode"]),
    ("packages", &["Package"]),
];

/// One `.test` file of `hwloc-linux`.
struct Case {
    /// File stem of the `.test` file.
    name: String,
    /// File stem of the tarball (`source:`).
    snapshot: String,
    /// hwloc's expected output (`target:`).
    target: PathBuf,
    /// `options:` (lstopo options; `--disallowed` matters here).
    options: String,
    /// `env:` assignments.
    env: Vec<(String, String)>,
    /// The child's JSON, or why there is none.
    hwloc: Result<Json, String>,
    /// `from_sysfs` of the same snapshot (only for the case named like the
    /// snapshot), as JSON, or its error.
    sysfs: Option<Result<Json, String>>,
}

fn parse_test_file(path: &Path) -> (String, String, String, Vec<(String, String)>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut source, mut target, mut options, mut env) =
        (String::new(), String::new(), String::new(), Vec::new());
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "source" => source = value.to_string(),
            "target" => target = value.to_string(),
            "options" => options = value.to_string(),
            "env" => {
                if let Some((k, v)) = value.split_once('=') {
                    env.push((k.trim().to_string(), v.trim().to_string()));
                }
            }
            _ => {}
        }
    }
    assert!(
        !source.is_empty() && !target.is_empty(),
        "{}: no source: or target: line",
        path.display()
    );
    (source, target, options, env)
}

/// A number field of `Topology::to_json`.
fn num(json: &Json, key: &str) -> Option<usize> {
    json.get(key)?.as_usize()
}

/// Runs [`hwloc_child`] in a child process on the snapshot at `top`.
fn run_child(top: &Path, extra_env: &[(String, String)]) -> Result<Json, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args([
        "--exact",
        "hwloc_child",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("HWLOC_") {
            cmd.env_remove(k);
        }
    }
    let fsroot = top.join("fsroot");
    if fsroot.is_dir() {
        // x86+linux snapshots: sysfs/procfs under fsroot/, a CPUID dump in cpuid/.
        cmd.env("HWLOC_FSROOT", &fsroot)
            .env("HWLOC_CPUID_PATH", top.join("cpuid"));
    } else {
        cmd.env("HWLOC_FSROOT", top);
    }
    cmd.env("HWLOC_COMPONENTS", "linux,stop")
        .env("LOCUS_HWLOC_CHILD", "1");
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run the child: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines() {
        // The test harness may print `test hwloc_child ... ` before it.
        if let Some(at) = line.find("LOCUS_HWLOC_JSON ") {
            return json::parse(&line[at + "LOCUS_HWLOC_JSON ".len()..]);
        }
        if let Some(at) = line.find("LOCUS_HWLOC_ERROR ") {
            return Err(line[at + "LOCUS_HWLOC_ERROR ".len()..].to_string());
        }
    }
    Err(format!(
        "child printed no result (status {}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// Reads every case of one snapshot: extracts it once into a temporary
/// directory (removed on return), runs a child per case, and `from_sysfs`
/// for the case named like the snapshot.
fn read_snapshot(snapshot: &str, tests: &[PathBuf]) -> Vec<Case> {
    let s = fixtures::extract(snapshot);
    tests
        .iter()
        .map(|test| {
            let name = test.file_stem().unwrap().to_string_lossy().into_owned();
            let (_, target, options, env) = parse_test_file(test);
            let hwloc = run_child(&s.top, &env);
            let sysfs = (name == snapshot).then(|| {
                Topology::from_sysfs(&s.root)
                    .map_err(|e| e.to_string())
                    .and_then(|t| json::parse(&t.to_json()))
            });
            Case {
                name,
                snapshot: snapshot.to_string(),
                target: test.with_file_name(target),
                options,
                env,
                hwloc,
                sysfs,
            }
        })
        .collect()
}

/// All cases, read once per test binary. Extraction dominates the time
/// (some snapshots hold 16000 files), so snapshots are read by two threads.
fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut by_snapshot: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        for test in fixture_files("hwloc-linux", ".test") {
            let (source, ..) = parse_test_file(&test);
            let snapshot = source.trim_end_matches(".tar.bz2").to_string();
            by_snapshot.entry(snapshot).or_default().push(test);
        }
        let jobs: Vec<(String, Vec<PathBuf>)> = by_snapshot.into_iter().collect();
        let next = AtomicUsize::new(0);
        let results = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    while let Some((snapshot, tests)) =
                        jobs.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        let cases = read_snapshot(snapshot, tests);
                        results.lock().unwrap().extend(cases);
                    }
                });
            }
        });
        let mut cases = results.into_inner().unwrap();
        cases.sort_by(|a, b| a.name.cmp(&b.name));
        cases
    })
}

/// Child mode (`LOCUS_HWLOC_CHILD=1`): prints this process's hwloc topology
/// as one JSON line. Otherwise a smoke test of `from_hwloc` on this machine.
#[test]
#[ignore = "child process of the hwloc cross-checks; runs hwloc on this machine otherwise"]
fn hwloc_child() {
    let child = std::env::var("LOCUS_HWLOC_CHILD").is_ok_and(|v| v == "1");
    match Topology::from_hwloc() {
        Ok(t) if child => println!("LOCUS_HWLOC_JSON {}", t.to_json()),
        Err(e) if child => println!("LOCUS_HWLOC_ERROR {e}"),
        Ok(t) => {
            assert!(!t.pus().is_empty());
            assert!(t.allowed().is_subset(&t.online()) && !t.allowed().is_empty());
        }
        Err(e) => panic!("from_hwloc failed on this machine: {e}"),
    }
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn every_snapshot_has_a_case() {
    let cases = cases();
    for tarball in fixture_files("hwloc-linux", ".tar.bz2") {
        let stem = tarball
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".tar.bz2")
            .to_string();
        assert!(
            cases.iter().any(|c| c.snapshot == stem),
            "{stem}: no .test file uses this snapshot"
        );
    }
    assert!(
        cases.len() >= 24,
        "expected at least 24 .test files, found {}",
        cases.len()
    );
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn hwloc_reads_snapshots_like_lstopo() {
    let mut failures = Vec::new();
    for c in cases() {
        let json = match &c.hwloc {
            Ok(j) => j,
            Err(e) => {
                failures.push(format!("{}: hwloc child failed: {e}", c.name));
                continue;
            }
        };
        let text = std::fs::read_to_string(&c.target)
            .unwrap_or_else(|e| panic!("{}: {e}", c.target.display()));
        let expected = if c.target.extension().is_some_and(|x| x == "xml") {
            parse_xml(&text)
        } else {
            parse_console(&text)
        };
        let allowed = json.get("allowed").and_then(Json::as_str).unwrap();
        let allowed = CpuSet::from_cpulist(allowed).unwrap();
        let pus = num(json, "pus").unwrap();
        if !c.options.contains("--disallowed") && allowed.len() != pus {
            // lstopo without --disallowed shows only the allowed part (the
            // cgroup's CPUs); we keep every online PU and record the rest as
            // not allowed. Only the PU count is comparable.
            if allowed.len() != expected.count(&["PU"]) {
                failures.push(format!(
                    "{}: allowed PUs {} vs lstopo PUs {}",
                    c.name,
                    allowed.len(),
                    expected.count(&["PU"])
                ));
            }
            continue;
        }
        for (field, kinds) in FIELDS {
            let ours = num(json, field).unwrap();
            let want = expected.count_as_built(kinds);
            if ours != want {
                failures.push(format!(
                    "{}: {field} {ours} vs lstopo {want} (env {:?})",
                    c.name, c.env
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "hwloc reading of snapshots differs from hwloc's expected output:\n{}",
        failures.join("\n")
    );
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn hwloc_and_sysfs_readers_agree() {
    let mut failures = Vec::new();
    let mut used = vec![false; SYSFS_DIFFERENCES.len()];
    let mut compared = 0;
    let by_name = |name: &str| cases().iter().find(|c| c.name == name);
    for c in cases() {
        let Some(sysfs) = &c.sysfs else { continue };
        let (h, s) = match (&c.hwloc, sysfs) {
            (Ok(h), Ok(s)) => (h, s),
            (Err(e), _) => {
                failures.push(format!("{}: hwloc child failed: {e}", c.snapshot));
                continue;
            }
            (_, Err(e)) => {
                failures.push(format!("{}: from_sysfs failed: {e}", c.snapshot));
                continue;
            }
        };
        compared += 1;
        let mut check = |field: &str| {
            let (a, b) = (h.get(field), s.get(field));
            if a == b {
                return;
            }
            let known = SYSFS_DIFFERENCES
                .iter()
                .position(|(n, f, _)| *n == c.snapshot && *f == field);
            match known {
                Some(i) => used[i] = true,
                None => failures.push(format!(
                    "{}: {field}: hwloc {a:?} vs sysfs {b:?}",
                    c.snapshot
                )),
            }
        };
        for (field, _) in FIELDS {
            check(field);
        }
        for field in ["allowed", "kinds", "llc_cpusets"] {
            check(field);
        }
        // hwloc told to keep the GPU nodes agrees with sysfs.
        if c.snapshot == "nvidiagpunumanodes" {
            let kept = by_name("nvidiagpunumanodes-kept").and_then(|k| k.hwloc.as_ref().ok());
            let kept = kept.and_then(|k| num(k, "numa_nodes"));
            if kept != num(s, "numa_nodes") {
                failures.push(format!(
                    "nvidiagpunumanodes-kept: numa_nodes {kept:?} vs sysfs {:?}",
                    num(s, "numa_nodes")
                ));
            }
        }
    }
    for (i, (n, f, _)) in SYSFS_DIFFERENCES.iter().enumerate() {
        if !used[i] && compared > 0 {
            failures.push(format!(
                "{n}: {f}: the readers now agree; remove this entry from SYSFS_DIFFERENCES"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "the hwloc and sysfs readers disagree ({compared} snapshots compared):\n{}",
        failures.join("\n")
    );
    assert!(compared >= 24, "only {compared} snapshots compared");
}

/// The running machine through both readers (`detect` reads sysfs on
/// Linux). Skipped where an `HWLOC_*` variable redirects hwloc elsewhere.
#[test]
#[cfg(target_os = "linux")]
fn this_machine_readers_agree() {
    if std::env::vars().any(|(k, _)| k.starts_with("HWLOC_")) {
        eprintln!("HWLOC_* variables set: hwloc may not read this machine; skipped");
        return;
    }
    let h = Topology::from_hwloc().expect("hwloc reads this machine");
    let s = Topology::detect();
    assert!(
        matches!(s.source(), locus::topology::Source::Sysfs(_)),
        "sysfs not used on this machine: {:?}",
        s.notes()
    );
    assert_eq!(h.online(), s.online(), "online PUs");
    assert_eq!(h.cores().len(), s.cores().len(), "cores");
    assert_eq!(h.l3_cpusets(), s.l3_cpusets(), "L3 caches");
    let llcs = |t: &Topology| {
        t.llcs()
            .iter()
            .map(|d| d.cpuset.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(llcs(&h), llcs(&s), "LLCs");
    assert_eq!(
        h.allowed(),
        s.allowed(),
        "allowed CPUs (affinity mask, cgroup)"
    );
}

/// hwloc XML files saved on the same machines as two snapshots: the XML
/// reader and the snapshot read through hwloc agree.
#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn xml_twins_of_snapshots_agree() {
    let twins = [
        ("96em64t-4no4pa3ca2co", "96em64t-4n4d3ca2co-pci.xml"),
        ("memorysidecaches", "memorysidecaches.xml"),
    ];
    for (snapshot, xml) in twins {
        let case = cases()
            .iter()
            .find(|c| c.name == snapshot)
            .expect("snapshot case");
        let h = case
            .hwloc
            .as_ref()
            .unwrap_or_else(|e| panic!("{snapshot}: hwloc child failed: {e}"));
        let x = Topology::from_hwloc_xml(topologies_dir().join("hwloc-xml").join(xml))
            .unwrap_or_else(|e| panic!("{xml}: {e}"))
            .to_json();
        let x = json::parse(&x).unwrap_or_else(|e| panic!("{xml}: to_json: {e}"));
        for field in [
            "pus",
            "cores",
            "l2",
            "l3",
            "numa_nodes",
            "packages",
            "llc_cpusets",
            "allowed",
            "kinds",
        ] {
            assert_eq!(h.get(field), x.get(field), "{snapshot} vs {xml}: {field}");
        }
    }
}
