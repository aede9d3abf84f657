//! `par_drain` on a `String` (rayon's `rayon::string`): the drained
//! characters, as a parallel iterator.
//!
//! The range is checked when the iterator is made (in bounds, on char
//! boundaries); the characters are removed from the string when the
//! iterator is dropped, whether or not it ran.
//!
//! ```
//! use locus::prelude::*;
//! let mut s = String::from("hello");
//! let it: locus::string::Drain<'_> = s.par_drain(1..3);
//! assert_eq!(it.collect::<String>(), "el");
//! assert_eq!(s, "hlo");
//! ```

use std::ops::RangeBounds;

use crate::iter::plumbing::*;
use crate::iter::*;
use crate::str::ParallelString;

/// Drains a range of a `String`'s characters. Made by `par_drain` on a
/// `&mut String`.
#[derive(Debug)]
pub struct Drain<'a> {
    string: &'a mut String,
    range: std::ops::Range<usize>,
}

impl<'a> ParallelDrainRange<usize> for &'a mut String {
    type Iter = Drain<'a>;
    type Item = char;

    /// # Panics
    /// If the range is out of bounds or its ends are not char boundaries.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a> {
        let range = crate::vec::checked_range(range, self.len());
        assert!(
            self.is_char_boundary(range.start),
            "par_drain: range start {} is not a char boundary",
            range.start
        );
        assert!(
            self.is_char_boundary(range.end),
            "par_drain: range end {} is not a char boundary",
            range.end
        );
        Drain {
            string: self,
            range,
        }
    }
}

impl ParallelIterator for Drain<'_> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        self.string[self.range.clone()]
            .par_chars()
            .drive_unindexed(consumer)
    }
}

impl Drop for Drain<'_> {
    fn drop(&mut self) {
        self.string.drain(self.range.clone());
    }
}
