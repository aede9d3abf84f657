//! rayon-core's `join/test.rs`, for locus.

use std::panic;
use std::sync::Barrier;

use locus::{ThreadPoolBuilder, join, join_context};

use crate::{Rng, partition};

fn quick_sort<T: PartialOrd + Send>(v: &mut [T]) {
    if v.len() <= 1 {
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    join(|| quick_sort(lo), || quick_sort(hi));
}

fn random_data(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next() as u32).collect()
}

fn check_sort(mut data: Vec<u32>, sort: impl FnOnce(&mut [u32])) {
    let mut expected = data.clone();
    expected.sort_unstable();
    sort(&mut data);
    assert_eq!(data, expected);
}

#[test]
fn sort() {
    check_sort(random_data(6 * 1024, 1), quick_sort);
}

#[test]
fn sort_in_pool() {
    let pool = ThreadPoolBuilder::new().build().unwrap();
    check_sort(random_data(12 * 1024, 2), |d| {
        pool.install(|| quick_sort(d))
    });
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_a() {
    join(|| panic!("Hello, world!"), || ());
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_b() {
    join(|| (), || panic!("Hello, world!"));
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_both() {
    join(|| panic!("Hello, world!"), || panic!("Goodbye, world!"));
}

#[test]
fn panic_b_still_executes() {
    let mut ran_b = false;
    let r = panic::catch_unwind(panic::AssertUnwindSafe(|| {
        join(|| panic!("Hello, world!"), || ran_b = true)
    }));
    assert!(r.is_err(), "the panic of `a` must reach the caller");
    assert!(ran_b, "`b` must run although `a` panicked");
}

#[test]
fn join_context_both() {
    // From outside any pool both halves run on a worker: both migrated.
    let (a, b) = join_context(|a| a.migrated(), |b| b.migrated());
    assert!(a && b);
}

#[test]
fn join_context_neither() {
    // Already on the only worker: nothing moves.
    let pool = crate::one_worker();
    let (a, b) = pool.install(|| join_context(|a| a.migrated(), |b| b.migrated()));
    assert!(!a && !b);
}

#[test]
fn join_context_second() {
    // Two workers, and `a` waits for `b`: `b` must have been stolen.
    let barrier = Barrier::new(2);
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let (a, b) = pool.install(|| {
        join_context(
            |a| {
                barrier.wait();
                a.migrated()
            },
            |b| {
                barrier.wait();
                b.migrated()
            },
        )
    });
    assert!(!a);
    assert!(b);
}

#[test]
fn join_counter_overflow() {
    // Many joins in a row (rayon once overflowed a counter here).
    const N: u32 = 200_000;
    let (mut i, mut j) = (0u32, 0u32);
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for _ in 0..N {
        pool.join(|| i += 1, || j += 1);
    }
    assert_eq!((i, j), (N, N));
}
