//! Parallel iterators that own the elements of a `Vec`: `into_par_iter`
//! and `par_drain`.
//!
//! Both hand out the elements through a `DrainProducer`: a producer over
//! a slice whose elements it owns (the vector's length was set so that it
//! no longer does). Every element is moved out by the leaf iterator or
//! dropped by whichever producer or iterator still owns it, so a panic in
//! a closure drops the remaining elements exactly once.

use std::mem;
use std::ops::{Bound, Range, RangeBounds};
use std::ptr;
use std::slice;

use crate::iter::plumbing::*;
use crate::iter::*;

/// The elements of a `Vec`, by value. Made by `into_par_iter` on a `Vec`.
///
/// ```
/// use locus::prelude::*;
/// let v = vec![String::from("a"), String::from("b")];
/// let s: String = v.into_par_iter().collect();
/// assert_eq!(s, "ab");
/// ```
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Item = T;
    type Iter = IntoIter<T>;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: self }
    }
}

/// A boxed slice by value runs as the `Vec` it converts to (no copy).
///
/// ```
/// use locus::prelude::*;
/// let b: Box<[u32]> = vec![1, 2, 3].into_boxed_slice();
/// assert_eq!(b.par_iter().sum::<u32>(), 6);
/// let v: Vec<u32> = b.into_par_iter().map(|x| x * 2).collect();
/// assert_eq!(v, [2, 4, 6]);
/// ```
impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Item = T;
    type Iter = IntoIter<T>;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter {
            vec: self.into_vec(),
        }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.vec.len()
    }
    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        // Drain everything; the (then empty) vector frees its buffer after.
        self.vec.par_drain(..).with_producer(callback)
    }
}

impl<'data, T: Send> ParallelDrainRange<usize> for &'data mut Vec<T> {
    type Iter = Drain<'data, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'data, T> {
        let orig_len = self.len();
        let range = checked_range(range, orig_len);
        Drain {
            vec: self,
            range,
            orig_len,
        }
    }
}

/// The range `r` of a sequence of `len`, checked.
///
/// # Panics
/// If the range is out of bounds or decreasing, with a message naming the
/// bounds.
#[track_caller]
pub(crate) fn checked_range<R: RangeBounds<usize>>(r: R, len: usize) -> Range<usize> {
    let start = match r.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s
            .checked_add(1)
            .expect("par_drain: range start overflows usize"),
        Bound::Unbounded => 0,
    };
    let end = match r.end_bound() {
        Bound::Included(&e) => e
            .checked_add(1)
            .expect("par_drain: range end overflows usize"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end,
        "par_drain: range starts at {start} but ends at {end}"
    );
    assert!(
        end <= len,
        "par_drain: range end {end} is past the length {len}"
    );
    start..end
}

/// Drains a range of a `Vec`. Made by [`ParallelDrainRange::par_drain`];
/// when dropped, the elements after the range move down to close the gap.
#[derive(Debug)]
pub struct Drain<'data, T: Send> {
    vec: &'data mut Vec<T>,
    range: Range<usize>,
    orig_len: usize,
}

impl<T: Send> ParallelIterator for Drain<'_, T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.range.len())
    }
}

impl<T: Send> IndexedParallelIterator for Drain<'_, T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.range.len()
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let Range { start, end } = self.range;
        // SAFETY: from here on the vector does not own `start..` (its length
        // says so); the producer owns `start..end`, and `Drop for Drain`
        // moves the tail `end..orig_len` back. `start..end` is in bounds
        // (checked by `checked_range`).
        unsafe {
            self.vec.set_len(start);
            let items = slice::from_raw_parts_mut(self.vec.as_mut_ptr().add(start), end - start);
            callback.callback(DrainProducer::new(items))
        }
    }
}

impl<T: Send> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        let Range { start, end } = self.range;
        if self.vec.len() == self.orig_len {
            // The producer never ran (or the range is empty at the end):
            // an ordinary drain drops the range's elements.
            self.vec.drain(start..end);
        } else if start == end {
            // SAFETY: nothing was taken; the tail is still in place.
            unsafe { self.vec.set_len(self.orig_len) };
        } else {
            let tail = self.orig_len - end;
            // SAFETY: the producer consumed or dropped `start..end`; the tail
            // `end..orig_len` is initialized and moves to `start..`
            // (`ptr::copy` allows the overlap).
            unsafe {
                let base = self.vec.as_mut_ptr();
                ptr::copy(base.add(end), base.add(start), tail);
                self.vec.set_len(start + tail);
            }
        }
    }
}

/// A producer that owns the elements of a slice (moves them out, drops
/// the ones it does not hand out).
pub(crate) struct DrainProducer<'data, T: Send> {
    slice: &'data mut [T],
}

impl<'data, T: Send> DrainProducer<'data, T> {
    /// # Safety
    /// The caller gives up ownership of the elements of `slice`: they must
    /// be initialized and not be read or dropped by anyone else.
    pub(crate) unsafe fn new(slice: &'data mut [T]) -> Self {
        DrainProducer { slice }
    }
}

impl<'data, T: Send> Producer for DrainProducer<'data, T> {
    type Item = T;
    type IntoIter = SliceDrain<'data, T>;

    fn into_iter(mut self) -> SliceDrain<'data, T> {
        let slice = mem::take(&mut self.slice);
        SliceDrain {
            iter: slice.iter_mut(),
        }
    }
    fn split_at(mut self, index: usize) -> (Self, Self) {
        let (l, r) = mem::take(&mut self.slice).split_at_mut(index);
        (DrainProducer { slice: l }, DrainProducer { slice: r })
    }
}

impl<T: Send> Drop for DrainProducer<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the producer owns the elements still in its slice.
        unsafe { ptr::drop_in_place(mem::take(&mut self.slice) as *mut [T]) };
    }
}

/// The leaf iterator of a [`DrainProducer`]: moves elements out.
pub(crate) struct SliceDrain<'data, T> {
    iter: std::slice::IterMut<'data, T>,
}

impl<T> Iterator for SliceDrain<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let r = self.iter.next()?;
        // SAFETY: owned by this iterator; the slice iterator has moved past
        // it, so it is read once and never dropped here again.
        Some(unsafe { ptr::read(r) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<T> DoubleEndedIterator for SliceDrain<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        let r = self.iter.next_back()?;
        // SAFETY: as in `next`.
        Some(unsafe { ptr::read(r) })
    }
}

impl<T> ExactSizeIterator for SliceDrain<'_, T> {}

impl<T> Drop for SliceDrain<'_, T> {
    fn drop(&mut self) {
        let rest = mem::take(&mut self.iter).into_slice();
        // SAFETY: the elements not yet yielded are still owned here.
        unsafe { ptr::drop_in_place(rest as *mut [T]) };
    }
}
