//! `par_bridge`: a sequential iterator shared by the pool's workers.
//!
//! The iterator sits behind a mutex. The unindexed producer splits up to
//! `current_num_threads()` times in all (a shared countdown), so about one
//! piece per worker pulls from it. A piece takes the lock, calls `next`
//! once, releases the lock and consumes that item before it pulls again:
//! one item per lock, pulled by a worker that is ready to run it.
//!
//! A piece that finds the lock held spins a few times, then naps (10 us,
//! doubling up to 1 ms) between tries as long as the holders keep pulling
//! items; once a nap passes with no item pulled, the holder waits in the
//! source's `next` and the piece sleeps in the mutex, to take the lock the
//! moment it is released (a stream whose items come slowly is served as
//! soon as each comes). The waiting piece holds no item, so its waiting
//! delays nobody; while items are cheap the lock then stays with one
//! worker, which serves them about three times faster than two workers
//! passing it between cores at every item (or a waiter parked in the
//! mutex, which every unlock would have to wake); while items are costly
//! the lock is mostly free and every piece gets it at its first try.
//! A piece that stops pulling (the source is done, or its folder is full)
//! wakes the napping pieces: the last piece to finish is often one that
//! napped, and the call waits for it, so without the wake-up a call could
//! end as much as a whole nap after its source ran dry.
//!
//! The pull loop is the whole cost of a cheap item: two atomic operations
//! (lock and unlock) and what is inlined around them. Anything more there
//! (a call that is not inlined, a thread-local read) shows in the time of
//! every item.
//!
//! Why not batches: a worker that holds a pulled item while it calls `next`
//! again can hang the bridge. Sources whose `next` waits until earlier
//! items are consumed (work lists whose items push more items, such as
//! jwalk's directory queue, or a channel fed by the consumers) would wait
//! for an item that only the waiting worker holds; items that wait for each
//! other would wait for an item queued behind them on the same worker.
//! rayon pulls one item at a time and both patterns work there, so they
//! must work here (`docs/par-bridge.md` has the
//! batches locus had, what they gained on cheap items and the hang).
//!
//! Invariants:
//! - no worker holds a pulled, unconsumed item while it waits for the lock
//!   or runs the source's `next`: an item is consumed before its worker
//!   pulls again;
//! - every item the source yields is consumed by exactly one folder: a
//!   piece checks that its folder is not full before it pulls, so no item
//!   is pulled for a folder that would drop it (`find_any`, `take_any` and
//!   the other short-circuits stop the pulling instead);
//! - once the source returned `None` or panicked, `done` is set and no
//!   piece calls it again (the source is fused by this flag; a panic in it
//!   reaches the caller through the piece that called it);
//! - a worker that is already pulling for this bridge (and got here again
//!   by stealing a job of this bridge while a closure of one of its own
//!   items, or the source's `next`, blocked in a `join`) returns at once
//!   instead of taking the mutex a second time: the outer pull loop on that
//!   worker goes on with the remaining items. Pieces are thus never nested
//!   on one worker, which is what makes the mutex safe from self-deadlock.

use std::time::Duration;

use super::ParallelIterator;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer, bridge_unindexed};
use crate::sync::{
    AtomicBool, AtomicUsize, Backoff, Condvar, Mutex, Ordering, PoisonError, StdMutex,
    StdMutexGuard, TryLockError, pause,
};

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
            iter: StdMutex::new(self.iter),
            done: AtomicBool::new(false),
            pulls: AtomicUsize::new(0),
            splits: AtomicUsize::new(threads),
            nap: Mutex::new(()),
            woken: Condvar::new(),
            pulling: (0..threads).map(|_| AtomicBool::new(false)).collect(),
        };
        bridge_unindexed(&shared, consumer)
    }
}

/// Tries, spinning 1, 2, 4 and 8 pauses between them, before a piece that
/// found the lock held naps.
const LOCK_BACKOFF: u32 = 4;

/// The first nap of a piece waiting for the lock.
const FIRST_NAP: Duration = Duration::from_micros(10);

