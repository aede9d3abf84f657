//! `ParallelExtend` for the standard collections.
//!
//! Vectors take an indexed iterator's items in place; every other case
//! collects one vector per piece of work (a `LinkedList<Vec<T>>`, in
//! order) and then extends sequentially, reserving the total first where
//! the collection allows.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};

use super::collect::{extend_vec, vec_list};
use super::skip::Discard;
use super::{IntoParallelIterator, ParallelExtend, ParallelIterator};

/// The items of `pi`, one vector per piece, and their total count.
fn pieces<I: IntoParallelIterator>(pi: I) -> (LinkedList<Vec<I::Item>>, usize) {
    let list = vec_list(pi.into_par_iter());
    let n = list.iter().map(Vec::len).sum();
    (list, n)
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, pi: I) {
        extend_vec(self, pi.into_par_iter())
    }
}

impl<'a, T: 'a + Copy + Send + Sync> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, pi: I) {
        extend_vec(self, pi.into_par_iter().copied())
    }
}

/// Implements `ParallelExtend<T>` and `ParallelExtend<&T>` (for `T: Copy`)
/// through the list of pieces; `reserve` (if given) is the method that
/// makes room for the total first.
macro_rules! extend_through_pieces {
    ($([$($gen:tt)*] $ty:ty, $item:ty, $ref_item:ty where [$($rb:tt)*] $(, $reserve:ident)?;)*) => {$(
        impl<$($gen)*> ParallelExtend<$item> for $ty {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, pi: I) {
                let (list, _n) = pieces(pi);
                $(self.$reserve(_n);)?
                for piece in list {
                    self.extend(piece);
                }
            }
        }

        impl<'a, $($gen)*> ParallelExtend<$ref_item> for $ty
        where
            $($rb)*
        {
            fn par_extend<I: IntoParallelIterator<Item = $ref_item>>(&mut self, pi: I) {
                let (list, _n) = pieces(pi);
                $(self.$reserve(_n);)?
                for piece in list {
                    self.extend(piece);
                }
            }
        }
    )*};
}

extend_through_pieces! {
    [T: Send] VecDeque<T>, T, &'a T where [T: 'a + Copy + Sync], reserve;
    [T: Ord + Send] BinaryHeap<T>, T, &'a T where [T: 'a + Copy + Sync], reserve;
    [T: Send] LinkedList<T>, T, &'a T where [T: 'a + Copy + Sync];
    [T: Ord + Send] BTreeSet<T>, T, &'a T where [T: 'a + Copy + Sync];
    [K: Ord + Send, V: Send] BTreeMap<K, V>, (K, V), (&'a K, &'a V)
        where [K: 'a + Copy + Sync, V: 'a + Copy + Sync];
    [T: Eq + Hash + Send, S: BuildHasher + Send] HashSet<T, S>, T, &'a T
        where [T: 'a + Copy + Sync], reserve;
    [K: Eq + Hash + Send, V: Send, S: BuildHasher + Send] HashMap<K, V, S>, (K, V), (&'a K, &'a V)
        where [K: 'a + Copy + Sync, V: 'a + Copy + Sync], reserve;
}

/// Strings: one `String` per piece, concatenated in order.
fn extend_string<I, F>(s: &mut String, pi: I, push: F)
where
    I: ParallelIterator,
    F: Fn(&mut String, I::Item) + Sync + Send,
{
    let push = &push;
    let parts = vec_list(pi.fold(String::new, move |mut acc, item| {
        push(&mut acc, item);
        acc
    }));
    s.reserve(parts.iter().flatten().map(String::len).sum());
    for part in parts.iter().flatten() {
        s.push_str(part);
    }
}

macro_rules! extend_string {
    ($([$($gen:tt)*] $item:ty, |$s:ident, $x:ident| $push:expr;)*) => {$(
        impl<$($gen)*> ParallelExtend<$item> for String {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, pi: I) {
                extend_string(self, pi.into_par_iter(), |$s: &mut String, $x: $item| $push)
            }
        }
    )*};
}

extend_string! {
    [] char, |s, c| s.push(c);
    ['a] &'a char, |s, c| s.push(*c);
    ['a] &'a str, |s, x| s.push_str(x);
    [] String, |s, x| s.push_str(&x);
    [] Box<str>, |s, x| s.push_str(&x);
    ['a] Cow<'a, str>, |s, x| s.push_str(&x);
}

/// `()` consumes (and drops) every item.
impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, pi: I) {
        pi.into_par_iter().drive_unindexed(Discard)
    }
}
