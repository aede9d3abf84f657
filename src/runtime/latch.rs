//! Latches: one-shot "this is done" signals that a thread waits for.
//!
//! - [`CoreLatch`]: the state word shared by the latches a *worker* waits on
//!   while it keeps stealing (`join`, `scope`, `broadcast`). States:
//!   `UNSET -> SET`, or `UNSET -> SLEEPING -> (UNSET | SET)`. Only the owner
//!   moves it to `SLEEPING` (just before parking) and back to `UNSET` (after
//!   waking, or when a lazy park's timeout expires: "A latch waiter's lazy
//!   park" in `runtime::sleep`); only setters move it to `SET`, with a
//!   swap that returns the previous state. A setter that sees `SLEEPING`
//!   wakes the owner.
//!   Proof of no lost wakeup for latches: all transitions are RMWs on one
//!   word, so they are totally ordered. If the owner's `UNSET -> SLEEPING`
//!   CAS comes first, the setter's swap returns `SLEEPING` and it unparks the
//!   owner; the parker keeps a token, so an unpark that lands before the
//!   owner actually blocks still makes `park` return. If the swap comes
//!   first, the owner's CAS fails and it does not park.
//! - [`JoinLatch`]: a `CoreLatch` plus the parker of the worker to wake
//!   (`join`, whose halves are set by workers of the same pool).
//! - [`SpinLatch`]: a `CoreLatch` plus the pool and worker to wake, kept
//!   alive by the setter (an `install` from a worker of another pool).
//! - [`CountLatch`]: a counter; reaching zero sets a `CoreLatch` and wakes
//!   its owner worker (`scope`, `broadcast`), or, for a thread outside
//!   every pool (`in_place_scope`), sets a [`LockLatch`] it blocks on.
//! - [`LockLatch`]: a [`Parker`] (mutex and condition variable), for
//!   threads outside the pool (blocking `install`).
//! - [`BlockingLatch`]: a small value that moves only forward (a count
//!   down to zero, a decision), which any number of blocked threads wait
//!   on at once (pool build and drop: the start gate).
//!
//! Setting a latch may be the last access to the memory that contains it
//! (the owner returns and frees its stack frame as soon as it observes
//! `SET`), so [`Latch::set`] takes a raw pointer and copies out everything
//! it needs before the final store.
//!
//! `Arc<Registry>` is `std`'s: it only manages the registry's lifetime and is
//! not part of the protocol; the protocol words use `crate::sync`.

use std::sync::Arc;

use crate::sync::{AtomicUsize, Condvar, Mutex, Ordering};

use super::parker::Parker;
use super::registry::Registry;

/// A latch that can be set once.
pub trait Latch {
    /// Sets the latch.
    ///
    /// # Safety
    /// `this` must be valid when called; it may be freed by another thread
    /// as soon as the latch reads as set, so implementations must not touch
    /// `*this` after the store that sets it.
    unsafe fn set(this: *const Self);
}

const UNSET: usize = 0;
const SLEEPING: usize = 1;
const SET: usize = 2;

/// The state word of a latch a worker waits on (see the module docs).
#[derive(Debug)]
pub struct CoreLatch {
    state: AtomicUsize,
}

impl Default for CoreLatch {
    fn default() -> Self {
        Self::new()
    }
}

impl CoreLatch {
    /// A new, unset latch.
    pub fn new() -> Self {
        CoreLatch {
            state: AtomicUsize::new(UNSET),
        }
    }

    /// Whether the latch is set (acquire: what the setter wrote before
    /// setting is visible after this returns true).
    #[inline]
    pub fn probe(&self) -> bool {
        self.state.load(Ordering::Acquire) == SET
    }

