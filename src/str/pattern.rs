//! [`Pattern`]: what `par_split`, `par_matches` and their friends accept
//! as a separator (sealed: rayon's set), and how each kind searches.
//!
//! Invariants: every search goes through `str`'s own searches with the
//! pattern as given, except the `par_split` folds of an ASCII `char` and of
//! a predicate; each asks a predicate about a char only once per search
//! (the producers in `split` rely on it, see the trait's docs).

use super::fold_split::{AsciiSplit, fold_pred_splits};
use crate::iter::plumbing::Folder;

mod private {
    use crate::iter::plumbing::Folder;

    /// A separator: `char`, `&[char]`, `[char; N]`, `&[char; N]`, or a
    /// `Fn(char) -> bool` (sealed: the set of rayon's patterns).
    ///
    /// Every search goes through `str`'s own searches with the pattern as
    /// given (so a `char` is found with `str::find`'s byte search, not a
    /// decode of every char), except the folds of `par_split` for an ASCII
    /// `char` and for a predicate (`fold_split`: 64 bytes at a time); each
    /// asks a predicate about a char only once per search: the producers
    /// in `split` rely on that to ask about every char of the string
    /// exactly once, as rayon does.
    pub trait Pattern: Sized + Sync + Send {
        /// The byte offset of the first match in `haystack`.
        fn find_in(&self, haystack: &str) -> Option<usize>;
        /// The byte offset of the last match in `haystack`.
        fn rfind_in(&self, haystack: &str) -> Option<usize>;
        /// Whether `haystack` ends with a match.
        fn is_suffix_of(&self, haystack: &str) -> bool;
        /// Feeds `haystack.split(self)` to `folder`, without its last piece
        /// if `skip_last`.
        fn fold_splits<'ch, F: Folder<&'ch str>>(
            &self,
            haystack: &'ch str,
            folder: F,
            skip_last: bool,
        ) -> F;
        /// Feeds `haystack.split_inclusive(self)` to `folder`.
        fn fold_inclusive_splits<'ch, F: Folder<&'ch str>>(
            &self,
            haystack: &'ch str,
            folder: F,
        ) -> F;
        /// Feeds `haystack.matches(self)` to `folder`.
        fn fold_matches<'ch, F: Folder<&'ch str>>(&self, haystack: &'ch str, folder: F) -> F;
        /// Feeds `haystack.match_indices(self)` to `folder`, each offset
        /// moved by `base`.
        fn fold_match_indices<'ch, F: Folder<(usize, &'ch str)>>(
            &self,
            haystack: &'ch str,
            folder: F,
            base: usize,
        ) -> F;
    }
}
pub(super) use private::Pattern;

/// Implements [`Pattern`] through `str`'s searches with the std pattern
/// `$pattern` (an expression of `$self`).
macro_rules! std_pattern {
    (&$self:ident => $pattern:expr) => {
        std_searches!(&$self => $pattern);
        fn fold_splits<'ch, F: Folder<&'ch str>>(
            &$self,
            haystack: &'ch str,
            folder: F,
            skip_last: bool,
        ) -> F {
            let mut pieces = haystack.split($pattern);
            if skip_last {
                pieces.next_back();
            }
            folder.consume_iter(pieces)
        }
    };
}

/// [`std_pattern`] without `fold_splits`.
macro_rules! std_searches {
    (&$self:ident => $pattern:expr) => {
        fn find_in(&$self, haystack: &str) -> Option<usize> {
            haystack.find($pattern)
        }
        fn rfind_in(&$self, haystack: &str) -> Option<usize> {
            haystack.rfind($pattern)
        }
        fn is_suffix_of(&$self, haystack: &str) -> bool {
            haystack.ends_with($pattern)
        }
        fn fold_inclusive_splits<'ch, F: Folder<&'ch str>>(
            &$self,
            haystack: &'ch str,
            folder: F,
        ) -> F {
            folder.consume_iter(haystack.split_inclusive($pattern))
        }
        fn fold_matches<'ch, F: Folder<&'ch str>>(&$self, haystack: &'ch str, folder: F) -> F {
            folder.consume_iter(haystack.matches($pattern))
        }
        fn fold_match_indices<'ch, F: Folder<(usize, &'ch str)>>(
            &$self,
            haystack: &'ch str,
            folder: F,
            base: usize,
        ) -> F {
            folder.consume_iter(haystack.match_indices($pattern).map(|(i, m)| (base + i, m)))
        }
    };
}

/// An ASCII `char` splits 64 bytes at a time ([`AsciiSplit`]): words a
/// few bytes long cost `str::split` a `memchr` start-up each.
impl Pattern for char {
    std_searches!(&self => *self);
    fn fold_splits<'ch, F: Folder<&'ch str>>(
        &self,
        haystack: &'ch str,
        folder: F,
        skip_last: bool,
    ) -> F {
        if self.is_ascii() {
            folder.consume_iter(AsciiSplit::new(haystack, *self as u8, skip_last))
        } else {
            let mut pieces = haystack.split(*self);
            if skip_last {
                pieces.next_back();
            }
            folder.consume_iter(pieces)
        }
    }
}
impl Pattern for &[char] {
    std_pattern!(&self => *self);
}
impl<const N: usize> Pattern for [char; N] {
    std_pattern!(&self => *self);
}
impl<const N: usize> Pattern for &[char; N] {
    std_pattern!(&self => *self);
}
/// A predicate splits in one pass that decodes only non-ASCII chars
/// ([`fold_pred_splits`]).
impl<Pred: Fn(char) -> bool + Sync + Send> Pattern for Pred {
    std_searches!(&self => self);
    fn fold_splits<'ch, F: Folder<&'ch str>>(
        &self,
        haystack: &'ch str,
        folder: F,
        skip_last: bool,
    ) -> F {
        fold_pred_splits(haystack, self, folder, skip_last)
    }
}
