//! STREAM's triad ([`Triad`]): `a = b + s c` over chunks, iteration after
//! iteration. Work figures and data names: the [module docs](super).

use crate::sim::workload::{IterSpec, Node, Root, Task, Touch, Workload, one_root};

use super::common::{ELEM, id, iter_task, leaf, read, split_items, write};

/// STREAM's triad `a[i] = b[i] + s * c[i]` over three arrays of `n`
/// `f64`s, `iters` times: each iteration an indexed iterator over chunks
/// of [`Triad::CHUNK`] elements (`with_max_len(1)`; locus's first split
/// cuts it by domain, the same way every iteration), a chunk reading `b`
/// and `c` and writing `a`. 1/3 ns an element (the work figures of
/// `kernels`).
#[derive(Debug, Clone)]
pub struct Triad {
    /// Elements of each array.
    pub n: u64,
    /// Iterations.
    pub iters: u64,
}

impl Triad {
    /// Elements of a chunk (64 KiB of each array).
    pub const CHUNK: u64 = 8192;
    /// Default elements: 4 Mi (three 32 MiB arrays).
    pub const N: u64 = 1 << 22;
    /// Default iterations.
    pub const ITERS: u64 = 10;
    const KIND: u64 = 4;

    fn len(&self, chunk: u64) -> u64 {
        Self::CHUNK.min(self.n - chunk * Self::CHUNK)
    }
}

impl Workload for Triad {
    fn name(&self) -> String {
        format!("triad:{}:{}", self.n, self.iters)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, 0, 0))
    }
    fn task(&self, node: &Node) -> Task {
        if node.c >= 1 {
            return split_items(node, |chunk| leaf(self.len(chunk) / 3));
        }
        let it = node.a;
        iter_task(IterSpec {
            len: self.n.div_ceil(Self::CHUNK).max(1),
            min_len: 1,
            replay: false,
            piece: it + 1,
            then: (it + 1 < self.iters).then(|| Node::new(it + 1, 0, 0)),
        })
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        if node.c == 0 || node.b != 1 {
            return Vec::new();
        }
        let (chunk, bytes) = (node.a, self.len(node.a) * ELEM);
        vec![
            read(id(Self::KIND, 1, chunk), bytes),
            read(id(Self::KIND, 2, chunk), bytes),
            write(id(Self::KIND, 0, chunk), bytes),
        ]
    }
}
