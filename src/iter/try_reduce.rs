//! `try_reduce`: a reduce over `Try` items that stops every piece at the
//! first break seen (a shared flag is its `full()`).

use std::ops::ControlFlow::{self, Break, Continue};
use std::sync::atomic::{AtomicBool, Ordering};

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::try_trait::Try;

/// Reduces the successes of `pi` with `op` from `identity()`.
pub(super) fn try_reduce<PI, R, ID, T>(pi: PI, identity: ID, op: R) -> PI::Item
where
    PI: ParallelIterator,
    R: Fn(T, T) -> PI::Item + Sync,
    ID: Fn() -> T + Sync,
    PI::Item: Try<Output = T>,
{
    let stop = AtomicBool::new(false);
    pi.drive_unindexed(TryReduceConsumer {
        identity: &identity,
        op: &op,
        stop: &stop,
    })
}

/// Combines two branches with `op`; a break on either side wins (the left
/// one first).
pub(super) fn combine<T, R, OP>(
    op: &OP,
    a: ControlFlow<R::Residual, T>,
    b: ControlFlow<R::Residual, T>,
) -> ControlFlow<R::Residual, T>
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    match (a, b) {
        (Continue(a), Continue(b)) => op(a, b).branch(),
        (Break(r), _) | (_, Break(r)) => Break(r),
    }
}

/// Rebuilds the `Try` value of a branch.
pub(super) fn unbranch<R: Try>(c: ControlFlow<R::Residual, R::Output>) -> R {
    match c {
        Continue(c) => R::from_output(c),
        Break(r) => R::from_residual(r),
    }
}

struct TryReduceConsumer<'r, R, ID> {
    identity: &'r ID,
    op: &'r R,
    stop: &'r AtomicBool,
}

impl<R, ID> Clone for TryReduceConsumer<'_, R, ID> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R, ID> Copy for TryReduceConsumer<'_, R, ID> {}

impl<'r, R, ID, T> Consumer<T> for TryReduceConsumer<'r, R, ID>
where
    R: Fn(T::Output, T::Output) -> T + Sync,
    ID: Fn() -> T::Output + Sync,
    T: Try + Send,
{
    type Folder = TryReduceFolder<'r, R, T>;
    type Reducer = Self;
    type Result = T;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }
    fn into_folder(self) -> Self::Folder {
        TryReduceFolder {
            op: self.op,
            control: Continue((self.identity)()),
            stop: self.stop,
        }
    }
    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl<'r, R, ID, T> UnindexedConsumer<T> for TryReduceConsumer<'r, R, ID>
where
    R: Fn(T::Output, T::Output) -> T + Sync,
    ID: Fn() -> T::Output + Sync,
    T: Try + Send,
{
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<R, ID, T> Reducer<T> for TryReduceConsumer<'_, R, ID>
where
    R: Fn(T::Output, T::Output) -> T,
    T: Try,
{
    fn reduce(self, left: T, right: T) -> T {
        unbranch(combine(self.op, left.branch(), right.branch()))
    }
}

struct TryReduceFolder<'r, R, T: Try> {
    op: &'r R,
    control: ControlFlow<T::Residual, T::Output>,
    stop: &'r AtomicBool,
}

impl<R, T> Folder<T> for TryReduceFolder<'_, R, T>
where
    R: Fn(T::Output, T::Output) -> T,
    T: Try,
{
    type Result = T;

    fn consume(mut self, item: T) -> Self {
        if let Continue(acc) = self.control {
            self.control = combine(self.op, Continue(acc), item.branch());
            if self.control.is_break() {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        self
    }
    fn complete(self) -> T {
        unbranch(self.control)
    }
    fn full(&self) -> bool {
        self.control.is_break() || self.stop.load(Ordering::Relaxed)
    }
}
