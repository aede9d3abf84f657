//! Chunked and windowed slice iterators: `par_chunks(_mut)`,
//! `par_chunks_exact(_mut)`, `par_rchunks(_mut)`, `par_rchunks_exact(_mut)`,
//! `par_windows`.
//!
//! Each is a producer over a sub-slice and a size; splitting at index `i`
//! cuts the slice after the `i`-th chunk (from the front, or from the back
//! for the `r` variants); a leaf iterates with the matching `std` iterator.

use crate::iter::plumbing::*;
use crate::iter::*;

/// Defines a public iterator and its producer. `len` is the number of
/// items of a slice `s` for size `n`; `split` returns the two sub-slices
/// holding the first `i` items and the rest.
macro_rules! sized_slice_iter {
    (
        $(#[$attr:meta])*
        $name:ident, $producer:ident, [$($sl:tt)*], $bound:ident,
        item = $item:ty, iter = $iter:ty,
        leaf = |$ls:ident, $ln:ident| $leaf:expr,
        len = |$cs:ident, $cn:ident| $len:expr,
        split = |$ss:ident, $sn:ident, $si:ident| $split:expr $(,)?
    ) => {
        $(#[$attr])*
        #[derive(Debug)]
        pub struct $name<'data, T> {
            size: usize,
            slice: $($sl)* [T],
        }

        impl<'data, T> $name<'data, T> {
            pub(super) fn new(size: usize, slice: $($sl)* [T]) -> Self {
                $name { size, slice }
            }
        }

        impl<'data, T: $bound + 'data> ParallelIterator for $name<'data, T> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<'data, T: $bound + 'data> IndexedParallelIterator for $name<'data, T> {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                let ($cs, $cn) = (&*self.slice, self.size);
                $len
            }
            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                callback.callback($producer { size: self.size, slice: self.slice })
            }
        }

        struct $producer<'data, T> {
            size: usize,
            slice: $($sl)* [T],
        }

        impl<'data, T: $bound + 'data> Producer for $producer<'data, T> {
            type Item = $item;
            type IntoIter = $iter;

            fn into_iter(self) -> $iter {
                let ($ls, $ln) = (self.slice, self.size);
                $leaf
            }
            fn split_at(self, index: usize) -> (Self, Self) {
                let ($ss, $sn, $si) = (self.slice, self.size, index);
                let (l, r) = $split;
                ($producer { size: self.size, slice: l }, $producer { size: self.size, slice: r })
            }
        }
    };
}

