//! The [`IndexedParallelIterator`] trait: what an iterator that knows its
//! length and the index of each item adds.

use std::cmp::Ordering;

use super::plumbing::{Consumer, ProducerCallback};
use super::*;

/// A parallel iterator with a known length whose items can be split at any
/// index: rayon's `IndexedParallelIterator`.
///
/// ```
/// use locus::prelude::*;
/// let a = [1, 2, 3];
/// let b = [4, 5, 6];
/// let dot: i32 = a.par_iter().zip(&b).map(|(x, y)| x * y).sum();
/// assert_eq!(dot, 32);
/// ```
#[allow(clippy::len_without_is_empty)] // as rayon: `len` is part of the protocol
pub trait IndexedParallelIterator: ParallelIterator {
    /// Collects into `target` (cleared first), writing every item in place
    /// at its index.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let mut v = vec![9; 2];
    /// (0..4).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        collect::collect_into_vec(self, target)
    }

    /// Unzips pairs into two vectors (cleared first), in place.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let (mut a, mut b) = (Vec::new(), Vec::new());
    /// (0..3).into_par_iter().map(|x| (x, x * 10)).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 10, 20]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        collect::unzip_into_vecs(self, left, right)
    }

    /// Pairs items with those of `zip_op`; as long as the shorter.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<(i32, char)> = (0..5).into_par_iter().zip(vec!['a', 'b']).collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn zip<Z>(self, zip_op: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        Zip::new(self, zip_op.into_par_iter())
    }

    /// As [`zip`](Self::zip), but panics if the lengths differ.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let n = (0..3).into_par_iter().zip_eq(vec![1, 2, 3]).count();
    /// assert_eq!(n, 3);
    /// ```
    #[track_caller]
    fn zip_eq<Z>(self, zip_op: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        let other = zip_op.into_par_iter();
        let (a, b) = (self.len(), other.len());
        assert!(
            a == b,
            "zip_eq: the iterators have different lengths ({a} and {b})"
        );
        ZipEq::new(self, other)
    }

    /// Alternates items of `self` and `other`, then the rest of the longer.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = vec![1, 3].into_par_iter().interleave(vec![2, 4, 6, 8]).collect();
    /// assert_eq!(v, [1, 2, 3, 4, 6, 8]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<
                Item = Self::Item,
                Iter: IndexedParallelIterator<Item = Self::Item>,
            >,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// Alternates items of `self` and `other` until one runs out.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = vec![1, 3].into_par_iter().interleave_shortest(vec![2, 4, 6]).collect();
    /// assert_eq!(v, [1, 2, 3, 4]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<
                Item = Self::Item,
                Iter: IndexedParallelIterator<Item = Self::Item>,
            >,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// Groups items into `Vec`s of `chunk_size` (the last may be shorter).
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<Vec<i32>> = (0..5).into_par_iter().chunks(2).collect();
    /// assert_eq!(v, [vec![0, 1], vec![2, 3], vec![4]]);
    /// ```
    #[track_caller]
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        assert!(chunk_size != 0, "chunks: chunk_size must not be zero");
        Chunks::new(self, chunk_size)
    }

    /// Folds each chunk of `chunk_size` items (the last may be shorter)
    /// into one value, starting from `identity()`: one item per chunk, in
    /// order. As `chunks(n).map(|c| c.into_iter().fold(..))` without the
    /// `Vec`s.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let sums: Vec<u32> = (1..8u32).into_par_iter().fold_chunks(3, || 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [6, 15, 7]);
    /// ```
    #[track_caller]
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        assert!(chunk_size != 0, "fold_chunks: chunk_size must not be zero");
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// [`fold_chunks`](Self::fold_chunks) starting each chunk from a clone
    /// of `init`.
    ///
    /// # Panics
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<String> = ["a", "b", "c"].par_iter()
    ///     .fold_chunks_with(2, String::from(">"), |s, x| s + x)
    ///     .collect();
    /// assert_eq!(v, [">ab", ">c"]);
    /// ```
    #[track_caller]
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        assert!(
            chunk_size != 0,
            "fold_chunks_with: chunk_size must not be zero"
        );
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// Runs the items as a sequence of parallel blocks of growing size (as
    /// many items as the pool has threads, then twice as many, ...): each
    /// block in parallel, one block after the other. A search that stops
    /// early (`find_first`, `any`) then never touches the items past the
    /// block where it stopped.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let hit = (0..10_000).into_par_iter().by_exponential_blocks().find_first(|&x| x == 4_999);
    /// assert_eq!(hit, Some(4_999));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Runs the items as a sequence of parallel blocks of `block_size`
    /// items, one after the other (for memory locality: each block's data
    /// can stay in cache while it is reduced).
    ///
    /// # Panics
    /// If `block_size` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<u32> = (0..10_000u32).into_par_iter().by_uniform_blocks(1_000).collect();
    /// assert_eq!(v, (0..10_000).collect::<Vec<u32>>());
    /// ```
    #[track_caller]
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        assert!(
            block_size != 0,
            "by_uniform_blocks: block_size must not be zero"
        );
        UniformBlocks::new(self, block_size)
    }

    /// Compares the items lexicographically with those of `other`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// use std::cmp::Ordering;
    /// assert_eq!((0..3).into_par_iter().cmp(vec![0, 1, 3]), Ordering::Less);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let (la, lb) = (self.len(), other.len());
        let first_diff = self
            .zip(other)
            .map(|(a, b)| a.cmp(&b))
            .find_first(|&o| o != Ordering::Equal);
        first_diff.unwrap_or_else(|| la.cmp(&lb))
    }

    /// Compares the items lexicographically with those of `other`, for
    /// partially ordered items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// use std::cmp::Ordering;
    /// assert_eq!([1.0, f64::NAN].par_iter().partial_cmp(&[1.0, 2.0]), None);
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let (la, lb) = (self.len(), other.len());
        let first_diff = self
            .zip(other)
            .map(|(a, b)| a.partial_cmp(&b))
            .find_first(|&o| o != Some(Ordering::Equal));
        first_diff.unwrap_or_else(|| Some(la.cmp(&lb)))
    }

    /// True if the items equal those of `other`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!((0..3).into_par_iter().eq(vec![0, 1, 2]));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(a, b)| a.eq(&b))
    }

    /// True if the items differ from those of `other`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!((0..3).into_par_iter().ne(vec![0, 1]));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// True if the items compare lexicographically less than `other`'s.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!((0..3).into_par_iter().lt(vec![0, 2]));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// True if the items compare less than or equal to `other`'s.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!((0..3).into_par_iter().le(vec![0, 1, 2]));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// True if the items compare greater than `other`'s.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!((0..3).into_par_iter().gt(vec![0, 1]));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// True if the items compare greater than or equal to `other`'s.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert!((0..3).into_par_iter().ge(vec![0, 1, 2]));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Pairs every item with its index.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<(usize, char)> = vec!['a', 'b'].into_par_iter().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Every `step`-th item, starting with the first.
    ///
    /// # Panics
    /// If `step` is 0.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..10).into_par_iter().step_by(4).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    #[track_caller]
    fn step_by(self, step: usize) -> StepBy<Self> {
        assert!(step != 0, "step_by: step must not be zero");
        StepBy::new(self, step)
    }

    /// Skips the first `n` items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..5).into_par_iter().skip(3).collect();
    /// assert_eq!(v, [3, 4]);
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// Only the first `n` items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..5).into_par_iter().take(2).collect();
    /// assert_eq!(v, [0, 1]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// The index of some item for which `predicate` is true.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((10..20).into_par_iter().position_any(|x| x == 15), Some(5));
    /// ```
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let predicate = &predicate;
        self.map(predicate)
            .enumerate()
            .find_any(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the first item for which `predicate` is true.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((10..20).into_par_iter().position_first(|x| x % 3 == 0), Some(2));
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let predicate = &predicate;
        self.map(predicate)
            .enumerate()
            .find_first(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the last item for which `predicate` is true.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((10..20).into_par_iter().position_last(|x| x % 3 == 0), Some(8));
    /// ```
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let predicate = &predicate;
        self.map(predicate)
            .enumerate()
            .find_last(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// Deprecated, as in rayon: a parallel `position` does not search in
    /// order; use [`position_any`](Self::position_any),
    /// [`position_first`](Self::position_first) or
    /// [`position_last`](Self::position_last).
    #[doc(hidden)]
    #[deprecated(
        note = "parallel `position` does not search in order -- use `position_any`, `position_first`, or `position_last`"
    )]
    fn position<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.position_any(predicate)
    }

    /// The indices of the items for which `predicate` is true.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<usize> = [1, 4, 6, 7].par_iter().positions(|x| x % 2 == 0).collect();
    /// assert_eq!(v, [1, 2]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<i32> = (0..4).into_par_iter().rev().collect();
    /// assert_eq!(v, [3, 2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// Pieces of work hold at least `min` items (splitting stops before).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let pieces = (0..100).into_par_iter().with_min_len(50).fold(|| 0, |n, _| n + 1).count();
    /// assert!(pieces <= 2);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Pieces of work hold at most `max` items (splitting continues until).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let pieces = (0..100).into_par_iter().with_max_len(10).fold(|| 0, |n, _| n + 1).count();
    /// assert!(pieces >= 10);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Runs with affinity replay: on a pool of several LLCs the iterator
    /// is cut into one piece per worker, and each piece goes back to the worker that ran it in the
    /// last run of the same length with this `replay` handle (to its LLC
    /// if that worker is busy), so data a worker touched stays in its
    /// caches (on one LLC, where all workers share the cache, it runs as
    /// without). Results are the same as without; see [`Replay`].
    ///
    /// ```
    /// use locus::prelude::*;
    /// use locus::iter::Replay;
    ///
    /// let replay = Replay::new();
    /// let mut grid = vec![1.0f64; 4096];
    /// for _ in 0..4 {
    ///     grid.par_chunks_mut(64).with_replay(&replay).for_each(|c| c.iter_mut().for_each(|x| *x *= 0.5));
    /// }
    /// assert_eq!(grid[100], 1.0 / 16.0);
    /// println!("{}", replay.stats());
    /// ```
    fn with_replay(self, replay: &Replay) -> WithReplay<'_, Self> {
        WithReplay::new(self, replay)
    }

    /// The number of items.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!((0..10).into_par_iter().step_by(3).len(), 4);
    /// ```
    fn len(&self) -> usize;

    /// Runs the iterator into an indexed `consumer` (see [`plumbing`];
    /// sources usually call [`plumbing::bridge`]).
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result;

    /// Calls `callback` with this iterator's producer (see [`plumbing`]).
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;
}
