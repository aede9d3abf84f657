//! Comparators and key functions that panic: the panic reaches the
//! caller, the slice holds every element exactly once, nothing is dropped
//! twice.

use super::*;
use std::cmp::Ordering;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

/// An element that records its drops in `drops[id]`; its comparisons and
/// keys go through the probe.
struct Tracked {
    key: u32,
    id: u32,
    drops: &'static [AtomicU32],
    probe: &'static Probe,
}

order_from_cmp!(Tracked, Key);
impl Ord for Tracked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.probe.call();
        self.key.cmp(&other.key)
    }
}

impl Probed for Tracked {
    type Key = Key;

    /// Counts as a call (a key function that may panic), as does every
    /// comparison of two keys.
    fn key(&self) -> Key {
        self.probe.key(self.key)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops[self.id as usize].fetch_add(1, Relaxed);
    }
}

/// A key whose comparisons are counted (panicking at call `target` or,
/// if `after`, at every call from it) and whose drops are counted.
struct Key {
    k: u32,
    probe: &'static Probe,
}

/// Shared counters of one panic test.
struct Probe {
    calls: AtomicUsize,
    target: usize,
    after: bool,
    keys_made: AtomicUsize,
    keys_dropped: AtomicUsize,
}

impl Probe {
    fn new(target: usize, after: bool) -> &'static Probe {
        Box::leak(Box::new(Probe {
            calls: AtomicUsize::new(0),
            target,
            after,
            keys_made: AtomicUsize::new(0),
            keys_dropped: AtomicUsize::new(0),
        }))
    }

    /// Counts a call; panics if it is the target (or after it, if `after`).
    fn call(&self) {
        let c = self.calls.fetch_add(1, Relaxed);
        if c == self.target || (self.after && c > self.target) {
            panic!("test panic at call {c}");
        }
    }

    fn key(&'static self, k: u32) -> Key {
        self.call();
        self.keys_made.fetch_add(1, Relaxed);
        Key { k, probe: self }
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.probe.keys_dropped.fetch_add(1, Relaxed);
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.probe.call();
        self.k.cmp(&other.k)
    }
}

/// The keys of a panic test's elements.
#[derive(Clone, Copy, Debug)]
enum Keys {
    /// Random, below this.
    Below(u32),
    /// `0..len` after `len / 50 + 1` random swaps: the unstable sort
    /// drops the misplaced ones and merges them back
    /// (`slice::sort::extract`).
    NearlySorted,
}

/// Sorts `len` tracked elements with `entry`, the probe panicking at
/// call `target` (and after, if `after`). Checks that the panic reached the
/// caller iff it happened, that the slice is then a permutation of the
/// input with nothing dropped, and that every element and key is dropped
/// exactly once in the end. Returns the number of calls made.
fn run_probe(len: usize, keys: Keys, entry: Entry, target: usize, after: bool, seed: u64) -> usize {
    let drops: &'static [AtomicU32] = Box::leak((0..len).map(|_| AtomicU32::new(0)).collect());
    let mut rng = Rng::new(seed);
    let mut key: Vec<u32> = match keys {
        Keys::Below(range) => (0..len)
            .map(|_| rng.below(u64::from(range)) as u32)
            .collect(),
        Keys::NearlySorted => (0..len as u32).collect(),
    };
    if let Keys::NearlySorted = keys {
        for _ in 0..len / 50 + 1 {
            let (i, j) = (rng.below(len as u64), rng.below(len as u64));
            key.swap(i as usize, j as usize);
        }
    }
    let probe = Probe::new(target, after);
    let mut v: Vec<Tracked> = (0..len as u32)
        .map(|id| Tracked {
            key: key[id as usize],
            id,
            drops,
            probe,
        })
        .collect();
    let result = panic::catch_unwind(AssertUnwindSafe(|| pool().install(|| entry.sort(&mut v))));
    let calls = probe.calls.load(Relaxed);
    let ctx = format!(
        "{entry:?}, {keys:?}, len {len}, panic at call {target} (after: {after}), {calls} calls"
    );
    match result {
        Ok(()) => {
            assert!(calls <= target, "{ctx}: the panic did not reach the caller");
            assert!(
                v.windows(2).all(|w| w[0].key <= w[1].key),
                "{ctx}: not sorted"
            );
        }
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or("");
            assert!(
                msg.starts_with("test panic at call"),
                "{ctx}: unexpected panic {msg:?}"
            );
        }
    }
    assert_each_once(v.iter().map(|t| t.id), drops, &ctx);
    drop(v);
    for (id, d) in drops.iter().enumerate() {
        assert_eq!(
            d.load(Relaxed),
            1,
            "{ctx}: element {id} dropped {} times",
            d.load(Relaxed)
        );
    }
    assert_eq!(
        probe.keys_made.load(Relaxed),
        probe.keys_dropped.load(Relaxed),
        "{ctx}: keys made and keys dropped differ"
    );
    calls
}

#[test]
fn panics_keep_every_element_once() {
    let mut rng = Rng::new(8);
    let sizes = or_miri(
        &[
            (3, Keys::Below(2)),
            (100, Keys::Below(10)),
            (5000, Keys::Below(100)),
            (40_000, Keys::Below(40_000)),
            (5000, Keys::NearlySorted),
        ][..],
        &[(3, Keys::Below(2)), (300, Keys::Below(30))][..],
    );
    for &(len, keys) in sizes {
        for entry in ENTRIES {
            // Dry run: how many calls the sort makes (the count does not
            // depend on scheduling).
            let total = run_probe(len, keys, entry, usize::MAX, false, len as u64);
            assert!(total > 0 || len < 2);
            let mut targets = vec![0, total.saturating_sub(1)];
            targets.extend((0..or_miri(6, 1)).map(|_| rng.below(total.max(1) as u64) as usize));
            for (i, &target) in targets.iter().enumerate() {
                run_probe(len, keys, entry, target, i % 2 == 1, len as u64);
            }
        }
    }
}

/// [`panics_keep_every_element_once`] cut for Miri (`.ci/sanitizers`): 100
/// elements, above the sorts' parallel cut-offs under Miri, every entry,
/// a panic at a third of the calls and panics at every call from the
/// middle on (both halves of a split then panic).
#[test]
fn panics_keep_every_element_once_at_100() {
    let len = 100;
    for entry in ENTRIES {
        for keys in [Keys::Below(10), Keys::NearlySorted] {
            let total = run_probe(len, keys, entry, usize::MAX, false, 9);
            assert!(total > 0);
            run_probe(len, keys, entry, total / 3, false, 9);
            run_probe(len, keys, entry, total / 2, true, 9);
        }
    }
}
