//! Short-circuiting searches over ranges far too long to walk (rayon's
//! `tests/octillion.rs`): each test finishes only if the search stops the
//! other pieces and, on two threads, the idle worker gets work from the
//! right part of the range. A hang fails the test after the deadline.

use locus::prelude::*;

use crate::common::deadline::within_deadline;

/// 10^27: about 2^90, so no `usize` holds the length.
const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

/// `0..10^27`, unindexed (its length does not fit `usize`).
fn octillion() -> locus::range::Iter<u128> {
    (0..OCTILLION).into_par_iter()
}

/// `0..=10^27`.
fn octillion_inclusive() -> locus::range_inclusive::Iter<u128> {
    (0..=OCTILLION).into_par_iter()
}

/// `-10^27..10^27` as `i128`.
fn signed_octillion() -> locus::range::Iter<i128> {
    let n = OCTILLION as i128;
    (-n..n).into_par_iter()
}

/// The same 10^27 numbers as three levels of nested indexed ranges of
/// 10^9 items with leaves of at most 1,000, flattened.
fn octillion_nested() -> impl ParallelIterator<Item = u128> {
    const G: u32 = 1_000_000_000;
    let level = || (0..G).into_par_iter().with_max_len(1_000);
    level()
        .map(|hi| u64::from(hi) * u64::from(G))
        .flat_map(move |hi| level().map(move |mid| hi + u64::from(mid)))
        .map(|hi_mid| u128::from(hi_mid) * u128::from(G))
        .flat_map(move |hi_mid| level().map(move |lo| hi_mid + u128::from(lo)))
}

/// Runs `f` on a fresh pool of `threads` workers, failing after the
/// deadline instead of hanging.
fn on_pool<R: Send + 'static>(
    what: &str,
    threads: usize,
    f: impl FnOnce() -> R + Send + 'static,
) -> R {
    within_deadline(what, move || {
        let pool = locus::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(f)
    })
}

// find_first: the leftmost leaf matches at once, and everything to its
// right is useless; one thread is enough.

#[test]
fn first_of_an_octillion() {
    assert_eq!(
        on_pool("find_first", 1, || octillion().find_first(|_| true)),
        Some(0)
    );
    assert_eq!(
        on_pool("find_first", 2, || octillion().find_first(|_| true)),
        Some(0)
    );
}

#[test]
fn first_of_an_inclusive_octillion() {
    let x = on_pool("find_first", 2, || {
        octillion_inclusive().find_first(|_| true)
    });
    assert_eq!(x, Some(0));
}

#[test]
fn first_of_a_signed_octillion() {
    let x = on_pool("find_first", 2, || signed_octillion().find_first(|_| true));
    assert_eq!(x, Some(-(OCTILLION as i128)));
}

#[test]
fn first_of_a_nested_octillion() {
    let x = on_pool("find_first", 2, || octillion_nested().find_first(|_| true));
    assert_eq!(x, Some(0));
}

// find_last: the search moves right as each match beats the pieces left of
// it; it needs the second worker, which takes the right halves.

#[test]
fn last_of_an_octillion() {
    let x = on_pool("find_last", 2, || octillion().find_last(|_| true));
    assert_eq!(x, Some(OCTILLION - 1));
}

#[test]
fn last_of_an_inclusive_octillion() {
    let x = on_pool("find_last", 2, || octillion_inclusive().find_last(|_| true));
    assert_eq!(x, Some(OCTILLION));
}

#[test]
fn last_of_a_signed_octillion() {
    let x = on_pool("find_last", 2, || signed_octillion().find_last(|_| true));
    assert_eq!(x, Some(OCTILLION as i128 - 1));
}

#[test]
fn last_of_a_nested_octillion() {
    let x = on_pool("find_last", 2, || octillion_nested().find_last(|_| true));
    assert_eq!(x, Some(OCTILLION - 1));
}

// find_any and friends for a match only in the upper half: the worker that
// starts the search walks the lower half, so the other worker must get the
// upper half, and its match must stop the first worker's walk.

