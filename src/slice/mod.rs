//! Parallel iterators over slices: `par_iter`, `par_iter_mut`, and the
//! chunked and windowed forms of [`ParallelSlice`] and
//! [`ParallelSliceMut`].
//!
//! ```
//! use locus::prelude::*;
//! let mut v = vec![1u32; 12];
//! v.par_chunks_mut(4).enumerate().for_each(|(i, c)| c.iter_mut().for_each(|x| *x = i as u32));
//! assert_eq!(v, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
//! let sums: Vec<u32> = v.par_windows(2).map(|w| w[0] + w[1]).collect();
//! assert_eq!(sums.len(), 11);
//! ```

mod array_windows;
mod chunks;
pub(crate) mod sort;
mod split;

pub use array_windows::ArrayWindows;
pub use split::{ChunkBy, ChunkByMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut};

pub use chunks::{
    Chunks, ChunksExact, ChunksExactMut, ChunksMut, RChunks, RChunksExact, RChunksExactMut,
    RChunksMut, Windows,
};

use crate::iter::plumbing::*;
use crate::iter::*;

/// Parallel views of a shared slice.
///
/// ```
/// use locus::prelude::*;
/// let v = [1, 2, 3, 4, 5];
/// let sums: Vec<i32> = v.par_chunks(2).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, [3, 7, 5]);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice itself (what the methods below work on).
    fn as_parallel_slice(&self) -> &[T];

    /// Chunks of `chunk_size` elements (the last may be shorter).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let c: Vec<&[i32]> = [1, 2, 3].par_chunks(2).collect();
    /// assert_eq!(c, [&[1, 2][..], &[3][..]]);
    /// ```
    #[track_caller]
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        assert!(chunk_size != 0, "par_chunks: chunk_size must not be zero");
        Chunks::new(chunk_size, self.as_parallel_slice())
    }

    /// Chunks of exactly `chunk_size` elements; the elements left over are
    /// in [`ChunksExact::remainder`].
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let it = [1, 2, 3].par_chunks_exact(2);
    /// assert_eq!(it.remainder(), &[3]);
    /// assert_eq!(it.count(), 1);
    /// ```
    #[track_caller]
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        assert!(
            chunk_size != 0,
            "par_chunks_exact: chunk_size must not be zero"
        );
        ChunksExact::new(chunk_size, self.as_parallel_slice())
    }

    /// Chunks of `chunk_size` elements from the end (the last may be
    /// shorter).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let c: Vec<&[i32]> = [1, 2, 3].par_rchunks(2).collect();
    /// assert_eq!(c, [&[2, 3][..], &[1][..]]);
    /// ```
    #[track_caller]
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        assert!(chunk_size != 0, "par_rchunks: chunk_size must not be zero");
        RChunks::new(chunk_size, self.as_parallel_slice())
    }

    /// Chunks of exactly `chunk_size` elements from the end.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let it = [1, 2, 3].par_rchunks_exact(2);
    /// assert_eq!(it.remainder(), &[1]);
    /// ```
    #[track_caller]
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        assert!(
            chunk_size != 0,
            "par_rchunks_exact: chunk_size must not be zero"
        );
        RChunksExact::new(chunk_size, self.as_parallel_slice())
    }

    /// Overlapping windows of `window_size` elements.
    ///
    /// # Panics
    /// If `window_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let w: Vec<&[i32]> = [1, 2, 3].par_windows(2).collect();
    /// assert_eq!(w, [&[1, 2][..], &[2, 3][..]]);
    /// ```
    #[track_caller]
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        assert!(
            window_size != 0,
            "par_windows: window_size must not be zero"
        );
        Windows::new(window_size, self.as_parallel_slice())
    }

    /// Overlapping windows of `N` elements, each as a `&[T; N]` (as
    /// `slice::array_windows`).
    ///
    /// `N` must not be zero: as in rayon, driving an iterator with `N == 0`
    /// fails to compile.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let w: Vec<&[i32; 2]> = [1, 2, 3].par_array_windows().collect();
    /// assert_eq!(w, [&[1, 2], &[2, 3]]);
    /// ```
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }

    /// The pieces between the elements for which `separator` is true (as
    /// `slice::split`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&[i32]> = [1, 0, 2, 3, 0].par_split(|&x| x == 0).collect();
    /// assert_eq!(v, [&[1][..], &[2, 3], &[]]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split {
            slice: self.as_parallel_slice(),
            pred: separator,
        }
    }

    /// The pieces between separators, each ending with its separator (as
    /// `slice::split_inclusive`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&[i32]> = [1, 0, 2, 3, 0].par_split_inclusive(|&x| x == 0).collect();
    /// assert_eq!(v, [&[1, 0][..], &[2, 3, 0]]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusive {
            slice: self.as_parallel_slice(),
            pred: separator,
        }
    }

    /// The runs of elements in which `pred` holds for every two neighbours
    /// (as `slice::chunk_by`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&[i32]> = [1, 1, 2, 3, 3, 3].par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(v, [&[1, 1][..], &[2], &[3, 3, 3]]);
    /// ```
    fn par_chunk_by<F>(&self, pred: F) -> ChunkBy<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkBy {
            slice: self.as_parallel_slice(),
            pred,
        }
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel views of a mutable slice.
///
/// ```
/// use locus::prelude::*;
/// let mut v = [1, 2, 3, 4];
/// v.par_chunks_mut(2).for_each(|c| c.reverse());
/// assert_eq!(v, [2, 1, 4, 3]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice itself (what the methods below work on).
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Mutable chunks of `chunk_size` elements (the last may be shorter).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [0; 5];
    /// v.par_chunks_mut(2).for_each(|c| c[0] = 1);
    /// assert_eq!(v, [1, 0, 1, 0, 1]);
    /// ```
    #[track_caller]
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        assert!(
            chunk_size != 0,
            "par_chunks_mut: chunk_size must not be zero"
        );
        ChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Mutable chunks of exactly `chunk_size` elements.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [0; 5];
    /// v.par_chunks_exact_mut(2).for_each(|c| c[0] = 1);
    /// assert_eq!(v, [1, 0, 1, 0, 0]);
    /// ```
    #[track_caller]
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        assert!(
            chunk_size != 0,
            "par_chunks_exact_mut: chunk_size must not be zero"
        );
        ChunksExactMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Mutable chunks of `chunk_size` elements from the end.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [0; 5];
    /// v.par_rchunks_mut(2).for_each(|c| c[0] = 1);
    /// assert_eq!(v, [1, 1, 0, 1, 0]);
    /// ```
    #[track_caller]
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        assert!(
            chunk_size != 0,
            "par_rchunks_mut: chunk_size must not be zero"
        );
        RChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Mutable chunks of exactly `chunk_size` elements from the end.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [0; 5];
    /// v.par_rchunks_exact_mut(2).for_each(|c| c[0] = 1);
    /// assert_eq!(v, [0, 1, 0, 1, 0]);
    /// ```
    #[track_caller]
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        assert!(
            chunk_size != 0,
            "par_rchunks_exact_mut: chunk_size must not be zero"
        );
        RChunksExactMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// The mutable pieces between the elements for which `separator` is
    /// true (as `slice::split_mut`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [1, 0, 2, 3, 0, 4];
    /// v.par_split_mut(|&x| x == 0).for_each(|piece| piece.reverse());
    /// assert_eq!(v, [1, 0, 3, 2, 0, 4]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut {
            slice: self.as_parallel_slice_mut(),
            pred: separator,
        }
    }

    /// The mutable pieces between separators, each ending with its
    /// separator (as `slice::split_inclusive_mut`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [1, 0, 2, 3, 0];
    /// v.par_split_inclusive_mut(|&x| x == 0).for_each(|piece| piece.reverse());
    /// assert_eq!(v, [0, 1, 0, 3, 2]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusiveMut {
            slice: self.as_parallel_slice_mut(),
            pred: separator,
        }
    }

    /// The mutable runs of elements in which `pred` holds for every two
    /// neighbours (as `slice::chunk_by_mut`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [1, 1, 2, 3, 3];
    /// v.par_chunk_by_mut(|a, b| a == b).for_each(|run| { let n = run.len() as i32; run.fill(n) });
    /// assert_eq!(v, [2, 2, 1, 2, 2]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> ChunkByMut<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkByMut {
            slice: self.as_parallel_slice_mut(),
            pred,
        }
    }

    /// Sorts the slice in parallel, stably (a parallel merge sort; see
    /// `slice::sort` for the panic-safety argument: a panicking `Ord`
    /// leaves every element exactly once in the slice).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [5, 1, 4, 2, 3];
    /// v.par_sort();
    /// assert_eq!(v, [1, 2, 3, 4, 5]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        sort::par_sort(self.as_parallel_slice_mut());
    }

    /// Sorts the slice in parallel, stably, with a comparator.
    ///
    /// If `compare` is not a total order, the order of the elements is
    /// unspecified, but the sort neither panics nor loses or duplicates an
    /// element, and calls `compare` O(n log n) times (as rayon's). The same
    /// holds for every `par_sort*` method and its order or key.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [5, 1, 4, 2, 3];
    /// v.par_sort_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [5, 4, 3, 2, 1]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        sort::par_sort_by(self.as_parallel_slice_mut(), compare);
    }

    /// Sorts the slice in parallel, stably, by a key computed at each
    /// comparison.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [-5i32, 1, -4, 2, 3];
    /// v.par_sort_by_key(|x| x.abs());
    /// assert_eq!(v, [1, 2, 3, -4, -5]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort::par_sort_by_key(self.as_parallel_slice_mut(), f);
    }

    /// Sorts the slice in parallel, stably, by a key computed once per
    /// element (in parallel).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = ["ccc", "a", "bb"];
    /// v.par_sort_by_cached_key(|s| s.len());
    /// assert_eq!(v, ["a", "bb", "ccc"]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        sort::par_sort_by_cached_key(self.as_parallel_slice_mut(), f);
    }

    /// Sorts the slice in parallel, not necessarily stably (a parallel
    /// quicksort, O(n log n) in the worst case).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [5, 1, 4, 2, 3];
    /// v.par_sort_unstable();
    /// assert_eq!(v, [1, 2, 3, 4, 5]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        sort::par_sort_unstable(self.as_parallel_slice_mut());
    }

    /// Sorts the slice in parallel, not necessarily stably, with a
    /// comparator. If `compare` is not a total order, see
    /// [`par_sort_by`](ParallelSliceMut::par_sort_by).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [5, 1, 4, 2, 3];
    /// v.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [5, 4, 3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        sort::par_sort_unstable_by(self.as_parallel_slice_mut(), compare);
    }

    /// Sorts the slice in parallel, not necessarily stably, by a key
    /// computed at each comparison.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = [-5i32, 1, -4, 2, 3];
    /// v.par_sort_unstable_by_key(|x| x.abs());
    /// assert_eq!(v, [1, 2, 3, -4, -5]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort::par_sort_unstable_by_key(self.as_parallel_slice_mut(), f);
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

