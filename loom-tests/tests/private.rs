//! loom models of the private `join` halves (`runtime::private`, and
//! "Private `join` halves" in `runtime::sleep`). Both sides of the
//! asymmetric fence are `fence(SeqCst)` under loom (the guarantee a
//! `membarrier` heavy fence gives a compiler-fenced light side), and the
//! slots are loom cells, so a slot read racing its write is reported.
//!
//! The first models race the owner's push/pop (and promotions) against a
//! thief's claim and check that every half runs exactly once. Then the
//! `wanted` hint (the pop's copy is a bit of the word claims lock): a
//! hint set during a claim survives the claim's unlock, `want` against
//! `settle` never leaves the push's copy set without the pop's
//! (invariant (H) of `runtime::private`), and a refill that finds its
//! deque short, which runs a `want` and no `settle`, leaves the hint set
//! in both words. The last one is the sleep side: an owner that pushes a half and then blocks
//! until it has run (the `a` that waits for its `b`), and a worker going
//! to sleep; loom reports a deadlock if the worker can park for good
//! while the half stays private.
#![cfg(loom)]

use locus::__loom::{Claim, Popped, PrivateStack, claim_before_parking, must_publish};
use locus::__loom::{IdleMasks, IdleShape, LockLatch, Sleep};
use locus_loom_tests::builder;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering::*};
use loom::thread;
use std::time::Duration;

/// "The queue" of the sleep-side model: a count of visible jobs.
struct Queue(AtomicUsize);

