//! The consumer of indexed collects: writes each item straight into its
//! slot of the target vector's spare capacity.
//!
//! Ownership invariant: a [`CollectResult`] owns exactly the slots it has
//! written (`start .. start + written`) and drops them if it is dropped
//! (a panic elsewhere, or a gap when reducing). Reducing two results whose
//! written slots touch moves the right one's into the left one's; only the
//! final result is released to the vector, after checking it covers every
//! slot.

use std::marker::PhantomData;
use std::ptr;

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Writes `len` items to the uninitialized memory at `start`.
pub(crate) struct CollectConsumer<'c, T: Send> {
    start: *mut T,
    len: usize,
    marker: PhantomData<&'c mut T>,
}

// SAFETY: the consumer is the exclusive writer of its slots (splits hand
// out disjoint ranges), and sends `T`s to whichever thread runs it.
unsafe impl<T: Send> Send for CollectConsumer<'_, T> {}

impl<'c, T: Send> CollectConsumer<'c, T> {
    /// A consumer for the `len` slots after `vec.len()`, which must be
    /// reserved already.
    pub(crate) fn appending(vec: &'c mut Vec<T>, len: usize) -> Self {
        assert!(
            vec.capacity() - vec.len() >= len,
            "collect: capacity not reserved"
        );
        // SAFETY: `vec.len() <= capacity`, so the offset stays inside (or one
        // past) the allocation.
        let start = unsafe { vec.as_mut_ptr().add(vec.len()) };
        CollectConsumer {
            start,
            len,
            marker: PhantomData,
        }
    }
}

impl<'c, T: Send> Consumer<T> for CollectConsumer<'c, T> {
    type Folder = CollectResult<'c, T>;
    type Reducer = CollectReducer;
    type Result = CollectResult<'c, T>;

    fn split_at(self, index: usize) -> (Self, Self, CollectReducer) {
        assert!(index <= self.len, "collect: split index past the end");
        // SAFETY: `index <= len`, inside the slots this consumer owns.
        let right_start = unsafe { self.start.add(index) };
        let left = CollectConsumer {
            start: self.start,
            len: index,
            marker: PhantomData,
        };
        let right = CollectConsumer {
            start: right_start,
            len: self.len - index,
            marker: PhantomData,
        };
        (left, right, CollectReducer)
    }
    fn into_folder(self) -> CollectResult<'c, T> {
        CollectResult {
            start: self.start,
            total: self.len,
            written: 0,
            marker: PhantomData,
        }
    }
    fn full(&self) -> bool {
        false
    }
}

/// Only indexed iterators reach this consumer: `collect` uses it when
/// `opt_len()` is `Some`, and such iterators promise to split by index.
impl<'c, T: Send> UnindexedConsumer<T> for CollectConsumer<'c, T> {
    fn split_off_left(&self) -> Self {
        unreachable!("an iterator whose opt_len() is Some split without an index")
    }
    fn to_reducer(&self) -> CollectReducer {
        CollectReducer
    }
}

/// The items written so far into a range of slots.
pub(crate) struct CollectResult<'c, T> {
    start: *mut T,
    total: usize,
    written: usize,
    marker: PhantomData<&'c mut T>,
}

// SAFETY: owns `written` values of `T` in slots nobody else touches.
unsafe impl<T: Send> Send for CollectResult<'_, T> {}

impl<T> CollectResult<'_, T> {
    /// The number of items written.
    pub(crate) fn len(&self) -> usize {
        self.written
    }

    /// Gives up ownership of the written items (the vector takes them).
    pub(crate) fn release(self) -> usize {
        let n = self.written;
        std::mem::forget(self);
        n
    }
}

impl<T> Drop for CollectResult<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the first `written` slots were initialized by `consume`
        // and are owned by this result alone.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start, self.written)) }
    }
}

impl<'c, T: Send> Folder<T> for CollectResult<'c, T> {
    type Result = Self;

    fn consume(mut self, item: T) -> Self {
        assert!(
            self.written < self.total,
            "collect: the iterator produced more items than its length said"
        );
        // SAFETY: `written < total`, a slot of ours not written yet.
        unsafe { self.start.add(self.written).write(item) };
        self.written += 1;
        self
    }
    fn complete(self) -> Self {
        self
    }
    fn full(&self) -> bool {
        false
    }
}

/// Joins two results whose slots are adjacent.
pub(crate) struct CollectReducer;

impl<'c, T> Reducer<CollectResult<'c, T>> for CollectReducer {
    fn reduce(
        self,
        mut left: CollectResult<'c, T>,
        right: CollectResult<'c, T>,
    ) -> CollectResult<'c, T> {
        // SAFETY: `written <= total`, inside left's range or one past it.
        let left_end = unsafe { left.start.add(left.written) };
        if left_end == right.start {
            left.total += right.total;
            left.written += right.release();
        }
        // Otherwise left is short (which the final count check reports) and
        // `right` drops its items here.
        left
    }
}
