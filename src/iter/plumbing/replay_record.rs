//! The record behind affinity replay ([`Replay`](crate::iter::Replay)):
//! where each piece of the last first split ran, the rule that turns it
//! into the next run's aims ([`balance`]), and the thread-local handle
//! through which `WithReplay` hands the record to the split it starts.
//! It lives in `plumbing`, below the adapter, because the first split
//! (`run_split`) reads and writes it; the adapter only sets it.
//!
//! Invariants: a replay never changes results (only where pieces run);
//! the record of a run is kept only if the run finished without a panic.

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;

/// Where the pieces of the last run of a [`Replay`](crate::iter::Replay) ran, compared with
/// the run before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ReplayStats {
    /// Pieces of the last run (one per worker when the iterator is long
    /// enough; 0 when it was not split: too short, a pool of one worker
    /// or of one LLC, or a nested iterator).
    pub pieces: usize,
    /// Pieces started by the same worker as in the previous run (0 when
    /// the previous run had another length: nothing to compare with).
    pub same_worker: usize,
    /// Pieces started in the same LLC as in the previous run (includes
    /// `same_worker`).
    pub same_llc: usize,
}

impl fmt::Display for ReplayStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} pieces, {} on the same worker and {} in the same LLC as in the previous run",
            self.pieces, self.same_worker, self.same_llc
        )
    }
}

/// What a record is valid for: the pool, the length, the number of pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReplayKey {
    pub(crate) pool: usize,
    pub(crate) len: usize,
    pub(crate) pieces: usize,
}

/// The shared state of a [`Replay`](crate::iter::Replay).
#[derive(Default)]
pub(crate) struct ReplayCore {
    state: Mutex<ReplayState>,
}

#[derive(Default)]
struct ReplayState {
    key: Option<ReplayKey>,
    /// The worker that started each piece in the recorded run.
    ran: Vec<usize>,
    stats: ReplayStats,
}

impl ReplayCore {
    /// The state (a `parking_lot` lock: no poisoning; a panic while it is
    /// held cannot leave the record half written in a way that matters,
    /// since it is only a hint).
    fn lock(&self) -> parking_lot::MutexGuard<'_, ReplayState> {
        self.state.lock()
    }

    /// The recorded length and the last stats, read under one lock (for
    /// `Replay`'s `Debug`).
    pub(crate) fn debug_view(&self) -> (Option<usize>, ReplayStats) {
        let st = self.lock();
        (st.key.map(|k| k.len), st.stats)
    }

    /// The workers to aim the pieces at: the record if it is valid for
    /// `key`, else `None`.
    pub(crate) fn targets(&self, key: ReplayKey) -> Option<Vec<usize>> {
        let st = self.lock();
        (st.key == Some(key)).then(|| st.ran.clone())
    }

    /// Records a finished run: who started each piece (`llc_of` maps a
    /// worker to its LLC, for the stats).
    pub(crate) fn record(&self, key: ReplayKey, ran: Vec<usize>, llc_of: impl Fn(usize) -> usize) {
        let mut st = self.lock();
        let mut stats = ReplayStats {
            pieces: ran.len(),
            ..ReplayStats::default()
        };
        if st.key == Some(key) {
            for (&a, &b) in st.ran.iter().zip(&ran) {
                stats.same_worker += usize::from(a == b);
                stats.same_llc += usize::from(llc_of(a) == llc_of(b));
            }
        }
        st.key = Some(key);
        st.ran = ran;
        st.stats = stats;
    }

    /// How the last recorded run compares with the one before it.
    pub(crate) fn stats(&self) -> ReplayStats {
        self.lock().stats
    }

    /// A run that was not split: its stats, the record kept.
    pub(crate) fn unsplit(&self) {
        self.lock().stats = ReplayStats::default();
    }
}

/// Moves a piece aimed at `*t` to worker `f` (`count`: pieces per worker).
fn move_to(count: &mut [usize], t: &mut usize, f: usize) {
    count[*t] -= 1;
    *t = f;
    count[f] += 1;
}

/// Turns the record of a run into the aims of the next: one piece per
/// worker where the record gave a worker several (it ran a slow
/// neighbour's piece, or helped another LLC) and left others with none.
/// Without this a worker that once ran two pieces would get both for
/// good, and its neighbour nothing. Extra pieces move (the last ones
/// first) to a free worker of the same LLC, whose cache they share; what
/// is left moves home, pieces away from their own LLC first: to their
/// `natural` worker if free, else to a free worker of their own LLC,
/// else to the first free worker. Entries that are no worker of `layout`
/// are replaced by `natural` first.
pub(crate) fn balance(targets: &mut [usize], natural: &[usize], layout: &crate::Layout) {
    let workers = layout.workers();
    let llc = |w: usize| workers[w].llc;
    let mut count = vec![0usize; workers.len()];
    for (t, &home) in targets.iter_mut().zip(natural) {
        if *t >= workers.len() {
            *t = home;
        }
        count[*t] += 1;
    }
    // Free workers (count 0) only ever become busy here, so a cursor per
    // LLC, and one over all workers, find the next free one.
    let mut cursor: Vec<usize> = layout.llc_ranges().iter().map(|r| r.start).collect();
    let mut any = 0;
    let mut free_in = |count: &[usize], l: usize| {
        let r = &layout.llc_ranges()[l];
        while cursor[l] < r.end && count[cursor[l]] > 0 {
            cursor[l] += 1;
        }
        (cursor[l] < r.end).then_some(cursor[l])
    };
    for t in targets.iter_mut().rev() {
        if count[*t] > 1 {
            if let Some(f) = free_in(&count, llc(*t)) {
                move_to(&mut count, t, f);
            }
        }
    }
    for foreign in [true, false] {
        for (t, &home) in targets.iter_mut().zip(natural).rev() {
            if count[*t] < 2 || (llc(*t) != llc(home)) != foreign {
                continue;
            }
            let f = if count[home] == 0 {
                Some(home)
            } else {
                free_in(&count, llc(home))
            };
            let f = f.or_else(|| {
                while any < workers.len() && count[any] > 0 {
                    any += 1;
                }
                (any < workers.len()).then_some(any)
            });
            if let Some(f) = f {
                move_to(&mut count, t, f);
            }
        }
    }
}