    /// Owner, before parking: announces that it is going to sleep. Returns
    /// false if the latch is already set (then the owner must not park).
    pub fn try_sleep(&self) -> bool {
        self.state
            .compare_exchange(UNSET, SLEEPING, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Owner, after waking or when its timed park expired: withdraws the
    /// sleep announcement. Returns true if the latch is set.
    pub fn wake_up(&self) -> bool {
        match self
            .state
            .compare_exchange(SLEEPING, UNSET, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => false,
            Err(s) => s == SET,
        }
    }

    /// Setter: sets the latch; returns true if the owner announced sleep
    /// and must be woken by the caller.
    ///
    /// # Safety
    /// `this` must be valid; it may be freed as soon as this stores `SET`.
    pub unsafe fn set(this: *const Self) -> bool {
        // SAFETY: valid on entry (caller); the swap is the last access.
        unsafe { (*this).state.swap(SET, Ordering::SeqCst) == SLEEPING }
    }
}

/// The latch of an `install` from a worker of another pool: set by
/// whoever ran the job; wakes the owning worker if it sleeps. The setter
/// belongs to another pool than the owner, so it keeps the owner's
/// registry alive itself while it wakes the owner.
pub(crate) struct SpinLatch<'r> {
    pub(crate) core: CoreLatch,
    registry: &'r Arc<Registry>,
    target: usize,
}

impl<'r> SpinLatch<'r> {
    /// A latch owned by worker `target` of `registry`, whose setter may run
    /// on a worker of another pool.
    pub(crate) fn cross(registry: &'r Arc<Registry>, target: usize) -> Self {
        SpinLatch {
            core: CoreLatch::new(),
            registry,
            target,
        }
    }
}

impl Latch for SpinLatch<'_> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is valid until the swap inside CoreLatch::set.
        let target = unsafe { (*this).target };
        // Keep the registry alive past the swap: the setter is a worker of
        // another pool, whose own Arc does not.
        // SAFETY: still before the swap.
        let keep: Arc<Registry> = Arc::clone(unsafe { (*this).registry });
        // SAFETY: `core` is valid; this is the last access to `*this`.
        if unsafe { CoreLatch::set(&raw const (*this).core) } {
            keep.sleep.wake_worker(target);
        }
        drop(keep);
    }
}

/// The latch of `join`'s second half: a [`CoreLatch`] and where the parker
/// of the worker that waits for it is. Two words to write at every `join`
/// (`SpinLatch` and the latch before it had four): the half is set only by a worker of the
/// same pool (`join` halves are stolen and claimed inside their pool), and
/// that worker's own `Arc` keeps the pool, so the parker, alive while it
/// sets the latch.
///
/// The second word is the address of the waiting worker's [`ParkerSlot`],
/// which is the worker's own address (the slot is its first field): the
/// `join` stores the worker pointer it holds anyway, where storing the
/// parker itself cost a load of it more (`docs/join-cost.md`, fifth
/// round). The setter reads the slot before it sets the latch, while the
/// waiter is certainly still in its `join` (so its worker is alive).
pub(crate) struct JoinLatch<'r> {
    pub(crate) core: CoreLatch,
    owner: &'r ParkerSlot,
}

/// A worker's pointer to its parker, read by the setters of its `join`
/// latches ([`JoinLatch`]): written once, when the worker is built, and
/// only read afterwards, by any thread.
#[repr(transparent)]
pub(crate) struct ParkerSlot(*const Parker);

// SAFETY: the pointer is never written after construction, and it points
// to a `Parker` (which is `Sync`) in the pool's sleep state.
unsafe impl Sync for ParkerSlot {}

impl ParkerSlot {
    /// The slot of a worker whose parker is `parker`, which must live as
    /// long as the worker holding the slot (it is in the pool's sleep
    /// state, which the worker's `Arc` of the pool keeps).
    pub(crate) fn new(parker: &Parker) -> Self {
        ParkerSlot(parker)
    }
}

impl<'r> JoinLatch<'r> {
    /// A latch whose owner parks on the parker in `owner`.
    #[inline]
    pub(crate) fn new(owner: &'r ParkerSlot) -> Self {
        JoinLatch {
            core: CoreLatch::new(),
            owner,
        }
    }
}

impl Latch for JoinLatch<'_> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is valid until the swap inside `CoreLatch::set`,
        // and so is the waiting worker's slot (the worker is in its `join`
        // until it sees the latch set); the parker lives in the pool,
        // which the setter (a worker of the same pool) keeps alive past
        // the swap.
        let parker: *const Parker = unsafe { (*this).owner.0 };
        // SAFETY: `core` is valid; this is the last access to `*this`.
        if unsafe { CoreLatch::set(&raw const (*this).core) } {
            // SAFETY: see above.
            unsafe { (*parker).unpark() };
        }
    }
}

/// Whom a [`CountLatch`] releases when its count reaches zero.
pub trait LatchOwner {
    /// Sets `core`, the latch's state word, and wakes the owner if it
    /// announced sleep on it. Called once, by the setter that took the
    /// count to zero.
    ///
    /// # Safety
    /// `this` and `core` are valid on entry; the frame holding them may be
    /// freed as soon as `core` is set (the owner returns), so an
    /// implementation copies out what it needs *before* that store and
    /// touches neither afterwards.
    unsafe fn release(this: *const Self, core: *const CoreLatch);
}

