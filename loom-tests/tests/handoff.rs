//! loom model of the caller wakeup handoff (`runtime::handoff`): a caller
//! outside the pool blocks on its latch, the worker that finished its job
//! hands the wakeup to the worker searching on the caller's CPU (or wakes
//! the caller itself when the searcher does not take it), and the searcher
//! serves its slot between passes and when it stops searching. loom
//! reports a deadlock if the caller can stay blocked; the assertions check
//! that it is woken exactly once (a second set would leave a token in its
//! latch, which the next call would consume before its job ran).
#![cfg(loom)]

use locus::__loom::{Handoff, LockLatch};
use locus_loom_tests::builder;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering::*};
use loom::thread;

/// The common model: the caller (the model's main thread) waits on its
/// latch; a finisher hands its wakeup to a worker searching on CPU 0, or
/// sets the latch itself; `searcher` is that worker's run, returning how
/// many wakeups it served.
fn caller_finisher_and(searcher: fn(&Handoff) -> usize) {
    let handoff = Arc::new(Handoff::new());
    let latch = Arc::new(LockLatch::new());
    let sets = Arc::new(AtomicUsize::new(0));
    handoff.open(Some(0));
    let worker = {
        let (h, sets) = (Arc::clone(&handoff), Arc::clone(&sets));
        thread::spawn(move || {
            sets.fetch_add(searcher(&h), SeqCst);
        })
    };
    let finisher = {
        let (h, latch, sets) = (Arc::clone(&handoff), Arc::clone(&latch), Arc::clone(&sets));
        thread::spawn(move || {
            // SAFETY: the caller waits on `latch`, which the Arc keeps
            // alive.
            if !unsafe { h.hand(&*latch, 0) } {
                latch.set_now();
                sets.fetch_add(1, SeqCst);
            }
        })
    };
    latch.wait();
    worker.join().unwrap();
    finisher.join().unwrap();
    assert_eq!(sets.load(SeqCst), 1, "one set per finished job");
    assert!(!latch.is_set(), "no token left for the next call");
}

/// The searcher serves once between two passes, then stops searching
/// (`close` serves again).
#[test]
fn the_caller_is_woken_exactly_once() {
    builder(3).check(|| {
        caller_finisher_and(|h| usize::from(h.serve()) + usize::from(h.close()));
    });
}

/// The searcher stops and starts searching again (a re-check that found
/// contention) while the finisher hands over: a request posted while it
/// was closed is served after it reopens, or withdrawn.
#[test]
fn a_searcher_that_closes_and_reopens_still_wakes_once() {
    builder(3).check(|| {
        caller_finisher_and(|h| {
            let first = usize::from(h.close());
            h.open(Some(0));
            first + usize::from(h.close())
        });
    });
}
