//! loom models of locus's lock-free protocols, in `tests/`.
//!
//! Run them with `./run.sh` (it sets `RUSTFLAGS="--cfg loom"`, under which
//! locus's `sync` facade uses loom's atomics and locus exposes the protocol
//! types in `locus::__loom`). Built without `--cfg loom` the tests compile to
//! nothing.

/// A model checker configured for these models: the preemption bound is
/// `LOOM_MAX_PREEMPTIONS` if set (`run.sh` sets 3), else `default_bound`, so
/// that every model finishes in seconds.
#[cfg(loom)]
pub fn builder(default_bound: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(default_bound);
    }
    b
}

#[cfg(loom)]
mod model {
    use locus::__loom::{IdleMasks, IdleShape, Sleep};
    use loom::sync::Arc;
    use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
    use loom::thread::{self, JoinHandle};

    /// "A queue": a count of visible jobs, pushed with Release and taken
    /// with a CAS, like a deque or an injector; the protocol's fences do the
    /// rest.
    pub struct Queue(AtomicUsize);

    impl Queue {
        /// An empty queue.
        pub fn new() -> Self {
            Queue(AtomicUsize::new(0))
        }
        /// Makes one job visible (the caller then notifies, as pushers do).
        pub fn push(&self) {
            self.0.fetch_add(1, Release);
        }
        /// Takes one job if there is one.
        pub fn try_take(&self) -> bool {
            let mut n = self.0.load(Acquire);
            while n > 0 {
                match self.0.compare_exchange(n, n - 1, AcqRel, Acquire) {
                    Ok(_) => return true,
                    Err(m) => n = m,
                }
            }
            false
        }
        /// Whether no job is visible.
        pub fn is_empty(&self) -> bool {
            self.0.load(Acquire) == 0
        }
    }

    /// Sleep state of `workers` workers in LLCs of `per_llc` workers each
    /// (no clusters), as the models use it.
    pub fn sleep_for(workers: usize, per_llc: usize) -> Arc<Sleep> {
        Arc::new(Sleep::new(IdleMasks::new(IdleShape::uniform(workers, per_llc, 0)), workers))
    }

    /// Runs [`worker`] on a new loom thread (arguments as for `worker`).
    pub fn spawn_worker(
        sleep: &Arc<Sleep>,
        mine: Option<&Arc<Queue>>,
        foreign: Option<(&Arc<Queue>, usize)>,
        done: &Arc<AtomicBool>,
        w: usize,
        llc: usize,
    ) -> JoinHandle<bool> {
        let (sleep, mine, done) = (sleep.clone(), mine.cloned(), done.clone());
        let foreign = foreign.map(|(q, l)| (q.clone(), l));
        thread::spawn(move || {
            let foreign = foreign.as_ref().map(|(q, l)| (&**q, *l));
            worker(&sleep, mine.as_deref(), foreign, &done, w, llc)
        })
    }

    /// Runs [`worker`] on a new loom thread over the shared `queue` (no
    /// foreign queue) as one of several racers for a job: the one that runs
    /// it sets `done` and wakes everyone, so the others stop. Returns
    /// whether this one ran it.
    pub fn spawn_racer(
        sleep: &Arc<Sleep>,
        queue: &Arc<Queue>,
        done: &Arc<AtomicBool>,
        w: usize,
        llc: usize,
    ) -> JoinHandle<bool> {
        let (sleep, queue, done) = (sleep.clone(), queue.clone(), done.clone());
        thread::spawn(move || {
            let ran = worker(&sleep, Some(&queue), None, &done, w, llc);
            if ran {
                done.store(true, Release);
                sleep.wake_all();
            }
            ran
        })
    }

    impl Default for Queue {
        fn default() -> Self {
            Self::new()
        }
    }

    /// A worker's search loop as `WorkerThread::search` runs it (without
    /// spinning): one uncounted look, then start searching, take a job from
    /// `mine`, or go idle, re-check, park. Stops when `done` is set; returns
    /// whether it ran a job. With `foreign`, each pass also looks at another
    /// LLC's pack queue it may not take from and, if it is non-empty, wakes
    /// a worker of that LLC (`Sleep::wake_in`), as `find_work` does for a
    /// queue whose LLC is not overloaded.
    pub fn worker(
        sleep: &Sleep,
        mine: Option<&Queue>,
        foreign: Option<(&Queue, usize)>,
        done: &AtomicBool,
        w: usize,
        llc: usize,
    ) -> bool {
        let forward = || {
            if let Some((q, l)) = foreign {
                if !q.is_empty() {
                    sleep.wake_in(None, l);
                }
            }
        };
        if mine.is_some_and(Queue::try_take) {
            return true;
        }
        sleep.start_searching();
        loop {
            if mine.is_some_and(Queue::try_take) {
                sleep.stop_searching(w, llc);
                return true;
            }
            forward();
            if done.load(Acquire) {
                sleep.stop_searching(w, llc);
                return false;
            }
            sleep.prepare_sleep(w);
            let again = mine.is_some_and(|q| !q.is_empty()) || done.load(Acquire);
            forward();
            if again {
                sleep.cancel_sleep(w);
                continue;
            }
            sleep.sleep(w);
        }
    }
}

#[cfg(loom)]
pub use model::{Queue, sleep_for, spawn_racer, spawn_worker, worker};
