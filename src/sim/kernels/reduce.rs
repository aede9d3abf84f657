//! The tree reduction ([`Reduce`]): a sum over leaves of an array, run
//! after run. Work figures and data names: the [module docs](super).

use crate::sim::workload::{Body, Node, Root, Task, Touch, Workload, one_root};

use super::common::{ELEM, halves, id, leaf, read, split};

/// A tree reduction (a sum) over an array of `n` `f64`s, `runs` times one
/// after the other: a recursive `join` halving the range down to leaves
/// of [`Reduce::LEAF`] elements, each reading its chunk (1/4 ns an
/// element, the work figures of `kernels`); the next run starts after
/// the previous one returned.
#[derive(Debug, Clone)]
pub struct Reduce {
    /// Elements.
    pub n: u64,
    /// Runs.
    pub runs: u64,
}

impl Reduce {
    /// Elements of a leaf (64 KiB).
    pub const LEAF: u64 = 8192;
    /// Default elements: 8 Mi (64 MiB).
    pub const N: u64 = 1 << 23;
    /// Default runs.
    pub const RUNS: u64 = 8;
    const KIND: u64 = 5;
}

impl Workload for Reduce {
    fn name(&self) -> String {
        format!("reduce:{}:{}", self.n, self.runs)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, self.n, 0))
    }
    // A node is (lo, len, run + 1); `(run, 0, 0)` is run `run`'s start.
    fn task(&self, node: &Node) -> Task {
        if node.c == 0 {
            // Run `run`: the tree's two halves (an empty one when the array
            // is one leaf), then the next run inline.
            let (run, tag) = (node.a, node.a + 1);
            let h = if self.n > Self::LEAF {
                self.n / 2
            } else {
                self.n
            };
            let (a, b) = (Node::new(0, h, tag), Node::new(h, self.n - h, tag));
            let next = (run + 1 < self.runs).then(|| Node::new(run + 1, 0, 0));
            return split(match next {
                Some(next) => Body::JoinThen(a, b, next),
                None => Body::Join(a, b),
            });
        }
        let (lo, len) = (node.a, node.b);
        if len <= Self::LEAF {
            return leaf(len / 4);
        }
        split(halves(lo, len, node.c))
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let len = node.b;
        if node.c == 0 || len == 0 || len > Self::LEAF {
            return Vec::new();
        }
        vec![read(id(Self::KIND, 0, node.a), len * ELEM)]
    }
}
