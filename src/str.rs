//! Parallel iterators over strings: [`ParallelString`] (`par_chars`,
//! `par_split`, `par_lines`, ...) and `par_drain` on a `String`.
//!
//! Strings split at a char boundary near the middle (`par_chars`), or at
//! a separator near the middle (`par_split` and friends): cutting
//! `left SEP right` at `SEP` gives exactly the pieces of `left` followed by
//! those of `right`, so pieces never straddle a split.
//!
//! ```
//! use locus::prelude::*;
//! let words = "a bb  ccc".par_split_whitespace().count();
//! assert_eq!(words, 3);
//! ```

use std::ops::RangeBounds;

use crate::iter::plumbing::*;
use crate::iter::*;

mod private {
    /// A separator: `char`, `&[char]`, `[char; N]`, `&[char; N]`, or a
    /// `Fn(char) -> bool` (sealed: the set of rayon's patterns).
    pub trait Pattern: Sized + Sync + Send {
        /// Whether `c` is a separator.
        fn matches(&self, c: char) -> bool;
    }
}
use private::Pattern;

impl Pattern for char {
    fn matches(&self, c: char) -> bool {
        *self == c
    }
}
impl Pattern for &[char] {
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}
impl<const N: usize> Pattern for [char; N] {
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}
impl<const N: usize> Pattern for &[char; N] {
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}
impl<F: Fn(char) -> bool + Sync + Send> Pattern for F {
    fn matches(&self, c: char) -> bool {
        self(c)
    }
}

/// Parallel iterators over the characters and pieces of a string.
///
/// ```
/// use locus::prelude::*;
/// let n = "hello\nworld\n".par_lines().map(str::len).sum::<usize>();
/// assert_eq!(n, 10);
/// ```
pub trait ParallelString {
    /// The string itself (what the methods below work on).
    fn as_parallel_string(&self) -> &str;

    /// The characters.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!("héllo".par_chars().filter(|c| c.is_ascii()).count(), 4);
    /// ```
    fn par_chars(&self) -> Chars<'_> {
        Chars { chars: self.as_parallel_string() }
    }

    /// The characters with their byte offsets.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<(usize, char)> = "aé b".par_char_indices().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'é'), (3, ' '), (4, 'b')]);
    /// ```
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices { chars: self.as_parallel_string() }
    }

    /// The bytes.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!("abc".par_bytes().map(u32::from).sum::<u32>(), 294);
    /// ```
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes { inner: self.as_parallel_string().as_bytes().par_iter().copied() }
    }

    /// The pieces between separators (as `str::split`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&str> = "a,b,,c".par_split(',').collect();
    /// assert_eq!(v, ["a", "b", "", "c"]);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split { chars: self.as_parallel_string(), separator, terminator: false }
    }

    /// The pieces between separators, without a last empty piece after a
    /// trailing separator (as `str::split_terminator`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&str> = "a;b;".par_split_terminator(';').collect();
    /// assert_eq!(v, ["a", "b"]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> SplitTerminator<'_, P> {
        SplitTerminator { split: Split { chars: self.as_parallel_string(), separator: terminator, terminator: true } }
    }

    /// The lines, without their `\n` or `\r\n` (as `str::lines`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&str> = "a\r\nb\n".par_lines().collect();
    /// assert_eq!(v, ["a", "b"]);
    /// ```
    fn par_lines(&self) -> Lines<'_> {
        Lines { inner: self.par_split_terminator('\n').map(strip_cr) }
    }

    /// The pieces between runs of Unicode whitespace (as
    /// `str::split_whitespace`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&str> = " a \t b\n".par_split_whitespace().collect();
    /// assert_eq!(v, ["a", "b"]);
    /// ```
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        SplitWhitespace { inner: self.par_split(char::is_whitespace as fn(char) -> bool).filter(not_empty) }
    }

    /// The pieces between runs of ASCII whitespace (as
    /// `str::split_ascii_whitespace`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!(" a  b ".par_split_ascii_whitespace().count(), 2);
    /// ```
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        let ws = |c: char| c.is_ascii_whitespace();
        SplitAsciiWhitespace { inner: self.par_split(ws as fn(char) -> bool).filter(not_empty) }
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

fn not_empty(s: &&str) -> bool {
    !s.is_empty()
}

