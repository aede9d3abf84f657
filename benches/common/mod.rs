//! Inputs shared by the benches (`mod common;` in each).

/// `n` pseudo-random words (xorshift64, fixed seed): the same input in
/// every run.
pub fn random_u64(n: usize) -> Vec<u64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}
