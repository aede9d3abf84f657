//! A comparator that panics part-way through `par_sort_by` or
//! `par_sort_unstable_by` leaves every element in the slice exactly once,
//! and the copy dropped is the element's latest state, not a stale copy
//! made during the sort (rayon's `tests/sort-panic-safe.rs`).

use std::cell::Cell;
use std::cmp::Ordering;
use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::thread;

use locus::prelude::*;

const MAX_LEN: usize = 20_000;

/// Comparisons made minus those seen dropped: 0 when every element was
/// dropped in its latest state.
static SEEN: AtomicUsize = AtomicUsize::new(0);
static DROPS: [AtomicUsize; MAX_LEN] = [const { AtomicUsize::new(0) }; MAX_LEN];

thread_local! {
    /// Set by the comparator that panics on purpose, so the hook stays
    /// quiet about it.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// An element that counts its comparisons in itself (interior state a
/// stale copy would lack) and its drops per `id`.
#[derive(Clone)]
struct Tracked {
    key: u32,
    id: usize,
    compared: Cell<usize>,
}

impl Tracked {
    fn compare(&self, other: &Self) -> Ordering {
        self.compared.set(self.compared.get() + 1);
        other.compared.set(other.compared.get() + 1);
        SEEN.fetch_add(2, Relaxed);
        self.key.cmp(&other.key)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        DROPS[self.id].fetch_add(1, Relaxed);
        SEEN.fetch_sub(self.compared.get(), Relaxed);
    }
}

/// A small xorshift generator (fixed seeds: the runs are repeatable).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `len` elements with keys below `modulus`, or (`runs`) ascending keys
/// with a few reversed or swapped stretches.
fn input(len: usize, modulus: usize, runs: bool, rng: &mut Rng) -> Vec<Tracked> {
    let mut v: Vec<Tracked> = (0..len)
        .map(|id| Tracked {
            key: if runs {
                id as u32
            } else {
                rng.below(modulus) as u32
            },
            id,
            compared: Cell::new(0),
        })
        .collect();
    if runs {
        for _ in 0..5 {
            let (a, b) = (rng.below(len), rng.below(len));
            if a < b {
                v[a..b].reverse();
            } else {
                v.swap(a, b);
            }
        }
    }
    v
}

type Sort = fn(&mut [Tracked], &(dyn Fn(&Tracked, &Tracked) -> Ordering + Sync));

fn stable(v: &mut [Tracked], cmp: &(dyn Fn(&Tracked, &Tracked) -> Ordering + Sync)) {
    v.par_sort_by(cmp);
}

fn unstable(v: &mut [Tracked], cmp: &(dyn Fn(&Tracked, &Tracked) -> Ordering + Sync)) {
    v.par_sort_unstable_by(cmp);
}

/// Sorts copies of `v` with `sort`, its comparator panicking at call
/// `countdown`, then every `step` calls earlier, and checks the drops.
fn check(v: &[Tracked], sort: Sort, name: &str) {
    let len = v.len();
    let calls = AtomicUsize::new(0);
    sort(&mut v.to_vec(), &|a, b| {
        calls.fetch_add(1, Relaxed);
        a.compare(b)
    });
    let mut countdown = calls.into_inner();
    let step = if len <= 100 {
        1
    } else {
        (countdown / 10).max(1)
    };
    loop {
        SEEN.store(0, Relaxed);
        for d in &DROPS[..len] {
            d.store(0, Relaxed);
        }
        let copy = v.to_vec();
        // The sort runs on its own thread, which owns the elements: they
        // are all dropped when it ends, panic or not.
        let _ = thread::spawn(move || {
            let mut copy = copy;
            let left = AtomicUsize::new(countdown);
            sort(&mut copy, &|a, b| {
                if left.fetch_sub(1, Relaxed) == 1 {
                    QUIET.set(true);
                    panic!("comparator panic");
                }
                a.compare(b)
            });
        })
        .join();
        for (id, d) in DROPS[..len].iter().enumerate() {
            let n = d.load(Relaxed);
            assert_eq!(
                n, 1,
                "{name}, len {len}, panic at {countdown}: element {id} dropped {n} times"
            );
        }
        assert_eq!(
            SEEN.load(Relaxed),
            0,
            "{name}, len {len}, panic at {countdown}: a stale copy was dropped"
        );
        if countdown < step {
            break;
        }
        countdown -= step;
    }
}

#[test]
fn a_panicking_comparator_drops_each_element_once_in_its_latest_state() {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !QUIET.get() {
            hook(info);
        }
    }));
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for len in [1, 2, 3, 4, 5, 10, 20, 100, 500, 5_000, MAX_LEN] {
        for modulus in [5, 30, 1_000, 20_000] {
            for runs in [false, true] {
                let v = input(len, modulus, runs, &mut rng);
                check(&v, stable, "par_sort_by");
                check(&v, unstable, "par_sort_unstable_by");
            }
        }
    }
    // Back to the default hook.
    drop(panic::take_hook());
}
