//! loom models of the sleep protocol (`runtime::sleep`), run through the
//! workers' real search loop (`runtime::search`), and of the latches
//! (`runtime::latch`). Every model's pool is terminating with its jobs
//! announced (see `Pool::new`): a lost wakeup leaves a worker parked
//! forever with a job queued, which loom reports as a deadlock; the
//! assertions check the rest.
#![cfg(loom)]

use locus::__loom::{CoreLatch, CountLatch, IdleShape, Latch, LockLatch};
use locus_loom_tests::{Frame, FrameOwner, Kind, Pool, builder};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use loom::thread;

/// (4a) One job pushed from outside while the only worker goes to sleep:
/// the worker either sees the job in its re-check or is woken.
#[test]
fn push_versus_sleep_one_worker() {
    builder(3).check(|| {
        let pool = Pool::new(IdleShape::uniform(1, 1, 0), &[Kind::Shared], 1).start(&[0]);
        pool.push(0);
        pool.sleep.notify(None, 0);
        pool.finish();
    });
}

/// (4b) Two workers in two LLCs going to sleep while a job is pushed from
/// outside into LLC 0's injector: one of them runs it. Exercises the
/// searching count and a remote claim.
#[test]
fn push_versus_sleep_two_workers() {
    builder(2).check(|| {
        let pool = Pool::new(IdleShape::uniform(2, 1, 0), &[Kind::Shared], 1).start(&[0, 1]);
        pool.push(0);
        pool.sleep.notify(None, 0);
        pool.finish();
    });
}

/// The common model of a busy worker: `pusher` (not started: it is
/// running a job) pushes one job on its deque and notifies, as
/// `WorkerThread::push` does, while the workers `started` search or sleep;
/// the job must run and every count end at zero.
fn busy_worker_pushes(b: loom::model::Builder, shape: IdleShape, pusher: usize, started: &[usize]) {
    let started = started.to_vec();
    b.check(move || {
        let pool = Pool::new(shape.clone(), &[Kind::Deque(pusher)], 1).start(&started);
        pool.push(0);
        let llc = pool.llc_of(pusher);
        pool.sleep.notify(Some(pusher), llc);
        pool.finish();
    });
}

/// (4c) A busy worker (1) pushes on its deque and notifies while another
/// worker of its LLC goes to sleep: the sleeper steals the job, and the
/// searcher count is balanced.
#[test]
fn push_by_a_worker_versus_sleep() {
    busy_worker_pushes(builder(3), IdleShape::uniform(2, 2, 0), 1, &[0]);
}

/// (4d) Two workers of one LLC searching or sleeping, one job pushed by a
/// busy third on its deque: one of them runs it. If the pusher skipped
/// its wakeup because a searcher was counted, that searcher found the job
/// or re-checked (the skip rule).
#[test]
fn two_sleepers_one_job_skip_rule() {
    busy_worker_pushes(builder(2), IdleShape::uniform(3, 3, 0), 2, &[0, 1]);
}

/// The local wake and near passes (two LLCs, {0, 1} and {2, 3}): worker
/// 2 (busy, in LLC 1) pushes on its deque while worker 0 of LLC 0 searches
/// (looking only inside LLC 0 until its re-check) and worker 3, its LLC
/// mate, goes to sleep. The push's notify may take the local wake (LLC 1
/// has no searcher) while the global rule would skip; either way the job
/// runs, and every count, the per-LLC ones too, ends at zero.
#[test]
fn local_wake_while_another_llc_searches() {
    busy_worker_pushes(builder(2), IdleShape::uniform(4, 2, 0), 2, &[0, 3]);
}

/// The spill of the local wake (three LLCs of two): worker 2 pushes in
/// LLC 1, whose other worker is busy too (saturated), while worker 0 of
/// LLC 0 and worker 4 of LLC 2 search or sleep. The notify may claim
/// worker 4 (LLC 2, nobody searching there) although worker 0 searches;
/// the job runs and the counts end at zero. Both workers reach the job
/// only through a far pass, so this also checks that re-checks look far:
/// with a near re-check loom finds the deadlock (checked when written).
#[test]
fn saturated_llc_spills_the_wake() {
    busy_worker_pushes(builder(2), IdleShape::uniform(6, 2, 0), 2, &[0, 4]);
}

