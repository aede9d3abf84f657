//! Helpers for the crate's unit tests of crate-private policy: the pool's
//! idle masks of a layout, and hwloc's Linux snapshots of real machines
//! (the integration tests read the same data through `tests/common`, which
//! unit tests cannot reach).
//!
//! The snapshot data is not in this repository: tests that read it are `#[ignore]`d
//! and run with `cargo test -- --ignored`, which finds it in
//! `$LOCUS_TEST_TOPOLOGIES` (relative to the crate's root, or absolute),
//! else in `../shared/topologies`.

use std::path::Path;
use std::process::Command;

use crate::runtime::idle::IdleMasks;
use crate::runtime::registry::idle_shape;
use crate::{Layout, Topology};

/// The idle masks the pool builds for `l`, with every worker idle (as
/// after start-up of an idle pool).
pub(crate) fn all_idle(l: &Layout) -> IdleMasks {
    let m = IdleMasks::new(idle_shape(l));
    for w in 0..l.len() {
        m.set_idle(w);
    }
    m
}

/// Extracts `hwloc-linux/NAME.tar.bz2` into a temporary directory and reads
/// it; the directory lives as long as the returned guard. Panics (failing
/// the test) with what to do when the data or `tar` is missing.
pub(crate) fn snapshot(name: &str) -> (tempfile::TempDir, Topology) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = match std::env::var_os("LOCUS_TEST_TOPOLOGIES").filter(|v| !v.is_empty()) {
        Some(v) => manifest.join(v),
        None => manifest.join("../shared/topologies"),
    };
    let tarball = dir.join("hwloc-linux").join(format!("{name}.tar.bz2"));
    assert!(
        tarball.is_file(),
        "missing {}: set LOCUS_TEST_TOPOLOGIES to the directory holding hwloc's test data \
         (tests/hwloc/linux of https://github.com/open-mpi/hwloc as hwloc-linux/)",
        tarball.display()
    );
    let tmp = tempfile::TempDir::new().expect("temp dir");
    let out = Command::new("tar")
        .arg("-xjf")
        .arg(&tarball)
        .arg("-C")
        .arg(tmp.path())
        .output()
        .unwrap_or_else(|e| panic!("cannot run tar for {}: {e}", tarball.display()));
    assert!(
        out.status.success(),
        "tar -xjf {} failed",
        tarball.display()
    );
    let top = std::fs::read_dir(tmp.path())
        .expect("read temp dir")
        .map(|e| e.expect("dir entry").path())
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("{name}: no directory in the tarball"));
    let root = if top.join("fsroot").is_dir() {
        top.join("fsroot")
    } else {
        top
    };
    let t = Topology::from_sysfs(&root).unwrap_or_else(|e| panic!("{name}: {e}"));
    (tmp, t)
}
