//! Comparators that are not total orders (always `Less`, always `Greater`,
//! always `Equal`, random answers, answers hashed from the pair), also
//! panicking at a given call, on every entry point:
//!
//! - the sort returns normally (or with the comparator's own panic), never
//!   with a panic of its own;
//! - the slice holds every element exactly once, nothing is dropped during
//!   the sort, everything exactly once after;
//! - the comparator is called at most [`C`]` * n * log2(n)` times;
//! - the comparator only ever sees live elements: every element counts the
//!   calls that saw it (through a `Cell`, as a comparator with interior
//!   mutability may), and the counts in the slice add up to two per call,
//!   so no call saw a stale copy whose changes were then thrown away.

use std::cell::Cell;
use std::cmp::Ordering;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use super::{ENTRIES, Entry, Probed, assert_each_once, or_miri, pool};

/// The bound on comparator calls this file checks: `C * n * log2(n)`.
/// The largest measured is about 3.2, for the unstable sort with an
/// always-`Less` comparator (its heapsort fallback does most of them).
const C: f64 = 4.0;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Answer {
    Less,
    Greater,
    Equal,
    /// From a shared counter: different in every run.
    Random,
    /// A hash of the two elements' ids: the same in every run, but neither
    /// transitive nor antisymmetric.
    Hashed,
}

const ANSWERS: [Answer; 5] = [
    Answer::Less,
    Answer::Greater,
    Answer::Equal,
    Answer::Random,
    Answer::Hashed,
];

/// What the comparators of one run answer, and what they saw.
struct Oracle {
    answer: Answer,
    /// The call at which to panic (`usize::MAX`: never).
    panic_at: usize,
    calls: AtomicUsize,
    state: AtomicU64,
    /// Calls of a key function.
    key_calls: AtomicUsize,
    keys_made: AtomicUsize,
    keys_dropped: AtomicUsize,
    /// Sightings recorded by keys, added when they are dropped.
    key_sightings: AtomicU64,
}

fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

impl Oracle {
    fn new(answer: Answer, panic_at: usize) -> &'static Oracle {
        Box::leak(Box::new(Oracle {
            answer,
            panic_at,
            calls: AtomicUsize::new(0),
            state: AtomicU64::new(1),
            key_calls: AtomicUsize::new(0),
            keys_made: AtomicUsize::new(0),
            keys_dropped: AtomicUsize::new(0),
            key_sightings: AtomicU64::new(0),
        }))
    }

    /// Answers a comparison of the elements with ids `a` and `b`.
    fn ask(&self, a: u32, b: u32) -> Ordering {
        let call = self.calls.fetch_add(1, Relaxed);
        if call == self.panic_at {
            panic!("oracle panic at call {call}");
        }
        let pick = |x: u64| [Ordering::Less, Ordering::Equal, Ordering::Greater][(x % 3) as usize];
        match self.answer {
            Answer::Less => Ordering::Less,
            Answer::Greater => Ordering::Greater,
            Answer::Equal => Ordering::Equal,
            Answer::Random => pick(mix(self.state.fetch_add(0x9E37_79B9, Relaxed))),
            Answer::Hashed => pick(mix(u64::from(a) << 32 | u64::from(b))),
        }
    }
}

/// A drop-counted element that counts the calls that saw it.
struct Item {
    id: u32,
    seen: Cell<u64>,
    drops: &'static [AtomicU32],
    oracle: &'static Oracle,
}

impl Probed for Item {
    type Key = Key;

    fn key(&self) -> Key {
        self.seen.set(self.seen.get() + 1);
        self.oracle.key_calls.fetch_add(1, Relaxed);
        self.oracle.keys_made.fetch_add(1, Relaxed);
        Key {
            id: self.id,
            seen: Cell::new(0),
            oracle: self.oracle,
        }
    }
}

impl Drop for Item {
    fn drop(&mut self) {
        self.drops[self.id as usize].fetch_add(1, Relaxed);
    }
}

order_from_cmp!(Item, Key);
impl Ord for Item {
    fn cmp(&self, other: &Self) -> Ordering {
        self.seen.set(self.seen.get() + 1);
        other.seen.set(other.seen.get() + 1);
        self.oracle.ask(self.id, other.id)
    }
}

/// A key of an [`Item`], ordered by the oracle; counts its sightings too.
struct Key {
    id: u32,
    seen: Cell<u64>,
    oracle: &'static Oracle,
}

impl Drop for Key {
    fn drop(&mut self) {
        self.oracle.keys_dropped.fetch_add(1, Relaxed);
        self.oracle
            .key_sightings
            .fetch_add(self.seen.get(), Relaxed);
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.seen.set(self.seen.get() + 1);
        other.seen.set(other.seen.get() + 1);
        self.oracle.ask(self.id, other.id)
    }
}

