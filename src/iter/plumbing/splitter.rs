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
//! **A tree started while the pool is busy** (started on one of its
//! workers while none of them searches or is idle, `run_split::budget`;
//! rayon does not do this) gets a budget of one split, not `threads`: no
//! worker could take the other pieces now, and an iterator inside another
//! iterator's items (`nested/1000x1000` of the iterator benches) paid for
//! three `join`s per inner call and, once a worker searched, for stealing
//! and waiting on halves of a few hundred items. Such a budget is *lazy*:
//! when it has run out, a piece splits once more, with a renewed budget of
//! `threads / 2`, if some worker searches or is idle by then (two loads,
//! at each would-be leaf only), so a long inner iterator started busy is
//! still spread when workers free up; and a half that migrates is renewed
//! as any other. Measured (`cargo bench --bench iter_paired -- nested`,
//! 2 threads, 40 pairs, builds without and with the rule run
//! alternately): `nested/1000x1000` 1.21, 1.26, 1.39, 1.23 of rayon's
//! time without, 1.05, 1.04, 0.93, 0.89 with; the other pipelines
//! (top-level iterators, started while the other worker is idle or
//! searching) did not move.
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
    /// Whether the tree started while every worker of the pool was busy
    /// (a budget of 1, see the module docs) and has not met demand since: a
    /// piece whose budget ran out then splits once more, with a renewed
    /// budget, if some worker searches or is idle.
    lazy: bool,
}

impl Splitter {
    /// A budget of `threads` splits (rayon's: the pool's thread count; 1 for a
    /// lazy budget, see `run_split::budget`).
    pub(super) fn new(threads: usize) -> Self {
        Splitter {
            splits: threads,
            nested: false,
            lazy: false,
        }
    }

    /// Makes the budget lazy (see `lazy`): for a tree started while every
    /// worker of the pool was busy, with a budget of 1
    /// (`run_split::budget`).
    pub(super) fn lazy(mut self, lazy: bool) -> Self {
        self.lazy = lazy;
        self
    }

    /// Marks the tree as nested (see `nested`).
    pub(super) fn nested(mut self, nested: bool) -> Self {
        self.nested = nested;
        self
    }

    /// Whether to split now; updates the budget.
    #[inline]
    pub(super) fn try_split(&mut self, migrated: bool) -> bool {
        self.try_split_with(migrated, crate::runtime::demand)
    }

    /// [`Splitter::try_split`] with the demand test given (`demand`: is
    /// some worker of the pool searching or idle?), asked only when a lazy
    /// budget ran out.
    #[inline]
    fn try_split_with(&mut self, migrated: bool, demand: impl FnOnce() -> bool) -> bool {
        self.decide(migrated, crate::current_num_threads, demand)
    }

    /// The budget rule itself, one copy for the pool and the simulator
    /// (whose pieces split by it, `sim::workload`): with the pool's thread
    /// count (`threads`, asked only when a migrated half renews the budget
    /// or a lazy one ran out) and the demand test given.
    #[inline]
    fn decide(
        &mut self,
        migrated: bool,
        threads: impl FnOnce() -> usize,
        demand: impl FnOnce() -> bool,
    ) -> bool {
        if migrated {
            self.splits = (self.splits / 2).max(threads());
            true
        } else if self.splits > 0 {
            self.splits /= 2;
            true
        } else if self.lazy && demand() {
            self.lazy = false;
            self.splits = (threads() / 2).max(1);
            true
        } else {
            false
        }
    }
}

/// The split budget of one piece of an indexed iterator, with its length
/// bounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LengthSplitter {
    inner: Splitter,
    min: usize,
}

impl LengthSplitter {
    /// For `len` items whose producer wants pieces of `min..=max` items,
    /// with a split budget of `budget` (rayon's: the pool's thread count;
    /// a piece of the first split: its domain's workers), raised so that
    /// no leaf is longer than `max`.
    pub(crate) fn new(min: usize, max: usize, len: usize, budget: usize) -> Self {
        // Enough splits that the leaves are at most `max` long (a tree of
        // `len / max` leaves needs about as many splits in its budget).
        let needed = len / max.max(1);
        LengthSplitter {
            inner: Splitter {
                splits: budget.max(needed),
                nested: false,
                lazy: false,
            },
            min: min.max(1),
        }
    }

    /// Marks the tree as nested (see [`Splitter::nested`]).
    pub(super) fn nested(mut self, nested: bool) -> Self {
        self.inner.nested = nested;
        self
    }

    /// Makes the budget lazy (see [`Splitter::lazy`]).
    pub(super) fn lazy(mut self, lazy: bool) -> Self {
        self.inner = self.inner.lazy(lazy);
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

    /// The budget left: what a piece hands to both its halves when it
    /// splits (the simulator keeps it in a task's key between the halves'
    /// starts).
    #[cfg(feature = "sim")]
    pub(crate) fn splits(&self) -> usize {
        self.inner.splits
    }

    /// A half's splitter as its parent left it: `splits` of budget, pieces
    /// of at least `min` items, not nested, not lazy (the simulator's,
    /// with [`LengthSplitter::splits`]).
    #[cfg(feature = "sim")]
    pub(crate) fn resume(min: usize, splits: usize) -> Self {
        LengthSplitter {
            inner: Splitter {
                splits,
                nested: false,
                lazy: false,
            },
            min: min.max(1),
        }
    }

    /// [`LengthSplitter::try_split`] in a pool that is not the current
    /// thread's: `threads` workers, `demand` its demand test (the
    /// simulator's pieces, which split by this rule).
    #[cfg(feature = "sim")]
    pub(crate) fn try_split_in(
        &mut self,
        len: usize,
        migrated: bool,
        threads: usize,
        demand: impl FnOnce() -> bool,
    ) -> bool {
        len / 2 >= self.min && self.inner.decide(migrated, || threads, demand)
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
            lazy: false,
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
            lazy: false,
        };
        assert!(s.try_split(true));
        assert!(s.splits >= 1);
    }

    #[test]
    fn a_busy_start_splits_once_then_only_on_demand() {
        let mut s = Splitter::new(1).lazy(true);
        assert!(s.try_split_with(false, || panic!("demand asked with budget left")));
        // The budget ran out: no demand, no split, and still lazy.
        assert!(!s.try_split_with(false, || false));
        assert!(!s.try_split_with(false, || false));
        // Demand: one split with a renewed budget, then an ordinary
        // budget that no longer asks.
        assert!(s.try_split_with(false, || true));
        assert!(!s.lazy);
        let mut levels = 0;
        while s.try_split_with(false, || panic!("asked again")) {
            levels += 1;
        }
        assert!(levels >= 1, "renewed budget: {levels} more levels");
        // A start with demand is an ordinary budget.
        let mut t = Splitter::new(8).lazy(false);
        assert_eq!((t.splits, t.lazy), (8, false));
        assert!(t.try_split_with(false, || panic!("asked")));
    }

    #[test]
    fn a_busy_start_keeps_the_splits_max_len_needs() {
        let l = LengthSplitter::new(1, 10, 1000, 1).lazy(true);
        assert!(l.inner.splits >= 100);
        let l = LengthSplitter::new(1, usize::MAX, 1000, 1).lazy(true);
        assert_eq!(l.inner.splits, 1);
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
