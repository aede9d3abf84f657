//! loom models of `runtime::sleep` and `runtime::latch` (see their module
//! docs for the protocol and the proof sketch). A lost wakeup shows up as a
//! loom deadlock (a worker parked forever).
#![cfg(loom)]

use locus::__loom::{CoreLatch, IdleMasks, IdleShape, Sleep};
use locus_loom_tests::builder;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use loom::thread;

/// A worker's search loop reduced to one "queue" flag, as in
/// `WorkerThread::search`: look, announce idle, re-check, park. Returns
/// once it took a job, or `done` was set.
fn worker_loop(sleep: &Sleep, w: usize, job: &AtomicUsize, done: &AtomicBool) -> bool {
    sleep.start_searching();
    loop {
        if take(job) {
            sleep.stop_searching(w, 0);
            return true;
        }
        if done.load(SeqCst) {
            sleep.stop_searching(w, 0);
            return false;
        }
        sleep.prepare_sleep(w);
        // The re-check after the fence.
        if take(job) {
            sleep.cancel_sleep(w);
            sleep.stop_searching(w, 0);
            return true;
        }
        if done.load(SeqCst) {
            sleep.cancel_sleep(w);
            sleep.stop_searching(w, 0);
            return false;
        }
        sleep.sleep(w);
    }
}

/// Takes one job from the counter "queue" (a steal: CAS).
fn take(job: &AtomicUsize) -> bool {
    let mut n = job.load(Acquire);
    while n > 0 {
        match job.compare_exchange(n, n - 1, AcqRel, Acquire) {
            Ok(_) => return true,
            Err(m) => n = m,
        }
    }
    false
}

/// A push as the deques do it: a release store, then `notify`.
fn push(sleep: &Sleep, from: Option<usize>, job: &AtomicUsize) {
    job.fetch_add(1, Release);
    sleep.notify(from, 0);
}

/// One worker going to sleep, one pusher (a busy worker): the sleeper must
/// end up with the job.
#[test]
fn sleeper_versus_pusher() {
    builder(3).check(|| {
        let sleep = Arc::new(Sleep::new(IdleMasks::new(IdleShape::uniform(2, 2, 0)), 2));
        let job = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let t = {
            let (sleep, job, done) = (sleep.clone(), job.clone(), done.clone());
            thread::spawn(move || worker_loop(&sleep, 0, &job, &done))
        };
        push(&sleep, Some(1), &job);
        assert!(t.join().unwrap(), "the sleeper must take the job");
        assert_eq!(sleep.searching(), 0, "searcher count balanced");
    });
}

/// A push from outside the pool (an injector) while the only worker is
/// going to sleep.
#[test]
fn sleeper_versus_external_push() {
    builder(3).check(|| {
        let sleep = Arc::new(Sleep::new(IdleMasks::new(IdleShape::uniform(1, 1, 0)), 1));
        let job = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let t = {
            let (sleep, job, done) = (sleep.clone(), job.clone(), done.clone());
            thread::spawn(move || worker_loop(&sleep, 0, &job, &done))
        };
        push(&sleep, None, &job);
        assert!(t.join().unwrap());
    });
}

/// Two workers searching/sleeping, one job pushed: exactly one takes it;
/// the taker then shuts down (done + wake_all) so the other returns. If the
/// pusher skipped its wakeup because a searcher was counted, that searcher
/// must have found the job or re-checked (the skip rule).
#[test]
fn two_sleepers_one_job_skip_rule() {
    builder(2).check(|| {
        let sleep = Arc::new(Sleep::new(IdleMasks::new(IdleShape::uniform(3, 3, 0)), 3));
        let job = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let spawn = |w: usize| {
            let (sleep, job, done) = (sleep.clone(), job.clone(), done.clone());
            thread::spawn(move || {
                let got = worker_loop(&sleep, w, &job, &done);
                if got {
                    done.store(true, SeqCst);
                    sleep.wake_all();
                }
                got
            })
        };
        let a = spawn(0);
        let b = spawn(1);
        push(&sleep, Some(2), &job);
        let (ga, gb) = (a.join().unwrap(), b.join().unwrap());
        assert!(ga ^ gb, "exactly one worker takes the job: {ga} {gb}");
    });
}

/// A worker waiting on a latch (join): it parks with the latch marked
/// SLEEPING; the setter must wake it.
#[test]
fn latch_owner_versus_setter() {
    builder(3).check(|| {
        let sleep = Arc::new(Sleep::new(IdleMasks::new(IdleShape::uniform(2, 2, 0)), 2));
        let latch = Arc::new(CoreLatch::new());
        let owner = {
            let (sleep, latch) = (sleep.clone(), latch.clone());
            thread::spawn(move || {
                sleep.start_searching();
                loop {
                    if latch.probe() {
                        break;
                    }
                    sleep.prepare_sleep(0);
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
            })
        };
        // The setter (the thief that ran the other half of the join).
        // SAFETY: the latch is kept alive by the Arc.
        if unsafe { CoreLatch::set(&*latch) } {
            sleep.wake_worker(0);
        }
        owner.join().unwrap();
        assert!(latch.probe());
    });
}
