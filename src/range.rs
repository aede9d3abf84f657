//! Parallel iterators over ranges of integers (`(a..b).into_par_iter()`).
//!
//! As in rayon: ranges of `u8`, `u16`, `u32`, `usize`, `i8`, `i16`, `i32`
//! and `isize` are indexed (their length always fits `usize`); ranges of
//! `u64`, `i64`, `u128` and `i128` are unindexed, but run exactly like an
//! indexed range when their length fits `usize` (`opt_len` is `Some`), and
//! otherwise split in halves with their own wide arithmetic.
//!
//! ```
//! use locus::prelude::*;
//! let big = (u64::MAX - 10..u64::MAX).into_par_iter().count();
//! assert_eq!(big, 10);
//! let huge = (0..u128::MAX).into_par_iter().find_any(|&x| x == 7);
//! assert_eq!(huge, Some(7));
//! ```

use std::ops::Range;

use crate::iter::plumbing::*;
use crate::iter::*;

/// A parallel iterator over a range. Made by `into_par_iter` on a
/// `Range<T>`.
#[derive(Clone, Debug)]
pub struct Iter<T> {
    range: Range<T>,
}

impl<T> IntoParallelIterator for Range<T>
where
    Iter<T>: ParallelIterator,
{
    type Item = <Iter<T> as ParallelIterator>::Item;
    type Iter = Iter<T>;

    fn into_par_iter(self) -> Iter<T> {
        Iter { range: self }
    }
}

/// The integer types a range iterator runs over, sealed (the traits live in
/// a private module), and the iterator traits of the module's `Iter`
/// through them: written once for this module and `crate::range_inclusive`.
/// The iterator impls are generic over the integer types, not one per type
/// as the macros below write the bodies, for type inference: with one
/// generic impl, `(0..8).into_par_iter()` has items of the literal's integer
/// type before that type is known (so `map(|x| -x)` compiles, as in rayon);
/// with one impl per type the compiler could not pick an impl yet.
macro_rules! range_integer_traits {
    () => {
        mod private {
            use super::*;

            /// An integer type whose ranges run in parallel: the body of
            /// `ParallelIterator for Iter<Self>`.
            pub trait RangeInteger: Sized + Send {
                fn drive_unindexed<C: UnindexedConsumer<Self>>(
                    iter: Iter<Self>,
                    consumer: C,
                ) -> C::Result;
                fn opt_len(iter: &Iter<Self>) -> Option<usize>;
            }

            /// An integer type whose range length always fits `usize`: the
            /// body of `IndexedParallelIterator for Iter<Self>`.
            pub trait IndexedRangeInteger: RangeInteger {
                fn drive<C: Consumer<Self>>(iter: Iter<Self>, consumer: C) -> C::Result;
                fn len(iter: &Iter<Self>) -> usize;
                fn with_producer<CB: ProducerCallback<Self>>(
                    iter: Iter<Self>,
                    callback: CB,
                ) -> CB::Output;
            }
        }

        use private::{IndexedRangeInteger, RangeInteger};

        impl<T: RangeInteger> ParallelIterator for Iter<T> {
            type Item = T;

            fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
                T::drive_unindexed(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                T::opt_len(self)
            }
        }

        impl<T: IndexedRangeInteger> IndexedParallelIterator for Iter<T> {
            fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
                T::drive(self, consumer)
            }
            fn len(&self) -> usize {
                T::len(self)
            }
            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                T::with_producer(self, callback)
            }
        }
    };
}
pub(crate) use range_integer_traits;

range_integer_traits!();

/// Splits a range at an index.
struct IterProducer<T> {
    range: Range<T>,
}

macro_rules! indexed_range {
    ($($t:ty),*) => {$(
        impl RangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                bridge(iter, consumer)
            }
            fn opt_len(iter: &Iter<$t>) -> Option<usize> {
                Some(iter.range.len())
            }
        }

        impl IndexedRangeInteger for $t {
            fn drive<C: Consumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                bridge(iter, consumer)
            }
            fn len(iter: &Iter<$t>) -> usize {
                iter.range.len()
            }
            fn with_producer<CB: ProducerCallback<$t>>(iter: Iter<$t>, callback: CB) -> CB::Output {
                callback.callback(IterProducer { range: iter.range })
            }
        }

        impl Producer for IterProducer<$t> {
            type Item = $t;
            type IntoIter = Range<$t>;

            fn into_iter(self) -> Range<$t> {
                self.range
            }
            fn split_at(self, index: usize) -> (Self, Self) {
                assert!(index <= self.range.len());
                // The index fits the type's unsigned width (it is at most
                // the length), and wrapping arithmetic is exact modulo it.
                let mid = self.range.start.wrapping_add(index as $t);
                (IterProducer { range: self.range.start..mid }, IterProducer { range: mid..self.range.end })
            }
        }
    )*};
}

