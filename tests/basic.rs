//! Basic behaviour of the pool: join, scope, spawn, install, panics.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use locus::ThreadPoolBuilder;

mod common;
use common::work::pool;

fn sum_join(lo: u64, hi: u64) -> u64 {
    if hi - lo <= 1 {
        return if hi > lo { lo } else { 0 };
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = locus::join(|| sum_join(lo, mid), || sum_join(mid, hi));
    a + b
}

#[test]
fn million_jobs_through_nested_join() {
    let p = pool(4);
    let n = 1u64 << 20;
    let s = p.install(|| sum_join(0, n));
    assert_eq!(s, n * (n - 1) / 2);
    // 2^20 leaves and 2^20 - 1 joins: each join's second half is a job,
    // and so is the installed closure. The counts of a call that returned
    // are exact (`ThreadPool::stats`): no waiting.
    let jobs = p.stats().total().jobs_run;
    assert_eq!(jobs, 1 << 20, "jobs run");
}

#[test]
fn join_from_outside_uses_a_pool() {
    let p = pool(2);
    let (a, b) = p.join(|| 1, || 2);
    assert_eq!((a, b), (1, 2));
    let (a, b) = locus::join(|| 3, || 4);
    assert_eq!((a, b), (3, 4));
}

#[test]
fn join_context_reports_migration() {
    let p = pool(2);
    let (ma, _) = p.install(|| locus::join_context(|c| c.migrated(), |c| c.migrated()));
    assert!(!ma, "a runs on the calling worker");
    let (ma, _) = p.join(|| 0, || 0);
    let _ = ma;
}

/// Spawns `n` jobs into `s`, each adding one to `count`.
fn spawn_counting<'s>(s: &locus::Scope<'s>, count: &'s AtomicUsize, n: usize) {
    for _ in 0..n {
        s.spawn(|_| {
            count.fetch_add(1, Ordering::Relaxed);
        });
    }
}

#[test]
fn scope_with_100k_spawns() {
    let p = pool(4);
    let count = AtomicUsize::new(0);
    p.scope(|s| spawn_counting(s, &count, 100_000));
    assert_eq!(count.load(Ordering::Relaxed), 100_000);
}

#[test]
fn nested_scope_spawns_borrow() {
    let p = pool(3);
    let mut v = vec![0u32; if cfg!(miri) { 100 } else { 1000 }];
    p.scope(|s| {
        for chunk in v.chunks_mut(10) {
            s.spawn(move |s2| {
                for x in chunk.iter_mut() {
                    *x += 1;
                }
                s2.spawn(|_| {});
            });
        }
    });
    assert!(v.iter().all(|&x| x == 1));
}

#[test]
fn scope_from_outside_any_pool() {
    let count = AtomicUsize::new(0);
    locus::scope(|s| spawn_counting(s, &count, 100));
    assert_eq!(count.load(Ordering::Relaxed), 100);
}

#[test]
fn pools_created_and_dropped_200_times() {
    for i in 0..200 {
        let p = pool(1 + i % 3);
        let (a, b) = p.join(|| i, || i + 1);
        assert_eq!(a + 1, b);
    }
}

#[test]
fn shutdown_and_wait_waits_for_spawned_jobs() {
    let done = Arc::new(AtomicUsize::new(0));
    let p = pool(2);
    for _ in 0..DETACHED {
        let d = Arc::clone(&done);
        p.spawn(move || {
            d.fetch_add(1, Ordering::Relaxed);
        });
    }
    p.shutdown_and_wait().unwrap();
    assert_eq!(done.load(Ordering::Relaxed), DETACHED);
}

#[test]
fn spawned_jobs_run_after_a_plain_drop() {
    let p = pool(2);
    let (tx, rx) = std::sync::mpsc::channel();
    for i in 0..1000 {
        let tx = tx.clone();
        p.spawn(move || tx.send(i).unwrap());
    }
    drop(tx);
    drop(p);
    // Every sender is dropped once its job ran: the iteration ends.
    assert_eq!(rx.iter().count(), 1000);
}

