//! loom models of the job-group additions to the sleep protocol
//! (`Sleep::notify_in`, "Queues of one LLC" in `runtime::sleep`).
//!
//! A packed group's queue of LLC 0 may be taken only by LLC 0's worker; a
//! worker of LLC 1 searches, finds nothing it may take, and sleeps. The
//! searching count is then no promise that someone takes the job, which is
//! why `notify_in` claims a worker of LLC 0 without looking at it. A lost
//! wakeup leaves worker 0 parked forever: loom reports a deadlock.
//!
//! The first model discriminates: with `sleep.notify(None, 0)` (the
//! injector's rule, which skips the wakeup while someone searches) in place
//! of `notify_in`, loom finds the deadlock (checked when the model was
//! written).
#![cfg(loom)]

use locus_loom_tests::{Queue, builder, sleep_for, spawn_racer, spawn_worker};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering::*};

/// One packed job pushed from outside into LLC 0's queue while worker 0
/// (LLC 0) goes to sleep and worker 1 (LLC 1, not allowed to take it) is
/// searching: worker 0 runs the job.
#[test]
fn pack_push_wakes_the_llc_even_with_a_searcher_elsewhere() {
    builder(3).check(|| {
        let sleep = sleep_for(2, 1);
        let q0 = Arc::new(Queue::new());
        let done = Arc::new(AtomicBool::new(false));
        let w0 = spawn_worker(&sleep, Some(&q0), None, &done, 0, 0);
        let w1 = spawn_worker(&sleep, None, None, &done, 1, 1);
        q0.push();
        sleep.notify_in(None, 0, false, false);
        assert!(w0.join().unwrap(), "LLC 0's worker must run the job");
        done.store(true, Release);
        sleep.wake_all();
        assert!(!w1.join().unwrap());
    });
}

/// A spread job pushed into a queue anyone may take, aimed at LLC 0 with
/// fallback: one of the two workers runs it.
#[test]
fn spread_push_is_taken_by_someone() {
    builder(3).check(|| {
        let sleep = sleep_for(2, 1);
        let q = Arc::new(Queue::new());
        let done = Arc::new(AtomicBool::new(false));
        let ts: Vec<_> = (0..2)
            .map(|w| spawn_racer(&sleep, &q, &done, w, w))
            .collect();
        q.push();
        sleep.notify_in(None, 0, false, true);
        let ran: usize = ts.into_iter().map(|t| t.join().unwrap() as usize).sum();
        assert_eq!(ran, 1, "exactly one worker runs the job");
    });
}

/// Rule 1 of "Queues of one LLC": the pusher skips the wakeup while someone
/// searches (`if_none_searching`, as a worker of LLC 0 pushing to its own
/// LLC's queue does), and the searcher of LLC 1, which may not take the
/// job, forwards a wakeup to LLC 0. Worker 0 runs the job. (Without the
/// forward, loom finds the deadlock: checked when the model was written.)
#[test]
fn searcher_elsewhere_forwards_the_wakeup() {
    builder(3).check(|| {
        let sleep = sleep_for(2, 1);
        let q0 = Arc::new(Queue::new());
        let done = Arc::new(AtomicBool::new(false));
        let w0 = spawn_worker(&sleep, Some(&q0), None, &done, 0, 0);
        let w1 = spawn_worker(&sleep, None, Some((&q0, 0)), &done, 1, 1);
        q0.push();
        sleep.notify_in(None, 0, true, false);
        assert!(w0.join().unwrap(), "LLC 0's worker must run the job");
        done.store(true, Release);
        sleep.wake_all();
        assert!(!w1.join().unwrap());
    });
}

/// A piece of a parallel iterator aimed at worker 0 (`registry::aimed`,
/// `Aim::Worker`): pushed into LLC 0's pack queue (the copy that matters
/// for progress; the copy in worker 0's targeted queue only helps
/// placement), then, after the pusher's fence, worker 0 itself is claimed
/// if idle (`Sleep::wake_if_idle`), else the pack queue's wakeup runs.
/// Both workers of LLC 0 race for it: exactly one runs it, none stays
/// parked with the job queued. With `if_none_searching` as for a pusher of
/// the same LLC, and without.
#[test]
fn aimed_push_claims_its_worker_or_wakes_the_llc() {
    for own in [false, true] {
        builder(3).check(move || {
            let sleep = sleep_for(2, 2);
            let q = Arc::new(Queue::new());
            let done = Arc::new(AtomicBool::new(false));
            let ts: Vec<_> = (0..2).map(|w| spawn_racer(&sleep, &q, &done, w, 0)).collect();
            q.push();
            loom::sync::atomic::fence(SeqCst);
            if sleep.wake_if_idle(0, locus::__loom::Distance::Cluster).is_none() {
                sleep.notify_in(Some(0), 0, own, false);
            }
            let ran: usize = ts.into_iter().map(|t| t.join().unwrap() as usize).sum();
            assert_eq!(ran, 1, "exactly one worker runs the piece");
        });
    }
}
