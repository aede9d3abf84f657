//! The traits behind parallel iterators, for writing your own sources and
//! adapters (the same protocol as rayon's `iter::plumbing`).
//!
//! A parallel iterator runs in two halves that meet in a `bridge`:
//!
//! - the *producer* side says what the items are and how to cut them:
//!   a [`Producer`] splits at any index (indexed iterators), an
//!   [`UnindexedProducer`] splits roughly in half when asked (everything
//!   else);
//! - the *consumer* side says what to do with them: a [`Consumer`] splits
//!   alongside the producer and turns into a sequential [`Folder`] at the
//!   leaves, whose results a [`Reducer`] combines back up the tree;
//!   an [`UnindexedConsumer`] can also split without an index.
//!
//! [`bridge_producer_consumer`] is the one place where indexed work is cut
//! into jobs and handed to [`join_context`](crate::join_context); every
//! indexed consumer of this crate ends there (through [`bridge`] or a
//! [`ProducerCallback`]). The cut is adaptive, as rayon's: a piece splits
//! into two halves while its split budget lasts; the budget starts at the
//! pool's thread count, halves at every split, and is renewed when a half
//! runs on another worker than its parent (it was stolen, so there is idle
//! capacity to feed). A producer's [`min_len`](Producer::min_len) and
//! [`max_len`](Producer::max_len) bound the leaf sizes.
//!
//! # The first split
//!
//! On a pool with several LLCs, an indexed iterator is first cut along the
//! cache hierarchy: one contiguous piece per LLC, sized by the summed
//! capacity of its workers (largest remainders first, ties to the lower
//! LLC), then per cluster.
//! Each piece starts in its domain: the caller's own piece runs on the
//! caller, every other is queued to its LLC's pack queue (the queue of
//! packed job groups: that LLC's workers take it right after their own
//! deque, another LLC's only when the pack help rule allows, i.e. that LLC
//! overloaded, or saturated while the helper is idle, so a piece never
//! waits for ever on an LLC whose workers all block). Inside a piece the
//! adaptive split above runs, with a budget of the piece's workers;
//! stealing between LLCs stays allowed (at the tail, when a domain ran
//! out of work). Results combine inside a cluster, then inside an LLC,
//! then across LLCs: the reduction tree is the hierarchy (`reduce`, `sum`,
//! `fold`+`reduce` and `collect` cross an LLC boundary with one result per
//! LLC).
//!
//! With [affinity replay](crate::iter::Replay) the cut goes down to one
//! piece per worker, each sent to the worker that ran it last time (its
//! LLC as fallback): see [`crate::iter::Replay`].
//!
//! Not cut along the hierarchy, and split adaptively only: unindexed
//! iterators; iterators on a pool with one LLC, replayed or not (their
//! path is the adaptive split alone, as before the first split existed,
//! at the cost of one thread-local look for a pending replay: with one
//! shared cache there is nothing to place); iterators
//! too short to give every domain `min_len` items; iterators started
//! inside another iterator's split tree on a multi-LLC pool, or inside a
//! replayed one (only the outermost iterator is spread over the machine);
//! iterators started inside a job of a [`JobGroup`](crate::JobGroup) (the
//! group's placement decides). A replayed iterator that is not cut
//! reports 0 pieces in its [`ReplayStats`](crate::iter::ReplayStats).
//!
//! Invariants every implementation keeps:
//! - `Producer::split_at(i)` yields exactly the items `0..i` on the left and
//!   `i..len` on the right, in order; `Consumer::split_at(i)` gives a left
//!   consumer for exactly those `i` items;
//! - a reducer receives the left result first: `reduce(left, right)`;
//! - once `full()` is true, feeding more items is allowed but useless: the
//!   result will not change, so callers stop early.

pub(crate) mod hierarchy;
pub(crate) mod replay_record;
pub(crate) mod run_split;
pub(crate) mod splitter;

use crate::iter::IndexedParallelIterator;
use run_split::NestedGuard;
use splitter::{LengthSplitter, Splitter};

