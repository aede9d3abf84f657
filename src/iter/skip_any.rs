//! `skip_any` and `take_any`: a shared countdown decides, item by item,
//! whether an item is among the `n` skipped (or taken).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::plumbing::*;
use super::*;

/// All but `n` items, any of them skipped. Made by
/// [`ParallelIterator::skip_any`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct SkipAny<I> {
    base: I,
    n: usize,
}

/// At most `n` items, any of them. Made by [`ParallelIterator::take_any`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct TakeAny<I> {
    base: I,
    n: usize,
}

impl<I> SkipAny<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        SkipAny { base, n }
    }
}

impl<I> TakeAny<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        TakeAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for SkipAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let left = AtomicUsize::new(self.n);
        self.base.drive_unindexed(CountdownConsumer {
            base: consumer,
            left: &left,
            take: false,
        })
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let left = AtomicUsize::new(self.n);
        self.base.drive_unindexed(CountdownConsumer {
            base: consumer,
            left: &left,
            take: true,
        })
    }
}

/// Passes on the items that win the countdown (`take`) or lose it.
struct CountdownConsumer<'a, C> {
    base: C,
    left: &'a AtomicUsize,
    take: bool,
}

impl<'a, C> CountdownConsumer<'a, C> {
    fn with(&self, base: C) -> Self {
        CountdownConsumer {
            base,
            left: self.left,
            take: self.take,
        }
    }

    /// Claims one unit of the countdown; true if there was one left.
    fn claim(left: &AtomicUsize) -> bool {
        left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }

    fn exhausted(&self) -> bool {
        self.take && self.left.load(Ordering::Relaxed) == 0
    }
}

impl<'a, T, C: Consumer<T>> Consumer<T> for CountdownConsumer<'a, C> {
    type Folder = CountdownConsumer<'a, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let CountdownConsumer { base, left, take } = self;
        let (l, r, reducer) = base.split_at(index);
        (
            CountdownConsumer {
                base: l,
                left,
                take,
            },
            CountdownConsumer {
                base: r,
                left,
                take,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        CountdownConsumer {
            base: self.base.into_folder(),
            left: self.left,
            take: self.take,
        }
    }
    fn full(&self) -> bool {
        self.exhausted() || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for CountdownConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        self.with(self.base.split_off_left())
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<T, F: Folder<T>> Folder<T> for CountdownConsumer<'_, F> {
    type Result = F::Result;

    fn consume(mut self, item: T) -> Self {
        if Self::claim(self.left) == self.take {
            self.base = self.base.consume(item);
        }
        self
    }
    fn consume_iter<It: IntoIterator<Item = T>>(mut self, iter: It) -> Self {
        let (left, take) = (self.left, self.take);
        let passed = iter
            .into_iter()
            .take_while(|_| !(take && left.load(Ordering::Relaxed) == 0))
            .filter(|_| Self::claim(left) == take);
        self.base = self.base.consume_iter(passed);
        self
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.exhausted() || self.base.full()
    }
}