#[test]
fn panic_in_one_of_ten_joins_reaches_caller() {
    let p = pool(3);
    let ran = AtomicUsize::new(0);
    let mut caught = 0;
    for i in 0..10 {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            p.install(|| {
                locus::join(
                    || {
                        ran.fetch_add(1, Ordering::Relaxed);
                    },
                    || {
                        if i == 7 {
                            panic!("job {i} fails");
                        }
                        ran.fetch_add(1, Ordering::Relaxed);
                    },
                )
            })
        }));
        if r.is_err() {
            caught += 1;
        }
    }
    assert_eq!(caught, 1);
    assert_eq!(ran.load(Ordering::Relaxed), 19);
    // The pool keeps working.
    assert_eq!(p.install(|| sum_join(0, 1000)), 499_500);
}

#[test]
fn panic_in_scope_job_after_all_jobs_finished() {
    let p = pool(3);
    let ran = AtomicUsize::new(0);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        p.scope(|s| {
            for i in 0..10 {
                let ran = &ran;
                s.spawn(move |_| {
                    if i == 3 {
                        panic!("scope job {i}");
                    }
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }
        })
    }));
    assert!(r.is_err());
    assert_eq!(
        ran.load(Ordering::Relaxed),
        9,
        "all other jobs ran before the panic was resumed"
    );
    assert_eq!(p.install(|| sum_join(0, 100)), 4950);
}

#[test]
fn panic_in_detached_spawn_goes_to_handler() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = Arc::clone(&seen);
    let p = ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |p| {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .unwrap_or_default();
            s2.lock().unwrap().push(msg);
        })
        .build()
        .unwrap();
    let ok = Arc::new(AtomicUsize::new(0));
    for i in 0..10 {
        let ok = Arc::clone(&ok);
        p.spawn(move || {
            if i == 5 {
                panic!("detached");
            }
            ok.fetch_add(1, Ordering::Relaxed);
        });
    }
    // Waits for the spawned jobs (a plain drop does not).
    p.shutdown_and_wait().unwrap();
    assert_eq!(ok.load(Ordering::Relaxed), 9);
    assert_eq!(*seen.lock().unwrap(), vec!["detached".to_string()]);
}

#[test]
fn install_nested_across_two_pools() {
    let a = pool(2);
    let b = pool(3);
    assert_eq!(a.current_thread_index(), None);
    assert_eq!(locus::current_thread_index(), None);
    a.install(|| {
        let ia = a.current_thread_index().expect("on a worker of a");
        assert!(ia < 2);
        assert_eq!(b.current_thread_index(), None);
        assert_eq!(locus::current_num_threads(), 2);
        let inner = b.install(|| {
            assert_eq!(a.current_thread_index(), None);
            let ib = b.current_thread_index().expect("on a worker of b");
            assert!(ib < 3);
            assert_eq!(locus::current_thread_index(), Some(ib));
            assert_eq!(locus::current_num_threads(), 3);
            // Work inside b uses b.
            let (x, y) = locus::join(
                || b.current_thread_index().is_some(),
                || b.current_thread_index().is_some(),
            );
            assert!(x && y);
            sum_join(0, 10_000)
        });
        // Back on a's worker.
        assert_eq!(a.current_thread_index(), Some(ia));
        inner
    });
    // Install from inside the same pool runs inline.
    let same = a.install(|| {
        let i = a.current_thread_index();
        a.install(|| a.current_thread_index() == i)
    });
    assert!(same);
}

#[test]
fn broadcast_runs_once_on_every_worker() {
    let p = pool(5);
    let hits: Vec<AtomicUsize> = (0..5).map(|_| AtomicUsize::new(0)).collect();
    let r = p.broadcast(|ctx| {
        assert_eq!(ctx.num_threads(), 5);
        assert_eq!(locus::current_thread_index(), Some(ctx.index()));
        hits[ctx.index()].fetch_add(1, Ordering::Relaxed);
        ctx.index() * 2
    });
    assert_eq!(r, vec![0, 2, 4, 6, 8]);
    assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    // Twice more, from inside the pool as well.
    let r2 = p.install(|| p.broadcast(|ctx| ctx.index()));
    assert_eq!(r2, vec![0, 1, 2, 3, 4]);
}

