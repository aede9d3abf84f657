//! The user's quicksort of `benches/fork_join.rs` and
//! `benches/quicksort_paired.rs` (`#[path]` include): a partition around
//! the middle element, `join` on the two sides, slices of at most
//! [`CUTOFF`] elements sorted serially.

/// Slices this short are sorted serially (`sort_unstable`).
pub const CUTOFF: usize = 4096;

/// Partitions `v` around its middle element (Lomuto); returns the pivot's
/// final index.
pub fn partition(v: &mut [u32]) -> usize {
    let pivot = v.len() / 2;
    v.swap(pivot, v.len() - 1);
    let p = v[v.len() - 1];
    let mut store = 0;
    for i in 0..v.len() - 1 {
        if v[i] < p {
            v.swap(i, store);
            store += 1;
        }
    }
    let last = v.len() - 1;
    v.swap(store, last);
    store
}

/// `n` pseudo-random `u32`.
#[allow(dead_code)]
pub fn random_vec(n: usize) -> Vec<u32> {
    crate::common::random_u64(n)
        .into_iter()
        .map(|x| x as u32)
        .collect()
}
