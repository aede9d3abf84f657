//! The builder's thread strategies: `spawn_handler` with `ThreadBuilder`,
//! `build_scoped`, `use_current_thread` (rayon-core's `test.rs` and
//! `tests/use_current_thread.rs`, and locus's pinning promises).

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};

use locus::{BuildError, PinStatus, ThreadPoolBuilder};

use crate::common::deadline::within_deadline;

/// A thread started by a spawn handler stops being a worker once `run`
/// returns (the pool was dropped), so it can serve another pool.
#[test]
fn cleared_current_thread() {
    within_deadline("cleared_current_thread", || {
        const N: usize = 5;
        let mut handles = Vec::new();
        let pool = ThreadPoolBuilder::new()
            .num_threads(N)
            .spawn_handler(|thread| {
                handles.push(thread::spawn(move || {
                    thread.run();
                    assert_eq!(locus::current_thread_index(), None);
                }));
                Ok(())
            })
            .build()
            .unwrap();
        assert_eq!(handles.len(), N);
        pool.install(|| assert!(locus::current_thread_index().is_some()));
        drop(pool);
        for h in handles {
            h.join().unwrap();
        }
    });
}

#[test]
fn spawn_handler_sees_index_name_and_stack_size() {
    let seen = Mutex::new(Vec::new());
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("handler-{i}"))
        .stack_size(1 << 20)
        .spawn_handler(|thread| {
            seen.lock().unwrap().push((
                thread.index(),
                thread.name().map(str::to_owned),
                thread.stack_size(),
            ));
            thread::Builder::new().spawn(|| thread.run())?;
            Ok(())
        })
        .build()
        .unwrap();
    let expected: Vec<_> = (0..3)
        .map(|i| (i, Some(format!("handler-{i}")), Some(1 << 20)))
        .collect();
    assert_eq!(*seen.lock().unwrap(), expected);
    assert_eq!(pool.install(|| locus::join(|| 1, || 2)), (1, 2));
}

/// Pinning happens inside `run`, before the start handler: the start
/// handler already runs on the worker's CPUs.
#[cfg(target_os = "linux")]
#[test]
fn run_pins_before_the_start_handler() {
    let cpus_at_start = Arc::new(Mutex::new(Vec::new()));
    let c = Arc::clone(&cpus_at_start);
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .start_handler(move |i| c.lock().unwrap().push((i, allowed_cpus())))
        .spawn_handler(|thread| {
            thread::spawn(|| thread.run());
            Ok(())
        })
        .build()
        .unwrap();
    let report = pool.pin_report();
    // The start handlers have run once the workers exited.
    pool.shutdown_and_wait().unwrap();
    for (i, cpus) in cpus_at_start.lock().unwrap().iter() {
        if let PinStatus::Pinned(set) = &report[*i] {
            assert_eq!(cpus, &set.iter().collect::<Vec<_>>(), "worker {i}");
        }
    }
    assert_eq!(cpus_at_start.lock().unwrap().len(), 2);
}

/// The CPUs the calling thread may run on.
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("Cpus_allowed_list:"))
        .unwrap();
    let list = line.split(':').nth(1).unwrap().trim();
    locus::CpuSet::from_cpulist(list).unwrap().iter().collect()
}

#[test]
fn a_failing_spawn_handler_fails_the_build() {
    within_deadline("failing spawn handler", || {
        let (starts, on_start) = crate::count_handler();
        let mut started = Vec::new();
        let r = ThreadPoolBuilder::new()
            .num_threads(4)
            .start_handler(on_start)
            .spawn_handler(|thread| {
                if thread.index() == 2 {
                    return Err(io::Error::other("no more threads today"));
                }
                started.push(thread::spawn(|| thread.run()));
                Ok(())
            })
            .build();
        match r {
            Err(BuildError::Spawn { index: 2, error }) => {
                assert!(error.to_string().contains("today"))
            }
            r => panic!("unexpected {r:?}"),
        }
        // The threads already started returned from `run` without running
        // anything.
        for h in started {
            h.join().unwrap();
        }
        assert_eq!(starts.load(Ordering::SeqCst), 0);
    });
}

#[test]
fn a_panicking_spawn_handler_fails_the_build() {
    within_deadline("panicking spawn handler", || {
        let r = ThreadPoolBuilder::new()
            .num_threads(2)
            .spawn_handler(|thread| {
                if thread.index() == 1 {
                    panic!("handler gave up");
                }
                thread::spawn(|| thread.run());
                Ok(())
            })
            .build();
        match r {
            Err(BuildError::Spawn { index: 1, error }) => {
                assert!(error.to_string().contains("gave up"))
            }
            r => panic!("unexpected {r:?}"),
        }
    });
}