#[test]
fn any_of_the_upper_half() {
    let x = on_pool("find_any", 2, || {
        octillion().find_any(|x| *x > OCTILLION / 2)
    });
    assert!(x.is_some_and(|x| x > OCTILLION / 2));
}

#[test]
fn any_of_the_upper_half_after_a_filter() {
    let x = on_pool("filter + find_any", 2, || {
        octillion()
            .filter(|x| *x > OCTILLION / 2)
            .find_any(|_| true)
    });
    assert!(x.is_some_and(|x| x > OCTILLION / 2));
}

#[test]
fn any_of_the_upper_half_after_filter_map() {
    let x = on_pool("filter_map + find_any", 2, || {
        octillion()
            .filter_map(|x| (x > OCTILLION / 2).then_some(x))
            .find_any(|_| true)
    });
    assert!(x.is_some_and(|x| x > OCTILLION / 2));
}

#[test]
fn any_of_the_upper_half_of_an_inclusive_octillion() {
    let x = on_pool("find_any", 2, || {
        octillion_inclusive().find_any(|x| *x > OCTILLION / 2)
    });
    assert!(x.is_some_and(|x| x > OCTILLION / 2));
}

#[test]
fn any_positive_of_a_signed_octillion() {
    let x = on_pool("find_any", 2, || {
        signed_octillion().filter(|x| *x > 0).find_any(|_| true)
    });
    assert!(x.is_some_and(|x| x > 0));
}

#[test]
fn any_of_the_upper_half_of_a_nested_octillion() {
    let x = on_pool("find_any", 2, || {
        octillion_nested().find_any(|x| *x > OCTILLION / 2)
    });
    assert!(x.is_some_and(|x| x > OCTILLION / 2));
    let x = on_pool("filter + find_any", 2, || {
        octillion_nested()
            .filter(|x| *x > OCTILLION / 2)
            .find_any(|_| true)
    });
    assert!(x.is_some_and(|x| x > OCTILLION / 2));
}

#[test]
fn any_after_a_fold_of_a_nested_octillion() {
    let x = on_pool("fold + find_any", 2, || {
        octillion_nested()
            .fold(|| (), |(), _| ())
            .find_any(|_| true)
    });
    assert!(x.is_some());
}

#[test]
fn any_and_all_decided_in_the_upper_half() {
    let (any, all) = on_pool("any/all", 2, || {
        (
            octillion().any(|x| x > OCTILLION / 2),
            octillion().all(|x| x <= OCTILLION / 2),
        )
    });
    assert!(any);
    assert!(!all);
}

#[test]
fn mapped_searches_and_try_for_each() {
    let upper = |x: u128| (x > OCTILLION / 2).then_some(x);
    let (any, first, last) = on_pool("find_map_*", 2, move || {
        (
            octillion().find_map_any(upper),
            // (The first match must be near the start: everything before
            // it is walked.)
            octillion().find_map_first(|x| (x > 100).then_some(x)),
            octillion().find_map_last(upper),
        )
    });
    assert!(any.is_some_and(|x| x > OCTILLION / 2));
    assert_eq!(first, Some(101));
    assert_eq!(last, Some(OCTILLION - 1));
    let stopped = on_pool("try_for_each", 2, || {
        octillion().try_for_each(|x| if x > OCTILLION / 2 { Err(x) } else { Ok(()) })
    });
    assert!(stopped.is_err_and(|x| x > OCTILLION / 2));
}

// The same searches over indexed ranges whose length fits `usize`, so that
// they also run reversed and through `position_*`.

/// `0..usize::MAX`: indexed, and too long to walk.
fn huge() -> locus::range::Iter<usize> {
    (0..usize::MAX).into_par_iter()
}

