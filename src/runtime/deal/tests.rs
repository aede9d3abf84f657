//! Tests of the deal's and the re-deal's rules ([`super::Deal`]) and of a dealt half's record.

use super::*;
use crate::runtime::idle::{IdleMasks, IdleShape};
use crate::runtime::sleep::Idle;

#[test]
fn bisection_halves_the_region_towards_the_dealer() {
    assert_eq!(bisect(0, 4, 0), (2, (2, 4), (0, 2)));
    assert_eq!(bisect(0, 2, 0), (1, (1, 2), (0, 1)));
    assert_eq!(bisect(0, 4, 3), (1, (0, 2), (2, 4)));
    assert_eq!(bisect(2, 4, 2), (3, (3, 4), (2, 3)));
    // An odd region: the dealer's side keeps the smaller half when it
    // is the low one.
    assert_eq!(bisect(0, 3, 0), (2, (2, 3), (0, 2)));
    assert_eq!(bisect(0, 3, 2), (1, (0, 2), (2, 3)));
}

/// Eight workers in four LLCs of two: worker 0 works (never idle), the
/// `working` ones too, every other one searched and went idle (armed, its
/// idle bit set). With the idle tokens, by worker.
fn working(working: &[usize]) -> (Sleep, Vec<Option<Idle>>) {
    let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(8, 2, 0)), 8);
    let tokens = (0..8)
        .map(|w| {
            (w != 0 && !working.contains(&w)).then(|| {
                sleep.start_searching(w);
                sleep.prepare_sleep(w)
            })
        })
        .collect();
    (sleep, tokens)
}

/// Four LLCs of two workers; every worker but 0 idle.
fn four_llcs() -> Sleep {
    working(&[]).0
}

#[test]
fn a_quiet_pool_deals_one_half_per_llc_by_bisection() {
    let sleep = four_llcs();
    let deal = Deal::new(4);
    let empty = |_| true;
    // The root, in LLC 0: half the tree to LLC 2, a quarter to LLC 1.
    assert_eq!(deal.target(&sleep, 0, empty), Some(2));
    assert_eq!(deal.target(&sleep, 0, empty), Some(1));
    // LLC 2's first promotion deals inside its region.
    assert_eq!(deal.target(&sleep, 2, empty), Some(3));
    // Every region is one LLC now, and the dealt jobs wait in their
    // pack queues: no new start.
    assert_eq!(deal.target(&sleep, 2, |m| m == 0 || m == 2), None);
}

#[test]
fn a_deal_into_an_llc_with_no_awake_worker_is_marked_until_unmarked() {
    // Worker 0 (LLC 0) and worker 4 (LLC 2) work; LLCs 1 and 3 sleep.
    let (sleep, _tokens) = working(&[4]);
    let deal = Deal::new(4);
    for to in 0..4 {
        deal.mark_asleep(&sleep, to);
    }
    assert_eq!(deal.asleep(), 0b1010);
    assert!(sleep.idle().all_armed(1) && !sleep.idle().all_armed(2));
    deal.unmark_asleep(1);
    assert_eq!(deal.asleep(), 0b1000);
}

#[test]
fn no_new_start_while_a_deal_waits_in_a_pack_queue() {
    let sleep = four_llcs();
    let deal = Deal::new(4);
    assert_eq!(deal.target(&sleep, 0, |_| true), Some(2));
    assert_eq!(deal.target(&sleep, 0, |_| true), Some(1));
    // LLC 0's region is LLC 0 alone; LLCs 1 and 2 still hold theirs.
    assert_eq!(deal.target(&sleep, 0, |m| m == 0 || m == 3), None);
}

#[test]
fn no_start_while_another_worker_works() {
    let (sleep, _) = working(&[1]);
    let deal = Deal::new(4);
    assert_eq!(deal.target(&sleep, 0, |_| true), None);
    // Worker 1 searches: the pool is quiet again.
    sleep.start_searching(1);
    assert_eq!(deal.target(&sleep, 0, |_| true), Some(2));
}

