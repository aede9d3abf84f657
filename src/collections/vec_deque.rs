//! `VecDeque`: by value, by reference and by mutable reference (indexed
//! over the deque's two slices), and `par_drain(range)`.

use std::collections::VecDeque;
use std::ops::RangeBounds;

use crate::iter::plumbing::*;
use crate::iter::*;

vec_backed! {
    /// The elements of a `VecDeque`, by value.
    IntoIter<T> => T where [T: Send]
}
vec_backed! {
    /// The elements drained from a range of a `VecDeque`.
    Drain<'a, T> => T where [T: Send]
}

impl<T: Send> IntoParallelIterator for VecDeque<T> {
    type Item = T;
    type Iter = IntoIter<T>;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter::gather(Vec::from(self))
    }
}

vec_backed_clone! {
    IntoIter<T> where [T: Clone];
}

/// References to the elements of a `VecDeque`, in order.
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: Chain<crate::slice::Iter<'a, T>, crate::slice::Iter<'a, T>>,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

/// Mutable references to the elements of a `VecDeque`, in order.
#[derive(Debug)]
pub struct IterMut<'a, T> {
    inner: Chain<crate::slice::IterMut<'a, T>, crate::slice::IterMut<'a, T>>,
}

impl<'a, T: Sync> IntoParallelIterator for &'a VecDeque<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;
    fn into_par_iter(self) -> Iter<'a, T> {
        let (a, b) = self.as_slices();
        Iter {
            inner: a.into_par_iter().chain(b),
        }
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut VecDeque<T> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;
    fn into_par_iter(self) -> IterMut<'a, T> {
        let (a, b) = self.as_mut_slices();
        IterMut {
            inner: a.into_par_iter().chain(b),
        }
    }
}

crate::option::delegate_indexed!(Iter<'a, T>, Sync, &'a T);
crate::option::delegate_indexed!(IterMut<'a, T>, Send, &'a mut T);

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut VecDeque<T> {
    type Iter = Drain<'a, T>;
    type Item = T;
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a, T> {
        let range = crate::vec::checked_range(range, self.len());
        Drain::gather(self.drain(range))
    }
}
