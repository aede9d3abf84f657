//! Affinity replay: [`Replay`] and the [`WithReplay`] adapter.
//!
//! The idea is oneTBB's `affinity_partitioner`: an iterator run over the
//! same data again and again (a stencil sweep, an iterative solver) is
//! fastest when each worker gets the items it had last time, still in its
//! caches (and, on NUMA machines, on the node that first touched them).
//!
//! A run with a [`Replay`] cuts the iterator down to one piece per worker
//! (the first split of [`plumbing`], down to the workers)
//! and records which worker started each piece. The next run of the same
//! length on the same pool sends each piece back to that worker: the
//! worker is preferred (a copy of the job in its own queue, woken if
//! idle), its LLC is the fallback (a copy in the LLC's queue, which the
//! LLC's other workers take when it is busy, and other LLCs only under the
//! overload rule of job groups). A run of another length (or with another
//! number of pieces, or on another pool) records afresh; its first aim is
//! each piece's own worker in the split. On a pool of one LLC a replay
//! does nothing (the adaptive split, as without it, and 0 pieces in its
//! stats): every worker reads the data through the same shared cache, and
//! aiming a piece only makes it wait for its worker.
//!
//! Invariants: a replay never changes results (only where pieces run);
//! the record of a run is kept only if the run finished without a panic;
//! a replayed iterator started inside a piece of another first split (a
//! nested iterator) is split adaptively and leaves the record alone (its
//! stats show 0 pieces).

use std::fmt;
use std::sync::Arc;

use super::plumbing::replay_record::{self, ReplayCore};
use super::plumbing::*;
use super::*;

pub use super::plumbing::replay_record::ReplayStats;

/// A record of where the pieces of an iterator ran, kept across runs to
/// send them back there: see [`IndexedParallelIterator::with_replay`].
///
/// `Send + Sync`: one handle may serve runs from several threads (each
/// run replays the record it finds and leaves its own).
///
/// ```
/// use locus::prelude::*;
/// use locus::iter::Replay;
///
/// let pool = locus::ThreadPoolBuilder::new()
///     .topology(locus::Topology::synthetic("llc:2 core:2").unwrap())
///     .build()
///     .unwrap();
/// let replay = Replay::new();
/// let mut v = vec![0u32; 10_000];
/// for _ in 0..3 {
///     pool.install(|| v.par_iter_mut().with_replay(&replay).for_each(|x| *x += 1));
/// }
/// assert!(v.iter().all(|&x| x == 3));
/// let s = replay.stats();
/// assert_eq!(s.pieces, 4); // one per worker
/// assert!(s.same_llc <= s.pieces && s.same_worker <= s.same_llc);
/// ```
#[derive(Default)]
pub struct Replay {
    core: Arc<ReplayCore>,
}

impl Replay {
    /// A handle with no record: the first run records.
    pub fn new() -> Self {
        Replay::default()
    }

    /// How the last run that used this handle compares with the run
    /// before it.
    pub fn stats(&self) -> ReplayStats {
        self.core.stats()
    }
}

impl fmt::Debug for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (recorded_len, stats) = self.core.debug_view();
        f.debug_struct("Replay")
            .field("recorded_len", &recorded_len)
            .field("stats", &stats)
            .finish()
    }
}

/// Runs its base with affinity replay. Made by
/// [`IndexedParallelIterator::with_replay`].
#[must_use = "iterator adapters are lazy"]
pub struct WithReplay<'r, I> {
    base: I,
    replay: &'r Replay,
}

impl<I: fmt::Debug> fmt::Debug for WithReplay<'_, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WithReplay")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<'r, I> WithReplay<'r, I> {
    pub(super) fn new(base: I, replay: &'r Replay) -> Self {
        WithReplay { base, replay }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for WithReplay<'_, I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for WithReplay<'_, I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        replay_record::with_pending(&self.replay.core, || self.base.with_producer(callback))
    }
}
