//! `yield_now`, `yield_local` and `current_thread_has_pending_tasks`
//! (rayon-core's yield tests, and what they promise in detail).

use std::sync::Mutex;
use std::sync::mpsc::channel;

use locus::{ThreadPoolBuilder, Yield, yield_local, yield_now};

#[test]
fn yield_now_to_spawn() {
    let (tx, rx) = channel();
    locus::spawn(move || tx.send(22).unwrap());
    // On a worker of the global pool, yield; the spawn has started by the
    // time `recv` returns either way.
    locus::scope(|_| yield_now());
    assert_eq!(rx.recv().unwrap(), 22);
}

#[test]
fn yield_local_to_spawn() {
    let (tx, rx) = channel();
    locus::spawn(move || tx.send(22).unwrap());
    locus::scope(|_| yield_local());
    assert_eq!(rx.recv().unwrap(), 22);
}

#[test]
fn outside_a_pool_there_is_nothing_to_yield_to() {
    assert_eq!(yield_now(), None);
    assert_eq!(yield_local(), None);
    assert_eq!(locus::current_thread_has_pending_tasks(), None);
    let pool = crate::one_worker();
    assert_eq!(pool.yield_now(), None);
    assert_eq!(pool.yield_local(), None);
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    // A worker of another pool is not a worker of `pool`.
    let other = crate::one_worker();
    assert_eq!(
        other.install(|| (pool.yield_now(), pool.yield_local())),
        (None, None)
    );
}

#[test]
fn a_busy_worker_runs_its_own_spawns_by_yielding() {
    let pool = crate::one_worker();
    pool.install(|| {
        assert_eq!(locus::current_thread_has_pending_tasks(), Some(false));
        assert_eq!(yield_local(), Some(Yield::Idle));
        assert_eq!(yield_now(), Some(Yield::Idle));
        let (tx, rx) = channel();
        for i in 0..2 {
            let tx = tx.clone();
            locus::spawn(move || tx.send(i).unwrap());
        }
        assert_eq!(pool.current_thread_has_pending_tasks(), Some(true));
        // Newest first, one job per call.
        assert_eq!(pool.yield_local(), Some(Yield::Executed));
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(pool.yield_now(), Some(Yield::Executed));
        assert_eq!(rx.try_recv(), Ok(0));
        assert_eq!(locus::current_thread_has_pending_tasks(), Some(false));
        assert_eq!(yield_now(), Some(Yield::Idle));
    });
}

#[test]
fn yield_now_takes_jobs_from_the_pool_queues() {
    // The only worker is busy in `install`; a job injected from outside
    // waits in the pool's queue, where only `yield_now` looks.
    let pool = &crate::one_worker();
    let (go_tx, go_rx) = channel::<()>();
    let (tx, rx) = channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            go_rx.recv().unwrap();
            pool.spawn(move || tx.send(3).unwrap());
        });
        pool.install(|| {
            go_tx.send(()).unwrap();
            // Poll until the job has arrived; yield_local never sees it.
            loop {
                assert_ne!(
                    yield_local(),
                    Some(Yield::Executed),
                    "not in the local deque"
                );
                if yield_now() == Some(Yield::Executed) {
                    break;
                }
                std::thread::yield_now();
            }
        });
    });
    assert_eq!(rx.try_recv(), Ok(3));
}

#[test]
fn pending_tasks_include_the_second_half_of_a_join() {
    let pool = crate::one_worker();
    let (in_a, in_b) = pool.install(|| {
        locus::join(
            locus::current_thread_has_pending_tasks,
            locus::current_thread_has_pending_tasks,
        )
    });
    assert_eq!(in_a, Some(true), "`b` waits while `a` runs");
    assert_eq!(in_b, Some(false));
}

#[test]
fn yield_from_a_pool_thread_of_a_2_thread_pool_steals() {
    // Worker 0 holds the other worker busy, then runs a job spawned on
    // worker 1's deque by yielding.
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let (ready_tx, ready_rx) = channel::<()>();
    let (release_tx, release_rx) = channel::<()>();
    let (ready_rx, release_rx) = (Mutex::new(ready_rx), Mutex::new(release_rx));
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    pool.in_place_scope(|s| {
        s.spawn_broadcast(|_, ctx| {
            if ctx.index() == 1 {
                // Queue a job on this worker's deque, then block.
                let tx = tx.lock().unwrap().clone();
                locus::spawn(move || tx.send(locus::current_thread_index()).unwrap());
                ready_tx.send(()).unwrap();
                release_rx.lock().unwrap().recv().unwrap();
            } else {
                ready_rx.lock().unwrap().recv().unwrap();
                // Worker 1 is blocked; its job is ours to steal.
                while yield_now() != Some(Yield::Executed) {
                    std::thread::yield_now();
                }
                release_tx.send(()).unwrap();
            }
        });
    });
    assert_eq!(rx.try_recv(), Ok(Some(0)));
}
