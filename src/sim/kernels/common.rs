//! The pieces every kernel builds from: block ids, task builders (a leaf,
//! a split, an iterator's task, the halves of a range) and touches.
//!
//! Invariants: a block id is `kind << 56 | array << 48 | index` ([`id`]),
//! the same block the same id in every task and sweep; every kernel task
//! names all its data by touches (no footprint, no data identity).

use crate::sim::workload::{Body, IterSpec, Node, Task, Touch};

/// The id of block `index` of array `array` of workload kind `kind`.
pub(super) const fn id(kind: u64, array: u64, index: u64) -> u64 {
    kind << 56 | array << 48 | index
}

/// Bytes of an `f64` (or `u64`) element.
pub(super) const ELEM: u64 = 8;

/// Work of a split (a `join` that only halves its range), as the other
/// workloads charge it.
pub(super) const SPLIT_NS: u64 = 5;

/// A task of `work_ns` and `body` whose data is all named by
/// [`Workload::touches`](crate::sim::workload::Workload::touches) (no footprint, no data identity): every task of
/// these workloads.
pub(super) fn task(work_ns: u64, body: Body) -> Task {
    Task {
        work_ns,
        footprint: 0,
        data: None,
        body,
    }
}

/// A leaf of `work_ns`.
pub(super) fn leaf(work_ns: u64) -> Task {
    task(work_ns, Body::Leaf)
}

/// A split (a `join`, or a `join` and then a task), at [`SPLIT_NS`].
pub(super) fn split(body: Body) -> Task {
    task(SPLIT_NS, body)
}

/// The task that runs `spec`'s iterator (run `run` of a loop).
pub(super) fn iter_task(spec: IterSpec) -> Task {
    task(0, Body::Iter(spec))
}

/// `join` of the two halves of `lo..lo + len` (the first `len / 2`
/// items, then the rest), both with `tag`.
pub(super) fn halves(lo: u64, len: u64, tag: u64) -> Body {
    let h = len / 2;
    Body::Join(Node::new(lo, h, tag), Node::new(lo + h, len - h, tag))
}

/// A split of items `lo..lo + len` of an iterator whose items are blocks
/// (`with_max_len(1)`): halves down to single items; the leaf is the item.
pub(super) fn split_items(node: &Node, leaf: impl FnOnce(u64) -> Task) -> Task {
    let (lo, len, tag) = (node.a, node.b, node.c);
    if len <= 1 {
        return leaf(lo);
    }
    split(halves(lo, len, tag))
}

/// A read of `bytes` of block `id`.
pub(super) fn read(id: u64, bytes: u64) -> Touch {
    Touch {
        id,
        bytes,
        write: false,
    }
}

/// A write of `bytes` of block `id` (its worker becomes the block's only
/// holder).
pub(super) fn write(id: u64, bytes: u64) -> Touch {
    Touch {
        id,
        bytes,
        write: true,
    }
}