/// Who waits for a [`CountLatch`] in the pool.
pub enum CountOwner {
    /// A worker (of any pool: an `in_place_scope` of pool B may be waited
    /// for on a worker of pool A) that runs jobs while it waits.
    Worker {
        /// Its pool; cloned out before the set, so it stays alive while
        /// the setter wakes the worker.
        registry: Arc<Registry>,
        /// Its index there.
        index: usize,
    },
    /// A thread outside every pool, blocked on this latch.
    Blocked(LockLatch),
}

impl LatchOwner for CountOwner {
    unsafe fn release(this: *const Self, core: *const CoreLatch) {
        // SAFETY: valid on entry (caller); nothing here is mutated.
        match unsafe { &*this } {
            CountOwner::Worker { registry, index } => {
                // Keep the registry alive across the set, which may free `*this`.
                let (registry, index) = (Arc::clone(registry), *index);
                // SAFETY: last access to the latch's frame.
                if unsafe { CoreLatch::set(core) } {
                    registry.sleep.wake_worker(index);
                }
            }
            // SAFETY: the owner returns from `wait` only once `unpark` has
            // released the parker's mutex, after which it touches nothing
            // (see `LockLatch::set`).
            CountOwner::Blocked(l) => unsafe { <LockLatch as Latch>::set(l) },
        }
    }
}

/// A counter latch: set when the count drops to zero. Generic over its
/// owner so that the loom models can free the latch's frame as the owner
/// does and check that no setter touches it afterwards.
pub struct CountLatch<O = CountOwner> {
    /// Set at zero for a worker owner (which waits on it while running
    /// jobs); unused for a blocked owner.
    pub core: CoreLatch,
    count: AtomicUsize,
    owner: O,
}

impl CountLatch {
    /// A latch with count 1 (the owner's own share) owned by worker `owner`.
    pub(crate) fn new(registry: &Arc<Registry>, owner: usize) -> Self {
        Self::with_count(registry, owner, 1)
    }

    /// A latch with count `n`.
    pub(crate) fn with_count(registry: &Arc<Registry>, owner: usize, n: usize) -> Self {
        Self::with_owner(
            CountOwner::Worker {
                registry: Arc::clone(registry),
                index: owner,
            },
            n,
        )
    }

    /// A latch with count 1 for a thread outside every pool, which blocks
    /// in [`CountLatch::wait`].
    pub(crate) fn blocking() -> Self {
        Self::with_owner(CountOwner::Blocked(LockLatch::new()), 1)
    }

    /// Adds `n` pending completions.
    pub(crate) fn add(&self, n: usize) {
        let old = self.count.fetch_add(n, Ordering::Relaxed);
        debug_assert!(old > 0, "CountLatch incremented after reaching zero");
    }

    /// Waits until the count is zero: the owner worker `wt` runs jobs
    /// meanwhile; a blocked owner (`wt` is `None`) blocks.
    pub(crate) fn wait(&self, wt: Option<&super::worker::WorkerThread>) {
        match (&self.owner, wt) {
            (CountOwner::Worker { index, .. }, Some(wt)) => {
                debug_assert_eq!(*index, wt.index(), "waited for by another worker");
                wt.wait_until(&self.core);
            }
            (CountOwner::Blocked(l), None) => l.wait(),
            _ => unreachable!("a count latch waited for by a thread that does not own it"),
        }
    }
}

impl<O: LatchOwner> CountLatch<O> {
    /// A latch with count `n`, released to `owner`.
    pub fn with_owner(owner: O, n: usize) -> Self {
        CountLatch {
            core: CoreLatch::new(),
            count: AtomicUsize::new(n),
            owner,
        }
    }

    /// Adds one pending completion (only while the count is positive: by
    /// a holder of a share, before it sets its own).
    pub fn increment(&self) {
        let old = self.count.fetch_add(1, Ordering::Relaxed);
        debug_assert!(old > 0, "CountLatch incremented after reaching zero");
    }
}

impl<O: LatchOwner> Latch for CountLatch<O> {
    unsafe fn set(this: *const Self) {
        // SAFETY: valid until the count reaches zero and the core is set.
        // AcqRel: the completions before ours are visible to the owner.
        if unsafe { (*this).count.fetch_sub(1, Ordering::AcqRel) } != 1 {
            return;
        }
        // We took the count to zero: nobody else touches the latch now but
        // the owner, who waits for it to be set.
        // SAFETY: both valid until the release sets the core.
        unsafe { O::release(&raw const (*this).owner, &raw const (*this).core) }
    }
}

