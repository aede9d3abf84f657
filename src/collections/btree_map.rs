//! `BTreeMap`: by value, by reference, by mutable reference (in key
//! order).

use std::collections::BTreeMap;

vec_backed! {
    /// The entries of a `BTreeMap`, by value, in key order.
    IntoIter<K, V> => (K, V) where [K: Send, V: Send]
}
vec_backed! {
    /// References to the entries of a `BTreeMap`, in key order.
    Iter<'a, K, V> => (&'a K, &'a V) where [K: Sync, V: Sync]
}
vec_backed! {
    /// The entries of a `BTreeMap`, values mutable, in key order.
    IterMut<'a, K, V> => (&'a K, &'a mut V) where [K: Sync, V: Send]
}

vec_backed_clone! {
    Iter<'a, K, V> where [];
}

into_par_iter_via_vec! {
    [K: Send, V: Send] BTreeMap<K, V> => IntoIter<K, V>, (K, V), |m| m;
    ['a, K: Sync, V: Sync] &'a BTreeMap<K, V> => Iter<'a, K, V>, (&'a K, &'a V), |m| m;
    ['a, K: Sync, V: Send] &'a mut BTreeMap<K, V> => IterMut<'a, K, V>, (&'a K, &'a mut V), |m| m;
}