/// Two jobs, the first of which blocks until the second ran (a job
/// waiting where the pool cannot see). Both pushes may skip their wakeup
/// because worker 0 is counted as searching; worker 0 then finds the first
/// job, not "the" job of either push, and blocks in it. Only the hand-off
/// of `stop_searching` (the last searcher to leave wakes a helper) gets
/// worker 1 up for the second. (Without that notify loom finds the
/// deadlock: checked when the model was written.)
#[test]
fn two_jobs_searcher_passes_the_notify_on() {
    builder(2).check(|| {
        let pool =
            Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Shared], 2).first_job_waits_for_second();
        let pool = pool.start(&[0, 1]);
        for _ in 0..2 {
            pool.push(0);
            pool.sleep.notify(None, 0);
        }
        pool.finish();
    });
}

/// The lazy park ("Private `join` halves" in `runtime::sleep`): the two
/// models above with every park lazy and the lazy re-check blind
/// (`Pool::lazy_parks`). A busy worker's push against a worker going to
/// sleep, and two jobs of which the first waits for the second: each job
/// runs because the search re-checks, fenced, when a timed park expires,
/// before it parks without a timeout. (Without that re-check, the Lazy
/// state parking again at once, loom finds a deadlock in them: checked
/// when the models were written.)
#[test]
fn lazy_park_push_by_a_worker_versus_sleep() {
    builder(3).check(|| {
        let pool = Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Deque(1)], 1)
            .lazy_parks()
            .start(&[0]);
        pool.push(0);
        pool.sleep.notify(Some(1), 0);
        pool.finish();
    });
}

/// See [`lazy_park_push_by_a_worker_versus_sleep`].
#[test]
fn lazy_park_two_jobs_searcher_passes_the_notify_on() {
    builder(2).check(|| {
        let pool = Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Shared], 2)
            .lazy_parks()
            .first_job_waits_for_second();
        let pool = pool.start(&[0, 1]);
        for _ in 0..2 {
            pool.push(0);
            pool.sleep.notify(None, 0);
        }
        pool.finish();
    });
}

/// One job pushed from outside to two workers born idle: the worker the
/// push claims takes it, and its look before the hand-off sees no other
/// job, so nobody else is woken (before the look, every such job woke a
/// second worker, which found nothing and parked again). No wakeup is
/// lost meanwhile (loom's deadlock check), whichever worker is claimed.
#[test]
fn one_push_wakes_one_worker() {
    builder(3).check(|| {
        let (pool, unrun) =
            Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Shared], 1).start_born(&[0, 1], &[0, 1]);
        assert!(unrun.is_empty());
        let shared = pool.shared();
        pool.push(0);
        pool.sleep.notify(None, 0);
        pool.finish();
        assert_eq!(shared.handoffs(), 0, "a second worker woken for nothing");
    });
}

/// Stale tokens: a stray unpark (a latch set after its owner stopped
/// waiting) and unparks of claims that land after the claimed worker woke
/// on its own leave tokens in the parker, so a later `park` returns at
/// once; and a claimed worker may stop searching before its claimer counts
/// it (the count dips below zero). The worker must go back to sleep
/// properly (its second job is not lost) and the count must end balanced.
#[test]
fn stale_tokens() {
    builder(3).check(|| {
        let first_ran = Arc::new(LockLatch::new());
        let body = {
            let (first_ran, runs) = (first_ran.clone(), AtomicUsize::new(0));
            move |_: &Pool, _, _| {
                if runs.fetch_add(1, Relaxed) == 0 {
                    first_ran.set_now();
                }
            }
        };
        let pool = Pool::new(IdleShape::uniform(1, 1, 0), &[Kind::Shared], 2).with_body(body);
        let pool = pool.start(&[0]);
        pool.sleep.wake_worker(0);
        pool.push(0);
        pool.sleep.notify(None, 0);
        first_ran.wait();
        pool.push(0);
        pool.sleep.notify(None, 0);
        pool.finish();
    });
}

/// The join latch: the owner runs the real search with its latch (as
/// `wait_until`), goes idle, announces sleep on the latch and parks;
/// another thread writes the result and sets the latch, waking the owner if
/// it announced sleep (as `SpinLatch::set`). The owner never sleeps
/// through the set, never returns before it, and sees the result.
#[test]
fn join_latch_never_loses_the_wakeup() {
    builder(3).check(|| join_latch_model(false));
}

