//! rayon-core's `thread_pool/test.rs` and the pool tests of its `test.rs`,
//! for locus.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use locus::{
    BuildError, Scope, ScopeFifo, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, join,
};

use crate::common::deadline::within_deadline;
use crate::count_handler;

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate() {
    let pool = ThreadPoolBuilder::new().build().unwrap();
    pool.install(|| panic!("Hello, world!"));
}

fn join_a_lot(n: usize) {
    if n > 0 {
        join(|| join_a_lot(n - 1), || join_a_lot(n - 1));
    }
}

/// rayon checks that the workers stop after the pool is dropped (with a
/// crate-internal wait); `shutdown_and_wait` is locus's public form of it:
/// every exit handler has run when it returns. `work` runs on the
/// 22-worker pool before.
fn workers_stop_after(work: impl FnOnce(&ThreadPool) + Send + 'static) {
    within_deadline("workers stop", || {
        let (exits, on_exit) = count_handler();
        let pool = ThreadPoolBuilder::new()
            .num_threads(22)
            .exit_handler(on_exit)
            .build()
            .unwrap();
        work(&pool);
        pool.shutdown_and_wait().unwrap();
        assert_eq!(exits.load(Ordering::SeqCst), 22);
    });
}

#[test]
fn workers_stop() {
    workers_stop_after(|pool| pool.install(|| join_a_lot(16)));
}

#[test]
fn sleeper_stop() {
    // Let some workers fall asleep.
    workers_stop_after(|_| std::thread::sleep(Duration::from_millis(200)));
}

/// A stack no OS can map fails the build. locus runs no handler on a failed
/// build (rayon may run the start handler of the threads it started, and
/// then their exit handler): the counts are equal either way.
#[test]
fn failed_thread_stack() {
    let (starts, on_start) = count_handler();
    let (exits, on_exit) = count_handler();
    let r = ThreadPoolBuilder::new()
        .num_threads(10)
        .stack_size(isize::MAX as usize)
        .start_handler(on_start)
        .exit_handler(on_exit)
        .build();
    assert!(matches!(r, Err(BuildError::Spawn { .. })), "{r:?}");
    assert!(starts.load(Ordering::SeqCst) <= 1);
    assert_eq!(starts.load(Ordering::SeqCst), exits.load(Ordering::SeqCst));
}

/// A panicking `thread_name` closure: the panic comes out of `build`, as
/// in rayon, with its own payload, once the five threads already started
/// have stopped. (rayon also runs their start and exit handlers first;
/// locus runs no handler on a failed build: a pool nobody got never
/// started.)
#[test]
fn panic_thread_name() {
    let (starts, on_start) = count_handler();
    let (exits, on_exit) = count_handler();
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPoolBuilder::new()
            .num_threads(10)
            .start_handler(on_start)
            .exit_handler(on_exit)
            .thread_name(|i| {
                if i >= 5 {
                    panic!("no name for {i}");
                }
                format!("panic_name#{i}")
            })
            .build()
    }));
    let payload = r.expect_err("the thread_name panic propagates out of build");
    assert_eq!(payload.downcast_ref::<String>().unwrap(), "no name for 5");
    assert_eq!(starts.load(Ordering::SeqCst), 0);
    assert_eq!(exits.load(Ordering::SeqCst), 0);
}

#[test]
fn self_install() {
    let pool = crate::one_worker();
    // If the inner install blocked, nothing would run it.
    assert!(pool.install(|| pool.install(|| true)));
}

#[test]
fn mutual_install() {
    within_deadline("mutual_install", || {
        let (p1, p2) = (crate::one_worker(), crate::one_worker());
        // p1 -> p2 -> p1: a blocking install would leave nobody to run it.
        let ok = p1.install(|| p2.install(|| p1.install(|| true)));
        assert!(ok);
    });
}

#[test]
fn mutual_install_sleepy() {
    within_deadline("mutual_install_sleepy", || {
        let (p1, p2) = (crate::one_worker(), crate::one_worker());
        let ok = p1.install(|| {
            p2.install(|| {
                std::thread::sleep(Duration::from_millis(100)); // p1 falls asleep
                p1.install(|| {
                    std::thread::sleep(Duration::from_millis(100)); // p2 too
                    true
                })
            })
        });
        assert!(ok);
    });
}

