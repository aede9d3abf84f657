//! `step_by`: a producer over every `step`-th item of its base.

use std::iter;

use super::plumbing::*;
use super::*;

/// Every `step`-th item, from the first. Made by
/// [`IndexedParallelIterator::step_by`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    pub(super) fn new(base: I, step: usize) -> Self {
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let base_len = self.base.len();
        return self.base.with_producer(Callback {
            callback,
            step: self.step,
            base_len,
        });

        struct Callback<CB> {
            callback: CB,
            step: usize,
            base_len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(StepByProducer {
                    base,
                    step: self.step,
                    base_len: self.base_len,
                })
            }
        }
    }
}

/// Every `step`-th of the `base_len` items of `base`.
struct StepByProducer<P> {
    base: P,
    step: usize,
    base_len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = iter::StepBy<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }
    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }
    fn max_len(&self) -> usize {
        (self.base.max_len() / self.step).max(1)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let cut = index.saturating_mul(self.step).min(self.base_len);
        let (l, r) = self.base.split_at(cut);
        let step = self.step;
        (
            StepByProducer {
                base: l,
                step,
                base_len: cut,
            },
            StepByProducer {
                base: r,
                step,
                base_len: self.base_len - cut,
            },
        )
    }
}
