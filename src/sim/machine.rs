//! Machines to simulate: any [`Topology`], named on a command line as a
//! synthetic spec, a sysfs snapshot directory (or an hwloc `.tar.bz2`
//! snapshot, extracted with the system's `tar`), or an hwloc XML file (with
//! the `hwloc` feature).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::topology::Topology;

/// A machine argument that could not be read.
#[derive(Debug)]
pub struct MachineError(String);

impl fmt::Display for MachineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MachineError {}

/// The topology `arg` names: an existing directory is a sysfs snapshot (its
/// `fsroot/` if it has one, as hwloc's x86 snapshots do), a `.tar.bz2` file
/// a snapshot to extract first (into `scratch`), an `.xml` file an hwloc
/// XML export (feature `hwloc`), anything else a synthetic spec
/// ([`Topology::synthetic`], e.g. `package:2 llc:12 core:8`).
///
/// # Errors
/// What could not be read, and why.
pub fn load(arg: &str, scratch: &Path) -> Result<Topology, MachineError> {
    let path = Path::new(arg);
    let fail = |e: &dyn fmt::Display| MachineError(format!("machine `{arg}`: {e}"));
    if path.is_dir() {
        return Topology::from_sysfs(snapshot_root(path)).map_err(|e| fail(&e));
    }
    if arg.ends_with(".tar.bz2") {
        let top = extract(path, scratch).map_err(|e| fail(&e))?;
        return Topology::from_sysfs(snapshot_root(&top)).map_err(|e| fail(&e));
    }
    if arg.ends_with(".xml") {
        #[cfg(feature = "hwloc")]
        return Topology::from_hwloc_xml(path).map_err(|e| fail(&e));
        #[cfg(not(feature = "hwloc"))]
        return Err(fail(
            &"reading hwloc XML needs the `hwloc` feature (--features sim,hwloc)",
        ));
    }
    Topology::synthetic(arg).map_err(|e| fail(&e))
}

/// `dir/fsroot` if it exists (hwloc's x86+linux snapshots), else `dir`.
fn snapshot_root(dir: &Path) -> PathBuf {
    let f = dir.join("fsroot");
    if f.is_dir() { f } else { dir.to_path_buf() }
}

/// Extracts `tarball` under `scratch` with `tar -xjf` and returns its single
/// top directory.
fn extract(tarball: &Path, scratch: &Path) -> Result<PathBuf, String> {
    if !tarball.is_file() {
        return Err(format!("{} is not a file", tarball.display()));
    }
    let stem = tarball
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".tar.bz2").to_string())
        .unwrap_or_default();
    let dest = scratch.join(format!("locus-sim-{}-{stem}", std::process::id()));
    std::fs::create_dir_all(&dest).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
    let status = std::process::Command::new("tar")
        .arg("-xjf")
        .arg(tarball)
        .arg("-C")
        .arg(&dest)
        .status()
        .map_err(|e| {
            format!(
                "cannot run tar (needed to extract {}): {e}",
                tarball.display()
            )
        })?;
    if !status.success() {
        return Err(format!("tar failed to extract {}", tarball.display()));
    }
    let tops: Vec<PathBuf> = std::fs::read_dir(&dest)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    match tops.as_slice() {
        [one] => Ok(one.clone()),
        _ => Ok(dest),
    }
}
