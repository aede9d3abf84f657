//! Tests of the near choice (`pass::tiers`, "The near choice"): which
//! victim a steal inside the LLC of a pool of several LLCs takes, how many
//! it compares, and what a pass that saw a job reports, on the model of
//! `pass::tests`.
use crate::layout::TierBatch;

use super::*;

/// Worker 0's LLC tier of workers `1..n` in the model's pool of three LLCs
/// (a near tier, [`TierBatch::Near`]).
fn llc_tier(n: usize) -> Tier {
    let t = tier(TierKind::Llc, 1..n);
    assert_eq!(t.batch, TierBatch::Near);
    t
}

#[test]
fn a_steal_inside_the_llc_takes_the_mate_whose_oldest_job_looks_biggest() {
    // (deques, private halves, the victim robbed); the random start (0)
    // puts worker 1 first.
    let cases = [
        // Worker 3 is deeper in a larger piece.
        ([0, 1, 1, 1], [0, 0, 0, 9], 3),
        // The deque counts too (`victim_size`).
        ([0, 1, 3, 1], [0, 1, 0, 1], 2),
        // Ties go to the first in the random order.
        ([0, 1, 1, 1], [0, 2, 0, 2], 1),
        // An empty deque is no choice, whatever its private halves.
        ([0, 0, 1, 0], [0, 9, 0, 9], 2),
    ];
    for (deque, halves, robbed) in cases {
        let mut m = Model {
            deque: deque.into(),
            halves: halves.into(),
            ..Model::new(4)
        };
        let got = steal_tier(&mut m, 0, &llc_tier(4), false);
        assert!(
            matches!(got, Found::Job(Src::Stolen(v)) if v == robbed),
            "deques {deque:?}, halves {halves:?}"
        );
    }
}

#[test]
fn a_steal_inside_the_llc_compares_at_most_near_choices_mates_with_a_job() {
    // Workers 1..=20 in the LLC, each but 4 with a job, the sizes growing
    // with the index. From the random start (0) the walk goes 1, 2, 3, ...;
    // skipping 4 (no job), the first NEAR_CHOICES mates with a job are
    // 1, 2, 3, 5, 6, 7, 8, 9: the choice is the biggest of those (9), not
    // of the LLC (20), and only their private stacks are looked at.
    assert_eq!(NEAR_CHOICES, 8, "the order below assumes 8 choices");
    let n = 21;
    let mut m = Model {
        deque: (0..n).map(|v| usize::from(v != 0 && v != 4)).collect(),
        halves: (0..n).collect(),
        ..Model::new(n)
    };
    assert!(matches!(
        steal_tier(&mut m, 0, &llc_tier(n), false),
        Found::Job(Src::Stolen(9))
    ));
    assert_eq!(m.looked, NEAR_CHOICES);
    assert_eq!(m.lens, (1..=9).collect::<Vec<_>>());
}

#[test]
fn while_most_workers_are_idle_a_near_steal_takes_the_first_awake_mate_with_a_job() {
    // Workers 1..=6 in the LLC, 1, 2 and 3 idle; 5 holds the biggest job,
    // 4 the first. An idle pool's steals make no near choice (module docs
    // of `tiers`): the walk past the idle mates robs the first with a job,
    // without a look at any private stack.
    let mut m = Model {
        deque: vec![0, 0, 0, 0, 1, 1, 1],
        halves: vec![0, 0, 0, 0, 1, 5, 2],
        idle: vec![false, true, true, true, false, false, false],
        ..Model::new(7)
    };
    assert!(matches!(
        steal_tier(&mut m, 0, &llc_tier(7), true),
        Found::Job(Src::Stolen(4))
    ));
    assert_eq!(m.looked, 0);
}

#[test]
fn a_near_steal_that_loses_its_chosen_job_retries_and_one_that_sees_none_reports_nothing() {
    // A lost race on the chosen mate (its job was gone by the steal) is
    // contention, not "nothing": a re-check must not park on it while
    // mates it did not compare may hold jobs.
    let mut m = Model {
        deque: vec![0, 1, 1, 1, 1],
        halves: vec![0, 0, 0, 7, 0],
        gone: Some(3),
        ..Model::new(5)
    };
    assert!(matches!(
        steal_tier(&mut m, 0, &llc_tier(5), false),
        Found::Retry
    ));
    // Nothing anywhere: nothing, after a look at every mate.
    for mostly_idle in [false, true] {
        let mut m = Model::new(5);
        assert!(matches!(
            steal_tier(&mut m, 0, &llc_tier(5), mostly_idle),
            Found::Nothing
        ));
        assert_eq!(m.lens, [1, 2, 3, 4]);
        assert_eq!(m.looked, 0);
    }
}
