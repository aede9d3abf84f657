//! `flatten`: a [`FlatMap`](super::FlatMap) with the identity.

use super::plumbing::UnindexedConsumer;
use super::{IntoParallelIterator, ParallelIterator};

/// Yields the items of every item, each a parallel iterator. Made by
/// [`ParallelIterator::flatten`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(super) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator<Item: IntoParallelIterator>,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.flat_map(|x| x).drive_unindexed(consumer)
    }
}
