//! Parallel iterators over the standard collections, by value, by
//! reference, and drained: one module per collection, as in rayon.
//!
//! `VecDeque` by reference is indexed over its two slices, `BinaryHeap` by
//! reference over its slice. The other collections have no parallel access
//! to their internals, so their iterators first gather the items (or
//! references) into a `Vec`, as rayon does, and then run as a vector
//! iterator.
//!
//! The bounds are rayon's: `Send` for items taken by value or by mutable
//! reference, `Sync` for shared references, nothing more (no `Ord`, `Hash`
//! or `BuildHasher`: the iterators never compare or hash, so generic code
//! with only `Send`/`Sync` bounds compiles). The one exception is
//! `par_drain` on a `BinaryHeap`, which needs `T: Ord` as rayon's does.
//!
//! ```
//! use locus::prelude::*;
//! use std::collections::{BTreeMap, HashSet};
//! let m: BTreeMap<u32, u32> = (0..10).map(|i| (i, i * i)).collect();
//! assert_eq!(m.par_iter().map(|(_, v)| v).sum::<u32>(), 285);
//! let s: HashSet<u32> = m.into_par_iter().map(|(k, _)| k % 3).collect();
//! assert_eq!(s.len(), 3);
//! ```

/// Defines an indexed iterator that runs a `Vec` of its items.
macro_rules! vec_backed {
    ($(#[$attr:meta])* $name:ident<$($lt:lifetime,)? $($T:ident),*> => $item:ty where [$($b:tt)*]) => {
        $(#[$attr])*
        #[derive(Debug)]
        pub struct $name<$($lt,)? $($T),*> {
            inner: crate::vec::IntoIter<$item>,
            marker: std::marker::PhantomData<($(&$lt (),)?)>,
        }

        impl<$($lt,)? $($T),*> $name<$($lt,)? $($T),*>
        where
            $($b)*
        {
            pub(super) fn gather<I: IntoIterator<Item = $item>>(items: I) -> Self {
                use crate::iter::IntoParallelIterator;
                let v: Vec<$item> = items.into_iter().collect();
                $name { inner: v.into_par_iter(), marker: std::marker::PhantomData }
            }
        }

        impl<$($lt,)? $($T),*> crate::iter::ParallelIterator for $name<$($lt,)? $($T),*>
        where
            $($b)*
        {
            type Item = $item;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: crate::iter::plumbing::UnindexedConsumer<$item>,
            {
                self.inner.drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }

        impl<$($lt,)? $($T),*> crate::iter::IndexedParallelIterator for $name<$($lt,)? $($T),*>
        where
            $($b)*
        {
            fn drive<C: crate::iter::plumbing::Consumer<$item>>(self, consumer: C) -> C::Result {
                crate::iter::IndexedParallelIterator::drive(self.inner, consumer)
            }
            fn len(&self) -> usize {
                crate::iter::IndexedParallelIterator::len(&self.inner)
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: crate::iter::plumbing::ProducerCallback<$item>,
            {
                crate::iter::IndexedParallelIterator::with_producer(self.inner, callback)
            }
        }
    };
}

/// `Clone` for a `vec_backed!` iterator, under the bounds given (rayon's:
/// none for the iterators of references, `T: Clone` for those by value).
macro_rules! vec_backed_clone {
    ($($name:ident<$($lt:lifetime,)? $($T:ident),*> where [$($b:tt)*];)*) => {$(
        impl<$($lt,)? $($T),*> Clone for $name<$($lt,)? $($T),*>
        where
            $($b)*
        {
            fn clone(&self) -> Self {
                $name { inner: self.inner.clone(), marker: std::marker::PhantomData }
            }
        }
    )*};
}

/// `IntoParallelIterator` for a collection (or a reference to one) whose
/// iterator gathers `$iter` into a `Vec`.
macro_rules! into_par_iter_via_vec {
    ($([$($gen:tt)*] $src:ty => $it:ty, $item:ty, |$s:ident| $iter:expr;)*) => {$(
        impl<$($gen)*> crate::iter::IntoParallelIterator for $src {
            type Item = $item;
            type Iter = $it;
            fn into_par_iter(self) -> $it {
                let $s = self;
                <$it>::gather($iter)
            }
        }
    )*};
}

pub mod binary_heap;
pub mod btree_map;
pub mod btree_set;
pub mod hash_map;
pub mod hash_set;
pub mod linked_list;
pub mod vec_deque;