/// The longest nap: how late, at most, a waiting piece sees that the lock
/// is free while other pieces pull cheap items.
const LONGEST_NAP: Duration = Duration::from_millis(1);

struct Shared<Iter> {
    iter: StdMutex<Iter>,
    /// The source returned `None` or panicked: pull no more.
    done: AtomicBool,
    /// Items pulled so far (wrapping; written under the lock): a waiter
    /// that sees it unchanged over a nap knows the holder waits in `next`.
    pulls: AtomicUsize,
    /// Splits left to hand out.
    splits: AtomicUsize,
    /// Held by a napping piece from its last try of the lock until its nap
    /// begins, and taken by a piece that stops pulling before it notifies
    /// `woken`: a piece that stops after that try finds the napper waiting,
    /// so the wake-up is never lost.
    nap: Mutex<()>,
    /// Napping pieces wait here (at most their nap).
    woken: Condvar,
    /// Per worker: already inside a pull loop of this bridge.
    pulling: Box<[AtomicBool]>,
}

impl<Iter: Iterator> Shared<Iter> {
    /// Takes the lock. While another piece holds it, this one spins a
    /// little, then naps (doubling up to `LONGEST_NAP`) between tries while
    /// items are being pulled, and sleeps in the mutex once a nap saw none
    /// (module docs: why). A nap ends early when a piece stops pulling.
    fn lock(&self) -> StdMutexGuard<'_, Iter> {
        let mut backoff = Backoff::new(LOCK_BACKOFF);
        let mut nap = FIRST_NAP;
        let mut pulls_seen = None;
        loop {
            // The try before a nap is made under `nap` (its field docs).
            let napping = backoff.is_completed().then(|| self.nap.lock());
            match self.iter.try_lock() {
                Ok(guard) => return guard,
                // A source that panicked poisoned the lock; `done` is set
                // and the caller sees it.
                Err(TryLockError::Poisoned(e)) => return e.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
            let Some(mut napping) = napping else {
                pause(backoff.snooze());
                continue;
            };
            let pulls = self.pulls.load(Ordering::Relaxed);
            if pulls_seen == Some(pulls) {
                drop(napping);
                return self.iter.lock().unwrap_or_else(PoisonError::into_inner);
            }
            pulls_seen = Some(pulls);
            self.woken.wait_for(&mut napping, nap);
            nap = (nap * 2).min(LONGEST_NAP);
        }
    }

    /// The source's next item, pulled under the lock; `None` once the
    /// source is done.
    fn pull(&self) -> Option<Iter::Item> {
        /// Marks the source done unless disarmed: a panicking `next` leaves
        /// it marked, so no other piece calls it again.
        struct DoneUnlessDisarmed<'a>(&'a AtomicBool, bool);
        impl Drop for DoneUnlessDisarmed<'_> {
            // Runs at every item: inlined, it is a test of a flag the
            // compiler knows; called (it is not generic, so it is not
            // inlined across crates without this), it costs a cheap item
            // about 2 ns, a seventh of its time (docs/par-bridge.md).
            #[inline]
            fn drop(&mut self) {
                if !self.1 {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
        }

        let mut iter = self.lock();
        if self.done.load(Ordering::Relaxed) {
            return None;
        }
        let mut guard = DoneUnlessDisarmed(&self.done, false);
        let item = iter.next();
        guard.1 = item.is_some();
        // Only the lock's holder writes the count: a load and a store.
        self.pulls.store(
            self.pulls.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
        item
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
        while !folder.full() {
            match self.pull() {
                Some(item) => folder = folder.consume(item),
                None => break,
            }
        }
        // Wake the nappers: this piece will neither hold nor want the lock
        // again (`nap`'s docs: why that mutex is taken first). A panic in `next` or
        // in the folder skips this; nappers then wake at the end of their
        // nap.
        drop(self.nap.lock());
        self.woken.notify_all();
        if let Some(flag) = flag {
            flag.store(false, Ordering::Relaxed);
        }
        folder
    }
}
