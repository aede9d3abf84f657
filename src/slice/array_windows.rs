//! `par_array_windows::<N>()`: the overlapping windows of a slice as
//! references to arrays of `N` elements.
//!
//! A producer over a sub-slice: splitting at window `i` gives the left part
//! the first `i + N - 1` elements (the elements of its `i` windows) and the
//! right part the elements from `i` on, so the two overlap by `N - 1`
//! elements and together hold every window exactly once, in order. `N` must
//! not be zero; as in rayon, an iterator with `N == 0` fails to compile where
//! it is driven (a constant check in `len` and `with_producer`).

use crate::iter::plumbing::*;
use crate::iter::*;

/// Overlapping windows of a slice as `&[T; N]`. Made by
/// [`ParallelSlice::par_array_windows`](super::ParallelSlice::par_array_windows).
///
/// ```
/// use locus::prelude::*;
/// let v = [1, 2, 3, 4];
/// let sums: Vec<i32> = v.par_array_windows().map(|[a, b, c]| a + b + c).collect();
/// assert_eq!(sums, [6, 9]);
/// ```
#[derive(Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct ArrayWindows<'data, T: Sync, const N: usize> {
    slice: &'data [T],
}

impl<'data, T: Sync, const N: usize> ArrayWindows<'data, T, N> {
    pub(super) fn new(slice: &'data [T]) -> Self {
        ArrayWindows { slice }
    }
}

impl<T: Sync, const N: usize> Clone for ArrayWindows<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayWindows { slice: self.slice }
    }
}

/// Rejects `N == 0` where it is instantiated: there is no window of no
/// elements (`std`'s `windows(0)` panics).
const fn nonzero<const N: usize>() -> usize {
    const { assert!(N != 0, "par_array_windows: N must not be zero") };
    N
}

impl<'data, T: Sync, const N: usize> ParallelIterator for ArrayWindows<'data, T, N> {
    type Item = &'data [T; N];

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync, const N: usize> IndexedParallelIterator for ArrayWindows<'data, T, N> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.slice.len().saturating_sub(nonzero::<N>() - 1)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        nonzero::<N>();
        callback.callback(ArrayWindowsProducer::<T, N> { slice: self.slice })
    }
}

struct ArrayWindowsProducer<'data, T, const N: usize> {
    slice: &'data [T],
}

/// The leaf iterator: `std`'s windows, each seen as an array (every window
/// has exactly `N` elements, so the conversion cannot fail).
type Leaf<'data, T, const N: usize> =
    std::iter::Map<std::slice::Windows<'data, T>, fn(&'data [T]) -> &'data [T; N]>;

fn as_array<T, const N: usize>(window: &[T]) -> &[T; N] {
    window
        .first_chunk::<N>()
        .expect("a window has exactly N elements")
}

impl<'data, T: Sync, const N: usize> Producer for ArrayWindowsProducer<'data, T, N> {
    type Item = &'data [T; N];
    type IntoIter = Leaf<'data, T, N>;

    fn into_iter(self) -> Self::IntoIter {
        // `with_producer`, the only maker of producers, rejected `N == 0`,
        // so `windows(N)` does not panic and `N - 1` below does not wrap.
        self.slice.windows(N).map(as_array::<T, N>)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let left_end = (index + N - 1).min(self.slice.len());
        let right_start = index.min(self.slice.len());
        (
            ArrayWindowsProducer {
                slice: &self.slice[..left_end],
            },
            ArrayWindowsProducer {
                slice: &self.slice[right_start..],
            },
        )
    }
}
