//! `find_first` and `find_last`.
//!
//! Every consumer owns a range `[lo, hi)` of *positions*, an order-keeping
//! stand-in for item indices that also works without an index: the root
//! owns `0..usize::MAX`, and each split gives the left half of the range to
//! the left consumer. So if consumer A is left of B, `A.lo <= B.lo`, and
//! strictly less unless the range ran out (after 64 levels of splitting,
//! where positions of neighbours may coincide).
//!
//! A leaf that finds a match publishes its `lo` in `best` (minimum for
//! `find_first`, maximum for `find_last`). A consumer whose `lo` is beyond
//! `best` (strictly greater for first, strictly less for last) can stop:
//! a match strictly on the wanted side of it exists. Coinciding positions
//! only stop less work. The answer itself comes from the reducers, which
//! prefer the left (first) or right (last) result, so it is exact whatever
//! was stopped.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

#[derive(Clone, Copy, PartialEq)]
enum Side {
    First,
    Last,
}

/// `best` holds, for `find_first`, the smallest matched position (no
/// match: `usize::MAX`); for `find_last`, the largest matched position
/// plus one (no match: 0). Positions are below `usize::MAX`, so neither
/// overflows nor collides with "no match".
impl Side {
    fn no_match(self) -> usize {
        match self {
            Side::First => usize::MAX,
            Side::Last => 0,
        }
    }

    /// Whether a match recorded as `best` makes a consumer at `lo` useless.
    fn beaten(self, best: usize, lo: usize) -> bool {
        match self {
            Side::First => best < lo,
            Side::Last => best > lo + 1,
        }
    }

    fn publish(self, best: &AtomicUsize, lo: usize) {
        match self {
            Side::First => best.fetch_min(lo, Ordering::Relaxed),
            Side::Last => best.fetch_max(lo + 1, Ordering::Relaxed),
        };
    }
}

/// The first item of `pi` for which `pred` is true.
pub(super) fn find_first<I, P>(pi: I, pred: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find_side(pi, pred, Side::First)
}

/// The last item of `pi` for which `pred` is true.
pub(super) fn find_last<I, P>(pi: I, pred: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find_side(pi, pred, Side::Last)
}

fn find_side<I, P>(pi: I, pred: P, side: Side) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(side.no_match());
    let root = FindConsumer {
        pred: &pred,
        best: &best,
        side,
        lo: Cell::new(0),
        hi: usize::MAX,
    };
    pi.drive_unindexed(root)
}

struct FindConsumer<'p, P> {
    pred: &'p P,
    best: &'p AtomicUsize,
    side: Side,
    /// Moves right when a left part is split off (`split_off_left` takes
    /// `&self`).
    lo: Cell<usize>,
    hi: usize,
}

impl<'p, P> FindConsumer<'p, P> {
    fn with_range(&self, lo: usize, hi: usize) -> Self {
        FindConsumer {
            pred: self.pred,
            best: self.best,
            side: self.side,
            lo: Cell::new(lo),
            hi,
        }
    }

    fn mid(&self) -> usize {
        let lo = self.lo.get();
        lo + (self.hi - lo) / 2
    }
}

impl<'p, T, P> Consumer<T> for FindConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Folder = FindFolder<'p, T, P>;
    type Reducer = FindReducer;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, FindReducer) {
        let mid = self.mid();
        let left = self.with_range(self.lo.get(), mid);
        let right = self.with_range(mid, self.hi);
        (left, right, FindReducer(self.side))
    }
    fn into_folder(self) -> Self::Folder {
        FindFolder {
            pred: self.pred,
            best: self.best,
            side: self.side,
            lo: self.lo.get(),
            item: None,
        }
    }
    fn full(&self) -> bool {
        self.side
            .beaten(self.best.load(Ordering::Relaxed), self.lo.get())
    }
}

impl<'p, T, P> UnindexedConsumer<T> for FindConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    fn split_off_left(&self) -> Self {
        let mid = self.mid();
        let left = self.with_range(self.lo.get(), mid);
        self.lo.set(mid);
        left
    }
    fn to_reducer(&self) -> FindReducer {
        FindReducer(self.side)
    }
}

struct FindFolder<'p, T, P> {
    pred: &'p P,
    best: &'p AtomicUsize,
    side: Side,
    lo: usize,
    item: Option<T>,
}

impl<'p, T, P> Folder<T> for FindFolder<'p, T, P>
where
    P: Fn(&T) -> bool,
{
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        if (self.pred)(&item) {
            // For `find_first` the folder is full after this; for
            // `find_last` a later match replaces this one.
            if self.item.is_none() {
                self.side.publish(self.best, self.lo);
            }
            self.item = Some(item);
        }
        self
    }
    fn complete(self) -> Option<T> {
        self.item
    }
    fn full(&self) -> bool {
        (self.side == Side::First && self.item.is_some())
            || self.side.beaten(self.best.load(Ordering::Relaxed), self.lo)
    }
}

struct FindReducer(Side);

impl<T> Reducer<Option<T>> for FindReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match self.0 {
            Side::First => left.or(right),
            Side::Last => right.or(left),
        }
    }
}