#[test]
fn handlers_and_names() {
    let started = Arc::new(AtomicUsize::new(0));
    let exited = Arc::new(AtomicUsize::new(0));
    let (s, e) = (Arc::clone(&started), Arc::clone(&exited));
    let p = ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("test-w{i}"))
        .stack_size(1 << 20)
        .start_handler(move |_| {
            s.fetch_add(1, Ordering::SeqCst);
        })
        .exit_handler(move |_| {
            e.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    let names = p.broadcast(|_| std::thread::current().name().unwrap().to_string());
    assert_eq!(names, vec!["test-w0", "test-w1", "test-w2"]);
    assert_eq!(started.load(Ordering::SeqCst), 3);
    p.shutdown_and_wait().unwrap();
    assert_eq!(exited.load(Ordering::SeqCst), 3);
}

#[test]
fn pinning_is_reported_for_every_worker() {
    let p = ThreadPoolBuilder::new()
        .pinning(locus::Pinning::Cpu)
        .build()
        .unwrap();
    let report = p.pin_report();
    assert_eq!(report.len(), p.current_num_threads());
    for (w, s) in report.iter().enumerate() {
        match s {
            locus::PinStatus::Pinned(cpus) => assert_eq!(*cpus, p.layout().workers()[w].cpus),
            locus::PinStatus::Failed { .. } => {} // allowed: the pool still works
            other => panic!("worker {w}: unexpected {other:?}"),
        }
    }
    assert_eq!(p.install(|| sum_join(0, 1000)), 499_500);
    let unpinned = ThreadPoolBuilder::new()
        .pinning(locus::Pinning::None)
        .num_threads(2)
        .build()
        .unwrap();
    assert!(
        unpinned
            .pin_report()
            .iter()
            .all(|s| *s == locus::PinStatus::NotRequested)
    );
}

#[test]
fn pool_dropped_on_its_own_worker() {
    let (tx, rx) = std::sync::mpsc::channel();
    let p = pool(2);
    let inner = Arc::new(AtomicUsize::new(0));
    let i2 = Arc::clone(&inner);
    let p = Arc::new(Mutex::new(Some(p)));
    let p2 = Arc::clone(&p);
    p.lock().unwrap().as_ref().unwrap().spawn(move || {
        // Take the pool out and drop it here, on one of its own workers:
        // must not self-join (that would deadlock).
        let pool = p2.lock().unwrap().take().unwrap();
        pool.spawn(move || {
            i2.fetch_add(1, Ordering::SeqCst);
        });
        drop(pool);
        tx.send(()).unwrap();
    });
    rx.recv().unwrap();
    // The job spawned before the drop still runs.
    while inner.load(Ordering::SeqCst) == 0 {
        std::thread::yield_now();
    }
    assert!(p.lock().unwrap().is_none());
}

/// Counts drops of the values captured by jobs, so that a job run twice or
/// a closure leaked or dropped twice shows up.
struct Tracked<const N: usize> {
    _pad: [u8; N],
    drops: Arc<AtomicUsize>,
}

impl<const N: usize> Drop for Tracked<N> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}

fn spawn_tracked<'s, const N: usize>(
    s: &locus::Scope<'s>,
    runs: &'s AtomicUsize,
    drops: &Arc<AtomicUsize>,
) {
    let t = Tracked::<N> {
        _pad: [7; N],
        drops: Arc::clone(drops),
    };
    s.spawn(move |_| {
        assert!(t._pad.iter().all(|&b| b == 7), "closure bytes intact");
        runs.fetch_add(1, Ordering::Relaxed);
    });
}

/// Small under Miri (.ci/sanitizers), which interprets each job: still
/// enough jobs to cycle the job memory's magazines between threads.
const ROUNDS: usize = if cfg!(miri) { 40 } else { 2_000 };
/// Detached spawns from outside the pool (small under Miri, as above).
const DETACHED: usize = if cfg!(miri) { 50 } else { 1_000 };