#[test]
fn check_thread_pool_new() {
    let pool = ThreadPoolBuilder::new().num_threads(22).build().unwrap();
    assert_eq!(pool.current_num_threads(), 22);
}

/// On one worker, ten scope jobs: the order they ran.
macro_rules! scope_order {
    ($scope:ident => $spawn:ident) => {{
        let pool = crate::one_worker();
        pool.install(|| {
            let seen = Mutex::new(Vec::new());
            pool.$scope(|s| {
                for i in 0..10 {
                    let seen = &seen;
                    s.$spawn(move |_| seen.lock().unwrap().push(i));
                }
            });
            seen.into_inner().unwrap()
        })
    }};
}

#[test]
fn scope_lifo_order() {
    assert_eq!(
        scope_order!(scope => spawn),
        (0..10).rev().collect::<Vec<_>>()
    );
}

#[test]
fn scope_fifo_order() {
    assert_eq!(
        scope_order!(scope_fifo => spawn_fifo),
        (0..10).collect::<Vec<_>>()
    );
}

/// On one worker, ten spawns through the pool handle: the order they ran.
macro_rules! spawn_order {
    ($spawn:ident) => {{
        let pool = crate::one_worker();
        let (tx, rx) = channel();
        pool.install(|| {
            for i in 0..10 {
                let tx = tx.clone();
                pool.$spawn(move || tx.send(i).unwrap());
            }
        });
        drop(tx);
        rx.iter().collect::<Vec<i32>>()
    }};
}

#[test]
fn spawn_lifo_order() {
    assert_eq!(spawn_order!(spawn), (0..10).rev().collect::<Vec<_>>());
}

#[test]
fn spawn_fifo_order() {
    assert_eq!(spawn_order!(spawn_fifo), (0..10).collect::<Vec<_>>());
}

