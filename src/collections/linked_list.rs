//! `LinkedList`: by value, by reference, by mutable reference (in order).

use std::collections::LinkedList;

vec_backed! {
    /// The elements of a `LinkedList`, by value.
    IntoIter<T> => T where [T: Send]
}
vec_backed! {
    /// References to the elements of a `LinkedList`.
    Iter<'a, T> => &'a T where [T: Sync]
}
vec_backed! {
    /// Mutable references to the elements of a `LinkedList`.
    IterMut<'a, T> => &'a mut T where [T: Send]
}

vec_backed_clone! {
    IntoIter<T> where [T: Clone];
    Iter<'a, T> where [];
}

into_par_iter_via_vec! {
    [T: Send] LinkedList<T> => IntoIter<T>, T, |l| l;
    ['a, T: Sync] &'a LinkedList<T> => Iter<'a, T>, &'a T, |l| l;
    ['a, T: Send] &'a mut LinkedList<T> => IterMut<'a, T>, &'a mut T, |l| l;
}