fn spawn_every_size<'s>(s: &locus::Scope<'s>, runs: &'s AtomicUsize, drops: &Arc<AtomicUsize>) {
    for _ in 0..ROUNDS {
        spawn_tracked::<0>(s, runs, drops);
        spawn_tracked::<24>(s, runs, drops);
        spawn_tracked::<40>(s, runs, drops);
        spawn_tracked::<104>(s, runs, drops);
        spawn_tracked::<200>(s, runs, drops);
    }
}

/// Heap jobs live in recycled 64-byte blocks when they fit and in a `Box`
/// otherwise, and may be allocated on one thread and freed on another
/// (a worker, another worker, or a thread outside the pool). Whatever the
/// size and the threads, each job runs once and drops its closure once.
#[test]
fn heap_jobs_of_every_size_run_and_drop_once() {
    let p = pool(2);
    let runs = AtomicUsize::new(0);
    let drops = Arc::new(AtomicUsize::new(0));
    // From a worker (install) and from this thread (outside the pool).
    p.install(|| locus::scope(|s| spawn_every_size(s, &runs, &drops)));
    p.scope(|s| spawn_every_size(s, &runs, &drops));
    assert_eq!(runs.load(Ordering::Relaxed), 2 * 5 * ROUNDS);
    assert_eq!(drops.load(Ordering::Relaxed), 2 * 5 * ROUNDS);
    // Detached spawns from outside, freed by workers.
    let (tx, rx) = std::sync::mpsc::channel();
    for i in 0..DETACHED {
        let tx = tx.clone();
        p.spawn(move || tx.send(i).unwrap());
    }
    drop(tx);
    assert_eq!(rx.iter().count(), DETACHED);
}

/// How long a test waits for something to happen (not a speed claim:
/// these tests check that it happens, and must pass on a loaded machine).
const WAIT: std::time::Duration = std::time::Duration::from_secs(20);

fn spin_until(flag: &std::sync::atomic::AtomicBool, step: impl FnMut()) -> bool {
    common::work::spin_until(flag, WAIT, step)
}

/// `join` keeps its second half private; a worker whose deque runs low
/// promotes it, so an idle worker still gets it: here `a` keeps joining
/// (small joins, each a chance to promote) until `b` has started on
/// another worker. With no promotion this would spin until the deadline.
#[test]
fn private_join_half_is_promoted_to_an_idle_worker() {
    let p = pool(2);
    for _ in 0..20 {
        let started = std::sync::atomic::AtomicBool::new(false);
        let (_, migrated) = p.install(|| {
            locus::join_context(
                |_| {
                    spin_until(&started, || {
                        let (x, y) = locus::join(|| 1, || 2);
                        assert_eq!(x + y, 3);
                    })
                },
                |ctx| {
                    started.store(true, Ordering::Release);
                    ctx.migrated()
                },
            )
        });
        assert!(migrated, "b ran on the joining worker: never promoted");
    }
    assert!(p.stats().total().promoted >= 20);
}

/// A worker that waits (here for its scope, inside the `a` of a `join`)
/// makes its private `join` halves public first: the scope's job waits for
/// the innermost `b`, so that `b` must be taken by the idle worker or by
/// the waiter itself. Two outer joins fill the deque first, so the inner
/// `b` is still private when the scope starts waiting (unless the other
/// worker stole an outer half in between); without the rule it would stay
/// private until the deadline.
#[test]
fn waiting_worker_publishes_its_private_halves() {
    let p = pool(2);
    for _ in 0..50 {
        let b_ran = std::sync::atomic::AtomicBool::new(false);
        let waits_for_b = || {
            let ok = std::sync::atomic::AtomicBool::new(false);
            locus::scope(|s| {
                s.spawn(|_| ok.store(spin_until(&b_ran, std::hint::spin_loop), Ordering::Relaxed));
            });
            ok.into_inner()
        };
        let inner = || locus::join(waits_for_b, || b_ran.store(true, Ordering::Release)).0;
        let ((ok, ()), ()) = p.install(|| locus::join(|| locus::join(inner, || ()), || ()));
        assert!(ok, "b stayed private while its worker waited");
    }
}
