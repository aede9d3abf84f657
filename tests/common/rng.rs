//! Deterministic pseudo-random numbers for the random tests: xorshift64*
//! (Vigna, "An experimental exploration of Marsaglia's xorshift
//! generators, scrambled", 2016), seeded per case so that a case number
//! reproduces its input.

/// A xorshift64* generator.
pub struct Rng(u64);

impl Rng {
    /// The generator of case `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// `n` numbers below 1000.
    pub fn values(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.next() % 1000).collect()
    }
}
