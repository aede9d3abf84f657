//! Panics in closures reach the caller after the iterator's jobs finished,
//! and every item is dropped exactly once (counted with a `Drop` type),
//! including by a `collect` that panics halfway. Zero-sized items too.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

use locus::prelude::*;

mod common;

/// The 4-worker pool of the `iter_*` tests.
fn pool() -> locus::ThreadPool {
    common::work::pool(4)
}

/// Counts live values: created by `new`, destroyed by `drop`.
struct Counter {
    live: AtomicUsize,
    made: AtomicUsize,
}

impl Counter {
    const fn new() -> Self {
        Counter {
            live: AtomicUsize::new(0),
            made: AtomicUsize::new(0),
        }
    }
    fn item(&'static self, v: usize) -> Item {
        self.live.fetch_add(1, Ordering::SeqCst);
        self.made.fetch_add(1, Ordering::SeqCst);
        Item { v, c: self }
    }
    fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }
}

struct Item {
    v: usize,
    c: &'static Counter,
}

impl Drop for Item {
    fn drop(&mut self) {
        let before = self.c.live.fetch_sub(1, Ordering::SeqCst);
        assert!(before > 0, "an item was dropped twice");
    }
}

fn items(c: &'static Counter, n: usize) -> Vec<Item> {
    (0..n).map(|i| c.item(i)).collect()
}

/// Runs `f`, which must panic, and checks that no item is left alive.
fn expect_panic(c: &'static Counter, f: impl FnOnce() + Send) {
    let r = pool().install(|| catch_unwind(AssertUnwindSafe(f)));
    assert!(r.is_err(), "the closure's panic must reach the caller");
    assert_eq!(c.live(), 0, "items leaked or double-dropped");
}

#[test]
fn panic_in_map_during_collect_drops_everything_once() {
    static C: Counter = Counter::new();
    expect_panic(&C, || {
        let v = items(&C, 10_007);
        let _out: Vec<Item> = v
            .into_par_iter()
            .map(|it| {
                assert!(it.v != 7_000, "boom");
                it
            })
            .collect();
    });
}

#[test]
fn panic_in_every_closure_position() {
    static C: Counter = Counter::new();
    let bad = 5_003;
    let panics_at = |it: &Item| assert!(it.v != bad, "boom");
    expect_panic(&C, || {
        items(&C, 10_007)
            .into_par_iter()
            .for_each(|it| panics_at(&it))
    });
    expect_panic(&C, || {
        let _: Vec<Item> = items(&C, 10_007)
            .into_par_iter()
            .filter(|it| {
                panics_at(it);
                true
            })
            .collect();
    });
    expect_panic(&C, || {
        let _ = items(&C, 10_007).into_par_iter().map(|it| it.v).reduce(
            || 0,
            |a, b| {
                assert!(a + b < 40_000_000, "boom in reduce");
                a + b
            },
        );
    });
    expect_panic(&C, || {
        let _ = items(&C, 10_007)
            .into_par_iter()
            .fold(
                || 0usize,
                |a, it| {
                    panics_at(&it);
                    a + it.v
                },
            )
            .sum::<usize>();
    });
    expect_panic(&C, || {
        let _ = items(&C, 10_007).into_par_iter().find_first(|it| {
            panics_at(it);
            false
        });
    });
    expect_panic(&C, || {
        let _: Vec<Vec<Item>> = items(&C, 10_007)
            .into_par_iter()
            .inspect(panics_at)
            .chunks(3)
            .collect();
    });
    expect_panic(&C, || {
        let v = items(&C, 10_007);
        let w = items(&C, 10_007);
        let _: Vec<(Item, Item)> = v
            .into_par_iter()
            .zip(w)
            .inspect(|(a, _)| panics_at(a))
            .rev()
            .collect();
    });
    expect_panic(&C, || {
        let mut v = items(&C, 10_007);
        let _: Vec<Item> = v.par_drain(100..9000).inspect(panics_at).collect();
    });
    expect_panic(&C, || {
        let _: (Vec<Item>, Vec<Item>) = items(&C, 10_007)
            .into_par_iter()
            .inspect(panics_at)
            .partition(|it| it.v % 2 == 0);
    });
    expect_panic(&C, || {
        let _: Vec<Item> = items(&C, 10_007)
            .into_par_iter()
            .panic_fuse()
            .inspect(panics_at)
            .collect();
    });
    expect_panic(&C, || {
        let _: Vec<Item> = items(&C, 10_007)
            .into_par_iter()
            .skip(10)
            .inspect(panics_at)
            .collect();
    });
}

