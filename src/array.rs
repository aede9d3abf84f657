//! Parallel iterators over arrays by value (`[T; N].into_par_iter()`);
//! by reference they are slice iterators.
//!
//! ```
//! use locus::prelude::*;
//! let names = [String::from("a"), String::from("b")];
//! let n: usize = names.into_par_iter().map(|s| s.len()).sum();
//! assert_eq!(n, 2);
//! ```

use std::mem::ManuallyDrop;

use crate::iter::plumbing::*;
use crate::iter::*;
use crate::vec::DrainProducer;

/// The elements of an array, by value.
#[derive(Debug, Clone)]
pub struct IntoIter<T, const N: usize> {
    array: [T; N],
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Item = T;
    type Iter = IntoIter<T, N>;
    fn into_par_iter(self) -> IntoIter<T, N> {
        IntoIter { array: self }
    }
}

impl<T: Send, const N: usize> ParallelIterator for IntoIter<T, N> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(N)
    }
}

impl<T: Send, const N: usize> IndexedParallelIterator for IntoIter<T, N> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        N
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let mut array = ManuallyDrop::new(self.array);
        // SAFETY: the array will not drop its elements (ManuallyDrop); the
        // producer takes ownership of all of them, and the array's storage
        // lives on this frame until the callback has returned.
        let producer = unsafe { DrainProducer::new(&mut array[..]) };
        callback.callback(producer)
    }
}
