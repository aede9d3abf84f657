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
        // The topology is read into memory, so the extracted copy is removed
        // as soon as it has been read (on error too): a sweep of thousands of
        // runs must not leave thousands of copies in `scratch`.
        let scratch_dir =
            Scratch(scratch.join(format!("locus-sim-{}-{}", std::process::id(), stem(path))));
        let top = extract(path, &scratch_dir.0).map_err(|e| fail(&e))?;
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

/// A directory that is removed (with everything in it) when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        // Best effort: a copy left behind wastes space but breaks nothing.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The snapshot's name without `.tar.bz2`.
fn stem(tarball: &Path) -> String {
    tarball
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".tar.bz2").to_string())
        .unwrap_or_default()
}

/// Extracts `tarball` into the new directory `dest` with `tar -xjf` and
/// returns its single top directory.
fn extract(tarball: &Path, dest: &Path) -> Result<PathBuf, String> {
    if !tarball.is_file() {
        return Err(format!("{} is not a file", tarball.display()));
    }
    std::fs::create_dir_all(dest).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
    let status = std::process::Command::new("tar")
        .arg("-xjf")
        .arg(tarball)
        .arg("-C")
        .arg(dest)
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
    let tops: Vec<PathBuf> = std::fs::read_dir(dest)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    match tops.as_slice() {
        [one] => Ok(one.clone()),
        _ => Ok(dest.to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use super::load;
    use std::process::Command;

    #[test]
    fn an_extracted_snapshot_leaves_nothing_in_scratch() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("not-sysfs")).unwrap();
        std::fs::write(src.join("not-sysfs/file"), "x").unwrap();
        let tarball = tmp.path().join("bad.tar.bz2");
        let made = Command::new("tar")
            .arg("-cjf")
            .arg(&tarball)
            .arg("-C")
            .arg(&src)
            .arg("not-sysfs")
            .status()
            .expect("tar runs");
        assert!(made.success());
        let scratch = tmp.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        // Not a sysfs snapshot: reading fails, and the copy is gone anyway.
        let e = load(tarball.to_str().unwrap(), &scratch).unwrap_err();
        assert!(e.to_string().contains("bad.tar.bz2"), "{e}");
        assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
    }
}