/// The join latch model, with every park lazy and the lazy re-check blind
/// if `lazy` ([`Pool::lazy_parks`]).
fn join_latch_model(lazy: bool) {
    let pool = Arc::new(lazy_if(
        Pool::new(IdleShape::uniform(2, 2, 0), &[], 0),
        lazy,
    ));
    let latch = Arc::new(CoreLatch::new());
    let result = Arc::new(AtomicUsize::new(0));
    let setter = {
        let (pool, latch, result) = (pool.clone(), latch.clone(), result.clone());
        thread::spawn(move || {
            result.store(42, Relaxed);
            set_waking_0(&pool, &latch);
        })
    };
    wait_on(&pool, &latch);
    assert_eq!(result.load(Relaxed), 42, "the setter's writes are visible");
    setter.join().unwrap();
    assert_eq!(pool.sleep.searching(), 0);
    assert!(!pool.sleep.idle().any_idle(), "an idle bit left armed");
}

/// Sets `latch` as a job's end does: wakes worker 0 if the set found it
/// announced asleep on the latch.
fn set_waking_0(pool: &Pool, latch: &CoreLatch) {
    // SAFETY: the caller's borrow keeps the latch alive for this call.
    if unsafe { CoreLatch::set(latch) } {
        pool.sleep.wake_worker(0);
    }
}

/// Worker 0 waits on `latch`; it must not return before the latch is set.
fn wait_on(pool: &Pool, latch: &CoreLatch) {
    pool.wait_until(0, latch);
    assert!(
        latch.probe(),
        "the waiter returned before its latch was set"
    );
}

/// `pool` with every park lazy and the lazy re-check blind if `lazy`.
fn lazy_if(pool: Pool, lazy: bool) -> Pool {
    if lazy { pool.lazy_parks() } else { pool }
}

/// A latch waiter racing a push and its latch's set: worker 0 waits for
/// its latch in the search loop (and may be claimed for the job, counted
/// as a searcher by the pusher), worker 1 is idle. The pusher's notify may
/// claim worker 0, whose latch is then set: worker 0 leaves without
/// looking for the job, and then blocks until the job ran (user code that
/// waits for other work). Only `stop_searching`'s hand-off wakes worker 1.
/// (Without that notify loom finds the deadlock: checked when the model
/// was written.)
#[test]
fn latch_waiter_racing_pushes_and_claims() {
    builder(2).check(|| latch_waiter_racing_model(false));
}

/// The racing latch waiter's model, with every park lazy and the lazy
/// re-check blind if `lazy`.
fn latch_waiter_racing_model(lazy: bool) {
    let job_ran = Arc::new(LockLatch::new());
    let body = {
        let job_ran = job_ran.clone();
        move |_: &Pool, _, _| job_ran.set_now()
    };
    let pool = lazy_if(
        Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Shared], 1),
        lazy,
    );
    let pool = pool.with_body(body).start(&[1]);
    let latch = Arc::new(CoreLatch::new());
    let waiter = {
        let (pool, latch) = (pool.shared(), latch.clone());
        thread::spawn(move || {
            wait_on(&pool, &latch);
            job_ran.wait();
        })
    };
    pool.push(0);
    pool.sleep.notify(None, 0);
    set_waking_0(&pool, &latch);
    waiter.join().unwrap();
    pool.finish();
}

/// A latch waiter's lazy park ("A latch waiter's lazy park" in
/// `runtime::sleep`): the join latch model above with every park lazy and
/// the lazy re-check blind. The setter's swap lands anywhere in the
/// waiter's announce, timed park (which under loom returns at once, with
/// the setter's token or without), withdrawal, fenced re-check, second
/// announce and untimed park: the waiter never sleeps through the set,
/// and never returns before it. (Without the withdrawal, the second
/// announce fails on the waiter's own `SLEEPING` and the waiter returns
/// with the latch unset: loom finds it, checked when the model was
/// written.)
#[test]
fn lazy_latch_never_loses_the_wakeup() {
    builder(3).check(|| join_latch_model(true));
}

/// A latch waiter whose latch is set only by a job it must find itself: a
/// busy worker (1, not started) pushes the job on its deque and
/// notifies, and the job sets the waiter's latch. The push may skip its
/// wakeup (the waiter counted as searching) or claim the waiter; the
/// waiter's lazy re-check is blind, so only its fenced re-check after the
/// timeout sees the job if the claim did not come. The job runs, on the
/// waiter, and the waiter returns with its latch set. (With the lazy
/// state parking untimed without the fenced re-check, loom finds the
/// deadlock: checked when the model was written.)
#[test]
fn lazy_latch_waiter_finds_the_job_that_sets_its_latch() {
    builder(3).check(|| {
        let latch = Arc::new(CoreLatch::new());
        let body = {
            let latch = latch.clone();
            move |pool: &Pool, _, _| {
                set_waking_0(&pool, &latch);
            }
        };
        let pool = Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Deque(1)], 1)
            .lazy_parks()
            .with_body(body)
            .start(&[]);
        let waiter = {
            let (pool, latch) = (pool.shared(), latch.clone());
            thread::spawn(move || {
                wait_on(&pool, &latch);
            })
        };
        pool.push(0);
        pool.sleep.notify(Some(1), 0);
        waiter.join().unwrap();
        pool.finish();
    });
}

