//! `HashSet`: by value, by reference, drained.

use std::collections::HashSet;

use crate::iter::ParallelDrainFull;

vec_backed! {
    /// The elements of a `HashSet`, by value.
    IntoIter<T> => T where [T: Send]
}
vec_backed! {
    /// References to the elements of a `HashSet`.
    Iter<'a, T> => &'a T where [T: Sync]
}
vec_backed! {
    /// The elements drained from a `HashSet`.
    Drain<'a, T> => T where [T: Send]
}

vec_backed_clone! {
    Iter<'a, T> where [];
}

into_par_iter_via_vec! {
    [T: Send, S] HashSet<T, S> => IntoIter<T>, T, |s| s;
    ['a, T: Sync, S] &'a HashSet<T, S> => Iter<'a, T>, &'a T, |s| s;
}

impl<'a, T: Send, S> ParallelDrainFull for &'a mut HashSet<T, S> {
    type Iter = Drain<'a, T>;
    type Item = T;
    fn par_drain(self) -> Drain<'a, T> {
        Drain::gather(self.drain())
    }
}
