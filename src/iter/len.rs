//! `with_min_len` and `with_max_len`: a producer that tightens the length
//! bounds its base reports to the splitter.

use super::plumbing::*;
use super::*;

/// Pieces of work hold at least `min` items. Made by
/// [`IndexedParallelIterator::with_min_len`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct MinLen<I> {
    base: I,
    min: usize,
}

/// Pieces of work hold at most `max` items. Made by
/// [`IndexedParallelIterator::with_max_len`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct MaxLen<I> {
    base: I,
    max: usize,
}

impl<I> MinLen<I> {
    pub(super) fn new(base: I, min: usize) -> Self {
        MinLen { base, min }
    }
}

impl<I> MaxLen<I> {
    pub(super) fn new(base: I, max: usize) -> Self {
        MaxLen { base, max }
    }
}

/// Both adapters, as their bounds: `(min, max)`.
macro_rules! bounded {
    ($name:ident, |$s:ident| $bounds:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.base.len()
            }
            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                let $s = &self;
                let (min, max) = $bounds;
                self.base.with_producer(Callback { callback, min, max })
            }
        }
    };
}

bounded!(MinLen, |s| (s.min, usize::MAX));
bounded!(MaxLen, |s| (1, s.max));

struct Callback<CB> {
    callback: CB,
    min: usize,
    max: usize,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(BoundedProducer {
            base,
            min: self.min,
            max: self.max,
        })
    }
}

/// `base` with its length bounds tightened to `min..=max`.
struct BoundedProducer<P> {
    base: P,
    min: usize,
    max: usize,
}

impl<P: Producer> Producer for BoundedProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }
    fn min_len(&self) -> usize {
        self.base.min_len().max(self.min)
    }
    fn max_len(&self) -> usize {
        self.base.max_len().min(self.max)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        let (min, max) = (self.min, self.max);
        (
            BoundedProducer { base: l, min, max },
            BoundedProducer { base: r, min, max },
        )
    }
    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}