/// [`latch_waiter_racing_pushes_and_claims`] with every park lazy and the
/// lazy re-check blind: a claim, the latch's set and the job's push race
/// the waiter's timed park, withdrawal and fenced re-check.
#[test]
fn lazy_latch_waiter_racing_pushes_and_claims() {
    builder(2).check(|| latch_waiter_racing_model(true));
}

/// [`count_latch_frame_freed_by_the_waiter`] with every park lazy and the
/// lazy re-check blind: the owner frees the frame as soon as it sees the
/// latch set, whether it saw it in a timed park, at the withdrawal after
/// one, or later; no setter touches the frame afterwards.
#[test]
fn lazy_latch_count_latch_frame_freed_by_the_waiter() {
    builder(2).check(|| count_latch_frame_model(true));
}

/// Clusters in the idle masks (an LLC of 4 workers in clusters {0, 1} and
/// {2, 3}): a busy worker of cluster 1 (3) pushes on its deque and
/// notifies, which claims in its own cluster first (worker 2 is busy
/// throughout), then in the rest of the LLC, where workers 0 and 1 go to
/// sleep. One of them runs the job. (A claim that stopped at the cluster
/// would leave them parked: loom finds the deadlock, checked when the
/// model was written.)
#[test]
fn clusters_claim_own_cluster_then_llc() {
    builder(2).check(|| {
        let pool = Pool::new(IdleShape::uniform(4, 4, 2), &[Kind::Deque(3)], 1).start(&[0, 1]);
        pool.push(0);
        pool.sleep.notify(Some(3), 0);
        pool.finish();
    });
}

/// Multi-word masks: LLC 0 has 66 workers (two idle words), followed by 64
/// LLCs of one worker (8-bit leaf fields, 8 LLCs per leaf word: 9 leaf
/// words, 2 words at level 1 of the summary tree, and the root). Every
/// worker but one is busy throughout; the one that goes to sleep is worker
/// 65 (in the second idle word of LLC 0), then, in a second model, worker
/// 129 (the last LLC, in the last leaf word and the last level-1 word). A
/// job pushed from outside into LLC 0's injector must wake it: a claim
/// that missed a word would leave it parked (loom reports the deadlock).
#[test]
fn multi_word_masks() {
    for sleeper in [65, 129] {
        builder(3).check(move || {
            let llc_ranges = std::iter::once(0..66)
                .chain((66..130).map(|w| w..w + 1))
                .collect();
            let shape = IdleShape {
                llc_order: (0..65)
                    .map(|l| {
                        let mut o: Vec<usize> = (0..65).filter(|&m| m != l).collect();
                        o.sort_by_key(|&m| (m.abs_diff(l), m));
                        // The order as runs of LLC indices, one per LLC.
                        o.into_iter().map(|m| m..m + 1).collect()
                    })
                    .collect(),
                llc_ranges,
                cluster_ranges: vec![],
                core_ranges: vec![],
                capacity: vec![1024; 130],
            };
            let pool = Pool::new(shape, &[Kind::Shared], 1).start(&[sleeper]);
            pool.push(0);
            pool.sleep.notify(None, 0);
            pool.finish();
        });
    }
}

/// A scope's counting latch whose frame the owner frees as soon as it sees
/// the latch set: the owner (worker 0) spawns two jobs on its deque, sets
/// its own share and waits in the search loop; worker 1 steals. Each job
/// sets the latch when done. No setter touches the latch's frame after the
/// owner may have freed it (loom checks the reads of `FrameOwner`, which
/// `CountLatch::set` copies out), and the owner is never left asleep.
#[test]
fn count_latch_frame_freed_by_the_waiter() {
    builder(3).check(|| count_latch_frame_model(false));
}

