//! [`extract::try_sort`], the unstable sort's pass for nearly sorted
//! pieces: it sorts what is sorted but for a few misplaced elements, gives
//! up on the rest with a permutation, survives any comparator, and keeps
//! every element once, live, when the comparator panics.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};

use super::{Rng, assert_permutation, or_miri};
use crate::slice::sort::extract;

/// `0..len` with `swaps` random pairs exchanged, as `(key, index)` pairs.
fn nearly_sorted(rng: &mut Rng, len: usize, swaps: usize) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = (0..len).map(|i| (i as u64 / 3, i as u32)).collect();
    for _ in 0..swaps {
        let (i, j) = (rng.below(len as u64), rng.below(len as u64));
        v.swap(i as usize, j as usize);
    }
    v
}

fn by_key(a: &(u64, u32), b: &(u64, u32)) -> bool {
    a.0 < b.0
}

fn keys(v: &[(u64, u32)]) -> Vec<u64> {
    v.iter().map(|p| p.0).collect()
}

#[test]
fn extract_sorts_nearly_sorted_input() {
    let mut rng = Rng::new(21);
    for &len in or_miri(&[8, 40, 100, 1000, 5000][..], &[8, 100][..]) {
        for swaps in [0, 1, 3, len / 100 + 1, len / 20, len / 4] {
            let input = nearly_sorted(&mut rng, len, swaps);
            let mut expected = keys(&input);
            expected.sort_unstable();
            let mut v = input;
            let sorted = extract::try_sort(&mut v, &by_key, |d| d.sort_by_key(|p| p.0));
            let what = format!("len {len}, {swaps} swaps");
            assert_permutation(&v, &what);
            if sorted {
                assert_eq!(keys(&v), expected, "{what}: said sorted");
            }
            // A swap drops at most four elements (two descents): within
            // a quarter of the piece and the buffer (512 pairs of 16
            // bytes), it must succeed.
            if 4 * swaps <= (len / 4).min(512) {
                assert!(sorted, "{what}: gave up");
            }
        }
    }
}

#[test]
fn extract_gives_up_on_random_input() {
    let mut rng = Rng::new(22);
    for &len in or_miri(&[100u32, 1000, 20_000][..], &[100, 400][..]) {
        let mut v: Vec<(u64, u32)> = (0..len).map(|i| (rng.next(), i)).collect();
        assert!(!extract::try_sort(&mut v, &by_key, |d| d.sort_by_key(|p| p.0)));
        assert_permutation(&v, "random input");
        // Too many misplaced for the buffer (512 pairs of 16 bytes).
        let mut v = nearly_sorted(&mut rng, len as usize, len as usize / 8);
        if !extract::try_sort(&mut v, &by_key, |d| d.sort_by_key(|p| p.0)) {
            assert_permutation(&v, "many swaps");
        }
    }
}

#[test]
fn extract_gives_up_at_once_on_short_runs() {
    // Ascending runs of 100 (`i % 100`) drop about one element per element
    // scanned; the 17 spread samples show it, so the pass never starts.
    for len in [1000u32, 20_000] {
        let input: Vec<(u64, u32)> = (0..len).map(|i| (u64::from(i % 100), i)).collect();
        let mut v = input.clone();
        let calls = Cell::new(0usize);
        let counted = |a: &(u64, u32), b: &(u64, u32)| {
            calls.set(calls.get() + 1);
            a.0 < b.0
        };
        let sorted = extract::try_sort(&mut v, &counted, |d| d.sort_by_key(|p| p.0));
        assert!(!sorted, "len {len}: runs of 100 are not nearly sorted");
        assert!(v == input, "len {len}: the probe moved elements");
        assert!(calls.get() <= 16, "len {len}: {} calls", calls.get());
    }
}

#[test]
fn extract_with_an_inconsistent_comparator_permutes() {
    let mut rng = Rng::new(23);
    for &len in or_miri(&[10, 100, 3000][..], &[10, 100][..]) {
        for seed in 0..4u64 {
            let state = Cell::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let chaotic = |_: &(u64, u32), _: &(u64, u32)| {
                let x = state.get();
                let x = x ^ (x << 13);
                let x = x ^ (x >> 7);
                let x = x ^ (x << 17);
                state.set(x);
                x % 8 == 0
            };
            let mut v = nearly_sorted(&mut rng, len, 2);
            extract::try_sort(&mut v, &chaotic, |d| d.reverse());
            assert_permutation(&v, "chaotic comparator");
        }
    }
}

/// An element that counts the calls that saw it and its drops.
struct Seen<'a> {
    key: u64,
    id: u32,
    seen: Cell<u64>,
    drops: &'a [Cell<u32>],
}

impl Drop for Seen<'_> {
    fn drop(&mut self) {
        self.drops[self.id as usize].set(self.drops[self.id as usize].get() + 1);
    }
}

#[test]
fn extract_panicking_keeps_every_element_once_and_live() {
    let len = or_miri(400, 120);
    let mut rng = Rng::new(24);
    let order = nearly_sorted(&mut rng, len, 6);
    // A dry run counts the calls; then a panic at each of them (every
    // fifth natively, enough to hit the pass and every merge step).
    let calls = Cell::new(0usize);
    let run = |panic_at: usize| {
        calls.set(0);
        let drops: Vec<Cell<u32>> = (0..len).map(|_| Cell::new(0)).collect();
        let mut v: Vec<Seen<'_>> = order
            .iter()
            .map(|&(key, id)| Seen {
                key,
                id,
                seen: Cell::new(0),
                drops: &drops,
            })
            .collect();
        let is_less = |a: &Seen<'_>, b: &Seen<'_>| {
            a.seen.set(a.seen.get() + 1);
            b.seen.set(b.seen.get() + 1);
            let call = calls.get();
            calls.set(call + 1);
            assert!(call != panic_at, "test panic");
            a.key < b.key
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            extract::try_sort(&mut v, &is_less, |d| {
                super::super::insertion::insertion_sort(d, 1, &is_less)
            })
        }));
        let ctx = format!("panic at {panic_at}, {} calls", calls.get());
        assert_eq!(result.is_err(), panic_at < calls.get(), "{ctx}");
        let mut ids: Vec<u32> = v.iter().map(|s| s.id).collect();
        ids.sort_unstable();
        assert!(
            ids.iter().enumerate().all(|(i, &id)| id == i as u32),
            "{ctx}: not a permutation"
        );
        let sightings: u64 = v.iter().map(|s| s.seen.get()).sum();
        assert_eq!(
            sightings,
            2 * calls.get() as u64,
            "{ctx}: a call saw a stale copy"
        );
        assert!(
            drops.iter().all(|d| d.get() == 0),
            "{ctx}: dropped during the sort"
        );
        drop(v);
        assert!(
            drops.iter().all(|d| d.get() == 1),
            "{ctx}: not dropped once"
        );
        calls.get()
    };
    let total = run(usize::MAX);
    for k in (0..total).step_by(or_miri(5, 37)) {
        run(k);
    }
}
