//! `take_any_while` and `skip_any_while`: a shared flag, flipped by the
//! first item for which the predicate is false, decides for every piece.
//!
//! Items are handed on in the base iterator's order within what each
//! consumer keeps (a `collect` keeps their relative order); which items a
//! race between pieces lets through is unspecified, as in rayon.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use super::ParallelIterator;
use super::plumbing::UnindexedConsumer;

/// Items from anywhere until the predicate is false for one. Made by
/// [`ParallelIterator::take_any_while`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct TakeAnyWhile<I, P> {
    base: I,
    predicate: P,
}

/// Items from anywhere once the predicate was false for one. Made by
/// [`ParallelIterator::skip_any_while`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone)]
pub struct SkipAnyWhile<I, P> {
    base: I,
    predicate: P,
}

macro_rules! new_and_debug {
    ($($name:ident),*) => {$(
        impl<I, P> $name<I, P> {
            pub(super) fn new(base: I, predicate: P) -> Self {
                $name { base, predicate }
            }
        }

        impl<I: fmt::Debug, P> fmt::Debug for $name<I, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).finish()
            }
        }
    )*};
}

new_and_debug!(TakeAnyWhile, SkipAnyWhile);

impl<I, P> ParallelIterator for TakeAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let taking = AtomicBool::new(true);
        let (taking, predicate) = (&taking, &self.predicate);
        // `while_some` makes every piece full at the first `None`; the flag
        // also drops the items already mapped when another piece stopped.
        self.base
            .map(move |x| {
                if !taking.load(Ordering::Relaxed) {
                    None
                } else if predicate(&x) {
                    Some(x)
                } else {
                    taking.store(false, Ordering::Relaxed);
                    None
                }
            })
            .while_some()
            .drive_unindexed(consumer)
    }
}

impl<I, P> ParallelIterator for SkipAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let skipping = AtomicBool::new(true);
        let (skipping, predicate) = (&skipping, &self.predicate);
        self.base
            .filter(move |x| {
                if !skipping.load(Ordering::Relaxed) {
                    true
                } else if predicate(x) {
                    false
                } else {
                    skipping.store(false, Ordering::Relaxed);
                    true
                }
            })
            .drive_unindexed(consumer)
    }
}
