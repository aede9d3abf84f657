//! `map_with` and `map_init`: `map` with a mutable per-piece state, from a
//! clone of a value or from a closure (see [`Init`]).

use std::fmt;

use super::fold::{FromClone, FromFn, Init};
use super::plumbing::*;
use super::*;

/// Maps with a clone of a value per piece. Made by
/// [`ParallelIterator::map_with`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct MapWith<I, T, F> {
    base: I,
    init: T,
    map_op: F,
}

/// Maps with a value from a closure per piece. Made by
/// [`ParallelIterator::map_init`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    map_op: F,
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for MapWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapWith")
            .field("base", &self.base)
            .field("item", &self.init)
            .finish()
    }
}

impl<I: fmt::Debug, INIT, F> fmt::Debug for MapInit<I, INIT, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapInit").field("base", &self.base).finish()
    }
}

impl<I, T, F> MapWith<I, T, F> {
    pub(super) fn new(base: I, init: T, map_op: F) -> Self {
        MapWith { base, init, map_op }
    }
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(super) fn new(base: I, init: INIT, map_op: F) -> Self {
        MapInit { base, init, map_op }
    }
}

/// Both adapters: `[generics] Type, [bounds]`, and `|init| source` turns
/// the stored `init` field into the per-piece state source.
macro_rules! stateful_map {
    ([$($gen:tt)*] $ty:ty, [$($bounds:tt)*], |$v:ident| $source:expr) => {
        impl<$($gen)*> ParallelIterator for $ty
        where
            I: ParallelIterator,
            F: Fn(&mut T, I::Item) -> R + Sync + Send,
            R: Send,
            $($bounds)*
        {
            type Item = R;

            fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
                let Self { base, init, map_op } = self;
                let $v = init;
                base.drive_unindexed(MapWithConsumer { base: consumer, init: $source, map_op: &map_op })
            }
            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<$($gen)*> IndexedParallelIterator for $ty
        where
            I: IndexedParallelIterator,
            F: Fn(&mut T, I::Item) -> R + Sync + Send,
            R: Send,
            $($bounds)*
        {
            fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
                let Self { base, init, map_op } = self;
                let $v = init;
                base.drive(MapWithConsumer { base: consumer, init: $source, map_op: &map_op })
            }
            fn len(&self) -> usize {
                self.base.len()
            }
            fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
                let Self { base, init, map_op } = self;
                let $v = init;
                base.with_producer(Callback { callback, init: $source, map_op: &map_op })
            }
        }
    };
}

stateful_map!([I, T, F, R] MapWith<I, T, F>, [T: Send + Clone,], |item| FromClone(item));
stateful_map!([I, INIT, T, F, R] MapInit<I, INIT, F>, [INIT: Fn() -> T + Sync + Send,], |init| FromFn(&init));

struct Callback<'f, CB, S, F> {
    callback: CB,
    init: S,
    map_op: &'f F,
}

impl<'f, X, R, CB, S, F> ProducerCallback<X> for Callback<'f, CB, S, F>
where
    CB: ProducerCallback<R>,
    S: Init,
    F: Fn(&mut S::Value, X) -> R + Sync,
{
    type Output = CB::Output;
    fn callback<P: Producer<Item = X>>(self, base: P) -> CB::Output {
        self.callback.callback(MapWithProducer {
            base,
            init: self.init,
            map_op: self.map_op,
        })
    }
}

struct MapWithProducer<'f, P, S, F> {
    base: P,
    init: S,
    map_op: &'f F,
}

impl<'f, P, R, S, F> Producer for MapWithProducer<'f, P, S, F>
where
    P: Producer,
    S: Init,
    F: Fn(&mut S::Value, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = MapWithIter<'f, P::IntoIter, S::Value, F>;

    fn into_iter(self) -> Self::IntoIter {
        MapWithIter {
            base: self.base.into_iter(),
            state: self.init.into_value(),
            map_op: self.map_op,
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
        let left = MapWithProducer {
            base: l,
            init: self.init.split(),
            map_op: self.map_op,
        };
        (
            left,
            MapWithProducer {
                base: r,
                init: self.init,
                map_op: self.map_op,
            },
        )
    }
    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let folder = MapWithFolder {
            base: folder,
            state: self.init.into_value(),
            map_op: self.map_op,
        };
        self.base.fold_with(folder).base
    }
}

/// The sequential iterator of a [`MapWithProducer`] leaf.
struct MapWithIter<'f, It, T, F> {
    base: It,
    state: T,
    map_op: &'f F,
}

impl<It: Iterator, T, R, F: Fn(&mut T, It::Item) -> R> Iterator for MapWithIter<'_, It, T, F> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let x = self.base.next()?;
        Some((self.map_op)(&mut self.state, x))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<It: DoubleEndedIterator, T, R, F: Fn(&mut T, It::Item) -> R> DoubleEndedIterator
    for MapWithIter<'_, It, T, F>
{
    fn next_back(&mut self) -> Option<R> {
        let x = self.base.next_back()?;
        Some((self.map_op)(&mut self.state, x))
    }
}

impl<It: ExactSizeIterator, T, R, F: Fn(&mut T, It::Item) -> R> ExactSizeIterator
    for MapWithIter<'_, It, T, F>
{
}

struct MapWithConsumer<'f, C, S, F> {
    base: C,
    init: S,
    map_op: &'f F,
}

impl<'f, X, R, C, S, F> Consumer<X> for MapWithConsumer<'f, C, S, F>
where
    C: Consumer<R>,
    S: Init,
    F: Fn(&mut S::Value, X) -> R + Sync,
{
    type Folder = MapWithFolder<'f, C::Folder, S::Value, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        let left = MapWithConsumer {
            base: l,
            init: self.init.split(),
            map_op: self.map_op,
        };
        (
            left,
            MapWithConsumer {
                base: r,
                init: self.init,
                map_op: self.map_op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        MapWithFolder {
            base: self.base.into_folder(),
            state: self.init.into_value(),
            map_op: self.map_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<'f, X, R, C, S, F> UnindexedConsumer<X> for MapWithConsumer<'f, C, S, F>
where
    C: UnindexedConsumer<R>,
    S: Init,
    F: Fn(&mut S::Value, X) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        MapWithConsumer {
            base: self.base.split_off_left(),
            init: self.init.split(),
            map_op: self.map_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct MapWithFolder<'f, G, T, F> {
    base: G,
    state: T,
    map_op: &'f F,
}

impl<'f, X, T, R, G, F> Folder<X> for MapWithFolder<'f, G, T, F>
where
    G: Folder<R>,
    F: Fn(&mut T, X) -> R,
{
    type Result = G::Result;

    fn consume(mut self, item: X) -> Self {
        let r = (self.map_op)(&mut self.state, item);
        self.base = self.base.consume(r);
        self
    }
    fn consume_iter<It: IntoIterator<Item = X>>(mut self, iter: It) -> Self {
        let state = &mut self.state;
        let op = self.map_op;
        self.base = self
            .base
            .consume_iter(iter.into_iter().map(|x| op(state, x)));
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