#[test]
fn reversed_searches_over_a_huge_range() {
    let (first, any) = on_pool("rev", 2, || {
        (
            huge().rev().find_first(|_| true),
            huge().rev().find_any(|x| *x < usize::MAX / 2),
        )
    });
    assert_eq!(first, Some(usize::MAX - 1));
    assert!(any.is_some_and(|x| x < usize::MAX / 2));
    let last = on_pool("rev + find_last", 2, || huge().rev().find_last(|_| true));
    assert_eq!(last, Some(0));
}

#[test]
fn positions_over_a_huge_range() {
    let (first, any) = on_pool("position", 2, || {
        (
            huge().position_first(|x| x == 7),
            huge().position_any(|x| x > usize::MAX / 2),
        )
    });
    assert_eq!(first, Some(7));
    assert!(any.is_some_and(|i| i > usize::MAX / 2));
    let last = on_pool("position_last", 2, || huge().position_last(|_| true));
    assert_eq!(last, Some(usize::MAX - 1));
}

// The mechanism the searches above rely on, without threads: a leaf asks
// its consumer `full()` between items, also between items an adapter
// drops (`filter`, `filter_map`), so that a match elsewhere stops it.

mod stop_flag {
    use std::sync::atomic::{AtomicBool, Ordering};

    use locus::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

    /// Full once `stop` is set (by anyone); counts what it consumed.
    #[derive(Clone, Copy)]
    pub struct UntilStopped<'a> {
        pub stop: &'a AtomicBool,
    }

    pub struct Counting<'a>(&'a AtomicBool, usize);

    pub struct Add;

    impl<'a, T> Consumer<T> for UntilStopped<'a> {
        type Folder = Counting<'a>;
        type Reducer = Add;
        type Result = usize;
        fn split_at(self, _: usize) -> (Self, Self, Add) {
            (self, self, Add)
        }
        fn into_folder(self) -> Counting<'a> {
            Counting(self.stop, 0)
        }
        fn full(&self) -> bool {
            self.stop.load(Ordering::Relaxed)
        }
    }

    impl<T> UnindexedConsumer<T> for UntilStopped<'_> {
        fn split_off_left(&self) -> Self {
            *self
        }
        fn to_reducer(&self) -> Add {
            Add
        }
    }

    impl<T> Folder<T> for Counting<'_> {
        type Result = usize;
        fn consume(self, _: T) -> Self {
            Counting(self.0, self.1 + 1)
        }
        fn complete(self) -> usize {
            self.1
        }
        fn full(&self) -> bool {
            self.0.load(Ordering::Relaxed)
        }
    }

    impl Reducer<usize> for Add {
        fn reduce(self, a: usize, b: usize) -> usize {
            a + b
        }
    }
}

#[test]
fn a_leaf_of_dropped_items_stops_when_its_consumer_fills() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use stop_flag::UntilStopped;

    /// How many items the walk looked at: item 100 plays "a match found
    /// elsewhere", and the filter (`filter_map` if `mapped`) drops every
    /// item, so the consumer sees none of them.
    fn items_looked_at(mapped: bool) -> usize {
        let (stop, seen) = (AtomicBool::new(false), AtomicUsize::new(0));
        let items = octillion().inspect(|x| {
            seen.fetch_add(1, Ordering::Relaxed);
            if *x == 100 {
                stop.store(true, Ordering::Relaxed);
            }
        });
        let consumer = UntilStopped { stop: &stop };
        let kept = if mapped {
            items.filter_map(|_| None::<u8>).drive_unindexed(consumer)
        } else {
            items.filter(|_| false).drive_unindexed(consumer)
        };
        assert_eq!(kept, 0);
        seen.into_inner()
    }

    // One worker: the leftmost leaf runs first, and every other piece
    // finds its consumer full before it starts.
    let (filtered, filter_mapped) = on_pool("dropped items", 1, || {
        (items_looked_at(false), items_looked_at(true))
    });
    assert_eq!(filtered, 101, "filter: the leaf went on after the stop");
    assert_eq!(
        filter_mapped, 101,
        "filter_map: the leaf went on after the stop"
    );
}