/// A char boundary near the middle of `s`, if one splits it in two
/// non-empty parts.
fn char_midpoint(s: &str) -> Option<usize> {
    let mid = s.len() / 2;
    let at = (mid..s.len()).find(|&i| s.is_char_boundary(i)).or_else(|| (1..mid).rev().find(|&i| s.is_char_boundary(i)))?;
    (at > 0 && at < s.len()).then_some(at)
}

/// Defines an unindexed string iterator driven by a producer `$producer`
/// built from the struct by `|$s| $make`.
macro_rules! str_iter {
    ($name:ident<$lt:lifetime $(, $P:ident: $bound:path)?>, $item:ty, |$s:ident| $make:expr) => {
        impl<$lt $(, $P: $bound)?> ParallelIterator for $name<$lt $(, $P)?> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                let $s = &self;
                bridge_unindexed($make, consumer)
            }
        }
    };
}

/// The characters of a string. Made by [`ParallelString::par_chars`].
#[derive(Debug, Clone)]
pub struct Chars<'ch> {
    chars: &'ch str,
}

/// The characters of a string and their offsets. Made by
/// [`ParallelString::par_char_indices`].
#[derive(Debug, Clone)]
pub struct CharIndices<'ch> {
    chars: &'ch str,
}

str_iter!(Chars<'ch>, char, |s| CharsProducer { chars: s.chars, offset: 0 });
str_iter!(CharIndices<'ch>, (usize, char), |s| CharIndicesProducer(CharsProducer { chars: s.chars, offset: 0 }));

/// A piece of a string, at byte `offset` of the whole.
struct CharsProducer<'ch> {
    chars: &'ch str,
    offset: usize,
}

impl CharsProducer<'_> {
    fn halves(self) -> (Self, Option<Self>) {
        match char_midpoint(self.chars) {
            Some(at) => {
                let (l, r) = self.chars.split_at(at);
                (CharsProducer { chars: l, offset: self.offset }, Some(CharsProducer { chars: r, offset: self.offset + at }))
            }
            None => (self, None),
        }
    }
}

impl UnindexedProducer for CharsProducer<'_> {
    type Item = char;

    fn split(self) -> (Self, Option<Self>) {
        self.halves()
    }
    fn fold_with<F: Folder<char>>(self, folder: F) -> F {
        folder.consume_iter(self.chars.chars())
    }
}

struct CharIndicesProducer<'ch>(CharsProducer<'ch>);

impl UnindexedProducer for CharIndicesProducer<'_> {
    type Item = (usize, char);

    fn split(self) -> (Self, Option<Self>) {
        let (l, r) = self.0.halves();
        (CharIndicesProducer(l), r.map(CharIndicesProducer))
    }
    fn fold_with<F: Folder<(usize, char)>>(self, folder: F) -> F {
        let offset = self.0.offset;
        folder.consume_iter(self.0.chars.char_indices().map(|(i, c)| (offset + i, c)))
    }
}

/// The bytes of a string. Made by [`ParallelString::par_bytes`].
#[derive(Debug, Clone)]
pub struct Bytes<'ch> {
    inner: Copied<crate::slice::Iter<'ch, u8>>,
}

impl ParallelIterator for Bytes<'_> {
    type Item = u8;

    fn drive_unindexed<C: UnindexedConsumer<u8>>(self, consumer: C) -> C::Result {
        self.inner.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        self.inner.opt_len()
    }
}

impl IndexedParallelIterator for Bytes<'_> {
    fn drive<C: Consumer<u8>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn with_producer<CB: ProducerCallback<u8>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }
}

/// The pieces of a string between separators. Made by
/// [`ParallelString::par_split`].
#[derive(Debug, Clone)]
pub struct Split<'ch, P: Pattern> {
    chars: &'ch str,
    separator: P,
    terminator: bool,
}

/// The pieces of a string between terminators. Made by
/// [`ParallelString::par_split_terminator`].
#[derive(Debug, Clone)]
pub struct SplitTerminator<'ch, P: Pattern> {
    split: Split<'ch, P>,
}

str_iter!(Split<'ch, P: Pattern>, &'ch str, |s| SplitProducer::new(s.chars, &s.separator, s.terminator));

impl<'ch, P: Pattern> ParallelIterator for SplitTerminator<'ch, P> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<&'ch str>>(self, consumer: C) -> C::Result {
        self.split.drive_unindexed(consumer)
    }
}

