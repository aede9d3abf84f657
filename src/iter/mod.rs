//! Parallel iterators: rayon's API on locus's pool.
//!
//! Bring the traits into scope with `use locus::prelude::*`, then turn a
//! collection into a parallel iterator (`par_iter`, `par_iter_mut`,
//! `into_par_iter`), chain adapters, and end with a consumer:
//!
//! ```
//! use locus::prelude::*;
//! let v: Vec<u64> = (0..1000).collect();
//! let sum_sq: u64 = v.par_iter().map(|x| x * x).sum();
//! assert_eq!(sum_sq, v.iter().map(|x| x * x).sum());
//! ```
//!
//! Two kinds of iterator exist. A [`ParallelIterator`] is driven by an
//! [`UnindexedConsumer`](plumbing::UnindexedConsumer) and may split
//! anywhere; an [`IndexedParallelIterator`] knows its length and which item
//! sits at each index, which allows `zip`, `enumerate`, `rev`,
//! `collect_into_vec` and writing results in place. See [`plumbing`] for
//! the protocol underneath.
//!
//! Semantics, as rayon's: item order is kept wherever it is observable
//! (`collect`, `reduce`'s operand order, `find_first`); the closures run
//! on the pool's workers in unspecified order; a panic in a closure stops
//! the iterator at its next check and is resumed in the caller once every
//! job of the iterator has finished; every item is dropped exactly once.

pub mod plumbing;

mod any_while;
mod blocks;
mod chain;
mod chunks;
mod cloned;
mod collect;
mod copied;
mod empty;
mod enumerate;
mod extend;
mod filter;
mod filter_map;
mod find;
mod find_first_last;
mod flat_map;
mod flat_map_iter;
mod flatten;
mod flatten_iter;
mod fold;
mod for_each;
mod from_par_iter;
mod indexed;
mod inspect;
mod interleave;
mod interleave_shortest;
mod intersperse;
mod len;
mod map;
mod map_with;
mod multizip;
mod noop;
mod once;
mod panic_fuse;
mod par_bridge;
mod par_either;
mod parallel_iterator;
mod positions;
mod reduce;
mod repeat;
pub(crate) mod replay;
mod rev;
mod skip;
mod skip_any;
mod split;
mod step_by;
mod sum;
mod take;
mod try_fold;
mod try_reduce;
mod try_reduce_with;
mod try_trait;
mod unzip;
mod update;
mod walk_tree;
mod while_some;
mod zip;
mod zip_eq;

pub use any_while::{SkipAnyWhile, TakeAnyWhile};
pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use chain::Chain;
pub use chunks::{Chunks, FoldChunks, FoldChunksWith};
pub use cloned::Cloned;
pub use copied::Copied;
pub use either::Either;
pub use empty::{Empty, empty};
pub use enumerate::Enumerate;
pub use filter::Filter;
pub use filter_map::FilterMap;
pub use flat_map::FlatMap;
pub use flat_map_iter::FlatMapIter;
pub use flatten::Flatten;
pub use flatten_iter::FlattenIter;
pub use fold::{Fold, FoldWith};
pub use indexed::IndexedParallelIterator;
pub use inspect::Inspect;
pub use interleave::Interleave;
pub use interleave_shortest::InterleaveShortest;
pub use intersperse::Intersperse;
pub use len::{MaxLen, MinLen};
pub use map::Map;
pub use map_with::{MapInit, MapWith};
pub use multizip::MultiZip;
pub use once::{Once, once};
pub use panic_fuse::PanicFuse;
pub use par_bridge::{IterBridge, ParallelBridge};
pub use parallel_iterator::ParallelIterator;
pub use positions::Positions;
#[allow(deprecated)]
pub use repeat::{Repeat, RepeatN, repeat, repeat_n, repeatn};
pub use replay::{Replay, ReplayStats, WithReplay};
pub use rev::Rev;
pub use skip::Skip;
pub use skip_any::{SkipAny, TakeAny};
pub use split::{Split, split};
pub use step_by::StepBy;
pub use take::Take;
pub use try_fold::{TryFold, TryFoldWith};
pub use update::Update;
pub use walk_tree::{
    WalkTree, WalkTreePostfix, WalkTreePrefix, walk_tree, walk_tree_postfix, walk_tree_prefix,
};
pub use while_some::WhileSome;
pub use zip::Zip;
pub use zip_eq::ZipEq;

/// Conversion into a [`ParallelIterator`]: what `into_par_iter` and the
/// `for`-like entry points take.
///
/// ```
/// use locus::prelude::*;
/// let total: i32 = vec![1, 2, 3].into_par_iter().sum();
/// assert_eq!(total, 6);
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Converts `self` into a parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;
    fn into_par_iter(self) -> T {
        self
    }
}

/// `par_iter()`: a parallel iterator over shared references, for every
/// `C` such that `&C` converts into a parallel iterator.
///
/// ```
/// use locus::prelude::*;
/// let v = vec![1, 2, 3];
/// assert_eq!(v.par_iter().max(), Some(&3));
/// ```
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (usually `&'data T`).
    type Item: Send + 'data;
    /// Iterates over `&self`'s items in parallel.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;
    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references.
///
/// ```
/// use locus::prelude::*;
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x *= 10);
/// assert_eq!(v, [10, 20, 30]);
/// ```
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (usually `&'data mut T`).
    type Item: Send + 'data;
    /// Iterates over `&mut self`'s items in parallel.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;
    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// Building a collection from a parallel iterator: what
/// [`collect`](ParallelIterator::collect) calls.
///
/// ```
/// use locus::prelude::*;
/// use std::collections::HashSet;
/// let s: HashSet<u32> = (0..10u32).into_par_iter().map(|x| x % 3).collect();
/// assert_eq!(s.len(), 3);
/// ```
pub trait FromParallelIterator<T>
where
    T: Send,
{
    /// Builds `Self` from the items of `par_iter`.
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

/// Extending a collection with the items of a parallel iterator.
///
/// ```
/// use locus::prelude::*;
/// let mut v = vec![0];
/// v.par_extend((1..4).into_par_iter());
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
pub trait ParallelExtend<T>
where
    T: Send,
{
    /// Appends the items of `par_iter`; ordered collections receive them
    /// in the iterator's order.
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}

/// `par_drain(range)`: removes a range of a collection and yields its
/// items in parallel; the rest of the collection closes the gap.
///
/// ```
/// use locus::prelude::*;
/// let mut v: Vec<u32> = (0..10).collect();
/// let drained: Vec<u32> = v.par_drain(2..5).collect();
/// assert_eq!(drained, [2, 3, 4]);
/// assert_eq!(v, [0, 1, 5, 6, 7, 8, 9]);
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The parallel iterator over the drained items.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The drained items.
    type Item: Send;
    /// Removes `range` and iterates over its items in parallel.
    ///
    /// # Panics
    /// If the range is out of bounds or its start is past its end.
    fn par_drain<R: std::ops::RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

/// `par_drain()`: removes every item of a collection and yields them in
/// parallel (for collections without a meaningful range, like maps).
///
/// ```
/// use locus::prelude::*;
/// use std::collections::HashSet;
/// let mut s: HashSet<u8> = (0..5).collect();
/// let mut v: Vec<u8> = s.par_drain().collect();
/// v.sort();
/// assert_eq!(v, [0, 1, 2, 3, 4]);
/// assert!(s.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The parallel iterator over the drained items.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The drained items.
    type Item: Send;
    /// Removes every item and iterates over them in parallel.
    fn par_drain(self) -> Self::Iter;
}
