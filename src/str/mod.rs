//! Parallel iterators over strings: [`ParallelString`] (`par_chars`,
//! `par_split`, `par_lines`, ...). (`par_drain` on a `String` is in
//! [`crate::string`], rayon's place for it.)
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

use crate::iter::plumbing::*;
use crate::iter::*;

mod pattern;

use pattern::Pattern;

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
        Chars {
            chars: self.as_parallel_string(),
        }
    }

    /// The characters with their byte offsets.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<(usize, char)> = "aé b".par_char_indices().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'é'), (3, ' '), (4, 'b')]);
    /// ```
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices {
            chars: self.as_parallel_string(),
        }
    }

    /// The bytes.
    ///
    /// ```
    /// use locus::prelude::*;
    /// assert_eq!("abc".par_bytes().map(u32::from).sum::<u32>(), 294);
    /// ```
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes {
            inner: self.as_parallel_string().as_bytes().par_iter().copied(),
        }
    }

    /// The string encoded as UTF-16 code units (as `str::encode_utf16`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<u16> = "a𝄞".par_encode_utf16().collect();
    /// assert_eq!(v, "a𝄞".encode_utf16().collect::<Vec<u16>>());
    /// ```
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16 {
            chars: self.as_parallel_string(),
        }
    }

    /// The pieces between separators (as `str::split`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&str> = "a,b,,c".par_split(',').collect();
    /// assert_eq!(v, ["a", "b", "", "c"]);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split {
            chars: self.as_parallel_string(),
            separator,
            mode: SplitMode::Split,
        }
    }

    /// The pieces between separators, each with the separator that ends it
    /// (as `str::split_inclusive`).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&str> = "a\nb\nc".par_split_inclusive('\n').collect();
    /// assert_eq!(v, ["a\n", "b\n", "c"]);
    /// ```
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> SplitInclusive<'_, P> {
        SplitInclusive {
            split: Split {
                chars: self.as_parallel_string(),
                separator,
                mode: SplitMode::Inclusive,
            },
        }
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
        let split = Split {
            chars: self.as_parallel_string(),
            separator: terminator,
            mode: SplitMode::Terminator,
        };
        SplitTerminator { split }
    }

    /// The lines, without their `\n` or `\r\n`, as rayon's `par_lines`:
    /// a `\r` that ends the text without a `\n` is dropped too, which
    /// `str::lines` keeps (since rust-lang/rust#100311).
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<&str> = "a\r\nb\n".par_lines().collect();
    /// assert_eq!(v, ["a", "b"]);
    /// let v: Vec<&str> = "a\nb\r".par_lines().collect();
    /// assert_eq!(v, ["a", "b"]);
    /// assert_eq!("a\nb\r".lines().collect::<Vec<_>>(), ["a", "b\r"]);
    /// ```
    fn par_lines(&self) -> Lines<'_> {
        Lines {
            inner: self.par_split_terminator('\n').map(strip_cr),
        }
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
        SplitWhitespace {
            inner: self
                .par_split(char::is_whitespace as fn(char) -> bool)
                .filter(not_empty),
        }
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
        SplitAsciiWhitespace {
            inner: self.par_split(ws as fn(char) -> bool).filter(not_empty),
        }
    }

    /// The substrings that match `pattern` (each a single char, as the
    /// patterns are chars or char predicates), as `str::matches`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let digits: String = "a1b22c3".par_matches(char::is_numeric).collect();
    /// assert_eq!(digits, "1223");
    /// ```
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches {
            chars: self.as_parallel_string(),
            pattern,
        }
    }

    /// The substrings that match `pattern` with their byte offsets, as
    /// `str::match_indices`.
    ///
    /// ```
    /// use locus::prelude::*;
    /// let v: Vec<(usize, &str)> = "a,b,c".par_match_indices(',').collect();
    /// assert_eq!(v, [(1, ","), (3, ",")]);
    /// ```
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices {
            chars: self.as_parallel_string(),
            pattern,
        }
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
    let at = (mid..s.len())
        .find(|&i| s.is_char_boundary(i))
        .or_else(|| (1..mid).rev().find(|&i| s.is_char_boundary(i)))?;
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

mod fold_split;
mod split;

use split::SplitMode;
pub use split::{
    Lines, Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator, SplitWhitespace,
};

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

/// The UTF-16 code units of a string. Made by
/// [`ParallelString::par_encode_utf16`].
#[derive(Debug, Clone)]
pub struct EncodeUtf16<'ch> {
    chars: &'ch str,
}

