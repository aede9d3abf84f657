//! [`IdleSearch`]: a pool's idle-worker masks alone, for measuring the
//! search for a worker to wake without threads around it.

use std::cell::Cell;
use std::marker::PhantomData;

use super::{Distance, IdleMasks, IdleShape};

/// The idle-worker masks of a pool, alone: no threads, no pool.
///
/// When a push needs a helper, locus claims the nearest idle worker (its
/// own cluster, its LLC, then the nearest LLC with idle workers) through
/// per-LLC bitmasks and a small summary tree, instead of scanning one flag
/// per worker. No call of a running pool times that search alone; this
/// type does, on a virtual pool of any size. `benches/idle_search.rs` and
/// the benchmark suite's `wake` scenario time it against such a scan.
///
/// The shape is uniform: `workers` workers in LLCs of `per_llc` (the last
/// one may be smaller), clusters of `per_cluster` inside each LLC, equal
/// capacities; from an LLC, the search visits the LLCs after it in index
/// order, then those before it. One thread uses it (it is not `Sync`), as
/// in a pool each worker alone marks itself idle.
///
/// ```
/// use locus::{Distance, IdleSearch};
///
/// // 1024 workers, 16 per LLC, clusters of 4: only worker 1020 is idle.
/// let s = IdleSearch::uniform(1024, 16, 4);
/// s.set_idle(1020);
/// assert_eq!(s.claim_nearest(0), Some((1020, Distance::Remote)));
/// // Claimed: nobody else can wake it.
/// assert_eq!(s.claim_nearest(0), None);
/// s.set_idle(2);
/// assert_eq!(s.claim_nearest(0), Some((2, Distance::Cluster)));
/// ```
#[derive(Debug)]
pub struct IdleSearch {
    masks: IdleMasks,
    /// Not `Sync`: `set_idle` is its worker's own operation in a pool.
    _one_thread: PhantomData<Cell<()>>,
}

impl IdleSearch {
    /// The masks of `workers` workers (taken as at least 1 and at most
    /// [`max_num_threads`](crate::max_num_threads)) in LLCs of `per_llc`
    /// (at least 1) with clusters of `per_cluster` (`0`: no clusters),
    /// every worker busy.
    pub fn uniform(workers: usize, per_llc: usize, per_cluster: usize) -> IdleSearch {
        let workers = workers.clamp(1, crate::layout::MAX_WORKERS);
        IdleSearch {
            masks: IdleMasks::new(IdleShape::uniform_ring(
                workers,
                per_llc.max(1),
                per_cluster,
            )),
            _one_thread: PhantomData,
        }
    }

    /// The number of workers.
    pub fn num_workers(&self) -> usize {
        self.masks.num_workers()
    }

    /// Marks `worker` idle, as a worker does before it parks. A worker out
    /// of range is ignored.
    pub fn set_idle(&self, worker: usize) {
        if worker < self.num_workers() {
            self.masks.set_idle(worker);
        }
    }

    /// Claims the idle worker nearest to worker `from`, as a push made on
    /// `from` does, and returns it with its distance; it is no longer idle
    /// until [`set_idle`](Self::set_idle) marks it again. `None` when no
    /// worker is idle or `from` is out of range.
    pub fn claim_nearest(&self, from: usize) -> Option<(usize, Distance)> {
        if from >= self.num_workers() {
            return None;
        }
        self.masks
            .claim_nearest(Some(from), self.masks.llc_of(from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bad sizes and indices get the documented fallbacks, not a panic.
    #[test]
    fn fallbacks() {
        let s = IdleSearch::uniform(0, 0, 0);
        assert_eq!(s.num_workers(), 1);
        s.set_idle(5);
        assert_eq!(s.claim_nearest(0), None);
        assert_eq!(s.claim_nearest(5), None);
        let s = IdleSearch::uniform(usize::MAX, 1, 0);
        assert_eq!(s.num_workers(), crate::max_num_threads());
    }

    /// From any LLC, the search reaches every other one (the ring order).
    #[test]
    fn every_llc_reaches_every_other() {
        let s = IdleSearch::uniform(64, 8, 4);
        for from in (0..64).step_by(8) {
            // Worker 5 of each LLC: in its second cluster of 4.
            for idle in (5..64).step_by(8) {
                s.set_idle(idle);
                let want = if idle / 8 == from / 8 {
                    Distance::Llc
                } else {
                    Distance::Remote
                };
                assert_eq!(s.claim_nearest(from), Some((idle, want)));
            }
        }
    }
}
