//! hwloc's Linux snapshots: locating the fixtures, extracting a tarball at
//! run time, reading it.

use super::hwloc::{self, Expected};
use locus::Topology;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `<manifest>/../shared/topologies`; panics (failing the test) when absent.
pub fn topologies_dir() -> PathBuf {
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

/// The `hwloc-linux` fixtures directory.
pub fn linux_dir() -> PathBuf {
    topologies_dir().join("hwloc-linux")
}

/// An extracted snapshot; the directory is removed on drop.
pub struct Snapshot {
    _tmp: tempfile::TempDir,
    /// The tree to read.
    pub root: PathBuf,
}

/// Extracts `NAME.tar.bz2` and returns the tree to read: the single top
/// directory (or its `fsroot/` for hwloc's x86+linux snapshots).
pub fn extract(name: &str) -> Snapshot {
    let tarball = linux_dir().join(format!("{name}.tar.bz2"));
    assert!(tarball.is_file(), "missing fixture {}", tarball.display());
    // Extracting ~60000 small files is ten times faster in tmpfs.
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() {
        tempfile::TempDir::new_in(shm).or_else(|_| tempfile::TempDir::new())
    } else {
        tempfile::TempDir::new()
    }
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
    assert_eq!(
        tops.len(),
        1,
        "{name}: expected a single top directory, found {tops:?}"
    );
    let top = tops[0].clone();
    let root = if top.join("fsroot").is_dir() {
        top.join("fsroot")
    } else {
        top
    };
    Snapshot { _tmp: tmp, root }
}

/// Extracts and reads a snapshot; panics with the machine name on error.
pub fn read(name: &str) -> (Snapshot, Topology) {
    let s = extract(name);
    let t = Topology::from_sysfs(&s.root).unwrap_or_else(|e| panic!("{name}: {e}"));
    (s, t)
}

/// hwloc's expected output used for a machine, when not `NAME.console` /
/// `NAME.xml`: with several, the one whose hwloc options match locus's
/// model.
pub fn expected_file(name: &str) -> PathBuf {
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
    assert!(
        xml.is_file(),
        "{name}: no expected output (.console or .xml)"
    );
    xml
}

/// Parses an expected-output file (console or XML).
pub fn load_expected(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "xml") {
        hwloc::parse_xml(&text)
    } else {
        hwloc::parse_console(&text)
    }
}
