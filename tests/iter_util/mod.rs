//! Shared helpers of the `iter_*` tests: the lengths every adapter and
//! consumer is checked at, a 4-worker pool, and pseudo-random inputs.

pub const LENS: &[usize] = &[0, 1, 2, 3, 5, 7, 13, 31, 127, 1009, 10_007];

pub fn pool() -> locus::ThreadPool {
    crate::common::work::pool(4)
}

/// `len` pseudo-random numbers below 1000, from `seed`.
pub fn data(len: usize, seed: u64) -> Vec<u64> {
    crate::common::rng::Rng::new(seed).values(len)
}

/// Runs `check` for every length on the pool (inputs from `seed`).
pub fn each_len(seed: u64, check: impl Fn(Vec<u64>) + Sync) {
    pool().install(|| {
        for (i, &n) in LENS.iter().enumerate() {
            check(data(n, i as u64 + seed));
        }
    });
}
