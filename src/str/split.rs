//! The splitting iterators of [`ParallelString`](super::ParallelString):
//! `par_split` and its variants, `par_lines`, `par_split_whitespace`.
//!
//! A piece of the string is cut at a separator near its middle: cutting
//! `left SEP right` at `SEP` gives exactly the pieces of `left` followed by
//! those of `right` (for `split_inclusive`, `left SEP` and `right`), so
//! pieces never straddle a cut and the order is the sequential one.

use super::pattern::Pattern;
use crate::iter::plumbing::*;
use crate::iter::*;

/// The pieces of a string between separators. Made by
/// [`ParallelString::par_split`](super::ParallelString::par_split).
#[derive(Debug, Clone)]
pub struct Split<'ch, P: Pattern> {
    pub(super) chars: &'ch str,
    pub(super) separator: P,
    pub(super) mode: SplitMode,
}

/// Which `str` splitting a [`Split`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SplitMode {
    /// `str::split`: every piece, a trailing empty one included.
    Split,
    /// `str::split_terminator`: no trailing empty piece.
    Terminator,
    /// `str::split_inclusive`: each piece keeps its separator.
    Inclusive,
}

/// The pieces of a string between terminators. Made by
/// [`ParallelString::par_split_terminator`](super::ParallelString::par_split_terminator).
#[derive(Debug, Clone)]
pub struct SplitTerminator<'ch, P: Pattern> {
    pub(super) split: Split<'ch, P>,
}

/// The pieces of a string, each ending with its separator. Made by
/// [`ParallelString::par_split_inclusive`](super::ParallelString::par_split_inclusive).
#[derive(Debug, Clone)]
pub struct SplitInclusive<'ch, P: Pattern> {
    pub(super) split: Split<'ch, P>,
}

str_iter!(Split<'ch, P: Pattern>, &'ch str, |s| SplitProducer::new(
    s.chars,
    &s.separator,
    s.mode
));

/// Delegates a splitting iterator to its `split` field.
macro_rules! delegate_split {
    ($($name:ident),*) => {$(
        impl<'ch, P: Pattern> ParallelIterator for $name<'ch, P> {
            type Item = &'ch str;

            fn drive_unindexed<C: UnindexedConsumer<&'ch str>>(self, consumer: C) -> C::Result {
                self.split.drive_unindexed(consumer)
            }
        }
    )*};
}

delegate_split!(SplitTerminator, SplitInclusive);

/// A piece of the string; `[tail..]` holds no separator (searched
/// already); `skip_last` says the piece's last item is dropped (the empty
/// piece after a trailing terminator, known from the start).
///
/// Every char is asked about once: a cut searches `[mid..tail]` forward
/// (else `[..mid]` backward), and each side's `tail` excludes what that
/// search saw; the fold searches `[..tail]` backward for its last separator
/// and lets `str`'s split walk only what is before it. That is rayon's
/// count of predicate calls (one per char, one more for the terminator
/// check of `split_terminator`), and the searches are `str::find`/`rfind`
/// (a byte search for a `char`).
struct SplitProducer<'ch, 'p, P> {
    chars: &'ch str,
    sep: &'p P,
    tail: usize,
    skip_last: bool,
    mode: SplitMode,
}

impl<'ch, 'p, P: Pattern> SplitProducer<'ch, 'p, P> {
    fn new(chars: &'ch str, sep: &'p P, mode: SplitMode) -> Self {
        let skip_last =
            mode == SplitMode::Terminator && (chars.is_empty() || sep.is_suffix_of(chars));
        SplitProducer {
            chars,
            sep,
            tail: chars.len(),
            skip_last,
            mode,
        }
    }

    /// The pieces on both sides of the separator at `at`: for
    /// `split_inclusive` the separator ends the left one.
    fn cut(&self, at: usize) -> (&'ch str, &'ch str) {
        let s = self.chars;
        let end = at + s[at..].chars().next().map_or(0, char::len_utf8);
        if self.mode == SplitMode::Inclusive {
            s.split_at(end)
        } else {
            (&s[..at], &s[end..])
        }
    }
}

/// A char boundary near the middle of `s[..end]` (the first one at or after
/// it, else the last one before it; 0 for a single char).
fn midpoint(s: &str, end: usize) -> usize {
    let bytes = &s.as_bytes()[..end];
    let mid = end / 2;
    let starts = |b: &u8| (*b as i8) >= -0x40;
    match bytes[mid..].iter().position(starts) {
        Some(i) => mid + i,
        None => bytes[..mid].iter().rposition(starts).unwrap_or(0),
    }
}