#[test]
fn claims_in_flight_do_not_hide_working_workers() {
    // Workers 0, 6 and 7 work; LLC 1's and LLC 2's idle workers are
    // claimed (a ramp-up's wakes), not yet awake: armed and searching.
    let (sleep, _) = working(&[6, 7]);
    for llc in [1, 1, 2, 2] {
        assert!(sleep.wake_in(Some(0), llc).is_some());
    }
    assert_eq!(sleep.searching(), 4);
    assert_eq!(sleep.idle().armed_total(), 5);
    // The counts see 9 of 8 workers free: each claimed one twice.
    assert!(Deal::counts_say_quiet(&sleep, 4));
    assert!(!Deal::quiet(&sleep));
    assert_eq!(Deal::new(4).target(&sleep, 0, |_| true), None);
}

#[test]
fn one_worker_and_claims_in_flight_are_quiet() {
    // Only worker 0 works; two idle workers claimed, not yet awake: each
    // counted once, as searching.
    let (sleep, _) = working(&[]);
    assert!(sleep.wake_in(Some(0), 2).is_some());
    assert!(sleep.wake_in(Some(0), 3).is_some());
    assert!(Deal::quiet(&sleep));
    assert_eq!(Deal::new(4).target(&sleep, 0, |_| true), Some(2));
}

#[test]
fn a_claimed_worker_that_found_work_works() {
    // Worker 0 works; the others searched and went idle.
    let (sleep, mut tokens) = working(&[]);
    let (w, _) = sleep.wake_in(Some(0), 1).unwrap();
    // It wakes: its claimer counts it as searching, so still quiet.
    sleep.cancel_sleep(tokens[w].take().unwrap());
    assert!(Deal::quiet(&sleep));
    // It finds a job and stops searching, the last searcher: it hands a
    // wakeup on (a claim, in flight). Two workers work.
    assert!(sleep.stop_searching(w, 1).is_some());
    assert_eq!(sleep.searching(), 1);
    assert!(!Deal::quiet(&sleep));
}

#[test]
fn only_searchers_and_idle_workers_beside_one_are_quiet() {
    // Workers 6 and 7 search (bits clear, counted): not working.
    let (sleep, _) = working(&[6, 7]);
    assert!(!Deal::quiet(&sleep));
    sleep.start_searching(6);
    assert!(!Deal::quiet(&sleep));
    sleep.start_searching(7);
    assert!(Deal::quiet(&sleep));
    // Nobody works at all (the dealer itself searches): quiet too.
    sleep.start_searching(0);
    assert!(Deal::quiet(&sleep));
}

#[test]
fn a_dealt_half_goes_to_the_first_claim_and_the_last_release() {
    let d = Dealt::new(7u32);
    assert_eq!(d.job(), 7);
    // The owner takes it back before the receiver's copy runs.
    assert!(d.claim());
    assert!(!d.release());
    assert!(!d.claim());
    assert!(d.release());
}

/// Four LLCs of four workers, all working but those of the `out` LLCs
/// (all out: the first searches, the others armed) and of the `dry`
/// LLCs (dry, not all out: the first works, the others armed).
fn busy_but(out: &[usize], dry: &[usize]) -> Sleep {
    let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(16, 4, 0)), 16);
    for (&d, first) in out.iter().map(|d| (d, 0)).chain(dry.iter().map(|d| (d, 1))) {
        for w in 4 * d + first..4 * d + 4 {
            sleep.start_searching(w);
            if w > 4 * d {
                let _ = sleep.prepare_sleep(w);
            }
        }
    }
    sleep
}

#[test]
fn a_deep_holder_of_a_busy_llc_redeals_to_the_dry_llc() {
    let sleep = busy_but(&[], &[2]);
    let deal = Deal::new(4);
    // The pool is not quiet: no start, no region deal.
    assert_eq!(deal.target(&sleep, 0, |_| true), None);
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true), Some(2));
    // A shallow holder keeps its jobs.
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD - 1, |_| true), None);
    // One re-deal waits in the dry LLC's pack queue, and a worker there
    // runs: no second one.
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |m| m != 2), None);
}

