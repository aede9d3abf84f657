//! Where hwloc's test data is, and extracting one of its Linux snapshots
//! at run time. Shared by the integration tests (`tests/common`) and the
//! crate's unit tests (`src/test_support.rs` includes this file), so it
//! names nothing of locus.
//!
//! The data is hwloc's own (`tests/hwloc/linux`, `tests/hwloc/xml` and
//! `tests/hwloc/x86` of the hwloc repository; `SOURCES.md` beside it says
//! which commit). It is not in this repository: the tests that read it are
//! `#[ignore]`d, and run with `cargo test -- --ignored`, which finds it in
//! [`FIXTURES_VAR`] or else `../shared/topologies` next to the crate.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the fixtures directory (relative to the
/// crate's root, or absolute); it holds `hwloc-linux/`, `hwloc-xml/` and
/// `hwloc-x86-xml/`.
pub const FIXTURES_VAR: &str = "LOCUS_TEST_TOPOLOGIES";

/// The fixtures directory: `$LOCUS_TEST_TOPOLOGIES`, else
/// `<manifest>/../shared/topologies`. Panics (failing the test) with what to
/// do when it holds no `hwloc-linux` directory.
pub fn topologies_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (d, from) = match std::env::var_os(FIXTURES_VAR).filter(|v| !v.is_empty()) {
        Some(v) => (manifest.join(v), format!("{FIXTURES_VAR} names")),
        None => (
            manifest.join("../shared/topologies"),
            format!("{FIXTURES_VAR} is unset, so the default is"),
        ),
    };
    assert!(
        d.join("hwloc-linux").is_dir(),
        "hwloc's test data not found: {from} {}, which has no hwloc-linux directory. These tests read \
         hwloc's test files (tests/hwloc/linux, tests/hwloc/xml and tests/hwloc/x86 of \
         https://github.com/open-mpi/hwloc, as hwloc-linux/, hwloc-xml/ and hwloc-x86-xml/); set \
         {FIXTURES_VAR} to the directory holding them.",
        d.display()
    );
    d
}

/// The `hwloc-linux` fixtures directory.
pub fn linux_dir() -> PathBuf {
    topologies_dir().join("hwloc-linux")
}

/// Files of `sub` (under [`topologies_dir`]) whose name ends with `suffix`,
/// sorted; panics if there is none.
pub fn fixture_files(sub: &str, suffix: &str) -> Vec<PathBuf> {
    let dir = topologies_dir().join(sub);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no {suffix} file in {}", dir.display());
    v
}

/// An extracted snapshot; the directory is removed on drop.
pub struct Snapshot {
    _tmp: tempfile::TempDir,
    /// The tarball's single top directory (what hwloc's `HWLOC_FSROOT`
    /// names, except for x86+linux snapshots).
    pub top: PathBuf,
    /// The tree to read: `top`, or `top/fsroot` for hwloc's x86+linux
    /// snapshots (which keep a CPUID dump in `top/cpuid`).
    pub root: PathBuf,
}

/// Extracts `NAME.tar.bz2` of [`linux_dir`] into a temporary directory.
pub fn extract(name: &str) -> Snapshot {
    let tarball = linux_dir().join(format!("{name}.tar.bz2"));
    assert!(tarball.is_file(), "missing fixture {}", tarball.display());
    // Extracting up to 16000 small files is ten times faster in tmpfs.
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() {
        tempfile::TempDir::new_in(shm).or_else(|_| tempfile::TempDir::new())
    } else {
        tempfile::TempDir::new()
    }
    .expect("temp dir");
    let out = Command::new("tar")
        .arg("-xjf")
        .arg(&tarball)
        .arg("-C")
        .arg(tmp.path())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run tar (needed to extract {}): {e}",
                tarball.display()
            )
        });
    assert!(
        out.status.success(),
        "tar -xjf {} failed: {}",
        tarball.display(),
        String::from_utf8_lossy(&out.stderr)
    );
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
        top.clone()
    };
    Snapshot {
        _tmp: tmp,
        top,
        root,
    }
}