impl<'ch, P: Pattern> UnindexedProducer for SplitProducer<'ch, '_, P> {
    type Item = &'ch str;

    fn split(self) -> (Self, Option<Self>) {
        let s = self.chars;
        let mid = midpoint(s, self.tail);
        // A separator at or after the middle (before the searched tail),
        // else the last one before the middle.
        let (at, backward) = match self.sep.find_in(&s[mid..self.tail]) {
            Some(i) => (mid + i, false),
            None => match self.sep.rfind_in(&s[..mid]) {
                Some(at) => (at, true),
                None => return (SplitProducer { tail: 0, ..self }, None),
            },
        };
        let (left, right) = self.cut(at);
        let right_start = s.len() - right.len();
        // Searched: backward, `[at..]` (the right side whole); forward,
        // `[mid..at]`.
        let (left_tail, right_tail) = if backward {
            (at, 0)
        } else {
            (mid, self.tail - right_start)
        };
        let left = SplitProducer {
            chars: left,
            tail: left_tail,
            skip_last: false,
            ..self
        };
        let right = SplitProducer {
            chars: right,
            tail: right_tail,
            ..self
        };
        (left, Some(right))
    }

    fn fold_with<F: Folder<&'ch str>>(self, folder: F) -> F {
        if self.tail == self.chars.len() {
            return match self.mode {
                SplitMode::Inclusive => self.sep.fold_inclusive_splits(self.chars, folder),
                _ => self.sep.fold_splits(self.chars, folder, self.skip_last),
            };
        }
        match self.sep.rfind_in(&self.chars[..self.tail]) {
            // The piece after `at` is the last: no separator after `at`.
            Some(at) => {
                let folder = if self.mode == SplitMode::Inclusive {
                    fold_inclusive_up_to(self.chars, at, self.sep, folder)
                } else {
                    self.sep.fold_splits(&self.chars[..at], folder, false)
                };
                let rest = self.cut(at).1;
                if self.skip_last || folder.full() {
                    folder
                } else {
                    folder.consume(rest)
                }
            }
            None if self.skip_last => folder,
            None => folder.consume(self.chars),
        }
    }
}

/// Feeds the `split_inclusive` pieces of `s` up to and with the separator at
/// `at` to `folder`, asking `sep` only about the chars before `at` (it was
/// asked about `at` already; rayon's `split_inclusive` asks again): the
/// pieces of `s[..at]` split at `sep`, each extended by the separator that
/// follows it.
fn fold_inclusive_up_to<'ch, P: Pattern, F: Folder<&'ch str>>(
    s: &'ch str,
    at: usize,
    sep: &P,
    folder: F,
) -> F {
    sep.fold_splits(&s[..at], WithSeparator { s, inner: folder }, false)
        .inner
}

/// A folder of the pieces of a prefix of `s` split at a separator, each
/// passed on with the separator char that follows it in `s`.
struct WithSeparator<'ch, F> {
    s: &'ch str,
    inner: F,
}

impl<'ch, F: Folder<&'ch str>> Folder<&'ch str> for WithSeparator<'ch, F> {
    type Result = F::Result;

    fn consume(self, piece: &'ch str) -> Self {
        // `piece` is a sub-slice of `s`: its offset is the address
        // difference.
        let start = piece.as_ptr() as usize - self.s.as_ptr() as usize;
        let end = start + piece.len();
        let sep_len = self.s[end..].chars().next().map_or(0, char::len_utf8);
        WithSeparator {
            s: self.s,
            inner: self.inner.consume(&self.s[start..end + sep_len]),
        }
    }
    fn complete(self) -> F::Result {
        self.inner.complete()
    }
    fn full(&self) -> bool {
        self.inner.full()
    }
}

/// The lines of a string. Made by [`ParallelString::par_lines`](super::ParallelString::par_lines).
#[derive(Debug, Clone)]
pub struct Lines<'ch> {
    pub(super) inner: Map<SplitTerminator<'ch, char>, fn(&str) -> &str>,
}

/// The non-empty pieces between separators given as a function.
pub(super) type NonEmptyPieces<'ch> = Filter<Split<'ch, fn(char) -> bool>, fn(&&'ch str) -> bool>;

/// The pieces between Unicode whitespace. Made by
/// [`ParallelString::par_split_whitespace`](super::ParallelString::par_split_whitespace).
#[derive(Debug, Clone)]
pub struct SplitWhitespace<'ch> {
    pub(super) inner: NonEmptyPieces<'ch>,
}

/// The pieces between ASCII whitespace. Made by
/// [`ParallelString::par_split_ascii_whitespace`](super::ParallelString::par_split_ascii_whitespace).
#[derive(Debug, Clone)]
pub struct SplitAsciiWhitespace<'ch> {
    pub(super) inner: NonEmptyPieces<'ch>,
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
