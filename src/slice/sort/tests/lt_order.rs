//! The sorts by `T`'s order compare with `T::lt`, as rayon's do: for a type
//! whose `lt` disagrees with its `cmp` (legal Rust, a broken contract), the
//! result follows `lt`, and `par_sort_by` follows the comparator it is
//! given.

use std::cmp::Ordering;

use super::pool;
use crate::slice::sort::*;

/// Ordered by `cmp` ascending, but `lt` says the opposite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Backwards(u32);

impl Ord for Backwards {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.cmp(&other.0)
    }
}

impl PartialOrd for Backwards {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    fn lt(&self, other: &Self) -> bool {
        self.0 > other.0
    }
}

/// 3,000 distinct values (i * k mod a prime), shuffled: long enough for
/// parallel splits.
fn shuffled() -> Vec<Backwards> {
    (0..3_000u64)
        .map(|i| Backwards((i * 2_654_435_761 % 3_001) as u32))
        .collect()
}

fn is_descending(v: &[Backwards]) -> bool {
    v.windows(2).all(|w| w[0].0 > w[1].0)
}

#[test]
fn sorts_by_ord_follow_lt() {
    pool().install(|| {
        let mut v = shuffled();
        par_sort(&mut v);
        assert!(is_descending(&v), "par_sort did not follow lt");
        let mut v = shuffled();
        par_sort_unstable(&mut v);
        assert!(is_descending(&v), "par_sort_unstable did not follow lt");
    });
}

#[test]
fn sorts_by_key_follow_the_keys_lt() {
    pool().install(|| {
        let mut v: Vec<u32> = shuffled().iter().map(|b| b.0).collect();
        par_sort_by_key(&mut v, |&x| Backwards(x));
        assert!(v.windows(2).all(|w| w[0] > w[1]), "par_sort_by_key");
        let mut v: Vec<u32> = shuffled().iter().map(|b| b.0).collect();
        par_sort_unstable_by_key(&mut v, |&x| Backwards(x));
        assert!(
            v.windows(2).all(|w| w[0] > w[1]),
            "par_sort_unstable_by_key"
        );
    });
}

#[test]
fn sorts_by_a_comparator_follow_it() {
    pool().install(|| {
        let mut v = shuffled();
        par_sort_by(&mut v, Backwards::cmp);
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0), "par_sort_by");
        let mut v = shuffled();
        par_sort_unstable_by(&mut v, Backwards::cmp);
        assert!(
            v.windows(2).all(|w| w[0].0 < w[1].0),
            "par_sort_unstable_by"
        );
    });
}
