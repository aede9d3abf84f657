//! rayon-core's `spawn/test.rs`, for locus.

use std::any::Any;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, channel};

use locus::{ThreadPool, ThreadPoolBuilder, scope, spawn, spawn_fifo};

#[test]
fn spawn_then_join_in_worker() {
    let (tx, rx) = channel();
    scope(move |_| spawn(move || tx.send(22).unwrap()));
    assert_eq!(rx.recv().unwrap(), 22);
}

#[test]
fn spawn_then_join_outside_worker() {
    let (tx, rx) = channel();
    spawn(move || tx.send(22).unwrap());
    assert_eq!(rx.recv().unwrap(), 22);
}

/// What a panic payload says: 1 for the expected message, 2 for another
/// string, 3 for something else.
fn classify(p: &(dyn Any + Send)) -> u8 {
    match p.downcast_ref::<&str>() {
        Some(&"Hello, world!") => 1,
        Some(_) => 2,
        None => 3,
    }
}

#[test]
fn panic_fwd() {
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    let pool = ThreadPoolBuilder::new()
        .panic_handler(move |p| tx.lock().unwrap().send(classify(&*p)).unwrap())
        .build()
        .unwrap();
    pool.spawn(|| panic!("Hello, world!"));
    assert_eq!(rx.recv().unwrap(), 1);
}

/// The pool is dropped while a spawned job still waits: the job runs on,
/// and may spawn more (into the same pool) after the drop began.
#[test]
fn termination_while_things_are_executing() {
    crate::common::deadline::within_deadline("termination", || {
        let (tx0, rx0) = channel();
        let (tx1, rx1) = channel();
        let pool = ThreadPoolBuilder::new().build().unwrap();
        pool.spawn(move || {
            let data = rx0.recv().unwrap();
            spawn(move || tx1.send(data).unwrap());
        });
        // The drop returns at once (as rayon's), before the job got its
        // data: waiting for the job here would deadlock.
        drop(pool);
        tx0.send(22).unwrap();
        assert_eq!(rx1.recv().unwrap(), 22);
    });
}

/// A pool whose panic handler sends each payload on the returned channel.
fn pool_sending_panics() -> (ThreadPool, Receiver<Box<dyn Any + Send>>) {
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    let pool = ThreadPoolBuilder::new()
        .panic_handler(move |p| tx.lock().unwrap().send(p).unwrap())
        .build()
        .unwrap();
    (pool, rx)
}

#[test]
fn custom_panic_handler_and_spawn() {
    let (pool, rx) = pool_sending_panics();
    pool.spawn(|| panic!("Hello, world!"));
    assert_eq!(classify(&*rx.recv().unwrap()), 1);
}

#[test]
fn custom_panic_handler_and_nested_spawn() {
    const PANICS: usize = 3;
    let (pool, rx) = pool_sending_panics();
    // Spawns from a spawned job go to the same pool, hence its handler.
    pool.spawn(|| {
        for _ in 0..PANICS {
            spawn(|| panic!("Hello, world!"));
        }
    });
    for _ in 0..PANICS {
        assert_eq!(classify(&*rx.recv().unwrap()), 1);
    }
}

/// On one worker, ten spawns that spawn ten each: the order the inner
/// ones ran.
macro_rules! two_levels {
    ($outer:ident, $inner:ident) => {{
        let pool = crate::one_worker();
        let (tx, rx) = channel();
        pool.install(move || {
            for i in 0..10 {
                let tx = tx.clone();
                $outer(move || {
                    for j in 0..10 {
                        let tx = tx.clone();
                        $inner(move || tx.send(i * 10 + j).unwrap());
                    }
                });
            }
        });
        rx.iter().collect::<Vec<i32>>()
    }};
}

#[test]
fn lifo_order() {
    assert_eq!(
        two_levels!(spawn, spawn),
        (0..100).rev().collect::<Vec<_>>()
    );
}

#[test]
fn fifo_order() {
    assert_eq!(
        two_levels!(spawn_fifo, spawn_fifo),
        (0..100).collect::<Vec<_>>()
    );
}

#[test]
fn lifo_fifo_order() {
    let expected: Vec<i32> = (0..10)
        .rev()
        .flat_map(|i| (0..10).map(move |j| i * 10 + j))
        .collect();
    assert_eq!(two_levels!(spawn, spawn_fifo), expected);
}

#[test]
fn fifo_lifo_order() {
    let expected: Vec<i32> = (0..10)
        .flat_map(|i| (0..10).rev().map(move |j| i * 10 + j))
        .collect();
    assert_eq!(two_levels!(spawn_fifo, spawn), expected);
}

/// On one worker, spawns of two kinds interleaved (the second kind sends
/// negative numbers).
macro_rules! mixed {
    ($pos:ident, $neg:ident) => {{
        let pool = crate::one_worker();
        let (tx, rx) = channel();
        pool.install(move || {
            for (k, v) in [(0, 0), (1, -1), (0, 1), (1, -2), (0, 2), (1, -3), (0, 3)] {
                let tx = tx.clone();
                let send = move || tx.send(v).unwrap();
                if k == 0 { $pos(send) } else { $neg(send) }
            }
        });
        rx.iter().collect::<Vec<i32>>()
    }};
}

#[test]
fn mixed_lifo_fifo_order() {
    assert_eq!(mixed!(spawn, spawn_fifo), [3, -1, 2, -2, 1, -3, 0]);
}

#[test]
fn mixed_fifo_lifo_order() {
    assert_eq!(mixed!(spawn_fifo, spawn), [0, -3, 1, -2, 2, -1, 3]);
}

#[test]
fn pool_spawn_fifo_keeps_order_on_a_worker() {
    let pool = crate::one_worker();
    let (tx, rx) = channel();
    pool.install(|| {
        for i in 0..10 {
            let tx = tx.clone();
            pool.spawn_fifo(move || tx.send(i).unwrap());
        }
    });
    drop(tx);
    assert_eq!(rx.iter().collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
}

#[test]
fn spawn_fifo_panics_go_to_the_handler() {
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |p| tx.lock().unwrap().send(classify(&*p)).unwrap())
        .build()
        .unwrap();
    pool.install(|| spawn_fifo(|| panic!("Hello, world!")));
    pool.spawn_fifo(|| panic!("Hello, world!"));
    // The handler's sender goes with the pool's state, once the workers
    // ran both jobs and exited: then the iteration ends.
    drop(pool);
    assert_eq!(rx.iter().collect::<Vec<_>>(), [1, 1]);
}
