//! `BinaryHeap`: by value, by reference (in the heap's internal order),
//! drained.

use std::collections::BinaryHeap;

use crate::iter::ParallelDrainFull;

vec_backed! {
    /// The elements of a `BinaryHeap`, by value.
    IntoIter<T> => T where [T: Send]
}
vec_backed! {
    /// References to the elements of a `BinaryHeap`.
    Iter<'a, T> => &'a T where [T: Sync]
}
vec_backed! {
    /// The elements drained from a `BinaryHeap`.
    Drain<'a, T> => T where [T: Send]
}

into_par_iter_via_vec! {
    [T: Ord + Send] BinaryHeap<T> => IntoIter<T>, T, |h| h.into_vec();
    ['a, T: Ord + Sync] &'a BinaryHeap<T> => Iter<'a, T>, &'a T, |h| h;
}

impl<'a, T: Ord + Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = Drain<'a, T>;
    type Item = T;
    fn par_drain(self) -> Drain<'a, T> {
        Drain::gather(self.drain())
    }
}