/// Sorts `n` items with `entry` and the oracle's answers, panicking at
/// call `panic_at`; checks everything the file promises and returns the
/// number of comparator calls.
fn run(n: usize, entry: Entry, answer: Answer, panic_at: usize) -> usize {
    let drops: &'static [AtomicU32] = Box::leak((0..n).map(|_| AtomicU32::new(0)).collect());
    let oracle = Oracle::new(answer, panic_at);
    let mut v: Vec<Item> = (0..n as u32)
        .map(|id| Item {
            id,
            seen: Cell::new(0),
            drops,
            oracle,
        })
        .collect();
    let result = panic::catch_unwind(AssertUnwindSafe(|| pool().install(|| entry.sort(&mut v))));
    let calls = oracle.calls.load(Relaxed);
    let ctx = format!("{entry:?}, {answer:?}, n {n}, panic at {panic_at}: {calls} calls");
    if let Err(payload) = result {
        let msg = payload
            .downcast_ref::<String>()
            .map_or("(not a string)", String::as_str);
        assert!(
            calls > panic_at && msg.starts_with("oracle panic at call"),
            "{ctx}: the sort panicked: {msg}"
        );
    } else {
        assert!(calls <= panic_at, "{ctx}: the comparator's panic was lost");
    }
    assert_each_once(v.iter().map(|item| item.id), drops, &ctx);
    // Sightings: two per comparison of items, one per key function call.
    let sightings: u64 = v.iter().map(|item| item.seen.get()).sum();
    let key_calls = oracle.key_calls.load(Relaxed) as u64;
    let item_calls = if entry.by_key() { 0 } else { calls as u64 };
    assert_eq!(
        sightings,
        2 * item_calls + key_calls,
        "{ctx}: a call saw a stale copy of an item"
    );
    drop(v);
    assert!(
        drops.iter().all(|d| d.load(Relaxed) == 1),
        "{ctx}: an item was not dropped exactly once"
    );
    assert_eq!(
        oracle.keys_made.load(Relaxed),
        oracle.keys_dropped.load(Relaxed),
        "{ctx}: keys made and keys dropped differ"
    );
    if matches!(entry, Entry::SortByCachedKey) {
        assert_eq!(
            oracle.key_sightings.load(Relaxed),
            2 * calls as u64,
            "{ctx}: a call saw a stale copy of a key"
        );
    }
    calls
}

/// [`run`] without a panic, checking that the calls stay within `C * n *
/// log2(n)`.
fn run_bounded(n: usize, entry: Entry, answer: Answer) {
    let calls = run(n, entry, answer, usize::MAX);
    let bound = (C * n as f64 * (n as f64).log2()) as usize;
    assert!(
        calls <= bound,
        "{entry:?}, {answer:?}, n {n}: {calls} calls, above {C} n log2 n = {bound}"
    );
}

#[test]
fn any_comparator_no_panic_every_element_once() {
    let sizes = or_miri(
        &[0, 1, 2, 3, 7, 8, 20, 21, 32, 33, 64, 100, 257, 2049, 5000][..],
        &[0, 1, 2, 8, 21, 33, 600][..],
    );
    for &n in sizes {
        for entry in ENTRIES {
            for answer in ANSWERS {
                run(n, entry, answer, usize::MAX);
            }
        }
    }
}

#[test]
fn any_comparator_n_log_n_calls() {
    for &n in or_miri(&[4000, 32_000][..], &[300][..]) {
        for entry in ENTRIES {
            for answer in ANSWERS {
                run_bounded(n, entry, answer);
            }
        }
    }
}

/// [`any_comparator_n_log_n_calls`] cut for Miri (`.ci/sanitizers`): 100
/// elements, above the sorts' parallel cut-offs under Miri, every entry
/// point with a comparator that always answers `Less` and one with hashed
/// answers.
#[test]
fn any_comparator_n_log_n_calls_at_100() {
    let n = 100;
    for entry in ENTRIES {
        for answer in [Answer::Less, Answer::Hashed] {
            run_bounded(n, entry, answer);
        }
    }
}

#[test]
fn always_less_at_100k_is_n_log_n() {
    // The case that never finished before: 100,000 elements, always `Less`.
    let n = 100_000;
    for entry in [Entry::SortUnstableBy, Entry::SortBy] {
        for answer in [Answer::Less, Answer::Hashed] {
            run_bounded(n, entry, answer);
        }
    }
}

#[test]
fn any_comparator_panicking_at_call_k() {
    // Hashed answers are the same in every run, so a dry run tells how many
    // calls there are to aim at.
    for &n in or_miri(&[100, 5000][..], &[100, 600][..]) {
        for entry in ENTRIES {
            for answer in [Answer::Less, Answer::Greater, Answer::Hashed] {
                let total = run(n, entry, answer, usize::MAX);
                for k in [0, total / 3, total / 2, total.saturating_sub(1)] {
                    run(n, entry, answer, k);
                }
            }
            // Random answers: the count differs, the checks do not.
            run(n, entry, Answer::Random, n);
        }
    }
}
