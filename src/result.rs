//! Parallel iterators over `Result`: the `Ok` value, if any.
//!
//! ```
//! use locus::prelude::*;
//! let r: Result<i32, ()> = Ok(5);
//! assert_eq!(r.par_iter().count(), 1);
//! ```

use crate::iter::plumbing::*;
use crate::iter::*;
use crate::option::{self, delegate_indexed};

/// The `Ok` value of a `Result`. Made by `into_par_iter` on a `Result`.
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    inner: option::IntoIter<T>,
}

/// A reference to the `Ok` value. Made by `par_iter`.
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: option::IntoIter<&'a T>,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

/// A mutable reference to the `Ok` value. Made by `par_iter_mut`.
#[derive(Debug)]
pub struct IterMut<'a, T> {
    inner: option::IntoIter<&'a mut T>,
}

impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Item = T;
    type Iter = IntoIter<T>;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter {
            inner: self.ok().into_par_iter(),
        }
    }
}

impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter {
            inner: self.as_ref().ok().into_par_iter(),
        }
    }
}

impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut {
            inner: self.as_mut().ok().into_par_iter(),
        }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.inner.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        self.inner.opt_len()
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }
}

delegate_indexed!(Iter<'a, T>, Sync, &'a T);
delegate_indexed!(IterMut<'a, T>, Send, &'a mut T);
