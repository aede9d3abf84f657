//! Waking a caller outside the pool from its own CPU.
//!
//! A thread outside the pool that calls `install` (and so `join`, `scope`
//! or a parallel iterator run from outside) injects a job and blocks on its
//! thread-local [`LockLatch`]. The worker that finishes the job usually
//! runs on another CPU than the caller, which shares its CPU with another
//! worker, so setting the latch is a cross-CPU wakeup: the kernel queues
//! the caller on its CPU and interrupts that CPU (an inter-processor
//! interrupt), and the caller runs once the worker there is preempted or
//! yields. On the 2-core development VM that took about 20 us at the
//! median, for rayon as for locus: 6% of a 300 us parallel iterator call
//! (`benches/README.md`, `zip_dot`, session 15).
//!
//! When the worker of the caller's CPU is searching for work, the finisher
//! hands the wakeup to it instead ([`Handoff::hand`]): that worker polls
//! its own slot between passes ([`Handoff::serve`]), wakes the caller with
//! a local wakeup and yields its CPU to it. In a two-thread test on the
//! same VM (the sleeper and a spinning thread on one CPU, the waker on the
//! other) this took 3.1 us at the median against 18 to 22 us for the
//! direct wakeup. If the searcher does not take the request within
//! [`HANDOFF_SPINS`] spin hints (it found a job, or it went idle), the
//! finisher takes the request back and wakes the caller itself, as before.
//!
//! The handoff needs the caller's CPU ([`pin::current_cpu`](super::pin),
//! Linux) and a pinned pool on a real topology (the registry's map from
//! CPUs to workers; empty for unpinned pools and virtual topologies, where
//! nothing is handed and nothing is recorded).
//!
//! # Why the caller is woken exactly once
//!
//! A set too many would leave a token in the caller's reused latch and let
//! its *next* call return before its job ran; a set too few would block it
//! for ever. Each request is one non-null value in one worker's slot,
//! posted only into an empty slot (`compare_exchange` from null). A value
//! leaves the slot exactly once: either the searcher's `swap` returns it,
//! and the searcher sets the latch; or the finisher's `compare_exchange`
//! from it succeeds (it withdraws its request), and the finisher sets the
//! latch. Both clear the same word, so at most one of them succeeds for a
//! given posting, and the finisher's loop ends with one of the two: its
//! `compare_exchange` fails only if the value is gone, i.e. taken. Every
//! finished job therefore produces one set of its caller's latch.
//!
//! A searcher that stops searching clears its `cpu` word and then serves
//! its slot ([`Handoff::close`]): a request posted before that is served
//! there, one posted by a finisher that read the `cpu` word before it was
//! cleared and posted after the close is withdrawn by that finisher after
//! [`HANDOFF_SPINS`] (or served by the worker's next search). Either way
//! the wakeup happens; only its latency differs.
//!
//! The latch stays valid while a request holds it: its caller blocks until
//! the latch is set, and the latch is set only by whoever removed the
//! request. The same thread-local latch can be posted again by the
//! caller's next call (a finisher may still be spinning on the first
//! posting and see the second one); whoever removes that value still sets
//! the latch once, after the second job finished, which is what the
//! caller waits for.
//!
//! Orderings: the finisher's post is a release (the job's result is written
//! before it), the searcher's `swap` an acquire, and the latch's mutex
//! orders the set before the caller's return, as for a direct set. The
//! loom model `loom-tests/tests/handoff.rs` races the three threads.

use std::ptr;

use crate::layout::Layout;
use crate::sync::{AtomicPtr, AtomicUsize, Ordering};

use super::latch::{Latch, LockLatch};
use super::registry::Registry;

/// The `cpu` word of a worker that does not search.
const NONE: usize = usize::MAX;

/// How many spin hints a finisher waits for a searcher to take its request
/// before it takes it back: about 7 us at the 26 ns a `pause` took on the
/// development VM's AMD EPYC host (longer on CPUs with slower `pause`),
/// more than one search pass plus one backoff step of the searcher (at most
/// 64 hints, or one yield). Under loom, 2 (each hint is a yield there).
#[cfg(not(loom))]
pub(crate) const HANDOFF_SPINS: u32 = 256;
#[cfg(loom)]
pub(crate) const HANDOFF_SPINS: u32 = 2;

