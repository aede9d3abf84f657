//! `interleave_shortest`: an [`Interleave`] of both sides cut so that the
//! alternation stops when one side runs out.

use super::plumbing::*;
use super::*;

/// Alternates the items of two iterators until one runs out. Made by
/// [`IndexedParallelIterator::interleave_shortest`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct InterleaveShortest<I, J> {
    interleave: Interleave<Take<I>, Take<J>>,
}

impl<I, J> InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    pub(super) fn new(i: I, j: J) -> Self {
        // a, b, a, b, ...: if `i` is not longer, both give `i.len()`;
        // otherwise `i` gives one more than `j`.
        let (il, jl) = (i.len(), j.len());
        let (ti, tj) = if il <= jl { (il, il) } else { (jl + 1, jl) };
        InterleaveShortest {
            interleave: Interleave::new(i.take(ti), j.take(tj)),
        }
    }
}

impl<I, J> ParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self.interleave, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.interleave.len())
    }
}

impl<I, J> IndexedParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self.interleave, consumer)
    }
    fn len(&self) -> usize {
        self.interleave.len()
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.interleave.with_producer(callback)
    }
}
