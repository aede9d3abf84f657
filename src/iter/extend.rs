//! `ParallelExtend` for the standard collections.
//!
//! Vectors take an indexed iterator's items in place; every other case
//! collects one vector per piece of work (a `LinkedList<Vec<T>>`, in
//! order) and then extends sequentially, reserving the total first where
//! the collection allows.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
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
/// `String` and `OsString`: built piecewise, then appended.
trait Text: Default + Send {
    fn text_len(&self) -> usize;
    fn reserve_text(&mut self, n: usize);
    fn append(&mut self, part: &Self);
}

macro_rules! text {
    ($($ty:ty: $append:ident),*) => {$(
        impl Text for $ty {
            fn text_len(&self) -> usize {
                self.len()
            }
            fn reserve_text(&mut self, n: usize) {
                self.reserve(n)
            }
            fn append(&mut self, part: &Self) {
                self.$append(part)
            }
        }
    )*};
}

text!(String: push_str, OsString: push);

/// Folds each piece of work into a text with `push`, then appends the
/// pieces in order (reserving their total first).
fn extend_text<S, I, F>(s: &mut S, pi: I, push: F)
where
    S: Text,
    I: ParallelIterator,
    F: Fn(&mut S, I::Item) + Sync + Send,
{
    let push = &push;
    let parts = vec_list(pi.fold(S::default, move |mut acc, item| {
        push(&mut acc, item);
        acc
    }));
    s.reserve_text(parts.iter().flatten().map(Text::text_len).sum());
    for part in parts.iter().flatten() {
        s.append(part);
    }
}

macro_rules! extend_text {
    ($($ty:ty: [$($gen:tt)*] $item:ty, |$s:ident, $x:ident| $push:expr;)*) => {$(
        impl<$($gen)*> ParallelExtend<$item> for $ty {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, pi: I) {
                extend_text(self, pi.into_par_iter(), |$s: &mut $ty, $x: $item| $push)
            }
        }
    )*};
}

extend_text! {
    String: [] char, |s, c| s.push(c);
    String: ['a] &'a char, |s, c| s.push(*c);
    String: ['a] &'a str, |s, x| s.push_str(x);
    String: [] String, |s, x| s.push_str(&x);
    String: [] Box<str>, |s, x| s.push_str(&x);
    String: ['a] Cow<'a, str>, |s, x| s.push_str(&x);
    OsString: ['a] &'a OsStr, |s, x| s.push(x);
    OsString: [] OsString, |s, x| s.push(&x);
    OsString: ['a] Cow<'a, OsStr>, |s, x| s.push(&x);
}

impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, pi: I) {
        pi.into_par_iter().drive_unindexed(Discard)
    }
}
