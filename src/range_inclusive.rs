//! Parallel iterators over inclusive ranges of integers
//! (`(a..=b).into_par_iter()`).
//!
//! As in rayon: inclusive ranges of `u8`, `u16`, `i8` and `i16` are
//! indexed; the wider types are unindexed (`opt_len` says when the length
//! fits `usize`). An inclusive range runs as the half-open range to
//! `end + 1`, or, when `end` is the type's maximum, as `start..end`
//! chained with `end`.
//!
//! ```
//! use locus::prelude::*;
//! assert_eq!((250..=u8::MAX).into_par_iter().count(), 6);
//! assert_eq!((i128::MAX - 2..=i128::MAX).into_par_iter().min(), Some(i128::MAX - 2));
//! ```

use std::ops::RangeInclusive;

use crate::iter::plumbing::*;
use crate::iter::*;

/// A parallel iterator over an inclusive range. Made by `into_par_iter` on
/// a `RangeInclusive<T>`.
#[derive(Clone, Debug)]
pub struct Iter<T> {
    range: RangeInclusive<T>,
}

impl<T> IntoParallelIterator for RangeInclusive<T>
where
    Iter<T>: ParallelIterator,
{
    type Item = <Iter<T> as ParallelIterator>::Item;
    type Iter = Iter<T>;

    fn into_par_iter(self) -> Iter<T> {
        Iter { range: self }
    }
}

/// Runs `$body` with `$it` bound to the equivalent half-open parallel
/// iterator (either of two types, hence a macro).
macro_rules! with_half_open {
    ($range:expr, $t:ty, |$it:ident| $body:expr) => {{
        let range: RangeInclusive<$t> = $range;
        if range.is_empty() {
            let $it = (0..0 as $t).into_par_iter();
            $body
        } else {
            let (start, end) = range.into_inner();
            match end.checked_add(1) {
                Some(past) => {
                    let $it = (start..past).into_par_iter();
                    $body
                }
                None => {
                    let $it = (start..end).into_par_iter().chain(once(end));
                    $body
                }
            }
        }
    }};
}

// The sealed integer types and the iterator traits of `Iter` through
// them, as in `crate::range` (one generic impl, for type inference).
crate::range::range_integer_traits!();

macro_rules! inclusive_range {
    ($($t:ty),*) => {$(
        impl RangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                with_half_open!(iter.range, $t, |it| it.drive_unindexed(consumer))
            }
            fn opt_len(iter: &Iter<$t>) -> Option<usize> {
                if iter.range.is_empty() {
                    return Some(0);
                }
                let (start, end) = (*iter.range.start(), *iter.range.end());
                let half_open = (start..end).into_par_iter().opt_len()?;
                half_open.checked_add(1)
            }
        }
    )*};
}

inclusive_range!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

macro_rules! indexed_inclusive_range {
    ($($t:ty),*) => {$(
        impl IndexedRangeInteger for $t {
            fn drive<C: Consumer<$t>>(iter: Iter<$t>, consumer: C) -> C::Result {
                with_half_open!(iter.range, $t, |it| it.drive(consumer))
            }
            fn len(iter: &Iter<$t>) -> usize {
                iter.range.len()
            }
            fn with_producer<CB: ProducerCallback<$t>>(iter: Iter<$t>, callback: CB) -> CB::Output {
                with_half_open!(iter.range, $t, |it| it.with_producer(callback))
            }
        }
    )*};
}

indexed_inclusive_range!(u8, u16, i8, i16);

impl Iter<char> {
    /// The chars of the range, as an indexed iterator.
    fn chars(&self) -> impl IndexedParallelIterator<Item = char> + use<> {
        let (start, end) = (*self.range.start(), *self.range.end());
        let len = if self.range.is_empty() {
            0
        } else {
            crate::range::char_count(start, end) + 1
        };
        crate::range::chars_from(start, len)
    }
}

crate::range::char_range!(
    /// `('a'..='e').into_par_iter()`: the chars of the range, indexed (the
    /// surrogate code points are skipped).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let s: String = ('a'..='e').into_par_iter().collect();
    /// assert_eq!(s, "abcde");
    /// assert_eq!(('\0'..=char::MAX).into_par_iter().count(), 0x110000 - 0x800);
    /// ```
    Iter<char>,
    |s| s.chars()
);
