//! rayon-core's `scope/test.rs`, for locus.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};

use locus::{Scope, ScopeFifo, ThreadPoolBuilder, scope, scope_fifo};

use crate::Rng;

#[test]
fn scope_empty() {
    scope(|_| {});
}

#[test]
fn scope_result() {
    assert_eq!(scope(|_| 22), 22);
}

#[test]
fn scope_two() {
    let counter = &AtomicUsize::new(0);
    scope(|s| {
        s.spawn(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        s.spawn(move |_| {
            counter.fetch_add(10, Ordering::SeqCst);
        });
    });
    assert_eq!(counter.load(Ordering::SeqCst), 11);
}

/// Counts the leaves of a binary split of `size`, spawning each half.
fn count_leaves<'scope>(s: &Scope<'scope>, leaves: &'scope AtomicUsize, size: usize) {
    if size > 1 {
        s.spawn(move |s| count_leaves(s, leaves, size / 2));
        s.spawn(move |s| count_leaves(s, leaves, size / 2));
    } else {
        leaves.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn scope_divide_and_conquer() {
    let leaves = AtomicUsize::new(0);
    scope(|s| s.spawn(|s| count_leaves(s, &leaves, 1024)));
    assert_eq!(leaves.into_inner(), 1024);
}

/// A tree whose nodes are updated by scope jobs borrowing them.
struct Tree {
    value: u32,
    children: Vec<Tree>,
}

impl Tree {
    fn random(depth: usize, rng: &mut Rng) -> Tree {
        let n = if depth == 0 { 0 } else { rng.below(4) };
        Tree {
            value: rng.below(1_000_000) as u32,
            children: (0..n).map(|_| Tree::random(depth - 1, rng)).collect(),
        }
    }

    fn values(&self, out: &mut Vec<u32>) {
        out.push(self.value);
        for c in &self.children {
            c.values(out);
        }
    }

    fn update_in<'scope>(&'scope mut self, s: &Scope<'scope>) {
        let Tree { value, children } = self;
        s.spawn(move |s| {
            for c in children {
                s.spawn(move |s| c.update_in(s));
            }
        });
        *value += 1;
    }
}

#[test]
fn update_tree() {
    let mut tree = Tree::random(10, &mut Rng::new(7));
    let mut before = Vec::new();
    tree.values(&mut before);
    scope(|s| tree.update_in(s));
    let mut after = Vec::new();
    tree.values(&mut after);
    assert_eq!(before.len(), after.len());
    assert!(before.iter().zip(&after).all(|(b, a)| b + 1 == *a));
}

/// Each job spawns the next: the deepest stack seen, relative to `base`.
fn countdown<'scope>(s: &Scope<'scope>, base: &'scope u8, deepest: &'scope Mutex<usize>, n: usize) {
    let here = 0u8;
    let depth = (base as *const u8 as usize).abs_diff(&here as *const u8 as usize);
    let mut d = deepest.lock().unwrap();
    *d = (*d).max(depth);
    drop(d);
    if n > 0 {
        s.spawn(move |s| countdown(s, base, deepest, n - 1));
    }
}

