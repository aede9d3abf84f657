//! `FromParallelIterator` for the standard collections, `()`, and the
//! short-circuiting `Option<C>` and `Result<C, E>`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};

/// A default collection extended with every item.
fn extended<C, I>(pi: I) -> C
where
    I: IntoParallelIterator,
    C: Default + ParallelExtend<I::Item>,
{
    let mut c = C::default();
    c.par_extend(pi);
    c
}

/// Collections built by extending a default value.
macro_rules! from_extend {
    ($([$($gen:tt)*] $ty:ty, $item:ty;)*) => {$(
        impl<$($gen)*> FromParallelIterator<$item> for $ty {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(pi: I) -> Self {
                extended(pi)
            }
        }
    )*};
}

from_extend! {
    [T: Send] Vec<T>, T;
    [T: Send] VecDeque<T>, T;
    [T: Send] LinkedList<T>, T;
    [T: Ord + Send] BTreeSet<T>, T;
    [K: Ord + Send, V: Send] BTreeMap<K, V>, (K, V);
    [T: Eq + Hash + Send, S: BuildHasher + Default + Send] HashSet<T, S>, T;
    [K: Eq + Hash + Send, V: Send, S: BuildHasher + Default + Send] HashMap<K, V, S>, (K, V);
    [] String, char;
    ['a] String, &'a char;
    ['a] String, &'a str;
    [] String, String;
    [] String, Box<str>;
    ['a] String, Cow<'a, str>;
    ['a] OsString, &'a OsStr;
    [] OsString, OsString;
    ['a] OsString, Cow<'a, OsStr>;
}

/// Types built from a `Vec` of the items.
macro_rules! from_vec {
    ($([$($gen:tt)*] $ty:ty, $item:ty;)*) => {$(
        impl<$($gen)*> FromParallelIterator<$item> for $ty {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(pi: I) -> Self {
                Vec::from_par_iter(pi).into()
            }
        }
    )*};
}

from_vec! {
    [T: Ord + Send] BinaryHeap<T>, T;
    [T: Send] Box<[T]>, T;
    [T: Send] Rc<[T]>, T;
    [T: Send] Arc<[T]>, T;
}

/// A boxed string, collected as a `String` from every item type a `String`
/// collects (rayon's set).
macro_rules! boxed_str {
    ($([$($gen:tt)*] $item:ty;)*) => {$(
        impl<$($gen)*> FromParallelIterator<$item> for Box<str> {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(pi: I) -> Self {
                String::from_par_iter(pi).into_boxed_str()
            }
        }
    )*};
}

boxed_str! {
    [] char;
    ['a] &'a char;
    ['a] &'a str;
    [] String;
    [] Box<str>;
    ['a] Cow<'a, str>;
}

/// A borrowed-or-owned value is collected as the owned form.
impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned<Owned: FromParallelIterator<T>> + ?Sized,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(pi: I) -> Self {
        Cow::Owned(C::Owned::from_par_iter(pi))
    }
}

/// Runs the iterator for its side effects, dropping every item.
impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(pi: I) -> Self {
        ().par_extend(pi)
    }
}

/// `Some(collection)` of the values, or `None` if any item is `None`;
/// pieces stop early once a `None` was seen.
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(pi: I) -> Self {
        let saw_none = AtomicBool::new(false);
        let c = pi
            .into_par_iter()
            .inspect(|item| {
                if item.is_none() {
                    saw_none.store(true, Ordering::Relaxed);
                }
            })
            .while_some()
            .collect();
        if saw_none.into_inner() { None } else { Some(c) }
    }
}

/// `Ok(collection)` of the values, or the first error seen (not
/// necessarily the first in order); pieces stop early after an error.
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(pi: I) -> Self {
        let error = Mutex::new(None);
        let c = pi
            .into_par_iter()
            .map(|item| match item {
                Ok(x) => Some(x),
                Err(e) => {
                    let mut slot = error.lock().unwrap_or_else(|p| p.into_inner());
                    slot.get_or_insert(e);
                    None
                }
            })
            .while_some()
            .collect();
        match error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(c),
        }
    }
}
