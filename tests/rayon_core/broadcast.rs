//! rayon-core's `broadcast/test.rs`, for locus.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;

use locus::{ThreadPool, ThreadPoolBuilder};

use crate::common::deadline::within_deadline;

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// The indexes sent on `rx`, sorted.
fn sorted(rx: std::sync::mpsc::Receiver<usize>) -> Vec<usize> {
    let mut v: Vec<usize> = rx.into_iter().collect();
    v.sort_unstable();
    v
}

#[test]
fn broadcast_global() {
    let v = locus::broadcast(|ctx| ctx.index());
    assert!(v.into_iter().eq(0..locus::current_num_threads()));
}

#[test]
fn spawn_broadcast_global() {
    let (tx, rx) = channel();
    locus::spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
    assert!(sorted(rx).into_iter().eq(0..locus::current_num_threads()));
}

#[test]
fn broadcast_pool() {
    let v = pool(7).broadcast(|ctx| (ctx.index(), ctx.num_threads()));
    assert!(v.into_iter().eq((0..7).map(|i| (i, 7))));
}

#[test]
fn spawn_broadcast_pool() {
    let (tx, rx) = channel();
    pool(7).spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
    assert_eq!(sorted(rx), (0..7).collect::<Vec<_>>());
}

#[test]
fn broadcast_self() {
    let p = pool(7);
    let v = p.install(|| locus::broadcast(|ctx| ctx.index()));
    assert!(v.into_iter().eq(0..7));
}

#[test]
fn spawn_broadcast_self() {
    let (tx, rx) = channel();
    let p = pool(7);
    p.spawn(|| locus::spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap()));
    assert_eq!(sorted(rx), (0..7).collect::<Vec<_>>());
}

#[test]
fn broadcast_mutual() {
    within_deadline("broadcast_mutual", || {
        let count = AtomicUsize::new(0);
        let (p1, p2) = (pool(3), pool(7));
        p1.install(|| {
            p2.broadcast(|_| {
                p1.broadcast(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                })
            })
        });
        assert_eq!(count.into_inner(), 3 * 7);
    });
}

#[test]
fn spawn_broadcast_mutual() {
    within_deadline("spawn_broadcast_mutual", || {
        let (tx, rx) = channel();
        let p1 = Arc::new(pool(3));
        let p2 = pool(7);
        let p1c = Arc::clone(&p1);
        p1.spawn(move || {
            p2.spawn_broadcast(move |_| {
                let tx = tx.clone();
                p1c.spawn_broadcast(move |_| tx.send(()).unwrap())
            })
        });
        assert_eq!(rx.into_iter().count(), 3 * 7);
    });
}

#[test]
fn broadcast_mutual_sleepy() {
    within_deadline("broadcast_mutual_sleepy", || {
        let count = AtomicUsize::new(0);
        let (p1, p2) = (pool(3), pool(7));
        p1.install(|| {
            // Sleeps give the other pool's workers time to park.
            std::thread::sleep(Duration::from_millis(100));
            p2.broadcast(|_| {
                std::thread::sleep(Duration::from_millis(100));
                p1.broadcast(|_| {
                    std::thread::sleep(Duration::from_millis(10));
                    count.fetch_add(1, Ordering::Relaxed);
                })
            })
        });
        assert_eq!(count.into_inner(), 3 * 7);
    });
}

#[test]
fn spawn_broadcast_mutual_sleepy() {
    within_deadline("spawn_broadcast_mutual_sleepy", || {
        let (tx, rx) = channel();
        let p1 = Arc::new(pool(3));
        let p2 = pool(7);
        let p1c = Arc::clone(&p1);
        p1.spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            p2.spawn_broadcast(move |_| {
                let tx = tx.clone();
                std::thread::sleep(Duration::from_millis(100));
                p1c.spawn_broadcast(move |_| {
                    std::thread::sleep(Duration::from_millis(10));
                    tx.send(()).unwrap();
                })
            })
        });
        assert_eq!(rx.into_iter().count(), 3 * 7);
    });
}

fn broadcast_panics(panics_on: fn(usize) -> bool) {
    let count = AtomicUsize::new(0);
    let p = pool(7);
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        p.broadcast(|ctx| {
            count.fetch_add(1, Ordering::Relaxed);
            if panics_on(ctx.index()) {
                panic!("Hello, world!");
            }
        })
    }));
    assert_eq!(count.into_inner(), 7);
    assert!(r.is_err(), "the panic reaches the caller");
}

#[test]
fn broadcast_panic_one() {
    broadcast_panics(|i| i == 3);
}

#[test]
fn broadcast_panic_many() {
    broadcast_panics(|i| i % 2 == 0);
}

/// A detached broadcast with panics: each reaches the panic handler once.
fn spawn_broadcast_panics(panics_on: fn(usize) -> bool) -> (usize, usize) {
    let (tx, rx) = channel();
    let (panic_tx, panic_rx) = channel();
    let p = ThreadPoolBuilder::new()
        .num_threads(7)
        .panic_handler(move |e| panic_tx.send(e).unwrap())
        .build()
        .unwrap();
    p.spawn_broadcast(move |ctx| {
        tx.send(()).unwrap();
        if panics_on(ctx.index()) {
            panic!("Hello, world!");
        }
    });
    // The handler's sender goes with the pool's state, once the workers ran
    // the broadcast and exited: then the counts below end.
    drop(p);
    (rx.into_iter().count(), panic_rx.into_iter().count())
}

#[test]
fn spawn_broadcast_panic_one() {
    assert_eq!(spawn_broadcast_panics(|i| i == 3), (7, 1));
}

#[test]
fn spawn_broadcast_panic_many() {
    assert_eq!(spawn_broadcast_panics(|i| i % 2 == 0), (7, 4));
}

#[test]
fn broadcast_sleep_race() {
    // Calls of slightly different lengths, so that workers race into the
    // idle sleep after each broadcast.
    within_deadline("broadcast_sleep_race", || {
        let p = pool(7);
        for _ in 0..200 {
            p.broadcast(|ctx| std::thread::sleep(Duration::from_micros(ctx.index() as u64)));
        }
    });
}

#[test]
fn broadcast_after_spawn_broadcast() {
    // A blocking broadcast runs after every earlier broadcast on each
    // worker, detached ones included.
    let p = pool(4);
    let (tx, rx) = channel();
    p.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
    p.broadcast(|_| {});
    let mut v: Vec<usize> = rx.try_iter().collect();
    v.sort_unstable();
    assert_eq!(v, [0, 1, 2, 3]);
}

#[test]
fn broadcast_after_spawn() {
    // A spawn sits in a worker's deque; a worker runs its own deque before
    // broadcast jobs, so the broadcast returns after the spawn ran.
    let p = pool(4);
    let (tx, rx) = channel();
    p.install(|| locus::spawn(move || tx.send(22).unwrap()));
    p.broadcast(|_| {});
    assert_eq!(rx.try_recv(), Ok(22));
}
