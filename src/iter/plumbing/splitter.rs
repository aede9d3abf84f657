//! The adaptive split budget.
//!
//! A piece of work may split while its budget `splits` is positive; each
//! split halves it, so a piece that is never stolen ends after about
//! log2(threads) levels, with about `threads` leaves. When a piece runs on
//! another worker than the one that split it (`migrated`), some worker was
//! idle enough to steal: the budget is renewed to at least the thread
//! count, so the thief can in turn feed others. The budget therefore
//! follows demand instead of a fixed grain.
//!
//! [`LengthSplitter`] adds the producer's length bounds: no piece shorter
//! than `min` is split, and a long iterator gets enough splits that no leaf
//! is longer than `max_len`.

/// The split budget of one piece.
#[derive(Clone, Copy, Debug)]
pub(super) struct Splitter {
    splits: usize,
    /// Whether the tree runs on a pool with several LLCs, inside an
    /// iterator: its migrated halves mark their thread as nested (see
    /// `run_split`).
    pub(super) nested: bool,
}

impl Splitter {
    /// A budget of `threads` splits (the pool's thread count).
    pub(super) fn new(threads: usize) -> Self {
        Splitter {
            splits: threads,
            nested: false,
        }
    }

    /// Marks the tree as nested (see `nested`).
    pub(super) fn nested(mut self, nested: bool) -> Self {
        self.nested = nested;
        self
    }

    /// Whether to split now; updates the budget.
    #[inline]
    pub(super) fn try_split(&mut self, migrated: bool) -> bool {
        if migrated {
            self.splits = (self.splits / 2).max(crate::current_num_threads());
            true
        } else if self.splits > 0 {
            self.splits /= 2;
            true
        } else {
            false
        }
    }
}

/// The split budget of one piece of an indexed iterator, with its length
/// bounds.
#[derive(Clone, Copy, Debug)]
pub(super) struct LengthSplitter {
    inner: Splitter,
    min: usize,
}

impl LengthSplitter {
    /// For `len` items whose producer wants pieces of `min..=max` items,
    /// with a split budget of `budget` (rayon's: the pool's thread count;
    /// a piece of the first split: its domain's workers), raised so that
    /// no leaf is longer than `max`.
    pub(super) fn new(min: usize, max: usize, len: usize, budget: usize) -> Self {
        // Enough splits that the leaves are at most `max` long (a tree of
        // `len / max` leaves needs about as many splits in its budget).
        let needed = len / max.max(1);
        LengthSplitter {
            inner: Splitter {
                splits: budget.max(needed),
                nested: false,
            },
            min: min.max(1),
        }
    }

    /// Marks the tree as nested (see [`Splitter::nested`]).
    pub(super) fn nested(mut self, nested: bool) -> Self {
        self.inner.nested = nested;
        self
    }

    /// Whether the tree is nested.
    #[inline]
    pub(super) fn is_nested(&self) -> bool {
        self.inner.nested
    }

    /// Whether to split a piece of `len` items now.
    #[inline]
    pub(super) fn try_split(&mut self, len: usize, migrated: bool) -> bool {
        len / 2 >= self.min && self.inner.try_split(migrated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unstolen_budget_runs_out_after_log_levels() {
        let mut s = Splitter {
            splits: 8,
            nested: false,
        };
        let mut levels = 0;
        while s.try_split(false) {
            levels += 1;
        }
        assert_eq!(levels, 4); // 8 -> 4 -> 2 -> 1 -> 0
    }

    #[test]
    fn migration_renews_the_budget() {
        let mut s = Splitter {
            splits: 0,
            nested: false,
        };
        assert!(s.try_split(true));
        assert!(s.splits >= 1);
    }

    #[test]
    fn length_bounds() {
        let mut l = LengthSplitter::new(10, usize::MAX, 100, 4);
        assert!(l.try_split(20, false));
        assert!(!l.try_split(19, false));
        // max_len 1 over 1000 items: a budget of at least 1000.
        let l = LengthSplitter::new(1, 1, 1000, 4);
        assert!(l.inner.splits >= 1000);
    }
}