/// A source of items that can be split at any index: the producer side of
/// an [`IndexedParallelIterator`].
///
/// ```
/// use locus::iter::plumbing::Producer;
///
/// // Every number in `lo..hi`, split anywhere.
/// struct Numbers { lo: usize, hi: usize }
///
/// impl Producer for Numbers {
///     type Item = usize;
///     type IntoIter = std::ops::Range<usize>;
///     fn into_iter(self) -> Self::IntoIter { self.lo..self.hi }
///     fn split_at(self, i: usize) -> (Self, Self) {
///         let mid = self.lo + i;
///         (Numbers { lo: self.lo, hi: mid }, Numbers { lo: mid, hi: self.hi })
///     }
/// }
///
/// let (a, b) = Numbers { lo: 0, hi: 10 }.split_at(4);
/// assert_eq!(a.into_iter().count() + b.into_iter().count(), 10);
/// ```
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;

    /// The sequential iterator a leaf turns into.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// The items of this piece, in order.
    fn into_iter(self) -> Self::IntoIter;

    /// The smallest piece worth splitting off (default 1).
    fn min_len(&self) -> usize {
        1
    }

    /// The largest piece to process without splitting (default
    /// `usize::MAX`).
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into the items before `index` and the items from `index` on.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feeds every item to `folder`, stopping early if it becomes full.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }
}

/// The consumer side of a parallel iterator: splits along with the producer
/// and becomes a [`Folder`] at each leaf.
///
/// ```
/// use locus::iter::plumbing::{Consumer, Folder, Reducer};
///
/// // Counts items; the two halves' counts are added.
/// struct Count;
/// struct CountFolder(usize);
/// struct Add;
///
/// impl Consumer<u8> for Count {
///     type Folder = CountFolder;
///     type Reducer = Add;
///     type Result = usize;
///     fn split_at(self, _i: usize) -> (Self, Self, Add) { (Count, Count, Add) }
///     fn into_folder(self) -> CountFolder { CountFolder(0) }
///     fn full(&self) -> bool { false }
/// }
/// impl Folder<u8> for CountFolder {
///     type Result = usize;
///     fn consume(self, _item: u8) -> Self { CountFolder(self.0 + 1) }
///     fn complete(self) -> usize { self.0 }
///     fn full(&self) -> bool { false }
/// }
/// impl Reducer<usize> for Add {
///     fn reduce(self, a: usize, b: usize) -> usize { a + b }
/// }
///
/// use locus::prelude::*;
/// let v = vec![1u8; 1000];
/// assert_eq!(v.into_par_iter().drive(Count), 1000);
/// ```
pub trait Consumer<Item>: Send + Sized {
    /// The sequential folder a leaf becomes.
    type Folder: Folder<Item, Result = Self::Result>;

    /// Combines the results of the two halves of a split.
    type Reducer: Reducer<Self::Result>;

    /// The result.
    type Result: Send;

    /// Splits into consumers for the items before and from `index`, and the
    /// reducer that joins their results.
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// The folder for a leaf.
    fn into_folder(self) -> Self::Folder;

    /// True when more items cannot change the result (a short-circuit).
    fn full(&self) -> bool;
}

/// Consumes items one by one, sequentially, at a leaf of the split tree.
///
/// ```
/// use locus::iter::plumbing::Folder;
///
/// struct Sum(u32);
/// impl Folder<u32> for Sum {
///     type Result = u32;
///     fn consume(self, item: u32) -> Self { Sum(self.0 + item) }
///     fn complete(self) -> u32 { self.0 }
///     fn full(&self) -> bool { false }
/// }
/// assert_eq!(Sum(0).consume_iter(1..=4).complete(), 10);
/// ```
pub trait Folder<Item>: Sized {
    /// The result once every item was consumed.
    type Result;

    /// Consumes one item.
    fn consume(self, item: Item) -> Self;

    /// Consumes items from `iter` until it ends or the folder is full.
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// Finishes and returns the result.
    fn complete(self) -> Self::Result;

    /// True when more items cannot change the result.
    fn full(&self) -> bool;
}

