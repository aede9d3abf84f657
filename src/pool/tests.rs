//! Tests of pool internals that the public API does not show.

use super::*;
use crate::runtime::stats::TIER_KINDS;

use crate::test_support::work::{fib, virtual_pool};

/// Every `CROSSING` mark a far steal sets (`WorkerThread::mark_crossing`)
/// is taken back: once the pool is idle, no LLC counts a crossing worker,
/// so no searcher is left spinning past the spinner cap for a mate that
/// will not split anything.
#[test]
fn crossing_marks_are_taken_back_once_the_pool_is_idle() {
    let pool = virtual_pool("llc:4 core:2");
    let far = |pool: &ThreadPool| -> u64 {
        let total = pool.stats().total();
        TIER_KINDS
            .iter()
            .filter(|k| k.crosses_llc())
            .map(|&k| total.steals(k))
            .sum()
    };
    // Until some steal crossed an LLC (on a loaded 2-CPU machine the
    // first rounds may run on a few workers only): `join`s, whose stolen
    // halves `join` again (their first private push ends the mark), and
    // spawned leaves, which do not (the thief's next search ends it).
    for _ in 0..200 {
        assert_eq!(pool.install(|| fib(18)), 2584);
        pool.install(|| {
            crate::scope(|s| {
                for _ in 0..32 {
                    s.spawn(|_| std::thread::sleep(std::time::Duration::from_micros(20)));
                }
            })
        });
        if far(&pool) > 4 {
            break;
        }
    }
    assert!(far(&pool) > 0, "no steal crossed an LLC");
    let crossing = |pool: &ThreadPool| -> Vec<usize> {
        let reg = &pool.registry;
        reg.llc_hints
            .iter()
            .map(|h| h.crossing.load(std::sync::atomic::Ordering::Relaxed))
            .collect()
    };
    // Workers end their marks before they search; give the last ones time
    // to get there.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while crossing(&pool).iter().any(|&c| c != 0) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(crossing(&pool), [0; 4]);
}
