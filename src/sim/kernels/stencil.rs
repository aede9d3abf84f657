//! The stencil kernel ([`Stencil`]): a 5-point Jacobi sweep over bands of
//! rows, as an indexed iterator (optionally with affinity replay). Work
//! figures and data names: the [module docs](super).

use crate::sim::workload::{IterSpec, Node, Root, Task, Touch, Workload, one_root};

use super::common::{ELEM, id, iter_task, leaf, read, split_items, write};

/// A Jacobi sweep of a 5-point stencil over an `n` x `n` grid of `f64`,
/// `sweeps` times over the same two arrays (each sweep reads one and
/// writes the other). A sweep is an indexed iterator over bands of
/// [`Stencil::BAND`] rows (`par_chunks_mut(BAND * n).with_max_len(1)`),
/// so locus's first split cuts it by domain; with `replay`, every sweep
/// uses the same affinity replay handle. A band reads its rows and the
/// boundary rows of its two neighbours and writes its rows. 0.5 ns a
/// point (the work figures of `kernels`).
#[derive(Debug, Clone)]
pub struct Stencil {
    /// Grid side (rows and columns).
    pub n: u64,
    /// Sweeps.
    pub sweeps: u64,
    /// Whether the sweeps use an affinity replay handle.
    pub replay: bool,
}

impl Stencil {
    /// Rows a band (an item of a sweep) holds.
    pub const BAND: u64 = 4;
    /// Default grid side: two 32 MiB arrays.
    pub const N: u64 = 2048;
    /// Default sweeps.
    pub const SWEEPS: u64 = 8;
    const KIND: u64 = 1;

    pub(super) fn bands(&self) -> u64 {
        self.n.div_ceil(Self::BAND).max(1)
    }

    fn rows(&self, band: u64) -> u64 {
        Self::BAND.min(self.n - band * Self::BAND)
    }
}

impl Workload for Stencil {
    fn name(&self) -> String {
        let kind = if self.replay {
            "stencil-replay"
        } else {
            "stencil"
        };
        format!("{kind}:{}:{}", self.n, self.sweeps)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, 0, 0))
    }
    // A sweep's node is `(sweep, 0, 0)`; its items' nodes are
    // `(lo, len, sweep + 1)`.
    fn task(&self, node: &Node) -> Task {
        if node.c >= 1 {
            return split_items(node, |band| leaf(self.rows(band) * self.n / 2));
        }
        let sweep = node.a;
        iter_task(IterSpec {
            len: self.bands(),
            min_len: 1,
            replay: self.replay,
            piece: sweep + 1,
            then: (sweep + 1 < self.sweeps).then(|| Node::new(sweep + 1, 0, 0)),
        })
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        if node.c == 0 || node.b != 1 {
            return Vec::new();
        }
        let (band, sweep) = (node.a, node.c - 1);
        let (src, dst) = (sweep % 2, 1 - sweep % 2);
        let row = self.n * ELEM;
        let mut t = vec![read(id(Self::KIND, src, band), self.rows(band) * row)];
        for nb in [band.checked_sub(1), Some(band + 1)].into_iter().flatten() {
            if nb < self.bands() {
                t.push(read(id(Self::KIND, src, nb), row));
            }
        }
        t.push(write(id(Self::KIND, dst, band), self.rows(band) * row));
        t
    }
}