/// A piece of the string; `[tail..]` is known to hold no separator; `last`
/// says it is the rightmost piece (where a terminator drops the final
/// empty piece).
struct SplitProducer<'ch, 'p, P> {
    chars: &'ch str,
    sep: &'p P,
    tail: usize,
    last: bool,
    terminator: bool,
}

impl<'ch, 'p, P: Pattern> SplitProducer<'ch, 'p, P> {
    fn new(chars: &'ch str, sep: &'p P, terminator: bool) -> Self {
        SplitProducer { chars, sep, tail: chars.len(), last: true, terminator }
    }

    fn piece(&self, chars: &'ch str, tail: usize, last: bool) -> Self {
        SplitProducer { chars, sep: self.sep, tail, last, terminator: self.terminator }
    }
}

impl<'ch, P: Pattern> UnindexedProducer for SplitProducer<'ch, '_, P> {
    type Item = &'ch str;

    fn split(self) -> (Self, Option<Self>) {
        let s = self.chars;
        let Some(mid) = char_midpoint(&s[..self.tail]).or_else(|| (self.tail > 0).then_some(self.tail / 2)) else {
            return (self, None);
        };
        let mid = (mid..=self.tail).find(|&i| s.is_char_boundary(i)).unwrap_or(self.tail);
        // A separator at or after the middle (before the known-clean tail),
        // else the last one before the middle.
        let forward = s[mid..self.tail].char_indices().find(|&(_, c)| self.sep.matches(c)).map(|(i, c)| (mid + i, c));
        let (at, c, left_tail, right_clean) = match forward {
            Some((at, c)) => (at, c, mid.min(at), false),
            None => match s[..mid].char_indices().rev().find(|&(_, c)| self.sep.matches(c)) {
                Some((at, c)) => (at, c, at, true),
                None => return (self.piece(s, 0, self.last), None),
            },
        };
        let right_start = at + c.len_utf8();
        let right_tail = if right_clean { 0 } else { self.tail - right_start };
        let left = self.piece(&s[..at], left_tail, false);
        let right = self.piece(&s[right_start..], right_tail, self.last);
        (left, Some(right))
    }

    fn fold_with<F: Folder<&'ch str>>(self, folder: F) -> F {
        let sep = self.sep;
        let pieces = self.chars.split(|c| sep.matches(c));
        if self.terminator && self.last {
            folder.consume_iter(self.chars.split_terminator(|c| sep.matches(c)))
        } else {
            folder.consume_iter(pieces)
        }
    }
}

/// The lines of a string. Made by [`ParallelString::par_lines`].
#[derive(Debug, Clone)]
pub struct Lines<'ch> {
    inner: Map<SplitTerminator<'ch, char>, fn(&str) -> &str>,
}

/// The non-empty pieces between separators given as a function.
type NonEmptyPieces<'ch> = Filter<Split<'ch, fn(char) -> bool>, fn(&&'ch str) -> bool>;

/// The pieces between Unicode whitespace. Made by
/// [`ParallelString::par_split_whitespace`].
#[derive(Debug, Clone)]
pub struct SplitWhitespace<'ch> {
    inner: NonEmptyPieces<'ch>,
}

/// The pieces between ASCII whitespace. Made by
/// [`ParallelString::par_split_ascii_whitespace`].
#[derive(Debug, Clone)]
pub struct SplitAsciiWhitespace<'ch> {
    inner: NonEmptyPieces<'ch>,
}

/// Delegates an unindexed iterator of `&str` to its `inner` field.
macro_rules! delegate_str {
    ($($name:ident),*) => {$(
        impl<'ch> ParallelIterator for $name<'ch> {
            type Item = &'ch str;

            fn drive_unindexed<C: UnindexedConsumer<&'ch str>>(self, consumer: C) -> C::Result {
                self.inner.drive_unindexed(consumer)
            }
        }
    )*};
}

delegate_str!(Lines, SplitWhitespace, SplitAsciiWhitespace);

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
        assert!(self.is_char_boundary(range.start), "par_drain: range start {} is not a char boundary", range.start);
        assert!(self.is_char_boundary(range.end), "par_drain: range end {} is not a char boundary", range.end);
        Drain { string: self, range }
    }
}

impl ParallelIterator for Drain<'_> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        self.string[self.range.clone()].par_chars().drive_unindexed(consumer)
    }
}

impl Drop for Drain<'_> {
    fn drop(&mut self) {
        self.string.drain(self.range.clone());
    }
}
