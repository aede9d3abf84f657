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
//!
//! And the take-back: a dealt half has two holders, the copy in the pack
//! queue and the owner's `join` frame (`Dealt`), and runs once, by the
//! first to claim it.
#![cfg(loom)]

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use locus::__loom::{Dealt, IdleShape};
use locus_loom_tests::{Frame, Kind, Pool, builder};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize as LoomUsize, Ordering::*};
use loom::thread;

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

/// The owner's take-back (`deal::Holds::take_back`) races the receiver's
/// worker executing the queue's copy (`Dealt<JobRef>::execute`), each as
/// the runtime does it: claim, then (if won) run the half, then release.
/// The half runs exactly once; the owner frees its frame (the half's
/// memory) only after it ran the half or saw the latch its receiver set
/// (a read of the frame after the free, unordered, is a race loom
/// reports); the record is freed once, by the last holder. Counts the
/// runs in which each holder won.
#[test]
fn a_dealt_half_is_claimed_once_by_owner_or_receiver() {
    static OWNER_WON: AtomicUsize = AtomicUsize::new(0);
    static RECEIVER_WON: AtomicUsize = AtomicUsize::new(0);
    builder(3).check(|| {
        let dealt = Arc::new(Dealt::new(0usize));
        let frame = Arc::new(Frame::default());
        let latch = Arc::new(AtomicBool::new(false));
        let runs = Arc::new(LoomUsize::new(0));
        let frees = Arc::new(LoomUsize::new(0));
        let receiver = {
            let (dealt, frame, latch) = (dealt.clone(), frame.clone(), latch.clone());
            let (runs, frees) = (runs.clone(), frees.clone());
            thread::spawn(move || {
                if dealt.claim() {
                    frame.read();
                    runs.fetch_add(1, Relaxed);
                    // The latch's set: the last access to the frame.
                    latch.store(true, Release);
                    RECEIVER_WON.fetch_add(1, Relaxed);
                }
                if dealt.release() {
                    frees.fetch_add(1, Relaxed);
                }
            })
        };
        let won = dealt.claim();
        if dealt.release() {
            frees.fetch_add(1, Relaxed);
        }
        if won {
            OWNER_WON.fetch_add(1, Relaxed);
            frame.read();
            runs.fetch_add(1, Relaxed);
        } else {
            while !latch.load(Acquire) {
                thread::yield_now();
            }
        }
        frame.free();
        receiver.join().unwrap();
        assert_eq!(
            runs.load(Relaxed),
            1,
            "the half ran {} times",
            runs.load(Relaxed)
        );
        assert_eq!(
            frees.load(Relaxed),
            1,
            "the record was freed {} times",
            frees.load(Relaxed)
        );
    });
    assert!(
        OWNER_WON.load(Relaxed) > 0,
        "the owner never took its half back"
    );
    assert!(
        RECEIVER_WON.load(Relaxed) > 0,
        "the receiver never ran the half"
    );
}
