//! The lifecycle of pools (issue 8): handles that outlive their pool,
//! drops racing pushes, handlers that call back into their pool, pools
//! dropped from inside other pools, builds that fail.
//!
//! Every body runs under a deadline ([`within_deadline`]): a hang fails the
//! test instead of blocking the suite. No test asserts on timing. Threads
//! are counted by name in `/proc/self/task` (each test names its workers
//! with its own prefix), so tests running in parallel do not disturb each
//! other's counts.

mod common;

#[cfg(target_os = "linux")]
use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier, Mutex};
use std::thread;
#[cfg(target_os = "linux")]
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use common::deadline::DEADLINE;
use common::deadline::within_deadline;
use locus::{BuildError, GroupOptions, ThreadPool, ThreadPoolBuilder, Topology};

/// A pool of `n` workers named `{prefix}{index}` (at most 15 bytes in all:
/// Linux keeps that much of a thread's name).
fn named_pool(n: usize, prefix: &'static str) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(move |i| format!("{prefix}{i}"))
        .build()
        .unwrap()
}

/// The names of this process's threads.
#[cfg(target_os = "linux")]
fn thread_names() -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|s| s.trim_end().to_string())
        .collect()
}

/// How many threads of this process have a name starting with `prefix`.
#[cfg(target_os = "linux")]
fn threads_named(prefix: &str) -> usize {
    thread_names()
        .iter()
        .filter(|n| n.starts_with(prefix))
        .count()
}