sized_slice_iter! {
    /// Chunks of a slice. Made by [`ParallelSlice::par_chunks`](super::ParallelSlice::par_chunks).
    Chunks, ChunksProducer, [&'data], Sync,
    item = &'data [T], iter = std::slice::Chunks<'data, T>,
    leaf = |s, n| s.chunks(n),
    len = |s, n| s.len().div_ceil(n),
    split = |s, n, i| s.split_at(i.saturating_mul(n).min(s.len())),
}

sized_slice_iter! {
    /// Mutable chunks of a slice. Made by
    /// [`ParallelSliceMut::par_chunks_mut`](super::ParallelSliceMut::par_chunks_mut).
    ChunksMut, ChunksMutProducer, [&'data mut], Send,
    item = &'data mut [T], iter = std::slice::ChunksMut<'data, T>,
    leaf = |s, n| s.chunks_mut(n),
    len = |s, n| s.len().div_ceil(n),
    split = |s, n, i| {
        let at = i.saturating_mul(n).min(s.len());
        s.split_at_mut(at)
    },
}

sized_slice_iter! {
    /// Chunks of a slice, from the end. Made by
    /// [`ParallelSlice::par_rchunks`](super::ParallelSlice::par_rchunks).
    RChunks, RChunksProducer, [&'data], Sync,
    item = &'data [T], iter = std::slice::RChunks<'data, T>,
    leaf = |s, n| s.rchunks(n),
    len = |s, n| s.len().div_ceil(n),
    split = |s, n, i| {
        let (front, back) = s.split_at(s.len() - i.saturating_mul(n).min(s.len()));
        (back, front)
    },
}

sized_slice_iter! {
    /// Mutable chunks of a slice, from the end. Made by
    /// [`ParallelSliceMut::par_rchunks_mut`](super::ParallelSliceMut::par_rchunks_mut).
    RChunksMut, RChunksMutProducer, [&'data mut], Send,
    item = &'data mut [T], iter = std::slice::RChunksMut<'data, T>,
    leaf = |s, n| s.rchunks_mut(n),
    len = |s, n| s.len().div_ceil(n),
    split = |s, n, i| {
        let at = s.len() - i.saturating_mul(n).min(s.len());
        let (front, back) = s.split_at_mut(at);
        (back, front)
    },
}

sized_slice_iter! {
    /// Overlapping windows of a slice. Made by
    /// [`ParallelSlice::par_windows`](super::ParallelSlice::par_windows).
    Windows, WindowsProducer, [&'data], Sync,
    item = &'data [T], iter = std::slice::Windows<'data, T>,
    leaf = |s, n| s.windows(n),
    len = |s, n| (s.len() + 1).saturating_sub(n),
    split = |s, n, i| {
        // The first `i` windows need the first `i + n - 1` elements; the
        // rest start at element `i`.
        let left_end = (i + n - 1).min(s.len());
        (&s[..left_end], &s[i.min(s.len())..])
    },
}

/// Defines an exact-chunks iterator: the chunks of `slice` (a whole number
/// of them) and the `rem` elements left over.
macro_rules! exact_chunks {
    (
        $(#[$attr:meta])*
        $name:ident, $inner:ident, [$($sl:tt)*], $bound:ident, item = $item:ty, from_back = $back:expr
    ) => {
        $(#[$attr])*
        #[derive(Debug)]
        pub struct $name<'data, T> {
            chunks: $inner<'data, T>,
            rem: $($sl)* [T],
        }

        impl<'data, T> $name<'data, T> {
            pub(super) fn new(size: usize, slice: $($sl)* [T]) -> Self {
                let rem_len = slice.len() % size;
                let exact_len = slice.len() - rem_len;
                if $back {
                    let (rem, exact) = slice.split_at_mut_or_ref(rem_len);
                    $name { chunks: $inner::new(size, exact), rem }
                } else {
                    let (exact, rem) = slice.split_at_mut_or_ref(exact_len);
                    $name { chunks: $inner::new(size, exact), rem }
                }
            }
        }

        impl<'data, T: $bound + 'data> ParallelIterator for $name<'data, T> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                self.chunks.drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.chunks.len())
            }
        }

        impl<'data, T: $bound + 'data> IndexedParallelIterator for $name<'data, T> {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                self.chunks.drive(consumer)
            }
            fn len(&self) -> usize {
                self.chunks.len()
            }
            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                self.chunks.with_producer(callback)
            }
        }
    };
}

/// `split_at` for shared slices and `split_at_mut` for mutable ones, so
/// one macro body serves both.
trait SplitAt: Sized {
    fn split_at_mut_or_ref(self, at: usize) -> (Self, Self);
}

impl<T> SplitAt for &[T] {
    fn split_at_mut_or_ref(self, at: usize) -> (Self, Self) {
        self.split_at(at)
    }
}

impl<T> SplitAt for &mut [T] {
    fn split_at_mut_or_ref(self, at: usize) -> (Self, Self) {
        self.split_at_mut(at)
    }
}

exact_chunks! {
    /// Chunks of exactly the chunk size; the rest is the
    /// [`remainder`](Self::remainder). Made by
    /// [`ParallelSlice::par_chunks_exact`](super::ParallelSlice::par_chunks_exact).
    ChunksExact, Chunks, [&'data], Sync, item = &'data [T], from_back = false
}

exact_chunks! {
    /// Mutable chunks of exactly the chunk size. Made by
    /// [`ParallelSliceMut::par_chunks_exact_mut`](super::ParallelSliceMut::par_chunks_exact_mut).
    ChunksExactMut, ChunksMut, [&'data mut], Send, item = &'data mut [T], from_back = false
}

exact_chunks! {
    /// Chunks of exactly the chunk size, from the end; the first elements
    /// left over are the [`remainder`](Self::remainder). Made by
    /// [`ParallelSlice::par_rchunks_exact`](super::ParallelSlice::par_rchunks_exact).
    RChunksExact, RChunks, [&'data], Sync, item = &'data [T], from_back = true
}

exact_chunks! {
    /// Mutable chunks of exactly the chunk size, from the end. Made by
    /// [`ParallelSliceMut::par_rchunks_exact_mut`](super::ParallelSliceMut::par_rchunks_exact_mut).
    RChunksExactMut, RChunksMut, [&'data mut], Send, item = &'data mut [T], from_back = true
}

impl<'data, T> ChunksExact<'data, T> {
    /// The elements after the last whole chunk.
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

impl<'data, T> RChunksExact<'data, T> {
    /// The elements before the first whole chunk (from the end).
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

/// The remainder accessors of the mutable exact-chunk iterators.
macro_rules! mut_remainder {
    ($($name:ident),*) => {$(
        impl<'data, T> $name<'data, T> {
            /// The elements left over, borrowed from the iterator.
            pub fn remainder(&mut self) -> &mut [T] {
                self.rem
            }
            /// The elements left over, for the slice's whole lifetime.
            pub fn into_remainder(self) -> &'data mut [T] {
                self.rem
            }
            /// Takes the elements left over, leaving none in the iterator.
            pub fn take_remainder(&mut self) -> &'data mut [T] {
                std::mem::take(&mut self.rem)
            }
        }
    )*};
}

mut_remainder!(ChunksExactMut, RChunksExactMut);

/// `Clone` for the iterators over shared slices: they hold a shared
/// reference and a size, so a copy needs no bound on `T` (rayon's rule).
macro_rules! shared_clone {
    ($($name:ident { $($field:ident),* }),* $(,)?) => {$(
        impl<T> Clone for $name<'_, T> {
            fn clone(&self) -> Self {
                $name { $($field: self.$field.clone()),* }
            }
        }
    )*};
}

shared_clone! {
    Chunks { size, slice },
    RChunks { size, slice },
    Windows { size, slice },
    ChunksExact { chunks, rem },
    RChunksExact { chunks, rem },
}