/// A chain of N jobs, each spawning the next, must not use stack in
/// proportion to N: a scope runs its jobs one after another, not nested.
#[test]
fn linear_stack_growth() {
    let pool = crate::one_worker();
    pool.install(|| {
        let base = 0u8;
        let deepest = Mutex::new(0);
        scope(|s| countdown(s, &base, &deepest, 5));
        let short = *deepest.lock().unwrap() as f64;
        scope(|s| countdown(s, &base, &deepest, 500));
        let long = *deepest.lock().unwrap() as f64;
        let ratio = short / long;
        assert!(
            (0.9..1.1).contains(&ratio),
            "stack use grew with the chain: {ratio}"
        );
    });
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_scope() {
    scope(|_| panic!("Hello, world!"));
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_spawn() {
    scope(|s| s.spawn(|_| panic!("Hello, world!")));
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_nested_spawn() {
    scope(|s| s.spawn(|s| s.spawn(|s| s.spawn(|_| panic!("Hello, world!")))));
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_nested_scope_spawn() {
    scope(|s| s.spawn(|_| scope(|s| s.spawn(|_| panic!("Hello, world!")))));
}

/// Runs `body` in a scope that must panic, and returns whether `flag` was
/// set by then: the other jobs and the body still ran to completion.
fn still_executes(body: impl for<'s> FnOnce(&Scope<'s>, &'s mut bool) + Send) -> bool {
    let mut flag = false;
    let r = panic::catch_unwind(AssertUnwindSafe(|| scope(|s| body(s, &mut flag))));
    assert!(r.is_err(), "the panic must reach the caller");
    flag
}

#[test]
fn panic_propagate_still_execute_1() {
    assert!(still_executes(|s, x| {
        s.spawn(|_| panic!("Hello, world!"));
        s.spawn(move |_| *x = true);
    }));
}

#[test]
fn panic_propagate_still_execute_2() {
    assert!(still_executes(|s, x| {
        s.spawn(move |_| *x = true);
        s.spawn(|_| panic!("Hello, world!"));
    }));
}

#[test]
fn panic_propagate_still_execute_3() {
    assert!(still_executes(|s, x| {
        s.spawn(move |_| *x = true);
        panic!("Hello, world!");
    }));
}

#[test]
fn panic_propagate_still_execute_4() {
    assert!(still_executes(|s, x| {
        s.spawn(|_| panic!("Hello, world!"));
        *x = true;
    }));
}

// ---- order on one worker ---------------------------------------------------
//
// With one worker nobody steals, so these show the order a worker runs its
// own scope jobs: `spawn` newest first, `spawn_fifo` oldest first.

/// Ten jobs spawning ten each; the order in which the inner ones ran.
macro_rules! two_levels {
    ($scope:ident => $spawn:ident) => {{
        let pool = crate::one_worker();
        pool.install(|| {
            let seen = Mutex::new(Vec::new());
            $scope(|s| {
                let seen = &seen;
                for i in 0..10 {
                    s.$spawn(move |s| {
                        for j in 0..10 {
                            s.$spawn(move |_| seen.lock().unwrap().push(i * 10 + j));
                        }
                    });
                }
            });
            seen.into_inner().unwrap()
        })
    }};
}

/// Ten jobs each opening an inner scope of ten jobs.
macro_rules! nested {
    ($outer:ident => $outer_spawn:ident, $inner:ident => $inner_spawn:ident) => {{
        let pool = crate::one_worker();
        pool.install(|| {
            let seen = Mutex::new(Vec::new());
            $outer(|s| {
                let seen = &seen;
                for i in 0..10 {
                    s.$outer_spawn(move |_| {
                        $inner(|s| {
                            for j in 0..10 {
                                s.$inner_spawn(move |_| seen.lock().unwrap().push(i * 10 + j));
                            }
                        })
                    });
                }
            });
            seen.into_inner().unwrap()
        })
    }};
}

/// Spawns into an outer (positive numbers) and an inner scope (negative),
/// interleaved, the inner scope ending in the middle.
macro_rules! mixed {
    ($outer:ident => $outer_spawn:ident, $inner:ident => $inner_spawn:ident) => {{
        let pool = crate::one_worker();
        pool.install(|| {
            let seen = Mutex::new(Vec::new());
            let push = |v: i32| seen.lock().unwrap().push(v);
            $outer(|o| {
                let push = &push;
                o.$outer_spawn(move |_| push(0));
                $inner(|i| {
                    i.$inner_spawn(move |_| push(-1));
                    o.$outer_spawn(move |_| push(1));
                    i.$inner_spawn(move |_| push(-2));
                    o.$outer_spawn(move |_| push(2));
                    i.$inner_spawn(move |_| push(-3));
                });
                o.$outer_spawn(move |_| push(3));
            });
            seen.into_inner().unwrap()
        })
    }};
}

fn tens_then_units(outer: impl Iterator<Item = i32> + Clone, inner_rev: bool) -> Vec<i32> {
    outer
        .flat_map(|i| {
            let inner: Vec<i32> = if inner_rev {
                (0..10).rev().collect()
            } else {
                (0..10).collect()
            };
            inner.into_iter().map(move |j| i * 10 + j)
        })
        .collect()
}

#[test]
fn lifo_order() {
    assert_eq!(
        two_levels!(scope => spawn),
        (0..100).rev().collect::<Vec<_>>()
    );
}

#[test]
fn fifo_order() {
    assert_eq!(
        two_levels!(scope_fifo => spawn_fifo),
        (0..100).collect::<Vec<_>>()
    );
}

#[test]
fn nested_lifo_order() {
    assert_eq!(
        nested!(scope => spawn, scope => spawn),
        (0..100).rev().collect::<Vec<_>>()
    );
}

#[test]
fn nested_fifo_order() {
    let v = nested!(scope_fifo => spawn_fifo, scope_fifo => spawn_fifo);
    assert_eq!(v, (0..100).collect::<Vec<_>>());
}

#[test]
fn nested_lifo_fifo_order() {
    let v = nested!(scope => spawn, scope_fifo => spawn_fifo);
    assert_eq!(v, tens_then_units((0..10).rev(), false));
}

#[test]
fn nested_fifo_lifo_order() {
    let v = nested!(scope_fifo => spawn_fifo, scope => spawn);
    assert_eq!(v, tens_then_units(0..10, true));
}

// In the mixed tests the end of the inner scope runs some outer jobs
// before all of them were spawned, so the outer order is not pure.

#[test]
fn mixed_lifo_order() {
    assert_eq!(
        mixed!(scope => spawn, scope => spawn),
        [-3, 2, -2, 1, -1, 3, 0]
    );
}

#[test]
fn mixed_fifo_order() {
    let v = mixed!(scope_fifo => spawn_fifo, scope_fifo => spawn_fifo);
    assert_eq!(v, [-1, 0, -2, 1, -3, 2, 3]);
}

#[test]
fn mixed_lifo_fifo_order() {
    let v = mixed!(scope => spawn, scope_fifo => spawn_fifo);
    assert_eq!(v, [-1, 2, -2, 1, -3, 3, 0]);
}

#[test]
fn mixed_fifo_lifo_order() {
    let v = mixed!(scope_fifo => spawn_fifo, scope => spawn);
    assert_eq!(v, [-3, 0, -2, 1, -1, 2, 3]);
}

// ---- lifetimes ---------------------------------------------------------------

/// A `'static` scope: the body borrows a local iterator, the jobs may not.
macro_rules! static_scope {
    ($Scope:ident, $scope:ident => $spawn:ident) => {{
        static SUM: AtomicUsize = AtomicUsize::new(0);
        let mut range = 0..100usize;
        let iter = &mut range;
        $scope(|s: &$Scope<'static>| {
            for i in iter {
                s.$spawn(move |_| {
                    SUM.fetch_add(i, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(SUM.load(Ordering::Relaxed), 4950);
    }};
}

#[test]
fn static_scope() {
    static_scope!(Scope, scope => spawn);
}

#[test]
fn static_scope_fifo() {
    static_scope!(ScopeFifo, scope_fifo => spawn_fifo);
}

/// A scope whose body borrows `'slice` while its jobs borrow only
/// `'counter`.
macro_rules! mixed_lifetime_scope {
    ($Scope:ident, $scope:ident => $spawn:ident) => {{
        fn bump<'slice, 'counter>(counters: &'slice [&'counter AtomicUsize]) {
            $scope(move |s: &$Scope<'counter>| {
                for &c in counters {
                    s.$spawn(move |_| {
                        c.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }
        let c = AtomicUsize::new(0);
        bump(&[&c; 100]);
        assert_eq!(c.into_inner(), 100);
    }};
}

#[test]
fn mixed_lifetime_scope() {
    mixed_lifetime_scope!(Scope, scope => spawn);
}

#[test]
fn mixed_lifetime_scope_fifo() {
    mixed_lifetime_scope!(ScopeFifo, scope_fifo => spawn_fifo);
}

// ---- spawn_broadcast in scopes --------------------------------------------

/// 0 + 1 + ... + (n - 1).
fn index_sum(n: usize) -> usize {
    n * (n - 1) / 2
}

#[test]
fn scope_spawn_broadcast() {
    let sum = AtomicUsize::new(0);
    let n = scope(|s| {
        s.spawn_broadcast(|_, ctx| {
            sum.fetch_add(ctx.index(), Ordering::Relaxed);
        });
        locus::current_num_threads()
    });
    assert_eq!(sum.into_inner(), index_sum(n));
}

#[test]
fn scope_fifo_spawn_broadcast() {
    let sum = AtomicUsize::new(0);
    let n = scope_fifo(|s| {
        s.spawn_broadcast(|_, ctx| {
            sum.fetch_add(ctx.index(), Ordering::Relaxed);
        });
        locus::current_num_threads()
    });
    assert_eq!(sum.into_inner(), index_sum(n));
}

#[test]
fn scope_spawn_broadcast_nested() {
    let sum = AtomicUsize::new(0);
    let n = scope(|s| {
        s.spawn_broadcast(|s, _| {
            s.spawn_broadcast(|_, ctx| {
                sum.fetch_add(ctx.index(), Ordering::Relaxed);
            });
        });
        locus::current_num_threads()
    });
    assert_eq!(sum.into_inner(), n * index_sum(n));
}

#[test]
fn scope_spawn_broadcast_barrier() {
    // Seven workers and the calling thread meet: the broadcast jobs run on
    // every worker at once while the in-place body waits for them.
    crate::common::deadline::within_deadline("broadcast barrier", || {
        let barrier = Barrier::new(8);
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        pool.in_place_scope(|s| {
            s.spawn_broadcast(|_, _| {
                barrier.wait();
            });
            barrier.wait();
        });
    });
}

fn broadcast_panics(panics_on: fn(usize) -> bool) {
    let count = AtomicUsize::new(0);
    let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            s.spawn_broadcast(|_, ctx| {
                count.fetch_add(1, Ordering::Relaxed);
                if panics_on(ctx.index()) {
                    panic!("Hello, world!");
                }
            });
        });
    }));
    assert_eq!(count.into_inner(), 7, "every worker ran its call");
    assert!(r.is_err(), "the panic reaches the scope's caller");
}

#[test]
fn scope_spawn_broadcast_panic_one() {
    broadcast_panics(|i| i == 3);
}

#[test]
fn scope_spawn_broadcast_panic_many() {
    broadcast_panics(|i| i % 2 == 0);
}

// ---- in-place scopes ---------------------------------------------------------

#[test]
fn in_place_scope_runs_the_body_on_the_calling_thread() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let me = std::thread::current().id();
    let count = AtomicUsize::new(0);
    pool.in_place_scope(|s| {
        assert_eq!(std::thread::current().id(), me);
        assert_eq!(locus::current_thread_index(), None, "not a worker");
        for _ in 0..10 {
            s.spawn(|_| {
                assert!(
                    pool.current_thread_index().is_some(),
                    "jobs run in the pool"
                );
                count.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    assert_eq!(count.into_inner(), 10);
}

#[test]
fn in_place_scope_of_another_pool_from_a_worker() {
    // A worker of `a` opens an in-place scope of `b`: jobs run in `b`, the
    // worker waits in `a` (running `a`'s jobs meanwhile).
    let a = crate::one_worker();
    let b = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let in_b = AtomicUsize::new(0);
    a.install(|| {
        b.in_place_scope(|s| {
            assert_eq!(
                a.current_thread_index(),
                Some(0),
                "the body stays on a's worker"
            );
            for _ in 0..8 {
                s.spawn(|_| {
                    if b.current_thread_index().is_some() {
                        in_b.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
    });
    assert_eq!(in_b.into_inner(), 8);
}

#[test]
#[should_panic(expected = "Hello, world!")]
fn in_place_scope_panic_propagates_from_outside_any_pool() {
    locus::in_place_scope(|s| s.spawn(|_| panic!("Hello, world!")));
}

#[test]
fn in_place_scope_fifo_keeps_order_on_a_worker() {
    let pool = crate::one_worker();
    let v = pool.install(|| {
        let seen = Mutex::new(Vec::new());
        locus::in_place_scope_fifo(|s| {
            for i in 0..10 {
                let seen = &seen;
                s.spawn_fifo(move |_| seen.lock().unwrap().push(i));
            }
        });
        seen.into_inner().unwrap()
    });
    assert_eq!(v, (0..10).collect::<Vec<_>>());
}
