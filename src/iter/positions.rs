//! `positions`: `enumerate` then keep the indices whose item matches.

use std::fmt;

use super::plumbing::UnindexedConsumer;
use super::{IndexedParallelIterator, ParallelIterator};

/// The indices of the items for which a predicate holds. Made by
/// [`IndexedParallelIterator::positions`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct Positions<I, P> {
    base: I,
    predicate: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Positions<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Positions")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> Positions<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        Positions { base, predicate }
    }
}

impl<I, P> ParallelIterator for Positions<I, P>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    type Item = usize;

    fn drive_unindexed<C: UnindexedConsumer<usize>>(self, consumer: C) -> C::Result {
        let pred = &self.predicate;
        self.base
            .enumerate()
            .filter_map(move |(i, x)| pred(x).then_some(i))
            .drive_unindexed(consumer)
    }
}
