//! Shared helpers of the `iter_*` tests: the lengths every adapter and
//! consumer is checked at, a 4-worker pool, and pseudo-random inputs.

pub const LENS: &[usize] = &[0, 1, 2, 3, 5, 7, 13, 31, 127, 1009, 10_007];

pub fn pool() -> locus::ThreadPool {
    crate::common::work::pool(4)
}

/// Deterministic pseudo-random numbers (xorshift64*).
pub fn data(len: usize, seed: u64) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D) % 1000
        })
        .collect()
}

/// Runs `check` for every length on the pool (inputs from `seed`).
pub fn each_len(seed: u64, check: impl Fn(Vec<u64>) + Sync) {
    pool().install(|| {
        for (i, &n) in LENS.iter().enumerate() {
            check(data(n, i as u64 + seed));
        }
    });
}
