//! `panic_fuse`: a shared flag set when any closure of the iterator panics
//! (a guard in every folder, and in every leaf's item iterator, sees the
//! unwinding), which makes every other piece stop at its next item: on the
//! consumer side through the folders' `full()`, on the producer side
//! (adapters such as `rev` that iterate a leaf themselves) through the
//! leaf's iterator, which ends once the flag is set.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use super::plumbing::*;
use super::*;

/// Stops every piece once one panicked. Made by
/// [`ParallelIterator::panic_fuse`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    pub(super) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

/// Sets the flag if dropped while unwinding.
struct Fuse<'a>(&'a AtomicBool);

impl Drop for Fuse<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

impl Fuse<'_> {
    fn blown(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let panicked = AtomicBool::new(false);
        self.base.drive_unindexed(PanicFuseConsumer {
            base: consumer,
            panicked: &panicked,
        })
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let panicked = AtomicBool::new(false);
        self.base.drive(PanicFuseConsumer {
            base: consumer,
            panicked: &panicked,
        })
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let panicked = AtomicBool::new(false);
        return self.base.with_producer(Callback {
            callback,
            panicked: &panicked,
        });

        struct Callback<'a, CB> {
            callback: CB,
            panicked: &'a AtomicBool,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<'_, CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(PanicFuseProducer {
                    base,
                    panicked: self.panicked,
                })
            }
        }
    }
}

struct PanicFuseProducer<'a, P> {
    base: P,
    panicked: &'a AtomicBool,
}

impl<'a, P: Producer> Producer for PanicFuseProducer<'a, P> {
    type Item = P::Item;
    type IntoIter = PanicFuseIter<'a, P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        PanicFuseIter {
            base: self.base.into_iter(),
            fuse: Fuse(self.panicked),
        }
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (
            PanicFuseProducer {
                base: l,
                panicked: self.panicked,
            },
            PanicFuseProducer {
                base: r,
                panicked: self.panicked,
            },
        )
    }
    fn fold_with<G: Folder<P::Item>>(self, folder: G) -> G {
        let fuse = Fuse(self.panicked);
        self.base
            .fold_with(PanicFuseFolder { base: folder, fuse })
            .base
    }
}

/// A leaf's items when an adapter above takes the producer's iterator
/// instead of calling its `fold_with` (`rev`, `zip`, ...): ends once the
/// flag is set, and sets it if dropped while unwinding (a closure of that
/// adapter panicked).
struct PanicFuseIter<'a, I> {
    base: I,
    fuse: Fuse<'a>,
}

impl<I: Iterator> Iterator for PanicFuseIter<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.fuse.blown() {
            None
        } else {
            self.base.next()
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for PanicFuseIter<'_, I> {
    fn next_back(&mut self) -> Option<I::Item> {
        if self.fuse.blown() {
            None
        } else {
            self.base.next_back()
        }
    }
}

/// The length is the base's: a blown fuse ends the iterator early, as a
/// panic ends any iterator early, and the caller is unwinding by then.
impl<I: ExactSizeIterator> ExactSizeIterator for PanicFuseIter<'_, I> {
    fn len(&self) -> usize {
        self.base.len()
    }
}

struct PanicFuseConsumer<'a, C> {
    base: C,
    panicked: &'a AtomicBool,
}

impl<'a, T, C: Consumer<T>> Consumer<T> for PanicFuseConsumer<'a, C> {
    type Folder = PanicFuseFolder<'a, C::Folder>;
    type Reducer = PanicFuseReducer<'a, C::Reducer>;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        let p = self.panicked;
        (
            PanicFuseConsumer {
                base: l,
                panicked: p,
            },
            PanicFuseConsumer {
                base: r,
                panicked: p,
            },
            PanicFuseReducer {
                base: reducer,
                _fuse: Fuse(p),
            },
        )
    }
    fn into_folder(self) -> Self::Folder {
        PanicFuseFolder {
            base: self.base.into_folder(),
            fuse: Fuse(self.panicked),
        }
    }
    fn full(&self) -> bool {
        self.panicked.load(Ordering::Relaxed) || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for PanicFuseConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        PanicFuseConsumer {
            base: self.base.split_off_left(),
            panicked: self.panicked,
        }
    }
    fn to_reducer(&self) -> Self::Reducer {
        PanicFuseReducer {
            base: self.base.to_reducer(),
            _fuse: Fuse(self.panicked),
        }
    }
}

struct PanicFuseFolder<'a, G> {
    base: G,
    fuse: Fuse<'a>,
}

impl<T, G: Folder<T>> Folder<T> for PanicFuseFolder<'_, G> {
    type Result = G::Result;

    fn consume(mut self, item: T) -> Self {
        self.base = self.base.consume(item);
        self
    }
    fn consume_iter<It: IntoIterator<Item = T>>(mut self, iter: It) -> Self {
        let fuse = &self.fuse;
        self.base = self
            .base
            .consume_iter(iter.into_iter().take_while(|_| !fuse.blown()));
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.fuse.blown() || self.base.full()
    }
}

/// A reducer can panic too (a user's `reduce` closure); its fuse is only
/// there to be dropped.
struct PanicFuseReducer<'a, R> {
    base: R,
    _fuse: Fuse<'a>,
}

impl<T, R: Reducer<T>> Reducer<T> for PanicFuseReducer<'_, R> {
    fn reduce(self, left: T, right: T) -> T {
        self.base.reduce(left, right)
    }
}