/// The substrings that match a pattern. Made by
/// [`ParallelString::par_matches`].
#[derive(Debug, Clone)]
pub struct Matches<'ch, P: Pattern> {
    chars: &'ch str,
    pattern: P,
}

/// The substrings that match a pattern, with their offsets. Made by
/// [`ParallelString::par_match_indices`].
#[derive(Debug, Clone)]
pub struct MatchIndices<'ch, P: Pattern> {
    chars: &'ch str,
    pattern: P,
}

str_iter!(Chars<'ch>, char, |s| CharsProducer::new(
    s.chars, PlainChars
));
str_iter!(CharIndices<'ch>, (usize, char), |s| CharsProducer::new(
    s.chars, Indices
));
str_iter!(EncodeUtf16<'ch>, u16, |s| CharsProducer::new(
    s.chars, Utf16
));
str_iter!(Matches<'ch, P: Pattern>, &'ch str, |s| CharsProducer::new(
    s.chars,
    Matching(&s.pattern)
));
str_iter!(MatchIndices<'ch, P: Pattern>, (usize, &'ch str), |s| {
    CharsProducer::new(s.chars, MatchingAt(&s.pattern))
});

/// What a piece of a string yields, given the piece and its byte offset in
/// the whole string.
trait CharsKind<'ch>: Copy + Send {
    /// The items.
    type Item;
    /// Feeds the piece's items to `folder`.
    fn fold<F: Folder<Self::Item>>(self, piece: &'ch str, offset: usize, folder: F) -> F;
}

#[derive(Clone, Copy)]
struct PlainChars;
#[derive(Clone, Copy)]
struct Indices;
#[derive(Clone, Copy)]
struct Utf16;
struct Matching<'p, P>(&'p P);
struct MatchingAt<'p, P>(&'p P);

impl<'ch> CharsKind<'ch> for PlainChars {
    type Item = char;
    fn fold<F: Folder<char>>(self, piece: &'ch str, _: usize, folder: F) -> F {
        folder.consume_iter(piece.chars())
    }
}

impl<'ch> CharsKind<'ch> for Indices {
    type Item = (usize, char);
    fn fold<F: Folder<(usize, char)>>(self, piece: &'ch str, offset: usize, folder: F) -> F {
        folder.consume_iter(piece.char_indices().map(|(i, c)| (offset + i, c)))
    }
}

impl<'ch> CharsKind<'ch> for Utf16 {
    type Item = u16;
    fn fold<F: Folder<u16>>(self, piece: &'ch str, _: usize, folder: F) -> F {
        folder.consume_iter(piece.encode_utf16())
    }
}

/// The copies are of a reference (a derive would ask `P: Copy`).
macro_rules! copy_ref {
    ($($name:ident),*) => {$(
        impl<P> Clone for $name<'_, P> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<P> Copy for $name<'_, P> {}
    )*};
}

copy_ref!(Matching, MatchingAt);

impl<'ch, P: Pattern> CharsKind<'ch> for Matching<'_, P> {
    type Item = &'ch str;
    fn fold<F: Folder<&'ch str>>(self, piece: &'ch str, _: usize, folder: F) -> F {
        self.0.fold_matches(piece, folder)
    }
}

impl<'ch, P: Pattern> CharsKind<'ch> for MatchingAt<'_, P> {
    type Item = (usize, &'ch str);
    fn fold<F: Folder<(usize, &'ch str)>>(self, piece: &'ch str, offset: usize, folder: F) -> F {
        self.0.fold_match_indices(piece, folder, offset)
    }
}

/// A piece of a string, at byte `offset` of the whole, cut at char
/// boundaries (a pattern matches single chars, so no match straddles a
/// cut).
struct CharsProducer<'ch, K> {
    chars: &'ch str,
    offset: usize,
    kind: K,
}

impl<'ch, K: CharsKind<'ch>> CharsProducer<'ch, K> {
    fn new(chars: &'ch str, kind: K) -> Self {
        CharsProducer {
            chars,
            offset: 0,
            kind,
        }
    }
}

impl<'ch, K: CharsKind<'ch>> UnindexedProducer for CharsProducer<'ch, K> {
    type Item = K::Item;

    fn split(self) -> (Self, Option<Self>) {
        match char_midpoint(self.chars) {
            Some(at) => {
                let (l, r) = self.chars.split_at(at);
                let (offset, kind) = (self.offset, self.kind);
                (
                    CharsProducer {
                        chars: l,
                        offset,
                        kind,
                    },
                    Some(CharsProducer {
                        chars: r,
                        offset: offset + at,
                        kind,
                    }),
                )
            }
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<K::Item>>(self, folder: F) -> F {
        self.kind.fold(self.chars, self.offset, folder)
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