/// Combines the results of the left and right halves of a split.
///
/// ```
/// use locus::iter::plumbing::Reducer;
///
/// struct Concat;
/// impl Reducer<Vec<u8>> for Concat {
///     fn reduce(self, mut left: Vec<u8>, mut right: Vec<u8>) -> Vec<u8> {
///         left.append(&mut right);
///         left
///     }
/// }
/// assert_eq!(Concat.reduce(vec![1], vec![2, 3]), [1, 2, 3]);
/// ```
pub trait Reducer<Result> {
    /// `left` holds the results of the items before those of `right`.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// A [`Consumer`] that can also split without knowing an index, as
/// unindexed producers need.
///
/// ```
/// use locus::prelude::*;
/// // `filter` makes an iterator unindexed; its consumer still splits.
/// let n = (0..1000).into_par_iter().filter(|x| x % 3 == 0).count();
/// assert_eq!(n, 334);
/// ```
pub trait UnindexedConsumer<I>: Consumer<I> {
    /// A consumer for some items to the left of what `self` will consume
    /// afterwards (`self` stays the right part).
    fn split_off_left(&self) -> Self;

    /// The reducer that joins the left part's result with `self`'s.
    fn to_reducer(&self) -> Self::Reducer;
}

/// A source of items that can split roughly in half, without an index: the
/// producer side of an unindexed [`ParallelIterator`](crate::iter::ParallelIterator).
///
/// ```
/// use locus::iter::plumbing::{bridge_unindexed, Folder, UnindexedProducer};
/// use locus::iter::ParallelIterator;
///
/// // The numbers lo..hi, halved while at least 2 are left.
/// struct Span(u64, u64);
/// impl UnindexedProducer for Span {
///     type Item = u64;
///     fn split(self) -> (Self, Option<Self>) {
///         if self.1 - self.0 < 2 { return (self, None); }
///         let mid = self.0 + (self.1 - self.0) / 2;
///         (Span(self.0, mid), Some(Span(mid, self.1)))
///     }
///     fn fold_with<F: Folder<u64>>(self, folder: F) -> F {
///         folder.consume_iter(self.0..self.1)
///     }
/// }
///
/// struct SpanIter(u64, u64);
/// impl ParallelIterator for SpanIter {
///     type Item = u64;
///     fn drive_unindexed<C>(self, consumer: C) -> C::Result
///     where C: locus::iter::plumbing::UnindexedConsumer<u64> {
///         bridge_unindexed(Span(self.0, self.1), consumer)
///     }
/// }
/// assert_eq!(SpanIter(0, 100).sum::<u64>(), 4950);
/// ```
pub trait UnindexedProducer: Send + Sized {
    /// The items produced.
    type Item;

    /// Splits off a right part, or returns `None` if this piece should not
    /// be split further.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds every item to `folder`, stopping early if it becomes full.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;
}

/// What [`IndexedParallelIterator::with_producer`] calls with the
/// iterator's producer (the producer's type cannot be named by the caller,
/// hence a callback).
///
/// ```
/// use locus::iter::plumbing::{Producer, ProducerCallback};
/// use locus::prelude::*;
///
/// // Returns the first item, sequentially, from the producer.
/// struct First;
/// impl<T> ProducerCallback<T> for First {
///     type Output = Option<T>;
///     fn callback<P: Producer<Item = T>>(self, p: P) -> Option<T> {
///         p.into_iter().next()
///     }
/// }
/// assert_eq!((5..9).into_par_iter().with_producer(First), Some(5));
/// ```
pub trait ProducerCallback<T> {
    /// The callback's result.
    type Output;

