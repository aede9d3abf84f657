//! `chunks`, `fold_chunks` and `fold_chunks_with`: a producer whose items
//! are made from `size` consecutive base items each (the last chunk
//! shorter), by an operation on the sequential iterator of the chunk:
//! collecting it into a `Vec`, or folding it.
//!
//! A chunk is cut off the base *producer* (`split_at`), so no item is
//! buffered: folding a chunk allocates nothing.

use std::fmt;

use super::plumbing::*;
use super::*;

/// Groups items into `Vec`s. Made by [`IndexedParallelIterator::chunks`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Chunks<I> {
    base: I,
    size: usize,
    op: CollectChunk,
}

/// Folds each chunk of items into one value, from `identity()`. Made by
/// [`IndexedParallelIterator::fold_chunks`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct FoldChunks<I, ID, F> {
    base: I,
    size: usize,
    op: FoldChunk<ID, F>,
}

/// Folds each chunk of items into one value, from a clone of `init`. Made
/// by [`IndexedParallelIterator::fold_chunks_with`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct FoldChunksWith<I, T, F> {
    base: I,
    size: usize,
    op: FoldChunkWith<T, F>,
}

impl<I> Chunks<I> {
    pub(super) fn new(base: I, size: usize) -> Self {
        Chunks {
            base,
            size,
            op: CollectChunk,
        }
    }
}

impl<I, ID, F> FoldChunks<I, ID, F> {
    pub(super) fn new(base: I, size: usize, identity: ID, fold_op: F) -> Self {
        FoldChunks {
            base,
            size,
            op: FoldChunk(identity, fold_op),
        }
    }
}

impl<I, T, F> FoldChunksWith<I, T, F> {
    pub(super) fn new(base: I, size: usize, init: T, fold_op: F) -> Self {
        FoldChunksWith {
            base,
            size,
            op: FoldChunkWith(init, fold_op),
        }
    }
}

impl<I: fmt::Debug, ID, F> fmt::Debug for FoldChunks<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunks")
            .field("base", &self.base)
            .field("size", &self.size)
            .finish()
    }
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for FoldChunksWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("FoldChunksWith");
        d.field("base", &self.base)
            .field("size", &self.size)
            .field("init", &self.op.0)
            .finish()
    }
}

/// What becomes of each chunk: the chunk's items, as a sequential
/// iterator, turn into one output item. Each producer owns its op, and a
/// split clones it: ops that share their closures hold references to them,
/// so a clone is a copy of a reference (plus, for `fold_chunks_with`, a
/// clone of `init`, which therefore need not be `Sync`, as in rayon).
trait ChunkOp<T>: Clone + Send {
    /// The output item.
    type Output;
    /// Turns one chunk into its output item.
    fn apply<It: Iterator<Item = T>>(&self, chunk: It) -> Self::Output;
}

/// `chunks`: a chunk becomes a `Vec`.
#[derive(Clone, Copy, Debug)]
struct CollectChunk;

impl<T> ChunkOp<T> for CollectChunk {
    type Output = Vec<T>;
    fn apply<It: Iterator<Item = T>>(&self, chunk: It) -> Vec<T> {
        chunk.collect()
    }
}

/// `fold_chunks`: a chunk is folded from `identity()`.
#[derive(Clone)]
struct FoldChunk<ID, F>(ID, F);

impl<T, U, ID, F> ChunkOp<T> for &FoldChunk<ID, F>
where
    ID: Fn() -> U + Sync,
    F: Fn(U, T) -> U + Sync,
{
    type Output = U;
    fn apply<It: Iterator<Item = T>>(&self, chunk: It) -> U {
        chunk.fold((self.0)(), &self.1)
    }
}

/// `fold_chunks_with`: a chunk is folded from a clone of `init`. The
/// adapter owns the closure (`F`); its producers hold a reference to it
/// (`&F`) and their own `init`.
#[derive(Clone)]
struct FoldChunkWith<U, F>(U, F);

impl<T, U, F> ChunkOp<T> for FoldChunkWith<U, &F>
where
    U: Clone + Send,
    F: Fn(U, T) -> U + Sync,
{
    type Output = U;
    fn apply<It: Iterator<Item = T>>(&self, chunk: It) -> U {
        chunk.fold(self.0.clone(), &self.1)
    }
}

