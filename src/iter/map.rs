//! `map`: a producer, consumer and folder that apply a function to every
//! item. Several other adapters (`cloned`, `copied`, `inspect`, `update`,
//! ...) are a `Map` with a fixed function.

use std::fmt;

use super::plumbing::*;
use super::*;

/// Applies a function to every item. Made by [`ParallelIterator::map`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct Map<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for Map<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map").field("base", &self.base).finish()
    }
}

impl<I, F> Map<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        Map { base, map_op }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        self.base
            .drive_unindexed(MapConsumer::new(consumer, &self.map_op))
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        self.base.drive(MapConsumer::new(consumer, &self.map_op))
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback {
            callback,
            map_op: &self.map_op,
        });

        struct Callback<'f, CB, F> {
            callback: CB,
            map_op: &'f F,
        }

        impl<'f, T, R, CB, F> ProducerCallback<T> for Callback<'f, CB, F>
        where
            CB: ProducerCallback<R>,
            F: Fn(T) -> R + Sync,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(MapProducer {
                    base,
                    map_op: self.map_op,
                })
            }
        }
    }
}

/// The producer of [`Map`].
pub(super) struct MapProducer<'f, P, F> {
    base: P,
    map_op: &'f F,
}

impl<'f, P, F, R> Producer for MapProducer<'f, P, F>
where
    P: Producer,
    F: Fn(P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = std::iter::Map<P::IntoIter, &'f F>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().map(self.map_op)
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
            MapProducer {
                base: l,
                map_op: self.map_op,
            },
            MapProducer {
                base: r,
                map_op: self.map_op,
            },
        )
    }
    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        self.base
            .fold_with(MapFolder {
                base: folder,
                map_op: self.map_op,
            })
            .base
    }
}

/// The consumer of [`Map`]: maps, then hands on to `base`.
pub(super) struct MapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, C, F> MapConsumer<'f, C, F> {
    pub(super) fn new(base: C, map_op: &'f F) -> Self {
        MapConsumer { base, map_op }
    }
}

impl<'f, T, R, C, F> Consumer<T> for MapConsumer<'f, C, F>
where
    C: Consumer<R>,
    F: Fn(T) -> R + Sync,
{
    type Folder = MapFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        (
            MapConsumer::new(l, self.map_op),
            MapConsumer::new(r, self.map_op),
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        MapFolder {
            base: self.base.into_folder(),
            map_op: self.map_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<'f, T, R, C, F> UnindexedConsumer<T> for MapConsumer<'f, C, F>
where
    C: UnindexedConsumer<R>,
    F: Fn(T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        MapConsumer::new(self.base.split_off_left(), self.map_op)
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// The folder of [`Map`].
pub(super) struct MapFolder<'f, G, F> {
    base: G,
    map_op: &'f F,
}

impl<'f, T, R, G, F> Folder<T> for MapFolder<'f, G, F>
where
    G: Folder<R>,
    F: Fn(T) -> R,
{
    type Result = G::Result;

    fn consume(self, item: T) -> Self {
        MapFolder {
            base: self.base.consume((self.map_op)(item)),
            map_op: self.map_op,
        }
    }
    fn consume_iter<It: IntoIterator<Item = T>>(mut self, iter: It) -> Self {
        self.base = self.base.consume_iter(iter.into_iter().map(self.map_op));
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// Defines an adapter that is a [`Map`] with a function built from the
/// adapter's own closure (or none): `cloned`, `copied`, `inspect`,
/// `update`. `map = |op| expr` builds the mapping closure from `op`, a
/// reference to the stored closure (`&()` if there is none).
macro_rules! mapped_adapter {
    (
        $(#[$attr:meta])*
        struct $name:ident<$I:ident $(, $OP:ident)?> $({ $op:ident })?;
        impl<$($gen:tt),*> where [$($bound:tt)*];
        item = $item:ty;
        map = |$opref:ident| $make:expr;
    ) => {
        $(#[$attr])*
        #[must_use = "iterator adapters are lazy"]
        #[derive(Clone)]
        pub struct $name<$I $(, $OP)?> {
            base: $I,
            $($op: $OP,)?
        }

        impl<$I: std::fmt::Debug $(, $OP)?> std::fmt::Debug for $name<$I $(, $OP)?> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).finish()
            }
        }

        impl<$I $(, $OP)?> $name<$I $(, $OP)?> {
            pub(super) fn new(base: $I $(, $op: $OP)?) -> Self {
                $name { base $(, $op)? }
            }
        }

        impl<$($gen),*> $crate::iter::ParallelIterator for $name<$I $(, $OP)?>
        where
            $I: $crate::iter::ParallelIterator,
            $($bound)*
        {
            type Item = $item;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::UnindexedConsumer<Self::Item>,
            {
                let $opref = ($(&self.$op)?);
                let mapped = $crate::iter::ParallelIterator::map(self.base, $make);
                $crate::iter::ParallelIterator::drive_unindexed(mapped, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<$($gen),*> $crate::iter::IndexedParallelIterator for $name<$I $(, $OP)?>
        where
            $I: $crate::iter::IndexedParallelIterator,
            $($bound)*
        {
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::Consumer<Self::Item>,
            {
                let $opref = ($(&self.$op)?);
                let mapped = $crate::iter::ParallelIterator::map(self.base, $make);
                $crate::iter::IndexedParallelIterator::drive(mapped, consumer)
            }

            fn len(&self) -> usize {
                self.base.len()
            }

            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: $crate::iter::plumbing::ProducerCallback<Self::Item>,
            {
                let $opref = ($(&self.$op)?);
                let mapped = $crate::iter::ParallelIterator::map(self.base, $make);
                $crate::iter::IndexedParallelIterator::with_producer(mapped, callback)
            }
        }
    };
}
pub(super) use mapped_adapter;
