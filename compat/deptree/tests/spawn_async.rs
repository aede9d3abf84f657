//! tokio-rayon: rayon's `spawn` and `spawn_fifo` whose jobs answer
//! through a oneshot channel, awaited as futures by threads outside the
//! pool (here with a minimal `block_on`, as an async runtime's thread
//! would). Pattern: detached jobs injected from many outside threads, each
//! waking its waiter from a worker; the order a worker runs the jobs it
//! spawned itself (`spawn_fifo` oldest first, `spawn` newest first); a
//! panic caught in the job and re-raised by the future; and a panic in a
//! detached job reaching the pool's panic handler.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use deptree::Seen;
use tokio_rayon::AsyncThreadPool;

/// Wakes the thread that polls, by unparking it.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `f` on this thread, parking between polls, until it is ready.
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

fn work(i: u64) -> u64 {
    (0..=i % 97).map(|k| k * i).sum()
}

/// Many outside threads at once spawn into one pool of two workers,
/// `spawn` and `spawn_fifo` alternately, and each awaits its futures,
/// newest first: every answer is the serial one, and every job ran on the
/// pool's workers.
#[test]
fn futures_of_jobs_spawned_from_many_threads_answer_from_the_pool() {
    let pool = Arc::new(deptree::pool("tree-async-"));
    let seen = Arc::new(Seen::default());
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let (pool, seen) = (Arc::clone(&pool), Arc::clone(&seen));
            std::thread::spawn(move || {
                let handles: Vec<_> = (0..250u64)
                    .map(|j| {
                        let i = t * 1_000 + j;
                        let seen = Arc::clone(&seen);
                        let job = move || {
                            seen.record();
                            work(i)
                        };
                        let handle = if j % 2 == 0 {
                            pool.spawn_async(job)
                        } else {
                            pool.spawn_fifo_async(job)
                        };
                        (i, handle)
                    })
                    .collect();
                for (i, handle) in handles.into_iter().rev() {
                    assert_eq!(block_on(handle), work(i), "job {i}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    seen.assert_all_on("tree-async-");
}

/// The free functions spawn into the global pool, which is locus's.
#[test]
fn global_spawns_run_on_locus_global_pool() {
    let seen = Arc::new(Seen::default());
    let handles: Vec<_> = (0..100u64)
        .map(|i| {
            let seen = Arc::clone(&seen);
            let job = move || {
                seen.record();
                work(i)
            };
            if i % 2 == 0 {
                tokio_rayon::spawn(job)
            } else {
                tokio_rayon::spawn_fifo(job)
            }
        })
        .collect();
    for (i, handle) in handles.into_iter().enumerate() {
        assert_eq!(block_on(handle), work(i as u64));
    }
    assert_eq!(seen.outside(), 0, "a job ran outside locus's workers");
    assert!(!seen.names().is_empty());
}

/// On a pool of one worker, the jobs the worker spawned itself run, once
/// its `install` returns, oldest first for `spawn_fifo` and newest first
/// for `spawn`: what `locus::spawn_fifo` documents, and rayon's order
/// (its docs: FIFO for one thread's `spawn_fifo`s, "generally" LIFO on
/// the spawning thread for `spawn`).
#[test]
fn a_worker_runs_its_own_spawns_in_their_documented_order() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for fifo in [true, false] {
        let order = Arc::new(Mutex::new(Vec::new()));
        let handles: Vec<_> = pool.install(|| {
            (0..50usize)
                .map(|i| {
                    let order = Arc::clone(&order);
                    let job = move || order.lock().unwrap().push(i);
                    // The worker's own pool, asked for as rayon code would.
                    let pool = &pool;
                    assert_eq!(pool.current_thread_index(), Some(0));
                    if fifo {
                        pool.spawn_fifo_async(job)
                    } else {
                        pool.spawn_async(job)
                    }
                })
                .collect()
        });
        for handle in handles {
            block_on(handle);
        }
        let order = order.lock().unwrap().clone();
        let want: Vec<usize> = if fifo {
            (0..50).collect()
        } else {
            (0..50).rev().collect()
        };
        assert_eq!(order, want, "fifo: {fifo}");
    }
}

/// A panic in the job comes back out of its future (tokio-rayon catches
/// it in the job); the pool's workers keep running jobs.
#[test]
fn a_panic_comes_back_through_the_future() {
    let pool = deptree::pool("tree-async-panic-");
    let handle = pool.spawn_async(|| -> u64 { panic!("job failed on purpose") });
    let err = catch_unwind(AssertUnwindSafe(|| block_on(handle))).unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"job failed on purpose"));
    assert_eq!(block_on(pool.spawn_fifo_async(|| work(10))), work(10));
}

/// A value that panics when dropped.
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("dropped on purpose");
    }
}

/// A job whose future was dropped first drops its answer in the job; a
/// panic there is the pool's, as tokio-rayon documents: it reaches the
/// panic handler of the pool (built through the shim's builder), and the
/// pool lives on.
#[test]
fn a_panic_in_an_abandoned_answer_reaches_the_panic_handler() {
    let handled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&handled);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |_| {
            counter.fetch_add(1, Relaxed);
        })
        .build()
        .unwrap();
    let (go, wait) = mpsc::channel::<()>();
    let handle = pool.spawn_async(move || {
        // Answer only once the future is gone.
        wait.recv().unwrap();
        PanicOnDrop
    });
    drop(handle);
    go.send(()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while handled.load(Relaxed) == 0 {
        assert!(
            Instant::now() < deadline,
            "no panic reached the handler in 60 s"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(block_on(pool.spawn_async(|| work(3))), work(3));
    assert_eq!(handled.load(Relaxed), 1);
}
