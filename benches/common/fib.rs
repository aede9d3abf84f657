//! fib with `join` at every level, on each pool the benches and the
//! measuring examples compare (`#[path]`-included by `benches/fork_join.rs`,
//! `examples/join_cost.rs` and `examples/calibrate.rs`): one copy, so that
//! every comparison times the same recursion.

/// fib(n) with `locus::join` at every level.
pub fn fib_locus(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib_locus(n - 1), || fib_locus(n - 2));
    a + b
}

/// fib(n) with `rayon::join` at every level.
pub fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

/// fib(n) with chili's `Scope::join` at every level.
#[allow(dead_code)] // examples/calibrate.rs compares locus and rayon only
pub fn fib_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}
