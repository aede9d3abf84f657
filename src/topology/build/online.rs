//! The online PUs of a topology being built ([`Online`]): from step 1
//! (`normalise`) on, every step knows a PU by its position among them.
//!
//! Invariant: `os` is ascending without repeats and `set` holds the same
//! indexes, so a PU's position is its rank in `set`.

use crate::topology::CpuSet;

/// The online PUs. From `normalise` on, a PU is known by its position in
/// `os` (ascending OS indexes), the order of `Facts::pus`.
pub(super) struct Online {
    /// OS index of each PU, ascending.
    pub(super) os: Vec<usize>,
    /// The same indexes, as a set.
    pub(super) set: CpuSet,
}

impl Online {
    /// Positions of the online members of `set`, ascending.
    pub(super) fn positions<'a>(&'a self, set: &'a CpuSet) -> impl Iterator<Item = usize> + 'a {
        set.iter().filter_map(|os| self.os.binary_search(&os).ok())
    }

    pub(super) fn len(&self) -> usize {
        self.os.len()
    }
}