/// The scope latch's frame model, with every park lazy and the lazy
/// re-check blind if `lazy`.
fn count_latch_frame_model(lazy: bool) {
    let pool = lazy_if(
        Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Deque(0)], 2),
        lazy,
    );
    let frame = Arc::new(Frame::default());
    let owner = FrameOwner {
        sleep: pool.sleep.clone(),
        worker: 0,
        frame: frame.clone(),
    };
    let latch = Arc::new(CountLatch::with_owner(owner, 1));
    let body = {
        let latch = latch.clone();
        // SAFETY: the Arc keeps the memory valid; `Frame` checks that
        // the frame is not used after the owner freed it.
        move |_: &Pool, _, _| unsafe { CountLatch::set(&*latch) }
    };
    let pool = pool.with_body(body).start(&[1]);
    for _ in 0..2 {
        latch.increment();
        pool.push(0);
        pool.sleep.notify(Some(0), 0);
    }
    // SAFETY: as above.
    unsafe { CountLatch::set(&*latch) };
    pool.wait_until(0, &latch.core);
    assert!(latch.core.probe());
    frame.free();
    pool.finish();
}

/// Shutdown against a spawn: a detached job, on worker 0's deque from the
/// start, spawns another onto the deque of the worker running it (counted
/// first, then pushed and notified, as `spawn` does) and waits for it
/// where the pool cannot see, while the pool terminates (`terminate`:
/// flag, wake everyone). No worker leaves while a counted job is pending,
/// so the other worker runs the second job; then both leave. (With an exit
/// condition that ignores the count, loom finds the deadlock: checked when
/// the model was written.)
#[test]
fn terminate_versus_spawns() {
    builder(2).check(|| {
        let second_ran = Arc::new(LockLatch::new());
        let body = {
            let second_ran = second_ran.clone();
            let spawned = AtomicBool::new(false);
            move |pool: &Pool, w: usize, _| {
                if !spawned.swap(true, Relaxed) {
                    pool.announce();
                    pool.push(w);
                    pool.sleep.notify(Some(w), pool.llc_of(w));
                    second_ran.wait();
                } else {
                    second_ran.set_now();
                }
            }
        };
        let kinds = [Kind::Deque(0), Kind::Deque(1)];
        let pool = Pool::new(IdleShape::uniform(2, 2, 0), &kinds, 1)
            .running()
            .with_body(body);
        pool.push(0);
        let pool = pool.start(&[0, 1]);
        pool.terminate();
        pool.finish();
    });
}

/// The blocking latch of threads outside the pool (`install`).
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

/// Workers born idle (`Sleep::born_idle`, set before any thread runs and
/// before any push) park without a pass: a job pushed from outside with
/// its notify still runs, whether the notify's claim lands before a
/// worker's first park, while it is parked, or after it was woken by
/// another. ("Born idle" in `sleep`.)
#[test]
fn born_idle_workers_versus_a_push_from_outside() {
    builder(3).check(|| {
        let pool = Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Shared], 1);
        let (pool, unrun) = pool.start_born(&[0, 1], &[0, 1]);
        assert!(unrun.is_empty());
        pool.push(0);
        pool.sleep.notify(None, 0);
        pool.finish();
    });
}

/// A busy worker (2, never born idle: the adopted caller of
/// `use_current_thread`, say) pushes on its deque while its two LLC mates
/// are born idle and park: one of them runs the job, and no pass skipped
/// the busy worker's deque (its idle bit is clear).
#[test]
fn born_idle_workers_steal_from_a_busy_one() {
    builder(2).check(|| {
        let pool = Pool::new(IdleShape::uniform(3, 3, 0), &[Kind::Deque(2)], 1);
        let (pool, _) = pool.start_born(&[0, 1], &[0, 1]);
        pool.push(0);
        pool.sleep.notify(Some(2), 0);
        pool.finish();
    });
}

/// A worker born idle whose thread never runs (a spawn handler dropped its
/// `ThreadBuilder`) retires its token (`Sleep::retire`) while a push's
/// notify may claim it: the claim's wakeup is handed on to the worker
/// that does run, and the counts end balanced.
#[test]
fn a_worker_that_never_runs_hands_its_claim_on() {
    builder(3).check(|| {
        let pool = Pool::new(IdleShape::uniform(2, 2, 0), &[Kind::Shared], 1);
        let (pool, mut unrun) = pool.start_born(&[0, 1], &[0]);
        let retired = {
            let (p, idle) = (pool.shared(), unrun.pop().unwrap());
            thread::spawn(move || {
                p.sleep.retire(idle);
            })
        };
        pool.push(0);
        pool.sleep.notify(None, 0);
        retired.join().unwrap();
        pool.finish();
    });
}
