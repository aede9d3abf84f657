//! `while_some`: a consumer that unwraps `Some` items and, at the first
//! `None`, sets a shared flag that makes every piece full.

use std::sync::atomic::{AtomicBool, Ordering};

use super::plumbing::*;
use super::*;

/// The `Some` values until a `None` is seen. Made by
/// [`ParallelIterator::while_some`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(super) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base.drive_unindexed(WhileSomeConsumer {
            base: consumer,
            stop: &stop,
        })
    }
}

struct WhileSomeConsumer<'a, C> {
    base: C,
    stop: &'a AtomicBool,
}

impl<'a, T, C: Consumer<T>> Consumer<Option<T>> for WhileSomeConsumer<'a, C> {
    type Folder = WhileSomeFolder<'a, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        (
            WhileSomeConsumer {
                base: l,
                stop: self.stop,
            },
            WhileSomeConsumer {
                base: r,
                stop: self.stop,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        WhileSomeFolder {
            base: self.base.into_folder(),
            stop: self.stop,
        }
    }
    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<Option<T>> for WhileSomeConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        WhileSomeConsumer {
            base: self.base.split_off_left(),
            stop: self.stop,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct WhileSomeFolder<'a, G> {
    base: G,
    stop: &'a AtomicBool,
}

impl<T, G: Folder<T>> Folder<Option<T>> for WhileSomeFolder<'_, G> {
    type Result = G::Result;

    fn consume(mut self, item: Option<T>) -> Self {
        match item {
            Some(x) => self.base = self.base.consume(x),
            None => self.stop.store(true, Ordering::Relaxed),
        }
        self
    }
    fn consume_iter<It: IntoIterator<Item = Option<T>>>(mut self, iter: It) -> Self {
        let stop = self.stop;
        let values = iter.into_iter().map_while(|item| {
            if item.is_none() {
                stop.store(true, Ordering::Relaxed);
            }
            if stop.load(Ordering::Relaxed) {
                None
            } else {
                item
            }
        });
        self.base = self.base.consume_iter(values);
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.base.full()
    }
}