indexed_range!(u8, u16, u32, usize, i8, i16, i32, isize);

/// A range of a wide type, split in halves.
struct WideProducer<T> {
    range: Range<T>,
}

macro_rules! wide_range {
    ($($t:ty => $u:ty),*) => {$(
        impl Iter<$t> {
            /// The length in the unsigned type of the same width.
            fn wide_len(&self) -> $u {
                let Range { start, end } = self.range;
                if start < end { (end as $u).wrapping_sub(start as $u) } else { 0 }
            }
        }

        impl RangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                match Self::opt_len(&iter) {
                    Some(len) => {
                        let start = iter.range.start;
                        (0..len).into_par_iter().map(move |i| start.wrapping_add(i as $t)).drive(consumer)
                    }
                    None => bridge_unindexed(WideProducer { range: iter.range }, consumer),
                }
            }
            fn opt_len(iter: &Iter<$t>) -> Option<usize> {
                usize::try_from(iter.wide_len()).ok()
            }
        }

        impl UnindexedProducer for WideProducer<$t> {
            type Item = $t;

            fn split(self) -> (Self, Option<Self>) {
                let Range { start, end } = self.range;
                let len = (end as $u).wrapping_sub(start as $u);
                if start >= end || len < 2 {
                    return (self, None);
                }
                let mid = start.wrapping_add((len / 2) as $t);
                (WideProducer { range: start..mid }, Some(WideProducer { range: mid..end }))
            }
            fn fold_with<F: Folder<$t>>(self, folder: F) -> F {
                folder.consume_iter(self.range)
            }
        }
    )*};
}

wide_range!(u64 => u64, i64 => u64, u128 => u128, i128 => u128);

/// The number of chars in `start..end` (the surrogate code points, which
/// are not chars, are skipped).
pub(crate) fn char_count(start: char, end: char) -> usize {
    let (s, e) = (u32::from(start), u32::from(end));
    if s >= e {
        return 0;
    }
    let gap = if s < SURROGATES.start && e >= SURROGATES.end {
        SURROGATES.end - SURROGATES.start
    } else {
        0
    };
    (e - s - gap) as usize
}

/// The code points that are not chars.
const SURROGATES: Range<u32> = 0xD800..0xE000;

/// The `len` chars from `start` on, as an indexed iterator over their
/// positions.
pub(crate) fn chars_from(start: char, len: usize) -> impl IndexedParallelIterator<Item = char> {
    let s = u32::from(start);
    (0..len).into_par_iter().map(move |i| {
        // `i < len` and the count skips the surrogates: the code point
        // fits `u32` and is a char.
        let mut c = s + i as u32;
        if s < SURROGATES.start && c >= SURROGATES.start {
            c += SURROGATES.end - SURROGATES.start;
        }
        char::from_u32(c).expect("a char between two chars")
    })
}

/// The iterator impls of a char range type `$ty`, as the indexed
/// iterator over its chars that `|$s| $chars` builds.
macro_rules! char_range {
    ($(#[$attr:meta])* $ty:ty, |$s:ident| $chars:expr) => {
        $(#[$attr])*
        impl ParallelIterator for $ty {
            type Item = char;

            fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
                let $s = self;
                $chars.drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl IndexedParallelIterator for $ty {
            fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
                let $s = self;
                $chars.drive(consumer)
            }
            fn len(&self) -> usize {
                let $s = self;
                $chars.len()
            }
            fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
                let $s = self;
                $chars.with_producer(callback)
            }
        }
    };
}
pub(crate) use char_range;

char_range!(
    /// `('a'..'e').into_par_iter()`: the chars of the range, indexed (the
    /// surrogate code points are skipped, as `Range<char>` does).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let s: String = ('a'..'f').into_par_iter().collect();
    /// assert_eq!(s, "abcde");
    /// assert_eq!(('\u{D7FF}'..'\u{E001}').into_par_iter().len(), 2);
    /// ```
    Iter<char>,
    |s| chars_from(s.range.start, char_count(s.range.start, s.range.end))
);