/// The iterator impls of a chunking adapter `$ty` (generic over
/// `[$($gen)*]`), whose `op` field, lent to the producers as `|$op| $lend`,
/// turns each chunk into an `$item`.
macro_rules! chunking {
    ([$($gen:tt)*] $ty:ty => $item:ty, lend = |$op:ident| $lend:expr, where [$($b:tt)*]) => {
        impl<I, $($gen)*> ParallelIterator for $ty
        where
            I: IndexedParallelIterator,
            $($b)*
        {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I, $($gen)*> IndexedParallelIterator for $ty
        where
            I: IndexedParallelIterator,
            $($b)*
        {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.base.len().div_ceil(self.size)
            }
            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                let (len, size, owned) = (self.base.len(), self.size, self.op);
                let $op = &owned;
                self.base.with_producer(ChunkCallback { callback, size, len, op: $lend })
            }
        }
    };
}

chunking!([] Chunks<I> => Vec<I::Item>, lend = |op| *op, where []);
chunking!([ID, F, U] FoldChunks<I, ID, F> => U, lend = |op| op, where [
    ID: Fn() -> U + Sync + Send,
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send,
]);
chunking!([U, F] FoldChunksWith<I, U, F> => U, lend = |op| FoldChunkWith(op.0.clone(), &op.1), where [
    F: Fn(U, I::Item) -> U + Sync + Send,
    U: Send + Clone,
]);

/// Receives the base producer and wraps it in a [`ChunkProducer`].
struct ChunkCallback<CB, Op> {
    callback: CB,
    size: usize,
    len: usize,
    op: Op,
}

impl<T, CB, Op> ProducerCallback<T> for ChunkCallback<CB, Op>
where
    Op: ChunkOp<T>,
    CB: ProducerCallback<Op::Output>,
{
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(ChunkProducer {
            base: Some(base),
            size: self.size,
            len: self.len,
            op: self.op,
        })
    }
}

/// The `len` items of `base` in chunks of `size`, each turned into one
/// item by `op`.
struct ChunkProducer<P, Op> {
    /// `None` once every chunk was taken (the sequential iterator).
    base: Option<P>,
    size: usize,
    len: usize,
    op: Op,
}

impl<P: Producer, Op: ChunkOp<P::Item>> Producer for ChunkProducer<P, Op> {
    type Item = Op::Output;
    type IntoIter = Self;

    fn into_iter(self) -> Self {
        self
    }
    fn min_len(&self) -> usize {
        self.base
            .as_ref()
            .map_or(1, |b| b.min_len().div_ceil(self.size))
    }
    fn max_len(&self) -> usize {
        self.base
            .as_ref()
            .map_or(usize::MAX, |b| (b.max_len() / self.size).max(1))
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let cut = index.saturating_mul(self.size).min(self.len);
        let (l, r) = match self.base {
            Some(b) => {
                let (l, r) = b.split_at(cut);
                (Some(l), Some(r))
            }
            None => (None, None),
        };
        let (size, op) = (self.size, self.op);
        (
            ChunkProducer {
                base: l,
                size,
                len: cut,
                op: op.clone(),
            },
            ChunkProducer {
                base: r,
                size,
                len: self.len - cut,
                op,
            },
        )
    }
}

impl<P: Producer, Op: ChunkOp<P::Item>> ChunkProducer<P, Op> {
    /// Cuts the chunk of `n` items at the front (or, `from_back`, at the
    /// back) off the base and turns it into an item.
    fn take_chunk(&mut self, n: usize, from_back: bool) -> Option<Op::Output> {
        let base = self.base.take()?;
        if self.len == 0 {
            return None;
        }
        let (chunk, rest) = if from_back {
            let (rest, chunk) = base.split_at(self.len - n);
            (chunk, rest)
        } else {
            base.split_at(n)
        };
        self.base = Some(rest);
        self.len -= n;
        Some(self.op.apply(chunk.into_iter()))
    }
}

/// The sequential iterator: cuts a chunk off the front or back.
impl<P: Producer, Op: ChunkOp<P::Item>> Iterator for ChunkProducer<P, Op> {
    type Item = Op::Output;

    fn next(&mut self) -> Option<Op::Output> {
        self.take_chunk(self.size.min(self.len), false)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len.div_ceil(self.size);
        (n, Some(n))
    }
}

impl<P: Producer, Op: ChunkOp<P::Item>> DoubleEndedIterator for ChunkProducer<P, Op> {
    fn next_back(&mut self) -> Option<Op::Output> {
        let last = match self.len % self.size {
            0 => self.size,
            r => r,
        };
        self.take_chunk(last.min(self.len), true)
    }
}

impl<P: Producer, Op: ChunkOp<P::Item>> ExactSizeIterator for ChunkProducer<P, Op> {}