/// A handler that throws its `ThreadBuilder` away leaves a dead worker, but
/// the pool still works (on the other workers) and its drop does not hang.
#[test]
fn a_thread_builder_dropped_unrun_does_not_hang_the_drop() {
    within_deadline("unrun thread builder", || {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .spawn_handler(|thread| {
                if thread.index() == 0 {
                    thread::spawn(|| thread.run());
                }
                Ok(())
            })
            .build()
            .unwrap();
        assert_eq!(pool.install(|| 7), 7);
        assert_eq!(pool.pin_report()[1], PinStatus::Pending);
        drop(pool);
    });
}

#[test]
fn build_scoped_lets_workers_borrow() {
    let started = AtomicUsize::new(0);
    let r = ThreadPoolBuilder::new()
        .num_threads(3)
        .build_scoped(
            |thread| {
                started.fetch_add(1, Ordering::SeqCst);
                thread.run();
            },
            |pool| pool.broadcast(|ctx| ctx.index()),
        )
        .unwrap();
    assert_eq!(r, [0, 1, 2]);
    assert_eq!(started.into_inner(), 3);
}

#[test]
fn build_scoped_returns_build_errors() {
    let r = ThreadPoolBuilder::new()
        .num_threads(2)
        .stack_size(isize::MAX as usize)
        .build_scoped(|thread| thread.run(), |_| unreachable!("no pool"));
    assert!(matches!(r, Err(BuildError::Spawn { .. })), "{r:?}");
}

// ---- use_current_thread --------------------------------------------------

/// rayon's `use_current_thread_basic`, in locus.
#[test]
fn use_current_thread_basic() {
    within_deadline("use_current_thread_basic", || {
        static HANDLES: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .spawn_handler(|thread| {
                let h = thread::Builder::new().spawn(|| thread.run())?;
                HANDLES.lock().unwrap().push(h);
                Ok(())
            })
            .build()
            .unwrap();
        assert_eq!(locus::current_thread_index(), Some(0));
        assert_eq!(HANDLES.lock().unwrap().len(), 1, "only one thread started");

        let again = ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .build();
        assert!(
            matches!(again, Err(BuildError::CurrentThreadInPool)),
            "{again:?}"
        );

        // Spawned from worker 0, which now blocks outside the pool: the
        // other worker must take the job.
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let pair2 = Arc::clone(&pair);
        pool.spawn(move || {
            assert_ne!(locus::current_thread_index(), Some(0));
            *pair2.0.lock().unwrap() = true;
            pair2.1.notify_one();
        });
        let _ran = pair
            .1
            .wait_while(pair.0.lock().unwrap(), |ran| !*ran)
            .unwrap();
        drop(pool);
        for h in std::mem::take(&mut *HANDLES.lock().unwrap()) {
            h.join().unwrap();
        }
    });
}

