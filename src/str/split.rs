//! The splitting iterators of [`ParallelString`](super::ParallelString):
//! `par_split` and its variants, `par_lines`, `par_split_whitespace`.
//!
//! A piece of the string is cut at a separator near its middle: cutting
//! `left SEP right` at `SEP` gives exactly the pieces of `left` followed by
//! those of `right` (for `split_inclusive`, `left SEP` and `right`), so
//! pieces never straddle a cut and the order is the sequential one.

use super::{Pattern, char_midpoint};
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

/// A piece of the string; `[tail..]` holds no separator to cut at; `last`
/// says it is the rightmost piece (where a terminator drops the final
/// empty piece).
///
/// A cut at a separator gives the piece before it (with the separator at
/// its end for `split_inclusive`, whose `tail` then stops before it) and
/// the piece after it.
struct SplitProducer<'ch, 'p, P> {
    chars: &'ch str,
    sep: &'p P,
    tail: usize,
    last: bool,
    mode: SplitMode,
}

impl<'ch, 'p, P: Pattern> SplitProducer<'ch, 'p, P> {
    fn new(chars: &'ch str, sep: &'p P, mode: SplitMode) -> Self {
        SplitProducer {
            chars,
            sep,
            tail: chars.len(),
            last: true,
            mode,
        }
    }

    fn piece(&self, chars: &'ch str, tail: usize, last: bool) -> Self {
        SplitProducer {
            chars,
            sep: self.sep,
            tail,
            last,
            mode: self.mode,
        }
    }
}

impl<'ch, P: Pattern> UnindexedProducer for SplitProducer<'ch, '_, P> {
    type Item = &'ch str;

    fn split(self) -> (Self, Option<Self>) {
        let s = self.chars;
        let Some(mid) =
            char_midpoint(&s[..self.tail]).or_else(|| (self.tail > 0).then_some(self.tail / 2))
        else {
            return (self, None);
        };
        let mid = (mid..=self.tail)
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(self.tail);
        // A separator at or after the middle (before the known-clean tail),
        // else the last one before the middle.
        let forward = s[mid..self.tail]
            .char_indices()
            .find(|&(_, c)| self.sep.matches(c))
            .map(|(i, c)| (mid + i, c));
        let (at, c, left_tail, right_clean) = match forward {
            Some((at, c)) => (at, c, mid.min(at), false),
            None => match s[..mid]
                .char_indices()
                .rev()
                .find(|&(_, c)| self.sep.matches(c))
            {
                Some((at, c)) => (at, c, at, true),
                None => return (self.piece(s, 0, self.last), None),
            },
        };
        let right_start = at + c.len_utf8();
        let right_tail = if right_clean {
            0
        } else {
            self.tail - right_start
        };
        let left_end = if self.mode == SplitMode::Inclusive {
            right_start
        } else {
            at
        };
        let left = self.piece(&s[..left_end], left_tail, false);
        let right = self.piece(&s[right_start..], right_tail, self.last);
        (left, Some(right))
    }

    fn fold_with<F: Folder<&'ch str>>(self, folder: F) -> F {
        let sep = |c| self.sep.matches(c);
        match self.mode {
            SplitMode::Terminator if self.last => {
                folder.consume_iter(self.chars.split_terminator(sep))
            }
            SplitMode::Split | SplitMode::Terminator => folder.consume_iter(self.chars.split(sep)),
            SplitMode::Inclusive => folder.consume_iter(self.chars.split_inclusive(sep)),
        }
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
