//! loom models of the spread of a ramp-up ("Spreading a ramp-up" in
//! `runtime::sleep`): a promotion's notify (`Sleep::notify_queued`, the
//! hook of `Sleep::notify_with`) that, while the pusher's LLC has a
//! searcher, the pool is mostly idle and the pusher's deque holds more jobs
//! than that LLC has searchers, claims one more worker (of the pusher's LLC,
//! else of the nearest empty LLC).
//!
//! The spread only adds claims, so what can go wrong is a claim that is
//! not followed through: a claimed worker left parked, or counted as a
//! searcher and never uncounted. In each model the first job to start
//! blocks until the second one ran (a job waiting where the pool cannot
//! see), so both idle workers must run one: a worker parked for good while
//! a job is queued is a deadlock loom reports (the pool's exit wakeups
//! come only after the last job). `Running::finish` checks that every job
//! ran, that the counts end balanced and that no idle bit is left armed.
//! Each model also checks, over all its runs, that the spread did claim a
//! worker in some of them (else it would check nothing about it). A spread
//! that claims a worker without waking it fails both models (checked when
//! they were written: the deadlock, or the searcher count).
#![cfg(loom)]

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use locus::__loom::IdleShape;
use locus_loom_tests::{Kind, Pool, builder};

/// The common model: worker 0 (busy: it runs the root `join`, never
/// started) promotes two halves onto its deque (queue 0), each followed by
/// the promotion's notify with the deque's length as its hook, while the
/// workers `born` (born idle, as in a new pool, and started) park and
/// search (the first job to start waits for the second). The first notify
/// claims a worker of LLC 0 (nobody searches
/// yet); the second finds it counted as LLC 0's searcher and, if the
/// deque still holds both jobs and half the pool is armed, spreads.
/// Counts in `spread`, per LLC of two, the runs in which the spread
/// claimed a worker of that LLC (a static of the calling test: loom's
/// runs of one model share nothing else, and the tests run in parallel).
fn promotions_while_ramping_up(
    bound: usize,
    shape: IdleShape,
    born: &'static [usize],
    spread: &'static [AtomicUsize; 2],
) -> [usize; 2] {
    builder(bound).check(move || {
        let pool = Pool::new(shape.clone(), &[Kind::Deque(0)], 2).first_job_waits_for_second();
        let (pool, unrun) = pool.start_born(born, born);
        assert!(unrun.is_empty());
        for _ in 0..2 {
            pool.push(0);
            // The hook is asked only on the spread's path.
            let asked = Cell::new(false);
            let hit = pool.sleep.notify_queued(0, 0, || {
                asked.set(true);
                pool.queued(0)
            });
            if let Some((w, _)) = hit.filter(|_| asked.get()) {
                spread[pool.llc_of(w)].fetch_add(1, Relaxed);
            }
        }
        pool.finish();
    });
    spread.each_ref().map(|c| c.load(Relaxed))
}

/// LLC 0 = {0, 1}, LLC 1 = {2}: the first promotion claims worker 1, the
/// second (two jobs, one searcher in LLC 0, two of three workers armed)
/// claims worker 2 of the empty LLC 1, whether worker 1 is still parked,
/// searching, or already took a job; worker 2 may find both jobs gone and
/// park again. (Worker 1, back to its re-check before parking with its bit
/// set and still counted in LLC 0, may be the one claimed instead.) No
/// wakeup is lost and the counts balance.
#[test]
fn ramp_up_spread_to_an_empty_llc() {
    static SPREAD: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let spread = promotions_while_ramping_up(3, IdleShape::uniform(3, 2, 0), &[1, 2], &SPREAD);
    assert!(spread[1] > 0, "no run spread to the empty LLC: {spread:?}");
}

/// LLC 0 = {0, 1, 2}, LLC 1 = {3} (busy throughout, never started): the
/// second promotion's spread claims an idle worker of the pusher's own
/// LLC (worker 2, or 1 back at its re-check), with two of four workers
/// armed: the bound of "ramping up".
#[test]
fn ramp_up_spread_in_its_own_llc() {
    static SPREAD: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let spread = promotions_while_ramping_up(3, IdleShape::uniform(4, 3, 0), &[1, 2], &SPREAD);
    assert_eq!(spread[1], 0, "LLC 1 is never idle");
    assert!(spread[0] > 0, "no run spread in its own LLC: {spread:?}");
}
