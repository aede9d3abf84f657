//! `try_reduce_with`: [`try_reduce`](super::try_reduce) without an
//! identity; a piece without items yields `None`.

use std::ops::ControlFlow::{self, Continue};
use std::sync::atomic::{AtomicBool, Ordering};

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::try_reduce::{combine, unbranch};
use super::try_trait::Try;

/// Reduces the successes of `pi` with `op`; `None` if `pi` is empty.
pub(super) fn try_reduce_with<PI, R, T>(pi: PI, op: R) -> Option<PI::Item>
where
    PI: ParallelIterator,
    R: Fn(T, T) -> PI::Item + Sync,
    PI::Item: Try<Output = T>,
{
    let stop = AtomicBool::new(false);
    pi.drive_unindexed(TryReduceWithConsumer {
        op: &op,
        stop: &stop,
    })
}

struct TryReduceWithConsumer<'r, R> {
    op: &'r R,
    stop: &'r AtomicBool,
}

impl<R> Clone for TryReduceWithConsumer<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for TryReduceWithConsumer<'_, R> {}

impl<'r, R, T> Consumer<T> for TryReduceWithConsumer<'r, R>
where
    R: Fn(T::Output, T::Output) -> T + Sync,
    T: Try + Send,
{
    type Folder = TryReduceWithFolder<'r, R, T>;
    type Reducer = Self;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }
    fn into_folder(self) -> Self::Folder {
        TryReduceWithFolder {
            op: self.op,
            control: None,
            stop: self.stop,
        }
    }
    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl<'r, R, T> UnindexedConsumer<T> for TryReduceWithConsumer<'r, R>
where
    R: Fn(T::Output, T::Output) -> T + Sync,
    T: Try + Send,
{
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<R, T> Reducer<Option<T>> for TryReduceWithConsumer<'_, R>
where
    R: Fn(T::Output, T::Output) -> T,
    T: Try,
{
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(l), Some(r)) => Some(unbranch(combine(self.op, l.branch(), r.branch()))),
            (l, None) => l,
            (None, r) => r,
        }
    }
}

struct TryReduceWithFolder<'r, R, T: Try> {
    op: &'r R,
    control: Option<ControlFlow<T::Residual, T::Output>>,
    stop: &'r AtomicBool,
}

impl<R, T> Folder<T> for TryReduceWithFolder<'_, R, T>
where
    R: Fn(T::Output, T::Output) -> T,
    T: Try,
{
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        let next = match self.control.take() {
            None => item.branch(),
            Some(Continue(acc)) => combine(self.op, Continue(acc), item.branch()),
            Some(stopped) => stopped,
        };
        if next.is_break() {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.control = Some(next);
        self
    }
    fn complete(self) -> Option<T> {
        self.control.map(unbranch)
    }
    fn full(&self) -> bool {
        matches!(self.control, Some(ControlFlow::Break(_))) || self.stop.load(Ordering::Relaxed)
    }
}
