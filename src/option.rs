//! Parallel iterators over `Option`: zero or one item, indexed.
//!
//! ```
//! use locus::prelude::*;
//! assert_eq!(Some(3).into_par_iter().sum::<i32>(), 3);
//! assert_eq!(None::<i32>.par_iter().count(), 0);
//! ```

use crate::iter::plumbing::*;
use crate::iter::*;

/// The value of an `Option`, if any. Made by `into_par_iter` on an
/// `Option`.
#[derive(Debug, Clone)]
pub struct IntoIter<T> {
    opt: Option<T>,
}

/// A reference to the value of an `Option`. Made by `par_iter`.
#[derive(Debug)]
pub struct Iter<'a, T> {
    inner: IntoIter<&'a T>,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: IntoIter {
                opt: self.inner.opt,
            },
        }
    }
}

/// A mutable reference to the value of an `Option`. Made by
/// `par_iter_mut`.
#[derive(Debug)]
pub struct IterMut<'a, T> {
    inner: IntoIter<&'a mut T>,
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Item = T;
    type Iter = IntoIter<T>;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { opt: self }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Option<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter {
            inner: IntoIter { opt: self.as_ref() },
        }
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Option<T> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut {
            inner: IntoIter { opt: self.as_mut() },
        }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.drive(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        let folder = consumer.into_folder();
        match self.opt {
            Some(x) => folder.consume(x).complete(),
            None => folder.complete(),
        }
    }
    fn len(&self) -> usize {
        usize::from(self.opt.is_some())
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(OptionProducer { opt: self.opt })
    }
}

/// Delegates an iterator to the `IntoIter` in its `inner` field.
macro_rules! delegate_indexed {
    ($name:ident<$a:lifetime, $t:ident>, $bound:ident, $item:ty) => {
        impl<$a, $t: $bound + $a> ParallelIterator for $name<$a, $t> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                self.inner.drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }

        impl<$a, $t: $bound + $a> IndexedParallelIterator for $name<$a, $t> {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                self.inner.drive(consumer)
            }
            fn len(&self) -> usize {
                self.inner.len()
            }
            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                self.inner.with_producer(callback)
            }
        }
    };
}
pub(crate) use delegate_indexed;

delegate_indexed!(Iter<'a, T>, Sync, &'a T);
delegate_indexed!(IterMut<'a, T>, Send, &'a mut T);

struct OptionProducer<T> {
    opt: Option<T>,
}

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.opt.into_iter()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let none = OptionProducer { opt: None };
        if index == 0 {
            (none, self)
        } else {
            (self, none)
        }
    }
}
