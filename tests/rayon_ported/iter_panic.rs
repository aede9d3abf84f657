//! A panic in an iterator's closure reaches the caller, and `panic_fuse`
//! stops the other pieces early wherever it sits in the chain (rayon's
//! `tests/iter_panic.rs`).

use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use locus::prelude::*;

/// 65,536 items, each its own piece (`with_max_len(1)` below), and the one
/// whose closure panics, three quarters of the way in.
const ITEMS: Range<u32> = 0..1 << 16;
const BAD: u32 = 3 << 14;

fn trip(&x: &u32) {
    if x == BAD {
        panic!("item {x} is bad");
    }
}

#[test]
#[should_panic(expected = "is bad")]
fn a_panicking_closure_reaches_the_caller() {
    ITEMS.into_par_iter().for_each(|x| trip(&x));
}

/// How many items reach `for_each` before the panic of `iter` ends the
/// call (which must panic).
fn items_seen(iter: impl ParallelIterator<Item = u32>) -> usize {
    let seen = AtomicUsize::new(0);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        iter.for_each(|_| {
            seen.fetch_add(1, Ordering::Relaxed);
        })
    }));
    assert!(outcome.is_err(), "the panic did not reach the caller");
    seen.into_inner()
}

#[test]
fn panic_fuse_stops_the_other_pieces_in_every_position() {
    // One worker makes the order of the pieces, and so the counts,
    // deterministic: without the fuse every other piece still runs.
    let pool = locus::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        let every_other = ITEMS.len() - 1;
        let pieces = || ITEMS.into_par_iter().with_max_len(1);
        assert_eq!(items_seen(pieces().inspect(trip)), every_other);

        // Fused after the panicking closure (the consumer side) ...
        assert!(items_seen(pieces().inspect(trip).panic_fuse()) < every_other);
        // ... before it (the folders of the producer side) ...
        assert!(items_seen(pieces().panic_fuse().inspect(trip)) < every_other);
        // ... and before it with `rev` in between, which iterates each
        // leaf itself instead of folding it through the fused producer.
        assert!(items_seen(pieces().panic_fuse().inspect(trip).rev()) < every_other);
        // `zip` takes its sides' iterators too.
        let zipped = pieces()
            .panic_fuse()
            .inspect(trip)
            .zip(pieces())
            .map(|(a, _)| a);
        assert!(items_seen(zipped) < every_other);
    });
}
