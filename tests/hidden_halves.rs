//! No hidden `join` halves (issue 8, item 4): an idle worker gets a
//! pending second half `b` even while the worker that called `join` runs
//! long serial code in `a`, or is blocked in `a` where the pool cannot see
//! it (a spin, a channel, a mutex, another pool's `install`).
//!
//! Every scenario runs on a pool of 2 workers and first fills the joining
//! worker's deque with 8 tiny scope spawns, so that `b` is not promoted at
//! `join` entry (the deque is not running low): the other worker drains
//! the spawns and then must find `b` on its own. In each scenario `a` and
//! `b` must *overlap*: `a` waits (up to a generous deadline, so that a
//! regression fails instead of hanging) until `b` has started. No timing
//! is asserted: only that the overlap happened at all.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

mod common;
use common::work::pool;

/// How long `a` waits for `b` before the scenario counts as failed.
const DEADLINE: Duration = Duration::from_secs(30);
/// Rounds per scenario: the deque-filling race (the other worker may steal
/// spawns before `join` starts) is won in most rounds, not all.
const ROUNDS: usize = 5;

/// Aborts the test process if `f` has not returned within 5 minutes: a
/// hang elsewhere (not in the waits below, which all have deadlines)
/// becomes a failure with a message instead of a stuck CI job.
fn with_watchdog<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let d = done.clone();
    let name = name.to_string();
    std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(300);
        while !d.load(Ordering::Acquire) {
            if Instant::now() > end {
                eprintln!("watchdog: {name} still running after 300 s; aborting");
                std::process::abort();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let r = f();
    done.store(true, Ordering::Release);
    r
}

/// Runs one round: in a scope on `p`, 8 tiny spawns, then `join(a, b)`.
/// `a` returns whether it saw `b` run (while `a` itself ran). Returns
/// `a`'s answer.
fn round(p: &locus::ThreadPool, a: impl FnOnce() -> bool + Send, b: impl FnOnce() + Send) -> bool {
    let tiny = AtomicUsize::new(0);
    let saw_b = p.install(|| {
        locus::scope(|s| {
            for _ in 0..8 {
                s.spawn(|_| {
                    tiny.fetch_add(1, Ordering::Relaxed);
                });
            }
            locus::join(a, b).0
        })
    });
    assert_eq!(tiny.into_inner(), 8);
    saw_b
}

/// Spins until `flag` is set or [`DEADLINE`] passes; returns the flag.
fn spin_until(flag: &AtomicBool) -> bool {
    common::work::spin_until(flag, DEADLINE, std::hint::spin_loop)
}

/// Runs `ROUNDS` rounds on a fresh 2-worker pool; `one` runs a round.
fn scenario(name: &str, one: impl Fn(&locus::ThreadPool) -> bool) {
    with_watchdog(name, || {
        let p = pool(2);
        for i in 0..ROUNDS {
            assert!(
                one(&p),
                "{name}, round {i}: `b` did not run while `a` waited for it: it stayed \
                 hidden\n{}",
                p.stats()
            );
        }
    });
}

/// `a` is long serial code (here a spin) that ends only once `b` has
/// started on the other worker.
#[test]
fn a_spinning_for_b_overlaps_b() {
    scenario("spin", |p| {
        let flag = AtomicBool::new(false);
        round(
            p,
            || spin_until(&flag),
            || flag.store(true, Ordering::Release),
        )
    });
}

/// `a` blocks on a channel that `b` sends on.
#[test]
fn a_blocked_on_a_channel_overlaps_b() {
    scenario("channel", |p| {
        let (tx, rx) = mpsc::channel::<()>();
        round(
            p,
            move || rx.recv_timeout(DEADLINE).is_ok(),
            move || {
                let _ = tx.send(());
            },
        )
    });
}

/// `a` blocks on a mutex and condition variable that `b` signals.
#[test]
fn a_blocked_on_a_condvar_overlaps_b() {
    scenario("condvar", |p| {
        let pair = (Mutex::new(false), Condvar::new());
        round(
            p,
            || {
                let g = pair.0.lock().unwrap();
                let (g, _) = pair.1.wait_timeout_while(g, DEADLINE, |set| !*set).unwrap();
                *g
            },
            || {
                *pair.0.lock().unwrap() = true;
                pair.1.notify_all();
            },
        )
    });
}

/// `a` waits inside another pool's `install` for `b`.
#[test]
fn a_waiting_in_another_pools_install_overlaps_b() {
    let other = pool(1);
    scenario("other pool's install", |p| {
        let flag = AtomicBool::new(false);
        round(
            p,
            || other.install(|| spin_until(&flag)),
            || flag.store(true, Ordering::Release),
        )
    });
}

/// Many joins where some `a`s wait for their `b` (a random 1 in 64 of
/// the leaves' parents, at most 2 waiting at a time so that 4 workers
/// cannot all be waiting): every closure runs exactly once and the sums
/// are right.
#[test]
fn waiting_joins_run_every_half_once() {
    fn tree(depth: u32, seed: u64, ran: &AtomicUsize, waiting: &AtomicUsize) -> u64 {
        ran.fetch_add(1, Ordering::Relaxed);
        if depth == 0 {
            return 1;
        }
        let seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if depth == 1 && (seed >> 58) == 0 && waiting.fetch_add(1, Ordering::AcqRel) < 2 {
            let b_started = AtomicBool::new(false);
            let (x, y) = locus::join(
                || {
                    assert!(spin_until(&b_started), "a waited for b in vain");
                    tree(0, seed, ran, waiting)
                },
                || {
                    b_started.store(true, Ordering::Release);
                    tree(0, seed ^ 1, ran, waiting)
                },
            );
            waiting.fetch_sub(1, Ordering::AcqRel);
            return x + y;
        }
        if depth == 1 && (seed >> 58) == 0 {
            waiting.fetch_sub(1, Ordering::AcqRel);
        }
        let (x, y) = locus::join(
            || tree(depth - 1, seed, ran, waiting),
            || tree(depth - 1, seed ^ 7, ran, waiting),
        );
        x + y
    }
    with_watchdog("waiting joins", || {
        let p = pool(4);
        for r in 0..20u64 {
            let (ran, waiting) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let leaves = p.install(|| tree(12, r, &ran, &waiting));
            assert_eq!(leaves, 1 << 12);
            assert_eq!(ran.into_inner(), (1 << 13) - 1);
        }
    });
}

/// Joins nested deeper than a worker's private stack holds (64): the
/// deeper second halves go on the deque at once (as in a process without
/// `membarrier`, where every half does). Every half runs once, and an
/// innermost `a` that waits for its `b` still gets it.
#[test]
fn joins_nested_deeper_than_the_private_stack() {
    fn chain(depth: usize, ran: &AtomicUsize) -> usize {
        if depth == 0 {
            let b_started = AtomicBool::new(false);
            let (x, ()) = locus::join(
                || usize::from(spin_until(&b_started)),
                || b_started.store(true, Ordering::Release),
            );
            return x;
        }
        let (x, y) = locus::join(
            || chain(depth - 1, ran),
            || {
                ran.fetch_add(1, Ordering::Relaxed);
                1
            },
        );
        x + y
    }
    with_watchdog("deep nesting", || {
        let p = pool(2);
        for depth in [63, 64, 65, 200] {
            let ran = AtomicUsize::new(0);
            let n = p.install(|| chain(depth, &ran));
            assert_eq!(
                n,
                depth + 1,
                "depth {depth}: the innermost a did not see its b"
            );
            assert_eq!(ran.into_inner(), depth);
        }
    });
}

/// A panic in an `a` nested deeper than the private stack holds (its
/// `join` took the public path): every enclosing `b` still runs once, both
/// in the private and in the public frames, and the panic reaches the
/// caller with its own payload.
#[test]
fn a_panic_below_the_private_stack_runs_every_b_and_reaches_the_caller() {
    fn chain(depth: usize, ran: &AtomicUsize) {
        if depth == 0 {
            panic!("deepest a");
        }
        locus::join(
            || chain(depth - 1, ran),
            || {
                ran.fetch_add(1, Ordering::Relaxed);
            },
        );
    }
    with_watchdog("deep panic", || {
        let p = pool(2);
        for depth in [10, 64, 100] {
            let ran = AtomicUsize::new(0);
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                p.install(|| chain(depth, &ran))
            }))
            .expect_err("the deepest a panicked");
            assert_eq!(err.downcast_ref::<&str>(), Some(&"deepest a"));
            assert_eq!(ran.into_inner(), depth, "depth {depth}");
        }
    });
}
