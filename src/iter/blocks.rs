//! `by_exponential_blocks` and `by_uniform_blocks`: an indexed iterator run
//! as a *sequence* of parallel blocks, each block split and run in
//! parallel before the next one starts.
//!
//! The consumer is cut as for an unindexed split: each block gets
//! `split_off_left()` of what is left, and the results are reduced left
//! to right, so ordered consumers (`collect`, `find_first`) see the items
//! in order. A consumer that becomes full (a search that found its item)
//! stops the sequence before the next block.

use super::plumbing::*;
use super::*;

/// Blocks of growing size: as many items as the pool has threads, then
/// twice as many, and so on. Made by
/// [`IndexedParallelIterator::by_exponential_blocks`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct ExponentialBlocks<I> {
    base: I,
}

/// Blocks of `block_size` items. Made by
/// [`IndexedParallelIterator::by_uniform_blocks`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct UniformBlocks<I> {
    base: I,
    block_size: usize,
}

impl<I> ExponentialBlocks<I> {
    pub(super) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

impl<I> UniformBlocks<I> {
    pub(super) fn new(base: I, block_size: usize) -> Self {
        UniformBlocks { base, block_size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let len = self.base.len();
        let first = crate::current_num_threads();
        self.base.with_producer(BlocksCallback {
            consumer,
            len,
            first,
            doubling: true,
        })
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let len = self.base.len();
        self.base.with_producer(BlocksCallback {
            consumer,
            len,
            first: self.block_size,
            doubling: false,
        })
    }
}

/// Receives the base producer and runs it block by block.
struct BlocksCallback<C> {
    consumer: C,
    len: usize,
    /// The first block's size (at least 1).
    first: usize,
    /// Whether each block is twice the size of the previous one.
    doubling: bool,
}

impl<T, C: UnindexedConsumer<T>> ProducerCallback<T> for BlocksCallback<C> {
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        let BlocksCallback {
            consumer,
            mut len,
            first,
            doubling,
        } = self;
        let mut size = first.max(1);
        let mut rest = producer;
        let mut done: Option<C::Result> = None;
        while len > 0 && !consumer.full() {
            let n = size.min(len);
            let (block, tail) = rest.split_at(n);
            rest = tail;
            len -= n;
            let r = bridge_producer_consumer(n, block, consumer.split_off_left());
            done = Some(match done {
                Some(before) => consumer.to_reducer().reduce(before, r),
                None => r,
            });
            if doubling {
                size = size.saturating_mul(2);
            }
        }
        let reducer = consumer.to_reducer();
        let end = consumer.into_folder().complete();
        match done {
            Some(before) => reducer.reduce(before, end),
            None => end,
        }
    }
}
