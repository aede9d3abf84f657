//! The merge sort ([`Mergesort`]): runs sorted in place, then merged level
//! by level between two buffers. Work figures and data names: the [module
//! docs](super).

use crate::sim::workload::{Body, Node, Root, Task, Touch, Workload, one_root};

use super::common::{ELEM, id, leaf, read, split, write};

/// A parallel merge sort of `n` `u64`s (`n` rounded up to a power of two
/// of at least [`Mergesort::RUN`]), as rayon's `par_sort` works: a
/// recursive `join` down to runs of `RUN` elements, each sorted in place
/// (`RUN log2 RUN` ns); after a `join`, its two sorted halves are merged
/// into the other buffer by a parallel merge, itself a `join` tree over
/// the output down to pieces of `RUN` elements, each reading about half of
/// its elements from each input run and writing its piece (1 ns an
/// element). Runs alternate between two buffers by depth; the data is
/// named by buffer and run of `RUN` elements.
#[derive(Debug, Clone)]
pub struct Mergesort {
    /// Elements (a power of two, at least [`Mergesort::RUN`]).
    pub n: u64,
}

impl Mergesort {
    /// Elements of a sorted leaf run and of a merge piece (32 KiB).
    pub const RUN: u64 = 4096;
    /// Default elements: 4 Mi (32 MiB a buffer).
    pub const N: u64 = 1 << 22;
    const KIND: u64 = 3;
    const MERGE: u64 = 1;

    /// The chunk of buffer `buf` that element `at` is in.
    fn chunk(buf: u64, at: u64) -> u64 {
        id(Self::KIND, buf, at / Self::RUN)
    }
}

impl Workload for Mergesort {
    fn name(&self) -> String {
        format!("mergesort:{}", self.n)
    }
    fn roots(&self) -> Vec<Root> {
        one_root(Node::new(0, self.n, 0))
    }
    // A node is (lo, len, depth * 2 + merge): a sort of lo..lo + len, or
    // the piece lo..lo + len of the output of the merge at that depth.
    fn task(&self, node: &Node) -> Task {
        let (lo, len, depth, merge) = (node.a, node.b, node.c / 2, node.c % 2);
        let h = len / 2;
        if len <= Self::RUN {
            let work = if merge == Self::MERGE {
                len
            } else {
                len * u64::from(len.max(2).ilog2())
            };
            return leaf(work);
        }
        let (a, b) = (
            Node::new(lo, h, node.c + 2 * (1 - merge)),
            Node::new(lo + h, h, node.c + 2 * (1 - merge)),
        );
        let body = if merge == Self::MERGE {
            Body::Join(a, b)
        } else {
            Body::JoinThen(a, b, Node::new(lo, len, depth * 2 + Self::MERGE))
        };
        split(body)
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let (lo, len, depth, merge) = (node.a, node.b, node.c / 2, node.c % 2);
        if len > Self::RUN {
            return Vec::new();
        }
        // Depth d's output goes to buffer d % 2; its inputs (depth d + 1's
        // outputs) are in the other.
        let out = depth % 2;
        let bytes = len * ELEM;
        if merge != Self::MERGE {
            // A leaf sorts its run in place, in its depth's buffer (the
            // write fetches it).
            return vec![write(Self::chunk(out, lo), bytes)];
        }
        // The merge of run m..m + 2h (h = n >> (depth + 1)) into piece
        // lo..lo + len takes about half from each input at the same offset.
        let half = self.n >> (depth + 1);
        let m = lo - lo % (2 * half);
        let off = (lo - m) / 2;
        let inb = 1 - out;
        vec![
            read(Self::chunk(inb, m + off), bytes / 2),
            read(Self::chunk(inb, m + half + off), bytes / 2),
            write(Self::chunk(out, lo), bytes),
        ]
    }
}
