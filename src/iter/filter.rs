//! `filter`: a [`FilterMap`](super::FilterMap) that keeps or drops each
//! item as it is.

use std::fmt;

use super::ParallelIterator;
use super::plumbing::UnindexedConsumer;

/// Keeps the items for which a predicate holds. Made by
/// [`ParallelIterator::filter`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct Filter<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Filter<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").field("base", &self.base).finish()
    }
}

impl<I, P> Filter<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
        Filter { base, filter_op }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let keep = &self.filter_op;
        self.base
            .filter_map(move |x| if keep(&x) { Some(x) } else { None })
            .drive_unindexed(consumer)
    }
}
