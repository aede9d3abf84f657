//! hwloc's test data read as locus topologies, and hwloc's expected
//! output for each machine (`fixtures` finds and extracts the data).

use super::fixtures::{Snapshot, extract, linux_dir};
use super::hwloc::{self, Expected};
use locus::Topology;
use std::path::{Path, PathBuf};

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