/// One worker's side of the handoff: where it searches, and a caller's
/// wakeup handed to it.
pub struct Handoff {
    /// The OS CPU the worker searches on, or [`NONE`].
    cpu: AtomicUsize,
    /// The latch of a caller to wake, or null.
    req: AtomicPtr<LockLatch>,
}

impl Default for Handoff {
    fn default() -> Self {
        Self::new()
    }
}

impl Handoff {
    /// The state of a worker that does not search.
    pub fn new() -> Self {
        Handoff {
            cpu: AtomicUsize::new(NONE),
            req: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// The worker starts (or resumes) searching on OS CPU `cpu` (`None`:
    /// unknown, nothing is handed to it).
    #[inline]
    pub fn open(&self, cpu: Option<usize>) {
        if let Some(c) = cpu {
            self.cpu.store(c, Ordering::Relaxed);
        }
    }

    /// The worker stops searching: wakes the caller handed to it, if any.
    /// Returns whether it woke one (the worker should then yield).
    #[inline]
    pub fn close(&self) -> bool {
        if self.cpu.load(Ordering::Relaxed) == NONE {
            return false;
        }
        self.cpu.store(NONE, Ordering::Relaxed);
        self.serve()
    }

    /// Wakes the caller handed to this worker, if any. Returns whether it
    /// did (the worker should then yield its CPU to it).
    #[inline]
    pub fn serve(&self) -> bool {
        if self.req.load(Ordering::Relaxed).is_null() {
            return false;
        }
        let latch = self.req.swap(ptr::null_mut(), Ordering::AcqRel);
        if latch.is_null() {
            return false;
        }
        // SAFETY: a posted latch is valid until it is set (its caller
        // blocks on it), and the swap that removed it makes us the only
        // one to set it (module docs).
        unsafe { <LockLatch as Latch>::set(latch) };
        true
    }

    /// The finisher's side: hands the wakeup of the caller blocked on
    /// `latch`, which runs on OS CPU `cpu`, to this worker if it searches
    /// there. Returns whether the wakeup was handed over; if not, the
    /// finisher sets `latch` itself.
    ///
    /// # Safety
    ///
    /// `latch` is valid, its job is finished, and its caller blocks on it
    /// until it is set.
    pub unsafe fn hand(&self, latch: *const LockLatch, cpu: usize) -> bool {
        if self.cpu.load(Ordering::Relaxed) != cpu {
            return false;
        }
        let latch = latch.cast_mut();
        if self
            .req
            .compare_exchange(ptr::null_mut(), latch, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        for _ in 0..HANDOFF_SPINS {
            if self.req.load(Ordering::Acquire) != latch {
                return true;
            }
            crate::sync::spin_hint();
        }
        // Not taken yet: withdraw it, unless it is taken meanwhile.
        self.req
            .compare_exchange(latch, ptr::null_mut(), Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
    }
}

/// The latch of a job injected by a thread outside the pool, which blocks
/// on `lock`: set through [`Handoff::hand`] when the worker of the
/// caller's CPU searches there, else directly.
pub(crate) struct CallerLatch<'a> {
    pub(crate) lock: &'a LockLatch,
    /// The caller's OS CPU when it injected the job, if the pool hands
    /// wakeups (`Registry::caller_cpu`).
    pub(crate) cpu: Option<usize>,
    pub(crate) registry: &'a Registry,
}

impl Latch for CallerLatch<'_> {
    unsafe fn set(this: *const Self) {
        // SAFETY: valid on entry. Copied out first: once the caller is
        // woken its frame, which holds `*this`, may be gone.
        let (lock, cpu, registry) = unsafe {
            let this = &*this;
            (ptr::from_ref(this.lock), this.cpu, this.registry)
        };
        if let Some(cpu) = cpu {
            if registry.hand_wakeup(lock, cpu) {
                return;
            }
        }
        // SAFETY: the caller blocks on `lock` until it is set.
        unsafe { <LockLatch as Latch>::set(lock) }
    }
}

/// For each OS CPU, the worker of `layout` whose PU it is (`usize::MAX`
/// for none).
pub(crate) fn workers_by_cpu(layout: &Layout) -> Box<[usize]> {
    let len = layout.workers().iter().map(|w| w.pu + 1).max().unwrap_or(0);
    let mut by = vec![usize::MAX; len];
    for w in layout.workers() {
        by[w.pu] = w.index;
    }
    by.into_boxed_slice()
}

#[cfg(all(test, not(loom)))]
mod tests;
