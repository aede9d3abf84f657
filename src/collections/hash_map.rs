//! `HashMap`: by value, by reference, by mutable reference, drained.

use std::collections::HashMap;

use crate::iter::ParallelDrainFull;

vec_backed! {
    /// The entries of a `HashMap`, by value.
    IntoIter<K, V> => (K, V) where [K: Send, V: Send]
}
vec_backed! {
    /// References to the entries of a `HashMap`.
    Iter<'a, K, V> => (&'a K, &'a V) where [K: Sync, V: Sync]
}
vec_backed! {
    /// The entries of a `HashMap`, values mutable.
    IterMut<'a, K, V> => (&'a K, &'a mut V) where [K: Sync, V: Send]
}
vec_backed! {
    /// The entries drained from a `HashMap`.
    Drain<'a, K, V> => (K, V) where [K: Send, V: Send]
}

vec_backed_clone! {
    Iter<'a, K, V> where [];
}

into_par_iter_via_vec! {
    [K: Send, V: Send, S] HashMap<K, V, S> => IntoIter<K, V>, (K, V), |m| m;
    ['a, K: Sync, V: Sync, S] &'a HashMap<K, V, S> => Iter<'a, K, V>, (&'a K, &'a V), |m| m;
    ['a, K: Sync, V: Send, S] &'a mut HashMap<K, V, S> => IterMut<'a, K, V>, (&'a K, &'a mut V), |m| m;
}

impl<'a, K: Send, V: Send, S> ParallelDrainFull for &'a mut HashMap<K, V, S> {
    type Iter = Drain<'a, K, V>;
    type Item = (K, V);
    fn par_drain(self) -> Drain<'a, K, V> {
        Drain::gather(self.drain())
    }
}
