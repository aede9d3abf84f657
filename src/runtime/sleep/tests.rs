//! Tests of the sleep state: the per-LLC counts, whom a push wakes, the
//! spread of a ramp-up.

use super::wake::{more_jobs_than_searchers, ramping_up};
use super::*;
use crate::runtime::idle::IdleShape;

/// Three LLCs of two workers ({0, 1}, {2, 3}, {4, 5}), every worker
/// idle (its bit set, not counted), as after `prepare_sleep`.
fn all_idle() -> (Sleep, Vec<Option<Idle>>) {
    let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(6, 2, 0)), 6);
    let idle = (0..6)
        .map(|w| {
            sleep.start_searching(w);
            Some(sleep.prepare_sleep(w))
        })
        .collect();
    (sleep, idle)
}

/// Worker `w` wakes by itself (its bit cleared by itself) and searches.
fn wake_self(sleep: &Sleep, idle: &mut [Option<Idle>], w: usize) {
    sleep.cancel_sleep(idle[w].take().unwrap());
}

#[test]
fn counts_follow_the_worker_llc() {
    let (sleep, mut idle) = all_idle();
    assert_eq!(sleep.searching(), 0);
    wake_self(&sleep, &mut idle, 2);
    assert_eq!((sleep.searching_in(0), sleep.searching_in(1)), (0, 1));
    // A claim counts the claimed worker in its own LLC.
    let (w, _) = sleep.wake_in(None, 2).unwrap();
    assert_eq!(sleep.idle().llc_of(w), 2);
    assert_eq!((sleep.searching(), sleep.searching_in(2)), (2, 1));
    // Leaving (found a job) uncounts it there.
    sleep.stop_searching(2, 1);
    assert_eq!((sleep.searching(), sleep.searching_in(1)), (1, 0));
}

#[test]
fn a_push_wakes_its_own_llc_while_another_searches() {
    let (sleep, mut idle) = all_idle();
    // Worker 0 (LLC 0) searches; worker 2 (LLC 1) runs and pushes.
    wake_self(&sleep, &mut idle, 0);
    wake_self(&sleep, &mut idle, 2);
    sleep.stop_searching(2, 1);
    assert_eq!(sleep.searching(), 1);
    // The global rule alone would skip (a searcher exists): the local
    // wake takes LLC 1's idle worker 3.
    assert_eq!(sleep.notify(Some(2), 1).map(|h| h.0), Some(3));
    assert_eq!(sleep.searching_in(1), 1);
    // Now LLC 1 has a searcher: the next push skips.
    assert_eq!(sleep.notify(Some(2), 1), None);
}

#[test]
fn a_saturated_llc_spills_to_an_llc_where_nobody_searches() {
    let (sleep, mut idle) = all_idle();
    // Worker 0 (LLC 0) searches; 2 and 3 (LLC 1) run.
    for w in [0, 2, 3] {
        wake_self(&sleep, &mut idle, w);
    }
    sleep.stop_searching(2, 1);
    sleep.stop_searching(3, 1);
    // LLC 1 has nobody idle; LLC 0 has idle worker 1 but a searcher;
    // LLC 2 has idle workers and no searcher: one of them is woken.
    let (w, _) = sleep.notify(Some(2), 1).unwrap();
    assert_eq!(sleep.idle().llc_of(w), 2);
    // Every LLC with idle workers now has a searcher: no more wakes.
    assert_eq!(sleep.notify(Some(2), 1), None);
    assert_eq!(sleep.searching(), 2);
}

#[test]
fn one_llc_keeps_the_global_rule() {
    let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(3, 3, 0)), 3);
    let idle: Vec<_> = (0..3)
        .map(|w| {
            sleep.start_searching(w);
            sleep.prepare_sleep(w)
        })
        .collect();
    let mut idle = idle.into_iter();
    sleep.cancel_sleep(idle.next().unwrap());
    // Worker 0 searches: a push by anyone wakes nobody.
    assert_eq!(sleep.notify(None, 0), None);
    assert_eq!(sleep.searching_in(0), 0, "no per-LLC count in one LLC");
    // Nor a spinner allowance: the global cap alone decides there.
    assert!(!sleep.alone_in(0));
}

/// Worker `w` is working (woke by itself, left the searching state
/// without a hand-off).
fn working(sleep: &Sleep, idle: &mut [Option<Idle>], w: usize) {
    wake_self(sleep, idle, w);
    let _ = sleep.leave_searching(sleep.idle().llc_of(w));
}