/// Waits until no thread's name starts with `prefix` (a joined thread can
/// stay listed for a moment while the kernel tears it down); panics after
/// [`DEADLINE`]. Two scans 5 ms apart must both find none: one listing of
/// `/proc/self/task` taken while other tests' threads start and exit can
/// miss a live thread (its read fails, or the directory read skips it), and
/// answering "gone" early would fail the callers' checks of what ran
/// before the workers exited, blaming the pool for the scan.
fn wait_no_threads(prefix: &str) {
    #[cfg(target_os = "linux")]
    {
        let start = Instant::now();
        let mut quiet_scans = 0;
        while quiet_scans < 2 {
            if threads_named(prefix) > 0 {
                quiet_scans = 0;
                assert!(
                    start.elapsed() < DEADLINE,
                    "threads named {prefix}* still alive after {DEADLINE:?}: {:?}",
                    thread_names()
                );
            } else {
                quiet_scans += 1;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = prefix;
}

/// Builds with `b`, which must fail; returns the error once no thread
/// named `prefix`* is left.
fn build_fails(b: ThreadPoolBuilder, prefix: &str) -> BuildError {
    let e = b.build().expect_err("the build must fail");
    wait_no_threads(prefix);
    e
}

/// Counts the drops of a value moved into a closure, so that a closure that
/// is neither run nor dropped (lost) shows up.
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

// ---- item 1: handles that outlive their pool ---------------------------

#[test]
fn a_group_keeps_working_after_its_pool_is_dropped() {
    within_deadline("group after drop(pool)", || {
        let pool = named_pool(2, "lc-gout-");
        let g = pool.group(GroupOptions::new()).unwrap();
        // `build` does not wait for the threads to start (and take their
        // names); `pin_report` does.
        pool.pin_report();
        // Returns at once: the group is a handle and keeps the workers.
        drop(pool);
        #[cfg(target_os = "linux")]
        assert_eq!(threads_named("lc-gout-"), 2, "the group keeps both workers");
        assert_eq!(g.install(|| 6 * 7), 42);
        assert_eq!(g.join(|| 1, || 2), (1, 2));
        let count = AtomicUsize::new(0);
        g.scope(|s| {
            for _ in 0..8 {
                s.spawn(|_| {
                    count.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        assert_eq!(count.load(Ordering::SeqCst), 8);
        let (tx, rx) = mpsc::channel();
        g.spawn(move || tx.send(locus::current_thread_index()).unwrap());
        assert!(rx.recv().unwrap().is_some(), "spawn ran on a worker");
        // A clone is a handle too: dropping the original keeps the pool.
        let g2 = g.clone();
        drop(g);
        assert_eq!(g2.install(|| locus::join(|| 3, || 4)), (3, 4));
        // A spawn just before the last handle goes still runs, also when it
        // starts only after the drop returned (which does not wait).
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (ran_tx, ran_rx) = mpsc::channel();
        g2.spawn(move || {
            go_rx.recv().unwrap();
            ran_tx.send(()).unwrap();
        });
        drop(g2);
        go_tx.send(()).unwrap();
        ran_rx.recv().unwrap();
        wait_no_threads("lc-gout-");
    });
}

#[test]
fn drop_of_the_pool_racing_pushes_through_groups_loses_nothing() {
    within_deadline("drop(pool) racing group pushes", || {
        const SENDERS: usize = 3;
        const SPAWNS: usize = 50;
        for round in 0..20 {
            let pool = named_pool(2, "lc-race-");
            let g = pool.group(GroupOptions::new()).unwrap();
            let runs = Arc::new(AtomicUsize::new(0));
            let drops = Arc::new(AtomicUsize::new(0));
            let installs = Arc::new(AtomicUsize::new(0));
            let go = Arc::new(Barrier::new(SENDERS + 1));
            let senders: Vec<_> = (0..SENDERS)
                .map(|_| {
                    let (g, runs, drops, installs, go) = (
                        g.clone(),
                        Arc::clone(&runs),
                        Arc::clone(&drops),
                        Arc::clone(&installs),
                        Arc::clone(&go),
                    );
                    thread::spawn(move || {
                        go.wait();
                        for k in 0..SPAWNS {
                            let (runs, t) = (Arc::clone(&runs), Tracked(Arc::clone(&drops)));
                            g.spawn(move || {
                                let _t = t;
                                runs.fetch_add(1, Ordering::SeqCst);
                            });
                            if k % 10 == 0 {
                                installs.fetch_add(g.install(|| 1), Ordering::SeqCst);
                            }
                        }
                        // The last of these drops (or the main thread's)
                        // shuts the pool down.
                        drop(g);
                    })
                })
                .collect();
            go.wait();
            drop(pool);
            for s in senders {
                s.join().unwrap();
            }
            drop(g);
            // The drops do not wait: once the workers are gone, every
            // spawn has run.
            wait_no_threads("lc-race-");
            let total = SENDERS * SPAWNS;
            assert_eq!(
                runs.load(Ordering::SeqCst),
                total,
                "round {round}: spawns run"
            );
            assert_eq!(
                drops.load(Ordering::SeqCst),
                total,
                "round {round}: closures dropped"
            );
            assert_eq!(installs.load(Ordering::SeqCst), SENDERS * SPAWNS / 10);
        }
    });
}

#[test]
fn the_last_handle_dropped_on_its_own_worker_does_not_wait_for_itself() {
    within_deadline("last handle dropped on its own worker", || {
        let pool = named_pool(2, "lc-own-");
        let g = pool.group(GroupOptions::new()).unwrap();
        let g2 = g.clone();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        g.spawn(move || {
            // Wait until every other handle is gone: this drop is the last.
            go_rx.recv().unwrap();
            drop(g2);
            done_tx.send(()).unwrap();
        });
        drop(pool);
        drop(g);
        go_tx.send(()).unwrap();
        done_rx.recv().unwrap();
        // The workers ran everything and exit on their own.
        wait_no_threads("lc-own-");
    });
}

// ---- items 5 and 13: handlers and drops from inside pools -------------

#[test]
fn spawns_from_exit_handlers_run_even_on_the_last_worker() {
    within_deadline("exit handler spawns", || {
        // One worker: it is always the last to exit.
        for n in [1, 2, 3] {
            let ran = Arc::new(AtomicUsize::new(0));
            let r = Arc::clone(&ran);
            let pool = ThreadPoolBuilder::new()
                .num_threads(n)
                .exit_handler(move |_| {
                    let r = Arc::clone(&r);
                    locus::spawn(move || {
                        // A spawn from that spawn runs too.
                        let r2 = Arc::clone(&r);
                        locus::spawn(move || {
                            r2.fetch_add(1, Ordering::SeqCst);
                        });
                        r.fetch_add(1, Ordering::SeqCst);
                    });
                })
                .build()
                .unwrap();
            pool.install(|| locus::join(|| 1, || 2));
            pool.shutdown_and_wait().unwrap();
            assert_eq!(ran.load(Ordering::SeqCst), 2 * n, "{n} workers");
        }
    });
}

#[test]
fn exit_handlers_may_join_scope_and_broadcast() {
    within_deadline("exit handler broadcast", || {
        const N: usize = 3;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = Arc::clone(&seen);
        let pool = ThreadPoolBuilder::new()
            .num_threads(N)
            .exit_handler(move |i| {
                let on_all = locus::broadcast(|ctx| ctx.index());
                let (a, b) = locus::join(|| 1, || 2);
                let mut n = 0;
                locus::scope(|sc| sc.spawn(|_| n += 1));
                assert_eq!(locus::current_thread_index(), Some(i));
                s.lock().unwrap().push((i, on_all, a + b + n));
            })
            .build()
            .unwrap();
        pool.shutdown_and_wait().unwrap();
        let mut seen = seen.lock().unwrap().clone();
        seen.sort();
        let all: Vec<usize> = (0..N).collect();
        let expected: Vec<_> = (0..N).map(|i| (i, all.clone(), 4)).collect();
        assert_eq!(seen, expected);
    });
}

#[test]
fn a_pool_dropped_on_a_worker_of_another_pool_while_its_jobs_install_there() {
    within_deadline("drop(b) on a's only worker", || {
        // One worker in `a`: if dropping `b` blocked it, `b`'s jobs, which
        // wait for `a`, could never finish.
        let a = Arc::new(named_pool(1, "lc-xa-"));
        let b = named_pool(2, "lc-xb-");
        let (tx, rx) = mpsc::channel();
        let a2 = Arc::clone(&a);
        a.install(move || {
            for i in 0..4 {
                let (a3, tx) = (Arc::clone(&a2), tx.clone());
                b.spawn(move || {
                    let v = a3.install(move || i * 10);
                    tx.send(v).unwrap();
                });
            }
            // On a worker of `a`: returns at once, `b`'s workers finish on
            // their own.
            drop(b);
        });
        let mut got: Vec<usize> = rx.iter().take(4).collect();
        got.sort();
        assert_eq!(got, [0, 10, 20, 30]);
        wait_no_threads("lc-xb-");
        drop(a);
        wait_no_threads("lc-xa-");
    });
}

#[test]
fn a_pool_dropped_inside_an_install_that_its_own_job_waits_for() {
    within_deadline("drop(b) inside a's job that b's job waits for", || {
        let a = Arc::new(named_pool(1, "lc-ya-"));
        let slot = Arc::new(Mutex::new(Some(named_pool(2, "lc-yb-"))));
        let (tx, rx) = mpsc::channel();
        let (a2, slot2) = (Arc::clone(&a), Arc::clone(&slot));
        slot.lock().unwrap().as_ref().unwrap().spawn(move || {
            // A job of `b` waits for a job of `a` that drops `b`: waiting
            // for `b`'s workers there would wait for this very job.
            a2.install(move || drop(slot2.lock().unwrap().take()));
            tx.send(()).unwrap();
        });
        rx.recv().unwrap();
        assert!(slot.lock().unwrap().is_none());
        wait_no_threads("lc-yb-");
        drop(a);
        wait_no_threads("lc-ya-");
    });
}

// ---- issue 27: drop returns at once, waiting is explicit --------------

#[test]
fn drop_returns_while_a_spawned_job_waits_for_the_dropping_thread() {
    // The job waits at a barrier the dropping thread reaches only after
    // `drop` returned: a drop that waited for the job would hang here (and
    // fail at the deadline).
    within_deadline("drop with a spawned job waiting", || {
        let pool = named_pool(2, "lc-dnw-");
        let barrier = Arc::new(Barrier::new(2));
        let b = Arc::clone(&barrier);
        let (done_tx, done_rx) = mpsc::channel();
        pool.spawn(move || {
            b.wait();
            done_tx.send(locus::current_thread_index()).unwrap();
        });
        drop(pool);
        barrier.wait();
        assert!(done_rx.recv().unwrap().is_some(), "ran on a worker");
        // Having run it, the workers exit on their own.
        wait_no_threads("lc-dnw-");
    });
}

#[test]
fn a_spawned_job_fed_by_a_channel_after_the_drop_completes() {
    within_deadline("channel fed after drop", || {
        let exits = Arc::new(AtomicUsize::new(0));
        let e = Arc::clone(&exits);
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .thread_name(|i| format!("lc-chf-{i}"))
            .exit_handler(move |_| {
                e.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        let (tx, rx) = mpsc::channel::<u64>();
        let (back_tx, back_rx) = mpsc::channel();
        pool.spawn(move || {
            let x = rx.recv().unwrap();
            // Spawns after the drop go to the same pool and run too.
            locus::spawn(move || back_tx.send(x * 2).unwrap());
        });
        drop(pool);
        tx.send(21).unwrap();
        assert_eq!(back_rx.recv().unwrap(), 42);
        wait_no_threads("lc-chf-");
        assert_eq!(exits.load(Ordering::SeqCst), 2, "every exit handler ran");
    });
}

/// Counts, per thread, that its thread-local values were dropped: they are
/// dropped after the worker's loop and exit handler, as the thread ends.
static TLS_DROPPED: AtomicUsize = AtomicUsize::new(0);

struct CountTlsDrop;

impl Drop for CountTlsDrop {
    fn drop(&mut self) {
        TLS_DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

std::thread_local! {
    static COUNT_TLS_DROP: CountTlsDrop = const { CountTlsDrop };
}

#[test]
fn shutdown_and_wait_returns_once_the_workers_exited() {
    within_deadline("shutdown_and_wait", || {
        const N: usize = 3;
        let exits = Arc::new(AtomicUsize::new(0));
        let e = Arc::clone(&exits);
        let pool = ThreadPoolBuilder::new()
            .num_threads(N)
            .start_handler(|_| COUNT_TLS_DROP.with(|_| {}))
            .exit_handler(move |_| {
                e.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        // A job still waiting when the call starts: released by another
        // thread only once the call is under way (the exit handlers have
        // not run yet: they follow every spawned job).
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let ran = Arc::new(AtomicUsize::new(0));
        let r = Arc::clone(&ran);
        let ex = Arc::clone(&exits);
        pool.spawn(move || {
            go_rx.recv().unwrap();
            assert_eq!(ex.load(Ordering::SeqCst), 0, "exit handlers wait for jobs");
            r.fetch_add(1, Ordering::SeqCst);
        });
        let feeder = thread::spawn(move || go_tx.send(()).unwrap());
        pool.shutdown_and_wait().unwrap();
        feeder.join().unwrap();
        assert_eq!(ran.load(Ordering::SeqCst), 1, "the spawned job ran");
        assert_eq!(exits.load(Ordering::SeqCst), N, "every exit handler ran");
        assert_eq!(
            TLS_DROPPED.load(Ordering::SeqCst),
            N,
            "the threads ended (their thread-locals were dropped)"
        );
    });
}

#[test]
fn shutdown_and_wait_with_groups_left_does_not_wait_and_the_groups_work() {
    within_deadline("shutdown_and_wait with a group", || {
        let pool = named_pool(2, "lc-swg-");
        let g = pool.group(GroupOptions::new()).unwrap();
        let e = pool.shutdown_and_wait().unwrap_err();
        assert_eq!(e, locus::ShutdownError::GroupsAlive);
        assert!(e.to_string().contains("drop every JobGroup"), "{e}");
        // The group still has the workers.
        assert_eq!(g.install(|| locus::join(|| 1, || 2)), (1, 2));
        let (tx, rx) = mpsc::channel();
        g.spawn(move || tx.send(7).unwrap());
        assert_eq!(rx.recv().unwrap(), 7);
        drop(g);
        wait_no_threads("lc-swg-");
    });
}

#[test]
fn shutdown_and_wait_on_a_worker_is_an_error_not_a_deadlock() {
    within_deadline("shutdown_and_wait on a worker", || {
        // On a worker of the pool itself.
        let slot = Arc::new(Mutex::new(Some(named_pool(2, "lc-swo-"))));
        let (tx, rx) = mpsc::channel();
        let s = Arc::clone(&slot);
        slot.lock().unwrap().as_ref().unwrap().spawn(move || {
            let pool = s.lock().unwrap().take().unwrap();
            tx.send(pool.shutdown_and_wait()).unwrap();
        });
        assert_eq!(rx.recv().unwrap(), Err(locus::ShutdownError::OnWorker));
        wait_no_threads("lc-swo-");
        // On a worker of another pool.
        let a = named_pool(1, "lc-swa-");
        let b = named_pool(2, "lc-swb-");
        let r = a.install(move || b.shutdown_and_wait());
        assert_eq!(r, Err(locus::ShutdownError::OnWorker));
        wait_no_threads("lc-swb-");
        a.shutdown_and_wait().unwrap();
    });
}

// ---- item 10: building fails cleanly ----------------------------------

#[test]
fn a_panicking_thread_name_unwinds_out_of_build_after_stopping_the_started_threads() {
    within_deadline("thread_name panics", || {
        let started = Arc::new(AtomicUsize::new(0));
        let s = Arc::clone(&started);
        let b = ThreadPoolBuilder::new()
            .num_threads(4)
            .topology(Topology::synthetic("core:4").unwrap())
            .thread_name(|i| {
                assert!(i != 2, "no name for worker 2");
                format!("lc-tnp-{i}")
            })
            .start_handler(move |_| {
                s.fetch_add(1, Ordering::SeqCst);
            });
        // As in rayon, the closure's panic comes out of `build`...
        let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.build()))
            .expect_err("the panic propagates");
        let msg = payload.downcast_ref::<&str>().copied();
        assert_eq!(msg, Some("no name for worker 2"));
        // ... once workers 0 and 1, already started, have stopped.
        wait_no_threads("lc-tnp-");
        assert_eq!(
            started.load(Ordering::SeqCst),
            0,
            "a failed build runs no start handler"
        );
    });
}

#[test]
fn a_thread_name_with_a_nul_byte_fails_the_build() {
    within_deadline("thread_name with NUL", || {
        let b = ThreadPoolBuilder::new()
            .num_threads(3)
            .topology(Topology::synthetic("core:3").unwrap())
            .thread_name(|i| {
                if i == 1 {
                    "lc-nul\0x".into()
                } else {
                    format!("lc-nul-{i}")
                }
            });
        let e = build_fails(b, "lc-nul");
        assert!(
            matches!(e, BuildError::ThreadName { index: 1, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("NUL"), "{e}");
    });
}

#[test]
fn a_stack_the_os_cannot_map_is_a_spawn_error() {
    within_deadline("huge stack", || {
        let b = ThreadPoolBuilder::new()
            .num_threads(2)
            .topology(Topology::synthetic("core:2").unwrap())
            .thread_name(|i| format!("lc-stk-{i}"))
            .stack_size(usize::MAX / 2);
        let e = build_fails(b, "lc-stk-");
        assert!(matches!(e, BuildError::Spawn { index: 0, .. }), "{e:?}");
        assert!(e.to_string().contains("worker thread 0"), "{e}");
        // The advice names the stack (glibc says EAGAIN or EINVAL).
        assert!(e.to_string().contains("smaller stack_size"), "{e}");
    });
}

/// More workers than the process has memory mappings for: without the
/// check, the thread past the limit aborts the whole process (std cannot
/// map its signal stack).
#[cfg(target_os = "linux")]
#[test]
fn more_workers_than_memory_mappings_is_a_build_error() {
    let Some(max) = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
    else {
        eprintln!("no /proc/sys/vm/max_map_count: nothing to check");
        return;
    };
    let n = max / 4 + 1;
    if n > locus::layout::MAX_WORKERS {
        eprintln!("vm.max_map_count = {max}: every pool fits, nothing to check");
        return;
    }
    within_deadline("too many workers", move || {
        let b = ThreadPoolBuilder::new()
            .num_threads(n)
            .topology(Topology::synthetic("core:2").unwrap())
            .thread_name(|i| format!("lc-map-{i}"));
        let e = build_fails(b, "lc-map-");
        let BuildError::ThreadLimit {
            requested,
            fit,
            max_map_count,
        } = e
        else {
            panic!("expected a thread-limit error, got {e:?}");
        };
        assert_eq!((requested, max_map_count), (n, max));
        assert!(fit < n);
        let msg = e.to_string();
        assert!(
            msg.contains("vm.max_map_count") && msg.contains(&format!("at most {fit}")),
            "{msg}"
        );
    });
}

/// The environment variable that makes [`spawn_failure_child`] run.
#[cfg(target_os = "linux")]
const CHILD: &str = "LOCUS_LIFECYCLE_SPAWN_FAILURE_CHILD";

/// Runs [`spawn_failure_child`] in a child process: it limits its own
/// address space, which would break tests running next to it.
#[cfg(target_os = "linux")]
#[test]
fn a_spawn_failure_stops_and_joins_the_threads_already_started() {
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe)
        .args([
            "--exact",
            "spawn_failure_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("the child did not finish within {DEADLINE:?} (hung)");
        }
        thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("spawn failure child: ok"),
        "child failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
}

/// Builds a pool of 6 whose 4th thread cannot get its stack: the
/// `thread_name` closure for that index lowers the address-space limit
/// just before the spawn. Then checks the error and that the 3 threads
/// already started are gone. Does nothing unless run by the test above.
#[cfg(target_os = "linux")]
#[test]
fn spawn_failure_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let tasks = || std::fs::read_dir("/proc/self/task").unwrap().count();
    let baseline = tasks();
    let saved = Arc::new(Mutex::new(None));
    let s = Arc::clone(&saved);
    let r = ThreadPoolBuilder::new()
        .num_threads(6)
        .topology(Topology::synthetic("core:6").unwrap())
        .stack_size(1 << 30)
        .thread_name(move |i| {
            if i == 3 {
                // Room for what the three threads already spawned may still
                // map as they start (an alternate signal stack and a malloc
                // arena of 64 MiB each: `build` does not wait for them), but
                // not for a fourth 1 GiB stack.
                *s.lock().unwrap() = Some(limit_address_space(512 << 20));
            }
            format!("lc-rl-{i}")
        })
        .build();
    let old = saved.lock().unwrap().take().expect("the limit was set");
    // SAFETY: a plain libc call with a valid pointer to an initialized
    // struct; raising the soft limit back up to at most the hard limit.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &old) }, 0);
    match r {
        Err(BuildError::Spawn { index: 3, .. }) => {}
        other => panic!("expected a spawn error for worker 3, got {other:?}"),
    }
    let start = Instant::now();
    while tasks() != baseline {
        assert!(
            start.elapsed() < DEADLINE,
            "threads left: {:?}",
            thread_names()
        );
        thread::sleep(Duration::from_millis(5));
    }
    println!("spawn failure child: ok");
}

/// Sets the soft address-space limit to what the process maps now plus
/// `margin` bytes; returns the limits to restore.
#[cfg(target_os = "linux")]
fn limit_address_space(margin: u64) -> libc::rlimit {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmSize in /proc/self/status");
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain libc calls with valid pointers to initialized structs.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_AS, &mut old), 0);
        let new = libc::rlimit {
            rlim_cur: (kib * 1024 + margin).min(old.rlim_max),
            rlim_max: old.rlim_max,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_AS, &new), 0);
    }
    old
}
