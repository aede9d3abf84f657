//! Helpers for the crate's unit tests of crate-private policy: the pool's
//! idle masks of a layout, hwloc's Linux snapshots of real machines, and
//! the tests' pools and `fib`. The last two are the integration tests' own
//! code (`tests/common/fixtures.rs` and `work.rs`, included here).

#[path = "../tests/common/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;
/// The tests' pools, `fib` and bounded wait (`locus` is this crate here).
#[path = "../tests/common/work.rs"]
#[allow(dead_code)]
pub(crate) mod work;

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
pub(crate) fn snapshot(name: &str) -> (fixtures::Snapshot, Topology) {
    let s = fixtures::extract(name);
    let t = Topology::from_sysfs(&s.root).unwrap_or_else(|e| panic!("{name}: {e}"));
    (s, t)
}