    /// Called with the producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}

/// Runs an indexed iterator into an indexed consumer: gets its producer
/// and hands both to [`bridge_producer_consumer`].
///
/// ```
/// use locus::iter::plumbing::{bridge, Consumer};
/// use locus::prelude::*;
///
/// // The `drive` of an indexed source is usually just `bridge(self, consumer)`.
/// fn drive_range<C: Consumer<u32>>(consumer: C) -> C::Result {
///     bridge((0..10u32).into_par_iter(), consumer)
/// }
/// let v: Vec<u32> = (0..10u32).into_par_iter().map(|x| x * 2).collect();
/// assert_eq!(v[9], 18);
/// ```
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    let len = par_iter.len();
    par_iter.with_producer(Bridge { len, consumer })
}

/// The callback through which [`bridge`] receives the producer.
struct Bridge<C> {
    len: usize,
    consumer: C,
}

impl<C, T> ProducerCallback<T> for Bridge<C>
where
    C: Consumer<T>,
{
    type Output = C::Result;

    fn callback<P>(self, producer: P) -> C::Result
    where
        P: Producer<Item = T>,
    {
        bridge_producer_consumer(self.len, producer, self.consumer)
    }
}

/// Runs `len` items of `producer` into `consumer`, split into jobs: the
/// single entry point of every indexed execution. First along the cache
/// hierarchy where that applies, then adaptively (see the module docs,
/// "The first split").
///
/// ```
/// use locus::iter::plumbing::{bridge_producer_consumer, Producer};
/// use locus::prelude::*;
///
/// struct Zeros(usize);
/// impl Producer for Zeros {
///     type Item = u8;
///     type IntoIter = std::iter::RepeatN<u8>;
///     fn into_iter(self) -> Self::IntoIter { std::iter::repeat_n(0, self.0) }
///     fn split_at(self, i: usize) -> (Self, Self) { (Zeros(i), Zeros(self.0 - i)) }
/// }
/// # struct Z(usize);
/// # impl ParallelIterator for Z {
/// #     type Item = u8;
/// #     fn drive_unindexed<C: locus::iter::plumbing::UnindexedConsumer<u8>>(self, c: C) -> C::Result {
/// #         bridge_producer_consumer(self.0, Zeros(self.0), c)
/// #     }
/// # }
/// assert_eq!(Z(5000).count(), 5000);
/// ```
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    run_split::bridge(len, producer, consumer)
}

/// One node of the indexed split tree.
fn split_indexed<P, C>(
    len: usize,
    migrated: bool,
    mut splitter: LengthSplitter,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if !splitter.try_split(len, migrated) {
        return producer.fold_with(consumer.into_folder()).complete();
    }
    let mid = len / 2;
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    let (left, right) = crate::join_context(
        move |ctx| split_half(mid, ctx.migrated(), splitter, left_p, left_c),
        move |ctx| split_half(len - mid, ctx.migrated(), splitter, right_p, right_c),
    );
    reducer.reduce(left, right)
}

/// A half of [`split_indexed`]: one that migrated out of a nested tree
/// keeps its new thread nested while it runs (see `run_split`).
#[inline]
fn split_half<P, C>(
    len: usize,
    migrated: bool,
    splitter: LengthSplitter,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if migrated && splitter.is_nested() {
        return split_nested_half(len, splitter, producer, consumer);
    }
    split_indexed(len, migrated, splitter, producer, consumer)
}

#[cold]
#[inline(never)]
fn split_nested_half<P, C>(
    len: usize,
    splitter: LengthSplitter,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let _nested = NestedGuard::enter();
    split_indexed(len, true, splitter, producer, consumer)
}

/// Runs an unindexed producer into an unindexed consumer, splitting
/// adaptively (the split budget as in [`bridge_producer_consumer`]) while
/// the producer agrees to split.
///
/// See [`UnindexedProducer`] for an example.
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    let ((budget, lazy), nested) = run_split::unindexed_start();
    split_unindexed(
        false,
        Splitter::new(budget).nested(nested.is_some()).lazy(lazy),
        producer,
        consumer,
    )
}

/// One node of the unindexed split tree.
fn split_unindexed<P, C>(
    migrated: bool,
    mut splitter: Splitter,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if !splitter.try_split(migrated) {
        return producer.fold_with(consumer.into_folder()).complete();
    }
    match producer.split() {
        (left_p, Some(right_p)) => {
            let reducer = consumer.to_reducer();
            let left_c = consumer.split_off_left();
            let half = |migrated: bool, p: P, c: C| {
                // A half that migrated out of a nested tree keeps its new
                // thread nested while it runs (see `run_split`).
                let _nested = (migrated && splitter.nested).then(NestedGuard::enter);
                split_unindexed(migrated, splitter, p, c)
            };
            let (left, right) = crate::join_context(
                move |ctx| half(ctx.migrated(), left_p, left_c),
                move |ctx| half(ctx.migrated(), right_p, consumer),
            );
            reducer.reduce(left, right)
        }
        (only, None) => only.fold_with(consumer.into_folder()).complete(),
    }
}