#[test]
fn the_current_thread_runs_jobs_while_it_waits() {
    within_deadline("use_current_thread alone", || {
        // One worker, the calling thread: only it can run anything, and it
        // does while it waits in the pool.
        let pool = ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .unwrap();
        assert_eq!(pool.join(|| 1, || 2), (1, 2));
        let sum = AtomicUsize::new(0);
        pool.scope(|s| {
            for i in 0..10 {
                let sum = &sum;
                s.spawn(move |_| {
                    sum.fetch_add(i, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(sum.into_inner(), 45);
        assert_eq!(pool.broadcast(|ctx| ctx.index()), [0]);
        // A detached job waits until the thread yields to the pool.
        let (tx, rx) = std::sync::mpsc::channel();
        pool.spawn(move || tx.send(5).unwrap());
        assert_eq!(locus::yield_local(), Some(locus::Yield::Executed));
        assert_eq!(rx.try_recv(), Ok(5));
    });
}

#[test]
fn the_current_thread_is_pinned_like_worker_0() {
    within_deadline("use_current_thread pinning", || {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .build()
            .unwrap();
        let report = pool.pin_report();
        let place = &pool.layout().workers()[0];
        match &report[0] {
            PinStatus::Pinned(set) => {
                assert!(set.is_subset(&place.cpus), "{set} vs {}", place.cpus)
            }
            PinStatus::NotRequested => assert!(place.cpus.is_empty()),
            other => panic!("worker 0 not pinned: {other}"),
        }
        #[cfg(target_os = "linux")]
        if let PinStatus::Pinned(set) = &report[0] {
            assert_eq!(allowed_cpus(), set.iter().collect::<Vec<_>>());
        }
    });
}

#[test]
fn no_handler_runs_on_the_current_thread() {
    within_deadline("use_current_thread handlers", || {
        let starts = Arc::new(Mutex::new(Vec::new()));
        let exits = Arc::new(Mutex::new(Vec::new()));
        let (s, e) = (Arc::clone(&starts), Arc::clone(&exits));
        let pool = ThreadPoolBuilder::new()
            .num_threads(3)
            .use_current_thread()
            .start_handler(move |i| s.lock().unwrap().push(i))
            .exit_handler(move |i| e.lock().unwrap().push(i))
            .build()
            .unwrap();
        pool.pin_report(); // every spawned worker has started
        // Dropped on worker 0 itself: returns at once; wait for the exits.
        drop(pool);
        let deadline = std::time::Instant::now() + crate::common::deadline::DEADLINE;
        while exits.lock().unwrap().len() < 2 {
            assert!(
                std::time::Instant::now() < deadline,
                "exit handlers did not run"
            );
            thread::sleep(std::time::Duration::from_millis(5));
        }
        let mut s = starts.lock().unwrap().clone();
        s.sort_unstable();
        let mut e = exits.lock().unwrap().clone();
        e.sort_unstable();
        assert_eq!((s, e), (vec![1, 2], vec![1, 2]));
    });
}

/// locus pins its workers (and the thread `use_current_thread` adopts):
/// that pin must not shrink the pools built on them later.
#[test]
fn pools_built_on_pinned_workers_are_not_confined_by_the_pin() {
    within_deadline("pools built on workers", || {
        let free = ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads();
        let _adopted = ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .unwrap();
        let on_adopted = ThreadPoolBuilder::new().build().unwrap();
        assert_eq!(on_adopted.current_num_threads(), free);
        let pinned = ThreadPoolBuilder::new()
            .pinning(locus::Pinning::Cpu)
            .build()
            .unwrap();
        let on_worker = pinned.install(|| {
            ThreadPoolBuilder::new()
                .build()
                .unwrap()
                .current_num_threads()
        });
        assert_eq!(on_worker, free);
    });
}

/// A one-worker pool built with `breadth_first`, as rayon's: the worker
/// pops its own deque oldest first.
#[allow(deprecated)]
fn breadth_first_worker() -> locus::ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(1)
        .breadth_first()
        .build()
        .unwrap()
}

/// rayon-core's `lifo_order` scenario (ten spawns that spawn ten each, on
/// one worker, no stealing) in a `breadth_first` pool: the plain `scope`
/// and `spawn` run oldest first, as `scope_fifo` would.
#[test]
fn breadth_first_runs_scope_spawns_oldest_first() {
    let order = |pool: &locus::ThreadPool| {
        pool.install(|| {
            let seen = Mutex::new(Vec::new());
            locus::scope(|s| {
                let seen = &seen;
                for i in 0..10 {
                    s.spawn(move |s| {
                        for j in 0..10 {
                            s.spawn(move |_| seen.lock().unwrap().push(i * 10 + j));
                        }
                    });
                }
            });
            seen.into_inner().unwrap()
        })
    };
    assert_eq!(order(&breadth_first_worker()), (0..100).collect::<Vec<_>>());
    // The default stays newest first.
    assert_eq!(
        order(&crate::one_worker()),
        (0..100).rev().collect::<Vec<_>>()
    );
}

/// `join` halves follow the same order: on one worker, after the inner
/// `join`'s `a`, the oldest pending half (the outer `b`) runs before the
/// inner `b`, as in rayon's breadth-first mode; by default the inner `b`
/// runs first.
#[test]
fn breadth_first_takes_the_oldest_join_half_first() {
    let order = |pool: &locus::ThreadPool| {
        let seen = Mutex::new(Vec::new());
        let log = |s: &'static str| seen.lock().unwrap().push(s);
        pool.install(|| {
            locus::join(
                || locus::join(|| log("inner a"), || log("inner b")),
                || log("outer b"),
            )
        });
        seen.into_inner().unwrap()
    };
    assert_eq!(
        order(&breadth_first_worker()),
        ["inner a", "outer b", "inner b"]
    );
    assert_eq!(
        order(&crate::one_worker()),
        ["inner a", "inner b", "outer b"]
    );
}