impl Queue {
    fn new() -> Self {
        Queue(AtomicUsize::new(0))
    }
    /// Makes one job visible (the caller then notifies, as pushers do).
    fn push(&self) {
        self.0.fetch_add(1, Release);
    }
    /// Takes one job if there is one.
    fn try_take(&self) -> bool {
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
    #[allow(dead_code)]
    fn is_empty(&self) -> bool {
        self.0.load(Acquire) == 0
    }
}

/// The sleep state of `workers` workers in LLCs of `per_llc`.
fn sleep_for(workers: usize, per_llc: usize) -> Arc<Sleep> {
    Arc::new(Sleep::new(
        IdleMasks::new(IdleShape::uniform(workers, per_llc, 0)),
        workers,
    ))
}

/// How often each half ran, by value (halves are numbered 0..N).
struct Runs(Vec<AtomicUsize>);

impl Runs {
    fn new(n: usize) -> Arc<Self> {
        Arc::new(Runs((0..n).map(|_| AtomicUsize::new(0)).collect()))
    }
    fn run(&self, half: usize) {
        self.0[half].fetch_add(1, Relaxed);
    }
    fn assert_each_once(&self) {
        for (h, n) in self.0.iter().enumerate() {
            assert_eq!(n.load(Relaxed), 1, "half {h} ran {} times", n.load(Relaxed));
        }
    }
}

/// A thief's claim, running what it got.
fn spawn_thief(stack: &Arc<PrivateStack<usize>>, runs: &Arc<Runs>) -> thread::JoinHandle<()> {
    let (stack, runs) = (stack.clone(), runs.clone());
    thread::spawn(move || {
        if let Claim::Taken(h) = stack.try_claim() {
            runs.run(h);
        }
    })
}

/// The owner pushes halves `0..n`, oldest first, with the `wanted` hint
/// clear (a new stack's is set: its deque is empty).
fn push_halves(n: usize) -> Arc<PrivateStack<usize>> {
    let stack = Arc::new(PrivateStack::new());
    stack.settle(|| false);
    for h in 0..n {
        // SAFETY: the calling thread is the owner.
        assert!(unsafe { stack.push(h) });
    }
    stack
}

/// The owner takes a half back: runs it if it is still private (with or
/// without the hint). Returns what the pop said.
fn pop_and_run(stack: &PrivateStack<usize>, half: usize, runs: &Runs) -> Popped {
    // SAFETY: called on the owner's thread only.
    let popped = unsafe { stack.pop() };
    if popped != Popped::Gone {
        runs.run(half);
    }
    popped
}

/// Invariant (H) of `runtime::private`, once every `want` and `settle`
/// has returned: if the push sees the hint, so does the pop.
fn assert_hint_consistent(stack: &PrivateStack<usize>) {
    let (push, pop) = stack.wanted_by();
    assert!(!push || pop, "the push's hint is set, the pop's is not");
}

/// A steal from the owner's deque: sets the hint (`PrivateStack::want`).
fn spawn_want(stack: &Arc<PrivateStack<usize>>) -> thread::JoinHandle<()> {
    let stack = stack.clone();
    thread::spawn(move || stack.want())
}

/// Push, pop against one claim: the half runs exactly once (by the owner
/// on its fast or slow path, or by the thief), never twice, never lost.
#[test]
fn claim_versus_pop() {
    builder(3).check(|| {
        let stack = push_halves(1);
        let runs = Runs::new(1);
        let thief = spawn_thief(&stack, &runs);
        pop_and_run(&stack, 0, &runs);
        thief.join().unwrap();
        runs.assert_each_once();
        assert!(!stack.has_private());
    });
}

/// Two nested halves, the outer one pushed before the thief starts, the
/// inner one while it claims, then slot 1 reused by a third half: the
/// thief takes at most the oldest, each half runs once, and a reused slot
/// is never read while written.
#[test]
fn claim_versus_nested_joins_and_slot_reuse() {
    builder(3).check(|| {
        let stack = push_halves(1);
        let runs = Runs::new(3);
        // SAFETY: this thread is the owner (all owner calls below).
        let thief = spawn_thief(&stack, &runs);
        assert!(unsafe { stack.push(1) });
        pop_and_run(&stack, 1, &runs);
        assert!(unsafe { stack.push(2) });
        pop_and_run(&stack, 2, &runs);
        pop_and_run(&stack, 0, &runs);
        thief.join().unwrap();
        runs.assert_each_once();
    });
}

/// Two thieves against the owner's pops of two halves: the `LOCKED` bit
/// serializes the claims (a contended one reports `Busy`), each half runs
/// once.
#[test]
fn two_thieves_versus_pops() {
    builder(2).check(|| {
        let stack = push_halves(2);
        let runs = Runs::new(2);
        let thieves = [spawn_thief(&stack, &runs), spawn_thief(&stack, &runs)];
        pop_and_run(&stack, 1, &runs);
        pop_and_run(&stack, 0, &runs);
        for t in thieves {
            t.join().unwrap();
        }
        runs.assert_each_once();
    });
}

/// A claim racing the owner's promotion of the oldest half (to a queue the
/// thief also looks at) and its pops: every half runs once, whichever of
/// the claim, the promotion and the pop gets it.
#[test]
fn claim_versus_promotion() {
    builder(3).check(|| {
        let stack = push_halves(2);
        let queue = Arc::new(loom::sync::Mutex::new(Vec::new()));
        let runs = Runs::new(2);
        let thief = {
            let (stack, queue, runs) = (stack.clone(), queue.clone(), runs.clone());
            thread::spawn(move || {
                if let Claim::Taken(h) = stack.try_claim() {
                    runs.run(h);
                }
                if let Some(h) = queue.lock().unwrap().pop() {
                    runs.run(h);
                }
            })
        };
        // SAFETY: owner.
        if let Some(h) = unsafe { stack.promote_oldest() } {
            queue.lock().unwrap().push(h);
        }
        pop_and_run(&stack, 1, &runs);
        pop_and_run(&stack, 0, &runs);
        thief.join().unwrap();
        // The owner takes back a promoted half nobody stole (as `join` pops
        // it from its deque).
        while let Some(h) = queue.lock().unwrap().pop() {
            runs.run(h);
        }
        runs.assert_each_once();
    });
}

/// A claim, the owner's pop and a steal's `want` at once: the half runs
/// once, and the hint, set by nobody but the `want`, is set at the end in
/// both copies (the claim's lock carries it over, its unlock is a
/// read-modify-write, the pop's reset keeps it).
#[test]
fn a_hint_set_during_a_claim_is_kept() {
    builder(3).check(|| {
        let stack = push_halves(1);
        let runs = Runs::new(1);
        let thief = spawn_thief(&stack, &runs);
        let want = spawn_want(&stack);
        pop_and_run(&stack, 0, &runs);
        thief.join().unwrap();
        want.join().unwrap();
        runs.assert_each_once();
        assert_eq!(stack.wanted_by(), (true, true));
        assert!(!stack.has_private());
    });
}

/// The owner's `settle` (clearing the hint, the deque long enough) against
/// a steal's `want`, with a claim locking and unlocking `bottom`
/// meanwhile: whichever wins, the push never sees the hint without the
/// pop (H); and the half runs once. The owner's pop, if it sees the hint,
/// settles as `owner::refill` does.
#[test]
fn want_against_settle_keeps_the_pop_s_hint() {
    builder(3).check(|| {
        against_want_and_claim(|stack, runs| {
            // The owner saw its deque hold enough (`owner::refill`).
            stack.settle(|| false);
            if pop_and_run(stack, 0, runs) == Popped::Wanted {
                stack.settle(|| false);
            }
        });
    });
}

/// The owner's refill that finds its deque short (`owner::refill`): no
/// `settle`, only a `want`. Here the owner settled first (an earlier
/// refill saw enough), against a steal's `want` and a claim, so the pop
/// may find the converse state (`WANTED` without `limit`): the half runs
/// once, (H) holds, and if the pop reported the hint, the refill's `want`
/// leaves it set in both words.
#[test]
fn a_short_refill_leaves_the_hint_set_in_both_words() {
    builder(3).check(|| {
        let (stack, wanted) = against_want_and_claim(|stack, runs| {
            stack.settle(|| false);
            let wanted = pop_and_run(stack, 0, runs) == Popped::Wanted;
            if wanted {
                // The deque is short: the refill leaves the hint set.
                stack.want();
            }
            wanted
        });
        if wanted {
            assert_eq!(stack.wanted_by(), (true, true));
        }
    });
}

/// One private half, a steal's `want` and a thief's claim, against the
/// owner's `owner` (given the stack and the runs): when all three are
/// done, the half ran once and (H) holds. Returns the stack and what
/// `owner` returned.
fn against_want_and_claim<R>(
    owner: impl FnOnce(&Arc<PrivateStack<usize>>, &Runs) -> R,
) -> (Arc<PrivateStack<usize>>, R) {
    let stack = push_halves(1);
    let runs = Runs::new(1);
    let want = spawn_want(&stack);
    let thief = spawn_thief(&stack, &runs);
    let r = owner(&stack, &runs);
    want.join().unwrap();
    thief.join().unwrap();
    runs.assert_each_once();
    assert_hint_consistent(&stack);
    (stack, r)
}

/// The sleep side. Worker 0 pushes half 0 privately, then publishes
/// everything if some worker is idle (`must_publish`, as `push_private`
/// does), then blocks until the half has run: `a` waiting for `b` where
/// the pool cannot see it. Worker 1 searches the queue, goes idle, and in
/// its re-check runs `claim_before_parking` (heavy fence, claim) before it
/// parks. If worker 1 could park while the half stays private, both would
/// block for good and loom would report a deadlock.
#[test]
fn parking_worker_gets_a_private_half_of_a_blocked_owner() {
    builder(3).check(|| blocked_owner_and_parking_worker(false));
}

/// The lazy park ("Private `join` halves" in `runtime::sleep`): as
/// above, but worker 1's first re-check does not look at the private
/// halves at all (the worst its unfenced look can do: every read stale)
/// and it parks with a timeout (under loom a timed park returns at once,
/// at any point of the owner's run, with the token if one was left); when
/// the timeout expires it re-checks with the fenced look before it parks
/// without a timeout. Without that look loom finds the deadlock (checked
/// when the model was written).
#[test]
fn lazy_parking_worker_gets_a_private_half_of_a_blocked_owner() {
    builder(3).check(|| blocked_owner_and_parking_worker(true));
}

/// The model of the two tests above; `lazy`: worker 1 parks lazily.
fn blocked_owner_and_parking_worker(lazy: bool) {
    let sleep: Arc<Sleep> = sleep_for(2, 2);
    let stacks = Arc::new([PrivateStack::new(), PrivateStack::new()]);
    let queue = Arc::new(Queue::new());
    let ran = Arc::new(LockLatch::new());
    let runs = Runs::new(1);
    let thief = {
        let (sleep, stacks, queue, ran, runs) = (
            sleep.clone(),
            stacks.clone(),
            queue.clone(),
            ran.clone(),
            runs.clone(),
        );
        thread::spawn(move || {
            let run = || {
                runs.run(0);
                ran.set_now();
            };
            sleep.start_searching(1);
            loop {
                if queue.try_take() {
                    sleep.stop_searching(1, 0);
                    return run();
                }
                let idle = sleep.prepare_sleep(1);
                if queue.try_take() {
                    sleep.cancel_sleep(idle);
                    sleep.stop_searching(1, 0);
                    return run();
                }
                if lazy {
                    // The lazy re-check saw nothing; the timed park.
                    if sleep.park_for(&idle, Duration::from_micros(1)) {
                        sleep.cancel_sleep(idle);
                        continue;
                    }
                    // Expired: the fenced re-check.
                    if queue.try_take() {
                        sleep.cancel_sleep(idle);
                        sleep.stop_searching(1, 0);
                        return run();
                    }
                }
                let victims = stacks.iter().enumerate();
                match claim_before_parking(sleep.idle(), 1, victims) {
                    Claim::Taken((0, 0)) => {
                        sleep.cancel_sleep(idle);
                        sleep.stop_searching(1, 0);
                        return run();
                    }
                    Claim::Taken(other) => panic!("claimed {other:?}"),
                    Claim::Busy => {
                        sleep.cancel_sleep(idle);
                        continue;
                    }
                    Claim::Empty => {}
                }
                sleep.park(&idle);
                sleep.cancel_sleep(idle);
            }
        })
    };
    // Worker 0, the owner.
    // SAFETY: this thread owns stacks[0].
    assert!(unsafe { stacks[0].push(0) });
    if must_publish(sleep.idle().root_word(), || sleep.idle()) {
        // SAFETY: owner.
        unsafe { stacks[0].promote_all(|_| queue.push()) };
        sleep.notify(Some(0), 0);
    }
    ran.wait();
    thief.join().unwrap();
    runs.assert_each_once();
}