/// Shared references to the elements of a slice. Made by `par_iter` on a
/// slice, array or `Vec`.
#[derive(Debug)]
pub struct Iter<'data, T> {
    slice: &'data [T],
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

/// Mutable references to the elements of a slice. Made by `par_iter_mut`
/// on a slice, array or `Vec`.
#[derive(Debug)]
pub struct IterMut<'data, T> {
    slice: &'data mut [T],
}

/// `par_iter` and `par_iter_mut` (through `IntoParallelIterator` for
/// references) on everything that derefs to a slice.
macro_rules! slice_sources {
    ($([$($gen:tt)*] $src:ty;)*) => {$(
        impl<'data, T: Sync + 'data $($gen)*> IntoParallelIterator for &'data $src {
            type Item = &'data T;
            type Iter = Iter<'data, T>;
            fn into_par_iter(self) -> Iter<'data, T> {
                Iter { slice: self }
            }
        }

        impl<'data, T: Send + 'data $($gen)*> IntoParallelIterator for &'data mut $src {
            type Item = &'data mut T;
            type Iter = IterMut<'data, T>;
            fn into_par_iter(self) -> IterMut<'data, T> {
                IterMut { slice: self }
            }
        }
    )*};
}

slice_sources! {
    [] [T];
    [] Vec<T>;
    [] Box<[T]>;
    [, const N: usize] [T; N];
}

