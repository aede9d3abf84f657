//! Comparators and key functions that panic: the panic reaches the
//! caller, the slice holds every element exactly once, nothing is dropped
//! twice.

use super::*;
use crate::slice::sort::*;
use std::cmp::Ordering;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

/// An element that records its drops in `drops[id]`.
struct Tracked {
    key: u32,
    id: u32,
    drops: &'static [AtomicU32],
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

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.probe.call();
        self.k.cmp(&other.k)
    }
}

#[derive(Clone, Copy, Debug)]
enum Variant {
    Stable,
    StableKey,
    /// The key function panics.
    CachedKeyFn,
    /// The keys' comparison panics.
    CachedKeyCmp,
    Unstable,
    UnstableKey,
}

const VARIANTS: [Variant; 6] = [
    Variant::Stable,
    Variant::StableKey,
    Variant::CachedKeyFn,
    Variant::CachedKeyCmp,
    Variant::Unstable,
    Variant::UnstableKey,
];

fn sort_with_probe(v: &mut [Tracked], variant: Variant, probe: &'static Probe) {
    let cmp = |a: &Tracked, b: &Tracked| {
        probe.call();
        a.key.cmp(&b.key)
    };
    let key = |t: &Tracked| {
        probe.call();
        t.key
    };
    match variant {
        Variant::Stable => par_sort_by(v, cmp),
        Variant::StableKey => par_sort_by_key(v, key),
        Variant::CachedKeyFn => par_sort_by_cached_key(v, |t| probe.key(t.key)),
        Variant::CachedKeyCmp => par_sort_by_cached_key(v, |t| Key {
            k: t.key,
            probe: keyed(probe),
        }),
        Variant::Unstable => par_sort_unstable_by(v, cmp),
        Variant::UnstableKey => par_sort_unstable_by_key(v, key),
    }
}

/// For `CachedKeyCmp`: counts the key as made without counting a call.
fn keyed(probe: &'static Probe) -> &'static Probe {
    probe.keys_made.fetch_add(1, Relaxed);
    probe
}

/// Sorts `len` tracked elements with `variant`, the probe panicking at
/// call `target` (and after, if `after`). Checks that the panic reached the
/// caller iff it happened, that the slice is then a permutation of the
/// input with nothing dropped, and that every element and key is dropped
/// exactly once in the end. Returns the number of calls made.
fn run_probe(
    len: usize,
    keys: u32,
    variant: Variant,
    target: usize,
    after: bool,
    seed: u64,
) -> usize {
    let drops: &'static [AtomicU32] = Box::leak((0..len).map(|_| AtomicU32::new(0)).collect());
    let mut rng = Rng::new(seed);
    let mut v: Vec<Tracked> = (0..len as u32)
        .map(|id| Tracked {
            key: rng.below(u64::from(keys)) as u32,
            id,
            drops,
        })
        .collect();
    let probe = Probe::new(target, after);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool().install(|| sort_with_probe(&mut v, variant, probe))
    }));
    let calls = probe.calls.load(Relaxed);
    let ctx =
        format!("{variant:?}, len {len}, panic at call {target} (after: {after}), {calls} calls");
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
    assert_eq!(v.len(), len, "{ctx}: length changed");
    let mut seen = vec![false; len];
    for t in &v {
        assert!(
            !seen[t.id as usize],
            "{ctx}: element {} is in the slice twice",
            t.id
        );
        seen[t.id as usize] = true;
    }
    assert!(
        drops.iter().all(|d| d.load(Relaxed) == 0),
        "{ctx}: an element was dropped during the sort"
    );
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
        &[(3, 2), (100, 10), (5000, 100), (40_000, 40_000)][..],
        &[(3, 2), (300, 30)][..],
    );
    for &(len, keys) in sizes {
        for variant in VARIANTS {
            // Dry run: how many calls the sort makes (the count does not
            // depend on scheduling).
            let total = run_probe(len, keys, variant, usize::MAX, false, len as u64);
            assert!(total > 0 || len < 2);
            let mut targets = vec![0, total.saturating_sub(1)];
            targets.extend((0..or_miri(6, 1)).map(|_| rng.below(total.max(1) as u64) as usize));
            for (i, &target) in targets.iter().enumerate() {
                run_probe(len, keys, variant, target, i % 2 == 1, len as u64);
            }
        }
    }
}

/// [`panics_keep_every_element_once`] cut for Miri (`.ci/sanitizers`): 100
/// elements, above the sorts' parallel cut-offs under Miri, every variant,
/// a panic at a third of the calls and panics at every call from the
/// middle on (both halves of a split then panic).
#[test]
fn panics_keep_every_element_once_at_100() {
    let (len, keys) = (100, 10);
    for variant in VARIANTS {
        let total = run_probe(len, keys, variant, usize::MAX, false, 9);
        assert!(total > 0);
        run_probe(len, keys, variant, total / 3, false, 9);
        run_probe(len, keys, variant, total / 2, true, 9);
    }
}
