//! `BTreeSet`: by value and by reference (in order).

use std::collections::BTreeSet;

vec_backed! {
    /// The elements of a `BTreeSet`, by value, in order.
    IntoIter<T> => T where [T: Send]
}
vec_backed! {
    /// References to the elements of a `BTreeSet`, in order.
    Iter<'a, T> => &'a T where [T: Sync]
}

vec_backed_clone! {
    Iter<'a, T> where [];
}

into_par_iter_via_vec! {
    [T: Send] BTreeSet<T> => IntoIter<T>, T, |s| s;
    ['a, T: Sync] &'a BTreeSet<T> => Iter<'a, T>, &'a T, |s| s;
}
