//! The blocked matrix product ([`Matmul`]): one task per output block, each
//! reading a row and a column of blocks. Work figures and data names: the
//! [module docs](super).

use crate::sim::workload::{Body, Node, Root, Task, Touch, Workload, one_root};

use super::common::{ELEM, id, leaf, read, split, write};

/// `C = A B` for `n` x `n` matrices of `f64` in blocks of `block` x
/// `block` (`n` a multiple of it): a recursive `join` halves the larger
/// side of the range of C's blocks, as a cache-oblivious blocked product
/// splits, down to one C block, which reads A's row of blocks and B's
/// column of blocks (each `block * n` elements) and writes its block:
/// `2 block^2 n` flops at 0.025 ns a flop (the work figures of `kernels`,
/// whatever the block: the model does not slow small blocks down).
#[derive(Debug, Clone)]
pub struct Matmul {
    /// Matrix side (a multiple of `block`).
    pub n: u64,
    /// Block side ([`Matmul::BLOCK`] unless the spec names one).
    pub block: u64,
}

impl Matmul {
    /// Default block side: a 32 KiB C block, panels of `64 n` elements.
    pub const BLOCK: u64 = 64;
    /// Default matrix side: three 32 MiB matrices, 1,024 C blocks.
    pub const N: u64 = 2048;
    const KIND: u64 = 2;

    /// The product of `n` x `n` matrices (rounded up to a multiple of
    /// `block`) in blocks of `block` x `block`. The spec parser
    /// (`matmul:N:BLOCK`) also refuses blocks whose flops overflow.
    ///
    /// # Panics
    /// If `block` is 0.
    pub fn new(n: u64, block: u64) -> Matmul {
        assert!(block > 0, "a matmul block has at least one element a side");
        Matmul {
            n: n.next_multiple_of(block),
            block,
        }
    }

    /// C blocks along a side.
    pub(crate) fn blocks(&self) -> u64 {
        self.n / self.block
    }
}

/// Packs a range of block indices `lo..lo + len` into a node word.
const fn range(lo: u64, len: u64) -> u64 {
    lo | len << 32
}

/// Unpacks [`range`].
const fn unrange(x: u64) -> (u64, u64) {
    (x & 0xFFFF_FFFF, x >> 32)
}

impl Workload for Matmul {
    fn name(&self) -> String {
        if self.block == Self::BLOCK {
            format!("matmul:{}", self.n)
        } else {
            format!("matmul:{}:{}", self.n, self.block)
        }
    }
    fn roots(&self) -> Vec<Root> {
        let nb = self.blocks();
        one_root(Node::new(range(0, nb), range(0, nb), 0))
    }
    // A node is (rows of C blocks, columns of C blocks).
    fn task(&self, node: &Node) -> Task {
        let ((i0, ni), (j0, nj)) = (unrange(node.a), unrange(node.b));
        if ni * nj <= 1 {
            // 2 block^2 n flops at 40 GFLOP/s.
            return leaf(2 * self.block * self.block * self.n / 40);
        }
        let body = if ni >= nj {
            let h = ni / 2;
            Body::Join(
                Node::new(range(i0, h), node.b, 0),
                Node::new(range(i0 + h, ni - h), node.b, 0),
            )
        } else {
            let h = nj / 2;
            Body::Join(
                Node::new(node.a, range(j0, h), 0),
                Node::new(node.a, range(j0 + h, nj - h), 0),
            )
        };
        split(body)
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        let ((i, ni), (j, nj)) = (unrange(node.a), unrange(node.b));
        if ni * nj != 1 {
            return Vec::new();
        }
        let panel = self.block * self.n * ELEM;
        vec![
            read(id(Self::KIND, 0, i), panel),
            read(id(Self::KIND, 1, j), panel),
            write(
                id(Self::KIND, 2, i * self.blocks() + j),
                self.block * self.block * ELEM,
            ),
        ]
    }
}
