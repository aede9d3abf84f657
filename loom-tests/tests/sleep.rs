//! loom models of the sleep protocol (`runtime::sleep`) and of the join latch
//! (`runtime::latch::CoreLatch`), driven the way `runtime::worker` drives
//! them. A lost wakeup leaves a worker parked forever, which loom reports as
//! a deadlock; the assertions check the rest.
#![cfg(loom)]

use locus::__loom::{CoreLatch, LockLatch};
use locus_loom_tests::{Queue, builder, sleep_for, spawn_racer, spawn_worker};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use loom::thread;

/// (4a) One job pushed from outside while the only worker goes to sleep:
/// the worker either sees the job in its re-check or is woken.
#[test]
fn push_versus_sleep_one_worker() {
    builder(3).check(|| {
        let sleep = sleep_for(1, 1);
        let queue = Arc::new(Queue::new());
        let done = Arc::new(AtomicBool::new(false));
        let t = spawn_worker(&sleep, Some(&queue), None, &done, 0, 0);
        queue.push();
        sleep.notify(None, 0);
        assert!(t.join().unwrap(), "the worker must run the job");
        assert!(queue.is_empty());
    });
}

/// (4b) Two workers in two LLCs going to sleep while a job is pushed from
/// outside into LLC 0: one of them runs it (the other is then told to stop
/// and woken, as at shutdown). Exercises the searching count and a remote
/// claim.
#[test]
fn push_versus_sleep_two_workers() {
    builder(3).check(|| {
        let sleep = sleep_for(2, 1);
        let queue = Arc::new(Queue::new());
        let done = Arc::new(AtomicBool::new(false));
        let ts: Vec<_> = (0..2)
            .map(|w| spawn_racer(&sleep, &queue, &done, w, w))
            .collect();
        queue.push();
        sleep.notify(None, 0);
        let ran: usize = ts.into_iter().map(|t| t.join().unwrap() as usize).sum();
        assert_eq!(ran, 1, "exactly one worker runs the job");
    });
}

/// (4c) A push by a busy worker (deque push + `notify`) while another
/// worker of its LLC goes to sleep: the sleeper ends up with the job and
/// the searcher count is balanced.
#[test]
fn push_by_a_worker_versus_sleep() {
    builder(3).check(|| {
        let sleep = sleep_for(2, 2);
        let queue = Arc::new(Queue::new());
        let done = Arc::new(AtomicBool::new(false));
        let t = spawn_worker(&sleep, Some(&queue), None, &done, 0, 0);
        queue.push();
        sleep.notify(Some(1), 0);
        assert!(t.join().unwrap(), "the sleeper must take the job");
        assert_eq!(sleep.searching(), 0, "searcher count balanced");
    });
}

/// (4d) Two workers of one LLC searching or sleeping, one job pushed by a
/// third: exactly one takes it. If the pusher skipped its wakeup because a
/// searcher was counted, that searcher found the job or re-checked (the
/// skip rule).
#[test]
fn two_sleepers_one_job_skip_rule() {
    builder(2).check(|| {
        let sleep = sleep_for(3, 3);
        let queue = Arc::new(Queue::new());
        let done = Arc::new(AtomicBool::new(false));
        let a = spawn_racer(&sleep, &queue, &done, 0, 0);
        let b = spawn_racer(&sleep, &queue, &done, 1, 0);
        queue.push();
        sleep.notify(Some(2), 0);
        let (ga, gb) = (a.join().unwrap(), b.join().unwrap());
        assert!(ga ^ gb, "exactly one worker takes the job: {ga} {gb}");
    });
}

/// (5) The join latch: the owner searches, goes idle, announces sleep on
/// the latch and parks (as `Worker::search` with a latch); another thread
/// writes the result and sets the latch, waking the owner if it announced
/// sleep. The owner never sleeps through the set, and sees the result.
#[test]
fn join_latch_never_loses_the_wakeup() {
    builder(3).check(|| {
        let sleep = sleep_for(2, 2);
        let latch = Arc::new(CoreLatch::new());
        let result = Arc::new(AtomicUsize::new(0));
        let setter = {
            let (sleep, latch, result) = (sleep.clone(), latch.clone(), result.clone());
            thread::spawn(move || {
                result.store(42, Relaxed);
                // SAFETY: the Arc keeps the latch alive for this call.
                if unsafe { CoreLatch::set(&*latch) } {
                    sleep.wake_worker(0);
                }
            })
        };
        // Owner: worker 0.
        sleep.start_searching();
        loop {
            if latch.probe() {
                break;
            }
            sleep.prepare_sleep(0);
            if latch.probe() {
                sleep.cancel_sleep(0);
                continue;
            }
            if !latch.try_sleep() {
                sleep.cancel_sleep(0);
                break;
            }
            sleep.sleep(0);
            if latch.wake_up() {
                break;
            }
        }
        sleep.stop_searching(0, 0);
        assert!(latch.probe());
        assert_eq!(result.load(Relaxed), 42, "the setter's writes are visible");
        setter.join().unwrap();
        assert_eq!(sleep.searching(), 0);
    });
}

/// (5b) The blocking latch of threads outside the pool (`install`).
#[test]
fn lock_latch_never_loses_the_wakeup() {
    builder(3).check(|| {
        let latch = Arc::new(LockLatch::new());
        let result = Arc::new(AtomicUsize::new(0));
        let setter = {
            let (latch, result) = (latch.clone(), result.clone());
            thread::spawn(move || {
                result.store(7, Relaxed);
                latch.set_now();
            })
        };
        latch.wait();
        assert_eq!(result.load(Relaxed), 7);
        setter.join().unwrap();
    });
}
