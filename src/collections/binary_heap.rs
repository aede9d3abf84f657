//! `BinaryHeap`: by value, by reference (in the heap's internal order),
//! drained.

use std::collections::BinaryHeap;

use crate::iter::ParallelDrainFull;
use crate::iter::plumbing::*;
use crate::iter::*;

vec_backed! {
    /// The elements of a `BinaryHeap`, by value.
    IntoIter<T> => T where [T: Send]
}
vec_backed! {
    /// The elements drained from a `BinaryHeap`.
    Drain<'a, T> => T where [T: Send]
}

vec_backed_clone! {
    IntoIter<T> where [T: Clone];
}

/// References to the elements of a `BinaryHeap`, in the heap's internal
/// order (indexed over its slice).
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: crate::slice::Iter<'a, T>,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

crate::option::delegate_indexed!(Iter<'a, T>, Sync, &'a T);

into_par_iter_via_vec! {
    [T: Send] BinaryHeap<T> => IntoIter<T>, T, |h| h.into_vec();
}

impl<'a, T: Sync> IntoParallelIterator for &'a BinaryHeap<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter {
            inner: self.as_slice().into_par_iter(),
        }
    }
}

/// `T: Ord` is rayon's bound (its drain rebuilds the emptied heap); locus
/// keeps it so that code written against locus also builds with rayon.
impl<'a, T: Ord + Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = Drain<'a, T>;
    type Item = T;
    fn par_drain(self) -> Drain<'a, T> {
        Drain::gather(self.drain())
    }
}
