//! `MultiZip`: tuples of indexed parallel iterators (or of what converts
//! into them) iterate in lockstep, as `zip` does for two.
//!
//! A tuple `(a, b, c)` runs as `a.zip(b).zip(c)` with its nested items
//! flattened to `(x, y, z)`; like `zip`, it is as long as its shortest
//! member.

use super::plumbing::*;
use super::*;

/// Tuples of indexed parallel iterators in lockstep. Made by
/// `into_par_iter`, `par_iter` or `par_iter_mut` on a tuple (of up to 12).
///
/// ```
/// use locus::prelude::*;
/// let (a, b, c) = (vec![1, 2, 3], vec![10, 20, 30], vec![100, 200, 300]);
/// let sums: Vec<i32> = (&a, &b, &c).into_par_iter().map(|(x, y, z)| x + y + z).collect();
/// assert_eq!(sums, [111, 222, 333]);
///
/// let mut out = vec![0; 3];
/// (&mut out, &a).into_par_iter().for_each(|(o, x)| *o = x * 2);
/// assert_eq!(out, [2, 4, 6]);
/// ```
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct MultiZip<T> {
    tuple: T,
}

/// A left-nested tuple pattern, `((a, b), c)`, for the items of
/// `a.zip(b).zip(c)`.
macro_rules! nested {
    (@ $acc:pat,) => { $acc };
    (@ $acc:pat, $next:ident $(, $rest:ident)*) => { nested!(@ ($acc, $next), $($rest),*) };
    ($first:ident $(, $rest:ident)*) => { nested!(@ $first, $($rest),*) };
}

macro_rules! multizip {
    ($(($($T:ident $t:ident),+))*) => {$(
        impl<$($T),+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator<Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                let ($($t,)+) = self;
                MultiZip { tuple: ($($t.into_par_iter(),)+) }
            }
        }

        multizip!(@ref [&'a] IntoParallelRefIterator par_iter, $($T $t),+);
        multizip!(@ref [&'a mut] IntoParallelRefMutIterator par_iter_mut, $($T $t),+);

        impl<$($T: IndexedParallelIterator),+> MultiZip<($($T,)+)> {
            /// The nested `zip`, its items flattened.
            fn zipped(self) -> impl IndexedParallelIterator<Item = ($($T::Item,)+)> {
                multizip!(@zip self.tuple, $($t),+)
            }
        }

        impl<$($T: IndexedParallelIterator),+> ParallelIterator for MultiZip<($($T,)+)> {
            type Item = ($($T::Item,)+);

            fn drive_unindexed<Cons: UnindexedConsumer<Self::Item>>(self, consumer: Cons) -> Cons::Result {
                self.zipped().drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($T: IndexedParallelIterator),+> IndexedParallelIterator for MultiZip<($($T,)+)> {
            fn drive<Cons: Consumer<Self::Item>>(self, consumer: Cons) -> Cons::Result {
                self.zipped().drive(consumer)
            }
            fn len(&self) -> usize {
                let ($($t,)+) = &self.tuple;
                [$($t.len()),+].into_iter().min().unwrap_or(0)
            }
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                self.zipped().with_producer(callback)
            }
        }
    )*};
    // A tuple by reference: its members' `par_iter` (or `par_iter_mut`).
    (@ref [$($r:tt)*] $Trait:ident $method:ident, $($T:ident $t:ident),+) => {
        impl<'a, $($T),+> IntoParallelIterator for $($r)* ($($T,)+)
        where
            $($T: $Trait<'a, Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                let ($($t,)+) = self;
                MultiZip { tuple: ($($t.$method(),)+) }
            }
        }
    };
    (@zip $tuple:expr, $first:ident $(, $rest:ident)*) => {{
        let ($first, $($rest,)*) = $tuple;
        $first$(.zip($rest))*.map(|nested!($first $(, $rest)*)| ($first, $($rest,)*))
    }};
}

multizip! {
    (A a)
    (A a, B b)
    (A a, B b, C c)
    (A a, B b, C c, D d)
    (A a, B b, C c, D d, E e)
    (A a, B b, C c, D d, E e, F f)
    (A a, B b, C c, D d, E e, F f, G g)
    (A a, B b, C c, D d, E e, F f, G g, H h)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l)
}