/// One scope of kind `$Scope` per pool (of ten one-worker pools), nested;
/// the innermost body spawns into every one of them.
macro_rules! nested_scopes {
    ($Scope:ident, $scope:ident => $spawn:ident) => {{
        fn nest<'scope>(
            pools: &[ThreadPool],
            scopes: Vec<&$Scope<'scope>>,
            op: &(dyn Fn(&[&$Scope<'scope>]) + Sync),
        ) {
            match pools.split_first() {
                Some((pool, rest)) => pool.$scope(move |s| {
                    let mut scopes = scopes;
                    scopes.push(s);
                    nest(rest, scopes, op)
                }),
                None => op(&scopes),
            }
        }
        let pools: Vec<_> = (0..10).map(|_| crate::one_worker()).collect();
        let counter = AtomicUsize::new(0);
        nest(&pools, vec![], &|scopes| {
            for s in scopes {
                s.$spawn(|_| {
                    counter.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(counter.into_inner(), pools.len());
    }};
}

#[test]
fn nested_scopes() {
    nested_scopes!(Scope, scope => spawn);
}

#[test]
fn nested_fifo_scopes() {
    nested_scopes!(ScopeFifo, scope_fifo => spawn_fifo);
}

/// On a one-worker pool, an in-place scope's body waits for its own job:
/// a plain scope's body would hold the only worker, so the job could never
/// run and the body would wait forever.
macro_rules! in_place_no_deadlock {
    ($scope:ident => $spawn:ident) => {
        within_deadline(stringify!($scope), || {
            let pool = crate::one_worker();
            let (tx, rx) = channel();
            pool.$scope(move |s| {
                s.$spawn(move |_| tx.send(()).unwrap());
                rx.recv().unwrap();
            });
        })
    };
}

#[test]
fn in_place_scope_no_deadlock() {
    in_place_no_deadlock!(in_place_scope => spawn);
}

#[test]
fn in_place_scope_fifo_no_deadlock() {
    in_place_no_deadlock!(in_place_scope_fifo => spawn_fifo);
}

// ---- from rayon-core's test.rs ---------------------------------------------

#[test]
fn worker_thread_index() {
    let pool = ThreadPoolBuilder::new().num_threads(22).build().unwrap();
    assert_eq!(pool.current_num_threads(), 22);
    assert_eq!(pool.current_thread_index(), None);
    let index = pool.install(|| pool.current_thread_index().unwrap());
    assert!(index < 22);
}

/// Sixteen workers whose start (or exit) handler counts its call, then
/// meets this thread at a barrier: when this thread passes it, every
/// handler has run.
fn handlers_meet_at_a_barrier(on_exit: bool) {
    within_deadline("handlers at a barrier", move || {
        const N: usize = 16;
        let called = Arc::new(AtomicUsize::new(0));
        let barrier = Arc::new(Barrier::new(N + 1));
        let (c, b) = (Arc::clone(&called), Arc::clone(&barrier));
        let handler = move |_| {
            c.fetch_add(1, Ordering::SeqCst);
            b.wait();
        };
        let builder = ThreadPoolBuilder::new().num_threads(N);
        let builder = if on_exit {
            builder.exit_handler(handler)
        } else {
            builder.start_handler(handler)
        };
        let pool = builder.build().unwrap();
        // The exit handlers wait for this thread at the barrier: the drop
        // returns at once, as rayon's.
        let kept = if on_exit {
            drop(pool);
            None
        } else {
            Some(pool)
        };
        barrier.wait();
        assert_eq!(called.load(Ordering::SeqCst), N);
        drop(kept);
    });
}

#[test]
fn start_callback_called() {
    handlers_meet_at_a_barrier(false);
}

#[test]
fn exit_callback_called() {
    handlers_meet_at_a_barrier(true);
}

/// Panics in start and exit handlers go to the panic handler.
#[test]
fn handler_panics_handled_correctly() {
    within_deadline("handler panics", || {
        const N: usize = 16;
        let called = Arc::new(AtomicUsize::new(0));
        let start_barrier = Arc::new(Barrier::new(N + 1));
        let exit_barrier = Arc::new(Barrier::new(N + 1));
        let (c, sb, eb) = (
            Arc::clone(&called),
            Arc::clone(&start_barrier),
            Arc::clone(&exit_barrier),
        );
        let pool = ThreadPoolBuilder::new()
            .num_threads(N)
            .start_handler(|_| panic!("start handler"))
            .exit_handler(|_| panic!("exit handler"))
            .panic_handler(move |_| {
                if c.fetch_add(1, Ordering::SeqCst) < N {
                    sb.wait();
                } else {
                    eb.wait();
                }
            })
            .build()
            .unwrap();
        start_barrier.wait();
        drop(pool);
        exit_barrier.wait();
        assert_eq!(called.load(Ordering::SeqCst), 2 * N);
    });
}

#[test]
fn check_error_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ThreadPoolBuildError>();
}

#[test]
#[allow(deprecated)]
fn configuration() {
    // Every builder method rayon has, chained.
    let pool = ThreadPoolBuilder::new()
        .thread_name(|i| format!("thread_name_{i}"))
        .num_threads(5)
        .panic_handler(|_| {})
        .stack_size(4_000_000)
        .breadth_first()
        .start_handler(|_| {})
        .exit_handler(|_| {})
        .build()
        .unwrap();
    assert_eq!(pool.current_num_threads(), 5);
}

#[test]
fn default_pool() {
    ThreadPoolBuilder::default().build().unwrap();
}

#[test]
fn zero_threads_means_the_default() {
    let default = ThreadPoolBuilder::new()
        .build()
        .unwrap()
        .current_num_threads();
    let zero = ThreadPoolBuilder::new()
        .num_threads(0)
        .build()
        .unwrap()
        .current_num_threads();
    assert_eq!(zero, default);
}

/// rayon's soft limit: a count above `max_num_threads()` is lowered to it,
/// not refused. Starting `max_num_threads()` threads is more than a test
/// should do, so this looks where a default Linux refuses them: the build
/// fails on the process's memory mappings, asking for exactly the maximum.
/// (The builder's unit test `counts_above_the_maximum_are_capped` checks
/// the count on the layout, on every machine.)
#[cfg(target_os = "linux")]
#[test]
fn more_than_max_num_threads_is_capped() {
    let max = locus::max_num_threads();
    assert_eq!(max, locus::layout::MAX_WORKERS);
    let map_count: usize = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(usize::MAX);
    if map_count / 4 >= max {
        eprintln!("vm.max_map_count = {map_count} fits {max} threads: not started here");
        return;
    }
    for n in [max + 1, usize::MAX] {
        let r = ThreadPoolBuilder::new()
            .num_threads(n)
            .topology(locus::Topology::synthetic("core:2").unwrap())
            .build();
        match r {
            Err(BuildError::ThreadLimit { requested, .. }) => assert_eq!(requested, max),
            other => panic!("expected the thread limit for {max} workers, got {other:?}"),
        }
    }
}