#[test]
fn partially_consumed_sources_drop_the_rest() {
    static C: Counter = Counter::new();
    pool().install(|| {
        let v = items(&C, 1009);
        let first: Vec<Item> = v.into_par_iter().take(10).collect();
        assert_eq!(first.len(), 10);
        drop(first);
        let v = items(&C, 1009);
        assert!(v.into_par_iter().any(|it| it.v == 500));
        let v = items(&C, 1009);
        let w = items(&C, 10);
        assert_eq!(v.into_par_iter().zip(w).count(), 10);
        let arr = [C.item(1), C.item(2), C.item(3)];
        assert_eq!(
            arr.into_par_iter()
                .find_first(|it| it.v == 2)
                .map(|it| it.v),
            Some(2)
        );
    });
    assert_eq!(C.live(), 0);
    assert!(C.made.load(Ordering::SeqCst) > 2000);
}

/// `par_drain` of a range of a `VecDeque` whose buffer wraps, and of a
/// `String`, consumed in part: the rest of the range is dropped, the
/// elements around it stay in order (small, so Miri runs it).
#[test]
fn partially_consumed_drains_keep_the_rest() {
    static C: Counter = Counter::new();
    pool().install(|| {
        let mut d: std::collections::VecDeque<Item> = std::collections::VecDeque::with_capacity(40);
        d.extend((20..40).map(|i| C.item(i)));
        for i in (0..20).rev() {
            d.push_front(C.item(i));
        }
        assert_eq!(
            d.par_drain(5..35)
                .take(3)
                .map(|it| it.v)
                .collect::<Vec<_>>(),
            [5, 6, 7]
        );
        assert!(d.iter().map(|it| it.v).eq((0..5).chain(35..40)));
        assert!(d.par_drain(2..8).any(|it| it.v == 36));
        assert!(d.iter().map(|it| it.v).eq([0, 1, 38, 39]));
        let mut s = String::from("aé€😀b, é€");
        assert_eq!(s.par_drain(1..10).filter(|&c| c != 'b').count(), 3);
        assert_eq!(s, "ab, é€");
    });
    assert_eq!(C.live(), 0);
}

#[test]
fn zero_sized_items() {
    pool().install(|| {
        let v = vec![(); 1_000_000];
        assert_eq!(v.par_iter().count(), 1_000_000);
        let w: Vec<()> = v.clone().into_par_iter().collect();
        assert_eq!(w.len(), 1_000_000);
        let mut z = v.clone();
        assert_eq!(z.par_drain(10..20).count(), 10);
        assert_eq!(z.len(), 999_990);
        assert_eq!(v.par_chunks(3).count(), 333_334);
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Zst;
        let zs: Vec<Zst> = (0..1000)
            .into_par_iter()
            .map(|_| Zst)
            .filter(|_| true)
            .collect();
        assert_eq!(zs.len(), 1000);
        let mut out = Vec::new();
        (0..1009)
            .into_par_iter()
            .map(|_| Zst)
            .collect_into_vec(&mut out);
        assert_eq!(out.len(), 1009);
    });
}

#[test]
fn par_bridge_drops_every_pulled_item_once() {
    static C: Counter = Counter::new();
    pool().install(|| {
        // An endless source stopped by `find_any`: every pulled item is
        // dropped once, none leaked.
        let hit = (0..)
            .map(|i| C.item(i))
            .par_bridge()
            .find_any(|it| it.v == 3000);
        assert_eq!(hit.map(|it| it.v), Some(3000));
        assert_eq!((0..).map(|i| C.item(i)).par_bridge().take_any(7).count(), 7);
    });
    expect_panic(&C, || {
        (0..10_007)
            .map(|i| C.item(i))
            .par_bridge()
            .for_each(|it| assert!(it.v != 5000, "boom"))
    });
    assert_eq!(C.live(), 0);
}

#[test]
fn par_bridge_panic_in_the_source_reaches_the_caller() {
    let r = pool().install(|| {
        catch_unwind(|| {
            (0..100_000u32)
                .map(|i| {
                    if i == 60_000 {
                        panic!("source boom")
                    } else {
                        i
                    }
                })
                .par_bridge()
                .count()
        })
    });
    assert!(r.is_err());
    // The pool is still usable afterwards.
    assert_eq!(pool().install(|| (0..10u32).par_bridge().sum::<u32>()), 45);
}
