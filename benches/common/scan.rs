//! The baseline the idle-worker search is compared with: one flag per
//! worker, the first set one claimed with a CAS (how a pool without idle
//! masks finds a sleeper). Shared by `benches/idle_search.rs` and the
//! suite's `wake` scenario (`#[path]` include).

use std::sync::atomic::{AtomicBool, Ordering};

/// One flag per worker; `true` means idle.
pub struct Scan(pub Vec<AtomicBool>);

impl Scan {
    /// `n` workers, none idle.
    pub fn new(n: usize) -> Scan {
        Scan((0..n).map(|_| AtomicBool::new(false)).collect())
    }

    /// Claims the first idle worker, scanning from worker 0.
    pub fn claim(&self) -> Option<usize> {
        self.0.iter().position(|f| {
            f.load(Ordering::SeqCst)
                && f.compare_exchange(true, false, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
        })
    }
}
