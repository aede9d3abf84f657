//! `skip`: the producer is split at `n`; the skipped part still runs first
//! (in parallel, into a consumer that drops its items), as `Iterator::skip`
//! evaluates the skipped items, so side effects and panics of earlier
//! adapters happen.

use super::noop::NoopReducer;
use super::plumbing::*;
use super::*;

/// All but the first `n` items. Made by [`IndexedParallelIterator::skip`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Skip { base, n }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Skip<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Skip<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.base.len() - self.n
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback {
            callback,
            n: self.n,
        });

        struct Callback<CB> {
            callback: CB,
            n: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let (skipped, kept) = base.split_at(self.n);
                bridge_producer_consumer(self.n, skipped, Discard);
                self.callback.callback(kept)
            }
        }
    }
}

/// Drops every item it is given.
pub(super) struct Discard;

impl<T> Consumer<T> for Discard {
    type Folder = Discard;
    type Reducer = NoopReducer;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (Discard, Discard, NoopReducer)
    }
    fn into_folder(self) -> Discard {
        Discard
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T> Folder<T> for Discard {
    type Result = ();

    fn consume(self, _item: T) -> Self {
        self
    }
    fn consume_iter<It: IntoIterator<Item = T>>(self, iter: It) -> Self {
        iter.into_iter().for_each(drop);
        self
    }
    fn complete(self) {}
    fn full(&self) -> bool {
        false
    }
}

impl<T> UnindexedConsumer<T> for Discard {
    fn split_off_left(&self) -> Self {
        Discard
    }
    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}