#[test]
fn an_llc_all_out_takes_a_redeal_beside_a_waiting_job() {
    // LLC 2's workers are all armed or searching: what its pack queue
    // holds has not started, and a re-deal may join it.
    let sleep = busy_but(&[2], &[]);
    let deal = Deal::new(4);
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |m| m != 2), Some(2));
}

#[test]
fn an_llc_takes_at_most_the_cap_of_redeals_until_the_next_start() {
    let sleep = busy_but(&[2], &[]);
    let deal = Deal::new(4);
    for _ in 0..REDEAL_CAP {
        assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true), Some(2));
    }
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true), None);
    // A start (every other worker idle or searching) clears the counts.
    let quiet = Sleep::new(IdleMasks::new(IdleShape::uniform(16, 4, 0)), 16);
    for w in 1..16 {
        quiet.start_searching(w);
    }
    assert_eq!(deal.target(&quiet, 0, |_| true), Some(2));
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true), Some(2));
}

#[test]
fn the_pool_makes_at_most_the_burst_of_redeals_until_the_next_start() {
    // Eight LLCs of two workers, all out but LLC 0.
    let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(16, 2, 0)), 16);
    for w in 2..16 {
        sleep.start_searching(w);
        let _ = sleep.prepare_sleep(w);
    }
    let deal = Deal::new(8);
    for _ in 0..REDEAL_BURST {
        assert!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true).is_some());
    }
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true), None);
}

#[test]
fn no_redeal_from_an_llc_with_a_searcher_or_to_a_busy_one() {
    let sleep = busy_but(&[2], &[]);
    let deal = Deal::new(4);
    // LLC 2 is the dry one: it does not deal to itself, nor does a
    // busy LLC see a dry one when none is.
    assert_eq!(deal.redeal(&sleep, 2, REDEAL_HELD, |_| true), None);
    let sleep = busy_but(&[], &[]);
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true), None);
    // A searcher in the own LLC: its mates' jobs are for it.
    let sleep = busy_but(&[2], &[]);
    sleep.start_searching(1);
    assert_eq!(deal.redeal(&sleep, 0, REDEAL_HELD, |_| true), None);
}

#[test]
fn a_redeal_goes_to_the_dry_llc_with_the_fewest_nearest_first() {
    // From LLC 2, LLCs 1 and 3 are equally near (lower first), 0 last.
    let sleep = busy_but(&[0, 3], &[]);
    let deal = Deal::new(4);
    assert_eq!(deal.redeal(&sleep, 2, REDEAL_HELD, |_| true), Some(3));
    // LLC 3 has one now, LLC 0 none.
    assert_eq!(deal.redeal(&sleep, 2, REDEAL_HELD, |_| true), Some(0));
    assert_eq!(deal.redeal(&sleep, 2, REDEAL_HELD, |_| true), Some(3));
    let sleep = busy_but(&[0, 1], &[]);
    let deal = Deal::new(4);
    assert_eq!(deal.redeal(&sleep, 2, REDEAL_HELD, |_| true), Some(1));
}

#[test]
fn one_llc_never_deals() {
    let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(4, 4, 0)), 4);
    assert_eq!(Deal::new(1).target(&sleep, 0, |_| true), None);
    assert_eq!(Deal::new(1).redeal(&sleep, 0, usize::MAX, |_| true), None);
}

#[test]
fn a_receiver_is_noted_per_llc_and_none_in_a_pool_of_one_llc() {
    let deal = Deal::new(3);
    assert_eq!(deal.receiver(1), None);
    deal.note_receiver(1, 5);
    assert_eq!((deal.receiver(0), deal.receiver(1)), (None, Some(5)));
    deal.note_receiver(1, 4);
    assert_eq!(deal.receiver(1), Some(4));
    assert_eq!(deal.receiver(7), None, "out of range");
    let one = Deal::new(1);
    one.note_receiver(0, 0);
    assert_eq!(one.receiver(0), None);
}
