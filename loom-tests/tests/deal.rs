//! loom model of the deal of a ramp-up (`runtime::deal`): a promoted
//! private `join` half that the deal sends to another LLC goes to that
//! LLC's pack queue with the pack queue's wakeup (`group_routing::push_to`
//! with `Destination::Pack`), instead of the promoter's deque with the
//! promotion's notify.
//!
//! What can go wrong is the composition: the half leaves the private stack
//! (where a worker in its re-check before parking could have claimed it)
//! for a queue that only the receiving LLC's workers take freely, while
//! they park. The first job to start blocks until the second one ran (a
//! job waiting where the pool cannot see, as the owner's `join` waits for
//! its dealt half), so both idle workers must run one: a worker parked
//! for good while a job is queued is a deadlock loom reports.
#![cfg(loom)]

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use locus::__loom::IdleShape;
use locus_loom_tests::{Kind, Pool, builder};

/// LLC 0 = {0, 1}, LLC 1 = {2}. Worker 0 (busy, never started: it runs
/// the root `join`) promotes two halves; for each it asks the deal
/// (`Deal::target`, with the pack queues' emptiness as `free`), and pushes
/// the half to LLC 1's pack queue (queue 1) with the pack wakeup, or to
/// its deque (queue 0) with the promotion's notify. Workers 1 and 2 are
/// born idle and started. Counts the runs in which a half was dealt (the
/// first promotion of a quiet pool deals: two of three workers armed).
#[test]
fn a_dealt_half_is_run_by_a_woken_worker() {
    static DEALT: AtomicUsize = AtomicUsize::new(0);
    builder(3).check(|| {
        let pool = Pool::new(
            IdleShape::uniform(3, 2, 0),
            &[Kind::Deque(0), Kind::Pack(1)],
            2,
        )
        .first_job_waits_for_second();
        let (pool, unrun) = pool.start_born(&[1, 2], &[1, 2]);
        assert!(unrun.is_empty());
        for _ in 0..2 {
            let to = pool
                .sleep
                .deal()
                .target(&pool.sleep, 0, |m| m == 0 || pool.queued(1) == 0);
            match to {
                Some(1) => {
                    DEALT.fetch_add(1, Relaxed);
                    pool.push_pack(1, 1, Some(0));
                }
                None => {
                    pool.push(0);
                    let _ = pool.sleep.notify_queued(0, 0, || pool.queued(0));
                }
                Some(other) => panic!("dealt to LLC {other}"),
            }
        }
        pool.finish();
    });
    assert!(DEALT.load(Relaxed) > 0, "no run dealt a half");
}