/// A blocking latch for threads outside the pool: a [`Parker`] whose
/// token is the "set" (one waiter; waiting consumes it, so the latch can
/// be reused).
pub struct LockLatch {
    parker: Parker,
}

impl Default for LockLatch {
    fn default() -> Self {
        Self::new()
    }
}

impl LockLatch {
    /// A new, unset latch.
    pub fn new() -> Self {
        LockLatch {
            parker: Parker::new(),
        }
    }

    /// Blocks until set, then resets it for reuse.
    pub fn wait_and_reset(&self) {
        self.parker.park();
    }

    /// Blocks until set (a latch that is set once: the loom models, a
    /// blocked `in_place_scope`).
    pub fn wait(&self) {
        self.parker.park();
    }

    /// Whether the latch is set and not yet waited for (tests: a latch
    /// set twice for one wait keeps its token after the wait).
    #[cfg(any(test, loom))]
    pub fn is_set(&self) -> bool {
        self.parker.has_token()
    }

    /// Sets the latch and wakes the waiter (safe-code form, for tests).
    #[cfg_attr(not(any(test, loom)), allow(dead_code))]
    pub fn set_now(&self) {
        // SAFETY: `self` is a valid reference.
        unsafe { <Self as Latch>::set(self) }
    }
}

impl Latch for LockLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: valid on entry. `unpark` notifies while holding the
        // parker's mutex and touches nothing after the unlock, and the
        // waiter can only return after acquiring that mutex, so the waiter
        // may free the latch as soon as it returns (a blocked
        // `in_place_scope` does). (The LockLatch used for install is
        // thread-local to the waiter anyway and outlives the wait.)
        unsafe { (*this).parker.unpark() }
    }
}

/// A latch behind a reference (a thread-local [`LockLatch`]).
pub(crate) struct LatchRef<'a, L>(pub(crate) &'a L);

impl<L: Latch> Latch for LatchRef<'_, L> {
    unsafe fn set(this: *const Self) {
        // SAFETY: valid on entry; the referenced latch outlives the job.
        unsafe { L::set((*this).0) }
    }
}

/// A latch that several threads outside the pool's search loop wait on at
/// once (it starts at `T::default()`), holding a small value `T` that its setters move forward (a count
/// of workers still to report, a decision). [`BlockingLatch::update`]
/// changes the value and wakes every waiter; [`BlockingLatch::wait_until`]
/// blocks until a predicate on the value holds. Only pool build and drop
/// use it (the registry's start gate), so a mutex and a condition variable
/// are the right cost; the latches above serve the hot paths.
///
/// No lost wakeup: the value is read and written only under the mutex, a
/// waiter tests the predicate under it before it waits (the wait releases
/// the mutex atomically), and every update notifies all waiters after its
/// change, under the same mutex.
#[derive(Default)]
pub(crate) struct BlockingLatch<T> {
    value: Mutex<T>,
    cv: Condvar,
}

impl<T> BlockingLatch<T> {
    /// Applies `f` to the value and wakes every waiter, which re-test their
    /// predicates. Returns what `f` returns.
    pub(crate) fn update<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut v = self.value.lock();
        let r = f(&mut v);
        self.cv.notify_all();
        r
    }

    /// Blocks until `ready` holds for the value, and returns the value it
    /// held for.
    pub(crate) fn wait_until(&self, ready: impl Fn(&T) -> bool) -> T
    where
        T: Copy,
    {
        let mut v = self.value.lock();
        while !ready(&v) {
            self.cv.wait(&mut v);
        }
        *v
    }
}

#[cfg(all(test, not(loom)))]
mod blocking_tests {
    use super::BlockingLatch;
    use std::sync::Arc;

    #[test]
    fn every_waiter_sees_the_count_reach_zero() {
        let latch = Arc::new(BlockingLatch::<usize>::default());
        latch.update(|n| *n = 3);
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let l = latch.clone();
                std::thread::spawn(move || l.wait_until(|&n| n == 0))
            })
            .collect();
        for _ in 0..3 {
            latch.update(|n| *n -= 1);
        }
        for w in waiters {
            assert_eq!(w.join().unwrap(), 0);
        }
        // Already satisfied: returns at once.
        assert_eq!(latch.wait_until(|&n| n == 0), 0);
    }
}