#[test]
fn a_ramp_up_promotion_wakes_one_worker_per_empty_llc() {
    let (sleep, mut idle) = all_idle();
    // Worker 0 works, its mate 1 searches: LLC 0 has a searcher and no
    // idle worker; LLCs 1 and 2 are empty; 4 of 6 workers idle.
    working(&sleep, &mut idle, 0);
    wake_self(&sleep, &mut idle, 1);
    assert_eq!(sleep.notify(Some(0), 0), None, "the plain rule skips");
    // Two jobs queued, one searcher in LLC 0: the nearest empty LLC.
    let (w, d) = sleep.notify_queued(0, 0, || 2).unwrap();
    assert_eq!((sleep.idle().llc_of(w), d), (1, Distance::Remote));
    // LLC 1 has a claimed worker now: the next push goes to LLC 2.
    let (w, _) = sleep.notify_queued(0, 0, || 3).unwrap();
    assert_eq!(sleep.idle().llc_of(w), 2);
    // No empty LLC is left (the claimed workers count as searchers).
    assert_eq!(sleep.notify_queued(0, 0, || 4), None);
    assert_eq!(sleep.searching(), 3);
}

#[test]
fn a_ramp_up_promotion_fills_its_own_llc_first() {
    let (sleep, mut idle) = all_idle();
    // Worker 2 works, 4 searches (LLC 2): LLC 1 has idle worker 3.
    working(&sleep, &mut idle, 2);
    wake_self(&sleep, &mut idle, 4);
    // LLC 1 has no searcher: the local wake of `notify`, as before.
    assert_eq!(
        sleep.notify_queued(2, 1, || unreachable!()).map(|h| h.0),
        Some(3)
    );
    // Now it has one (3, claimed): two queued jobs wake toward LLC 0,
    // the nearest empty one.
    let (w, _) = sleep.notify_queued(2, 1, || 2).unwrap();
    assert_eq!(sleep.idle().llc_of(w), 0);
}

#[test]
fn no_spread_without_more_jobs_than_searchers() {
    let (sleep, mut idle) = all_idle();
    working(&sleep, &mut idle, 0);
    wake_self(&sleep, &mut idle, 1);
    // One job, one searcher of LLC 0 to take it.
    assert_eq!(sleep.notify_queued(0, 0, || 1), None);
    assert_eq!(sleep.searching(), 1);
}

#[test]
fn no_spread_once_half_the_pool_is_awake() {
    let (sleep, mut idle) = all_idle();
    // 0, 2, 3 work, 1 searches: 2 of 6 idle.
    for w in [0, 2, 3] {
        working(&sleep, &mut idle, w);
    }
    wake_self(&sleep, &mut idle, 1);
    assert_eq!(sleep.notify_queued(0, 0, || 5), None);
    assert_eq!(sleep.searching(), 1);
}

#[test]
fn one_llc_never_spreads() {
    let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(4, 4, 0)), 4);
    let mut idle: Vec<_> = (0..4)
        .map(|w| {
            sleep.start_searching(w);
            Some(sleep.prepare_sleep(w))
        })
        .collect();
    working(&sleep, &mut idle, 0);
    wake_self(&sleep, &mut idle, 1);
    // A searcher exists: nothing, and the deque is not looked at.
    assert_eq!(sleep.notify_queued(0, 0, || unreachable!()), None);
}

#[test]
fn ramp_up_rules() {
    assert!(ramping_up(3, 6) && ramping_up(6, 6) && !ramping_up(2, 6));
    assert!(ramping_up(0, 0), "an empty pool is trivially idle");
    assert!(more_jobs_than_searchers(2, 1) && more_jobs_than_searchers(1, 0));
    assert!(!more_jobs_than_searchers(1, 1) && !more_jobs_than_searchers(0, 0));
    assert!(
        more_jobs_than_searchers(1, -1),
        "a count transiently below zero"
    );
}

#[test]
fn alone_in_says_whether_a_searcher_is_its_llcs_only_one() {
    let (sleep, mut idle) = all_idle();
    assert!(sleep.alone_in(1), "nobody searches in LLC 1");
    wake_self(&sleep, &mut idle, 2);
    assert!(sleep.alone_in(1), "worker 2 is LLC 1's only searcher");
    wake_self(&sleep, &mut idle, 3);
    assert!(!sleep.alone_in(1), "workers 2 and 3 both search");
    assert!(sleep.alone_in(0));
    sleep.stop_searching(3, 1);
    assert!(sleep.alone_in(1));
}
