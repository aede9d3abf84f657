//! `par_bridge`: a sequential iterator shared by the pool's workers.
//!
//! The iterator sits behind a mutex; the unindexed producer splits up to
//! `current_num_threads()` times in all (a shared countdown), and each
//! piece pulls one item at a time, releasing the lock before handing the
//! item on. A worker that is already pulling for this bridge (and got here
//! again by stealing a job while a closure of its own item blocked in a
//! `join`) returns at once instead of taking the mutex a second time: the
//! outer pull loop on that worker continues with the remaining items.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer, bridge_unindexed};
use super::ParallelIterator;

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
#[derive(Debug, Clone)]
pub struct IterBridge<Iter> {
    iter: Iter,
}

impl<Iter: Iterator<Item: Send> + Send> ParallelIterator for IterBridge<Iter> {
    type Item = Iter::Item;

    fn drive_unindexed<C: UnindexedConsumer<Iter::Item>>(self, consumer: C) -> C::Result {
        let threads = crate::current_num_threads();
        let pulling: Vec<AtomicBool> = (0..threads).map(|_| AtomicBool::new(false)).collect();
        let shared = Shared { iter: Mutex::new(self.iter.fuse()), splits: AtomicUsize::new(threads), pulling };
        bridge_unindexed(&shared, consumer)
    }
}

struct Shared<Iter> {
    iter: Mutex<std::iter::Fuse<Iter>>,
    /// Splits left to hand out.
    splits: AtomicUsize,
    /// Per worker: already inside a pull loop of this bridge.
    pulling: Vec<AtomicBool>,
}

impl<Iter: Iterator<Item: Send> + Send> UnindexedProducer for &Shared<Iter> {
    type Item = Iter::Item;

    fn split(self) -> (Self, Option<Self>) {
        let took = self.splits.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        (self, took.ok().map(|_| self))
    }

    fn fold_with<F: Folder<Iter::Item>>(self, mut folder: F) -> F {
        let flag = crate::current_thread_index().and_then(|i| self.pulling.get(i));
        if let Some(flag) = flag {
            if flag.swap(true, Ordering::Relaxed) {
                return folder;
            }
        }
        loop {
            let next = match self.iter.lock() {
                Ok(mut it) => it.next(),
                // A panic while another piece held the lock: that panic
                // will reach the caller; stop pulling.
                Err(_) => None,
            };
            match next {
                Some(item) => {
                    folder = folder.consume(item);
                    if folder.full() {
                        break;
                    }
                }
                None => break,
            }
        }
        if let Some(flag) = flag {
            flag.store(false, Ordering::Relaxed);
        }
        folder
    }
}
