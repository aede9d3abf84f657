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

/// Splits a range at an index.
struct IterProducer<T> {
    range: Range<T>,
}

macro_rules! indexed_range {
    ($($t:ty),*) => {$(
        impl ParallelIterator for Iter<$t> {
            type Item = $t;

            fn drive_unindexed<C: UnindexedConsumer<$t>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.range.len())
            }
        }

        impl IndexedParallelIterator for Iter<$t> {
            fn drive<C: Consumer<$t>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.range.len()
            }
            fn with_producer<CB: ProducerCallback<$t>>(self, callback: CB) -> CB::Output {
                callback.callback(IterProducer { range: self.range })
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

        impl ParallelIterator for Iter<$t> {
            type Item = $t;

            fn drive_unindexed<C: UnindexedConsumer<$t>>(self, consumer: C) -> C::Result {
                match self.opt_len() {
                    Some(len) => {
                        let start = self.range.start;
                        (0..len).into_par_iter().map(move |i| start.wrapping_add(i as $t)).drive(consumer)
                    }
                    None => bridge_unindexed(WideProducer { range: self.range }, consumer),
                }
            }
            fn opt_len(&self) -> Option<usize> {
                usize::try_from(self.wide_len()).ok()
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
