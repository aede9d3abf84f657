//! `par_bridge`: a sequential iterator shared by the pool's workers.
//!
//! The iterator sits behind a mutex. The unindexed producer splits up to
//! `current_num_threads()` times in all (a shared countdown), so about one
//! piece per worker pulls from it. A piece pulls a *batch* of items per
//! lock, releases the lock, and feeds the batch to its folder; the batch
//! size adapts to the cost of the items. It starts at one item, doubles
//! (up to `MAX_BATCH`) after `STREAK` batches in a row that each took
//! less than `TARGET` to pull and consume, and falls back to one item
//! after any batch that took more than four times `TARGET`. Cheap items
//! thus cost one lock per many items (the lock was the whole cost when
//! every item took its own), while expensive, slowly produced or blocking
//! items go one at a time, so no worker sits on pulled items the others
//! could run (items that wait for each other still make progress when
//! there are workers for all of them, as with one item per lock). The time
//! spent waiting for the lock is not counted: contention must not shrink
//! the batches that relieve it.
//!
//! Invariants:
//! - every item the source yields is consumed by exactly one folder, or
//!   dropped unconsumed only when that folder is already full (its result
//!   cannot change: `find_any`, `take_any`, short-circuits);
//! - once the source returned `None` or panicked, `done` is set and no
//!   piece calls it again (the source is fused by this flag; a panic in it
//!   reaches the caller through the piece that called it);
//! - a worker that is already pulling for this bridge (and got here again
//!   by stealing a job of this bridge while a closure of one of its own
//!   items blocked in a `join`) returns at once instead of taking the mutex
//!   a second time: the outer pull loop on that worker goes on with the
//!   remaining items. Pieces are thus never nested on one worker, which is
//!   what makes the mutex safe from self-deadlock.

use std::time::{Duration, Instant};

use super::ParallelIterator;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer, bridge_unindexed};
use crate::sync::{AtomicBool, AtomicUsize, Mutex, Ordering};

/// The largest batch one lock pulls.
const MAX_BATCH: usize = 256;

/// How many fast batches in a row let the batch grow.
const STREAK: u32 = 4;

/// The time a batch should take to pull and consume: long enough that the
/// lock is a small part of it, short enough that the last batches of the
/// workers end close together.
const TARGET: Duration = Duration::from_micros(20);

/// Turns a sequential `Iterator + Send` into a parallel iterator.
///
/// ```
/// use locus::prelude::*;
/// let (tx, rx) = std::sync::mpsc::channel();
/// for i in 0..100 { tx.send(i).unwrap(); }
/// drop(tx);
/// let total: i32 = rx.into_iter().par_bridge().map(|x| x * 2).sum();
/// assert_eq!(total, 9900);
/// ```
pub trait ParallelBridge: Sized {
    /// Makes `self` the shared source of a parallel iterator (items come
    /// in no particular order).
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T: Iterator<Item: Send> + Send> ParallelBridge for T {
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// A sequential iterator driven in parallel. Made by
/// [`ParallelBridge::par_bridge`].
///
/// ```
/// use locus::prelude::*;
/// // An endless source: `find_any` stops the pulling.
/// let hit = (1u64..).par_bridge().find_any(|x| x % 1000 == 999);
/// assert_eq!(hit.map(|x| x % 1000), Some(999));
/// ```
#[derive(Debug, Clone)]
pub struct IterBridge<Iter> {
    iter: Iter,
}

impl<Iter: Iterator<Item: Send> + Send> ParallelIterator for IterBridge<Iter> {
    type Item = Iter::Item;

    fn drive_unindexed<C: UnindexedConsumer<Iter::Item>>(self, consumer: C) -> C::Result {
        let threads = crate::current_num_threads();
        let shared = Shared {
            iter: Mutex::new(self.iter),
            done: AtomicBool::new(false),
            splits: AtomicUsize::new(threads),
            pulling: (0..threads).map(|_| AtomicBool::new(false)).collect(),
        };
        bridge_unindexed(&shared, consumer)
    }
}

struct Shared<Iter> {
    iter: Mutex<Iter>,
    /// The source returned `None` or panicked: pull no more.
    done: AtomicBool,
    /// Splits left to hand out.
    splits: AtomicUsize,
    /// Per worker: already inside a pull loop of this bridge.
    pulling: Box<[AtomicBool]>,
}

impl<Iter: Iterator> Shared<Iter> {
    /// Appends up to `want` items to `batch` under one lock; returns when
    /// the lock was taken (the batch's cost is counted from there).
    fn pull(&self, batch: &mut Vec<Iter::Item>, want: usize) -> Instant {
        /// Marks the source done unless disarmed: a panicking `next` leaves
        /// it marked, so no other piece calls it again.
        struct DoneUnlessDisarmed<'a>(&'a AtomicBool, bool);
        impl Drop for DoneUnlessDisarmed<'_> {
            fn drop(&mut self) {
                if !self.1 {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
        }

        let mut iter = self.iter.lock();
        let locked = Instant::now();
        if self.done.load(Ordering::Relaxed) {
            return locked;
        }
        let mut guard = DoneUnlessDisarmed(&self.done, false);
        batch.extend(iter.by_ref().take(want));
        // A short batch means the source ended.
        guard.1 = batch.len() == want;
        locked
    }
}

impl<Iter: Iterator<Item: Send> + Send> UnindexedProducer for &Shared<Iter> {
    type Item = Iter::Item;

    fn split(self) -> (Self, Option<Self>) {
        let took = self
            .splits
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        (self, took.ok().map(|_| self))
    }

    fn fold_with<F: Folder<Iter::Item>>(self, mut folder: F) -> F {
        let flag = crate::current_thread_index().and_then(|i| self.pulling.get(i));
        if flag.is_some_and(|f| f.swap(true, Ordering::Relaxed)) {
            return folder;
        }
        let mut batch = Vec::new();
        let mut want = 1;
        let mut fast = 0;
        while !folder.full() && !self.done.load(Ordering::Relaxed) {
            let start = self.pull(&mut batch, want);
            if batch.is_empty() {
                break;
            }
            // Items left in the batch when the folder fills up are dropped
            // with the drain: the result no longer depends on them.
            for item in batch.drain(..) {
                folder = folder.consume(item);
                if folder.full() {
                    break;
                }
            }
            let took = start.elapsed();
            if took < TARGET {
                fast += 1;
                if fast >= STREAK {
                    want = (want * 2).min(MAX_BATCH);
                }
            } else {
                fast = 0;
                if took > 4 * TARGET {
                    want = 1;
                }
            }
        }
        if let Some(flag) = flag {
            flag.store(false, Ordering::Relaxed);
        }
        folder
    }
}