/// The iterator and producer impls of `Iter` and `IterMut`, which differ
/// only in the reference kind.
macro_rules! slice_iter {
    ($name:ident, $producer:ident, $bound:ident, [$($r:tt)*], $std_iter:ident, $iter_fn:ident, $split:ident) => {
        impl<'data, T: $bound + 'data> ParallelIterator for $name<'data, T> {
            type Item = $($r)* T;

            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.slice.len())
            }
        }

        impl<'data, T: $bound + 'data> IndexedParallelIterator for $name<'data, T> {
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.slice.len()
            }
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                callback.callback($producer { slice: self.slice })
            }
        }

        struct $producer<'data, T> {
            slice: $($r)* [T],
        }

        impl<'data, T: $bound + 'data> Producer for $producer<'data, T> {
            type Item = $($r)* T;
            type IntoIter = std::slice::$std_iter<'data, T>;

            fn into_iter(self) -> Self::IntoIter {
                self.slice.$iter_fn()
            }
            fn split_at(self, index: usize) -> (Self, Self) {
                let (l, r) = self.slice.$split(index);
                ($producer { slice: l }, $producer { slice: r })
            }
        }
    };
}

slice_iter!(Iter, IterProducer, Sync, [&'data], Iter, iter, split_at);
slice_iter!(IterMut, IterMutProducer, Send, [&'data mut], IterMut, iter_mut, split_at_mut);