std::thread_local! {
    /// The replay handle of the indexed run this thread is about to start
    /// (set by [`WithReplay`](crate::iter::WithReplay) around its base's `with_producer`, taken by
    /// the first `bridge_producer_consumer` inside). A raw pointer, not an
    /// `Arc`: no destructor, so every indexed run's look at it is a plain
    /// load and store.
    static PENDING: Cell<*const ReplayCore> = const { Cell::new(std::ptr::null()) };
}

/// Takes the replay handle set for the run starting on this thread.
#[inline]
pub(crate) fn take_pending() -> Option<Arc<ReplayCore>> {
    let p = PENDING.with(|c| c.replace(std::ptr::null()));
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null pointer was stored by `WithReplay::with_producer`,
    // from `Arc::as_ptr` of the `Arc` of a `Replay` it borrows; that call
    // is still running on this thread (it puts the previous value back
    // before it returns, also when unwinding), so the `Arc` is alive and
    // one more strong count for the caller is sound.
    unsafe {
        Arc::increment_strong_count(p);
        Some(Arc::from_raw(p))
    }
}

/// Runs `f` (`WithReplay::with_producer` running its base) with `core` as
/// this thread's pending replay handle, for the first split inside to
/// take; puts the previous handle back afterwards, also when unwinding.
#[inline]
pub(crate) fn with_pending<R>(core: &Arc<ReplayCore>, f: impl FnOnce() -> R) -> R {
    let _restore = RestorePending(PENDING.with(|p| p.replace(Arc::as_ptr(core))));
    f()
}

/// Puts the previous pending handle back (`with_pending`), also when
/// unwinding.
struct RestorePending(*const ReplayCore);

impl Drop for RestorePending {
    fn drop(&mut self) {
        let prev = self.0;
        PENDING.with(|p| p.set(prev));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Layout, LayoutOptions, Topology};

    #[test]
    fn balance_gives_one_piece_per_worker() {
        let l = Layout::new(
            &Topology::synthetic("llc:2 core:3").unwrap(),
            &LayoutOptions::default(),
        )
        .unwrap();
        let natural = [0, 1, 2, 3, 4, 5];
        // Worker 0 ran three pieces, worker 3 two; 1, 2 and 5 none: the
        // extras go to free neighbours in the same LLC.
        let mut t = vec![0, 0, 0, 3, 3, 4];
        balance(&mut t, &natural, &l);
        assert_eq!(t, [0, 2, 1, 3, 5, 4]);
        // A record that already is one piece per worker stays as it is.
        let mut t = vec![1, 0, 2, 5, 4, 3];
        balance(&mut t, &natural, &l);
        assert_eq!(t, [1, 0, 2, 5, 4, 3]);
        // LLC 0 ran four pieces, one of them LLC 1's: that one goes home
        // (its own worker 4 is free); unknown workers become natural.
        let mut t = vec![0, 1, 2, 3, 1, usize::MAX];
        balance(&mut t, &natural, &l);
        assert_eq!(t, [0, 1, 2, 3, 4, 5]);
        // No free worker in the LLC: to the first free one.
        let mut t = vec![0, 0, 1, 2, 4, 5];
        balance(&mut t, &natural, &l);
        assert_eq!(t, [0, 3, 1, 2, 4, 5]);
    }

    #[test]
    fn stats_compare_with_the_previous_record_of_the_same_key() {
        let core = ReplayCore::default();
        let key = ReplayKey {
            pool: 1,
            len: 10,
            pieces: 3,
        };
        let stats = |c: &ReplayCore| {
            let s = c.lock().stats;
            (s.pieces, s.same_worker, s.same_llc)
        };
        assert_eq!(core.targets(key), None);
        core.record(key, vec![0, 1, 2], |w| w / 2);
        assert_eq!(stats(&core), (3, 0, 0));
        core.record(key, vec![0, 0, 3], |w| w / 2);
        assert_eq!(stats(&core), (3, 1, 3));
        assert_eq!(core.targets(key), Some(vec![0, 0, 3]));
        let other = ReplayKey { len: 11, ..key };
        assert_eq!(core.targets(other), None);
        core.record(other, vec![0, 1, 2], |w| w / 2);
        assert_eq!(core.lock().stats.same_llc, 0);
        core.unsplit();
        assert_eq!(core.lock().stats, ReplayStats::default());
        assert_eq!(core.targets(other), Some(vec![0, 1, 2]));
    }
}
