//! Tests of the far walk's mark of a loop of spawns ("A loop of spawns
//! across the LLC" in `pass::far`), on the model of `pass::tests` with
//! two crossing tiers: worker 2 in the nearer, worker 3 in the farther.
use super::*;

/// Worker 0's full pass over `m` with one tier inside its LLC (worker 1)
/// and two crossing tiers (worker 2, then worker 3).
fn two_far_pass(m: &mut Model) -> Found<Src> {
    let tiers = [
        tier(TierKind::Llc, 1..2),
        tier(TierKind::Numa, 2..3),
        tier(TierKind::Remote, 3..4),
    ];
    pass_over(m, &tiers)
}

fn stolen(f: &Found<Src>, v: usize) -> bool {
    matches!(f, Found::Job(Src::Stolen(w)) if *w == v)
}

#[test]
fn a_steal_from_a_long_deque_marks_the_llc() {
    // A recursion's deque (shorter than `LONG_DEQUE`) never marks it.
    let mut m = Model {
        deque: vec![0, 0, LONG_DEQUE - 1, 0],
        ..Model::new(4)
    };
    assert!(stolen(&two_far_pass(&mut m), 2));
    assert!(!m.loop_seen);
    // A loop of spawns' does, across the LLC with several crossing tiers
    // or one, and inside the LLC.
    for (deque, robbed, two_far) in [
        ([0, 0, LONG_DEQUE, 0], 2, true),
        ([0, 0, LONG_DEQUE, 0], 2, false),
        ([0, LONG_DEQUE, 0, 0], 1, true),
    ] {
        let mut m = Model {
            deque: deque.into(),
            ..Model::new(4)
        };
        let got = if two_far {
            two_far_pass(&mut m)
        } else {
            full_pass(&mut m, false)
        };
        assert!(stolen(&got, robbed), "deques {deque:?}");
        assert!(m.loop_seen, "deques {deque:?}");
    }
    // The flat order's one tier has no LLC to mark.
    let mut m = Model {
        deque: vec![0, LONG_DEQUE, 0, 0],
        ..Model::new(4)
    };
    let everyone = 1..4;
    let all = Tier::flat(vec![everyone]);
    assert!(stolen(&pass_over(&mut m, &[all]), 1));
    assert!(!m.loop_seen);
}

#[test]
fn a_marked_llc_steals_from_the_longest_deque_of_every_crossing_tier() {
    for (marked, deque, robbed) in [
        // Unmarked: the nearer crossing tier wins with any job.
        (false, [0, 0, 3, 100], 2),
        // Marked: the longest pick, whatever its tier.
        (true, [0, 0, 3, 100], 3),
        (true, [0, 0, 100, 3], 2),
        // A tie goes to the nearer tier.
        (true, [0, 0, 5, 5], 2),
        // A farther tier is still walked when the nearer is empty.
        (false, [0, 0, 0, 5], 3),
    ] {
        let mut m = Model {
            deque: deque.into(),
            loop_seen: marked,
            ..Model::new(4)
        };
        let got = two_far_pass(&mut m);
        assert!(stolen(&got, robbed), "marked {marked}, deques {deque:?}");
        assert_eq!(m.loop_seen, marked, "a steal keeps the mark as it was");
    }
}

#[test]
fn a_marked_llc_whose_crossing_tiers_hold_nothing_drops_the_mark() {
    let mut m = Model {
        loop_seen: true,
        ..Model::new(4)
    };
    assert!(matches!(two_far_pass(&mut m), Found::Nothing));
    assert!(!m.loop_seen);
    // With one crossing tier too.
    let mut m = Model {
        loop_seen: true,
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, false), Found::Nothing));
    assert!(!m.loop_seen);
    // A job only inside the LLC: no far walk, the mark stays.
    let mut m = Model {
        deque: vec![0, 1, 0, 0],
        loop_seen: true,
        ..Model::new(4)
    };
    assert!(stolen(&two_far_pass(&mut m), 1));
    assert!(m.loop_seen);
}

#[test]
fn a_lost_race_across_the_llc_goes_on_or_passes_again() {
    // Unmarked: the next crossing tier, as the walk did tier by tier.
    let mut m = Model {
        deque: vec![0, 0, 3, 100],
        gone: Some(2),
        ..Model::new(4)
    };
    assert!(stolen(&two_far_pass(&mut m), 3));
    // Marked: the one steal lost, the pass asks to pass again.
    let mut m = Model {
        deque: vec![0, 0, 3, 100],
        gone: Some(3),
        loop_seen: true,
        ..Model::new(4)
    };
    assert!(matches!(two_far_pass(&mut m), Found::Retry));
    assert!(m.loop_seen);
}

/// Worker 0's near pass over `m`: its LLC's tier (workers 1 and 2), then
/// one crossing tier (worker 3).
fn near_pass(m: &mut Model) -> Found<Src> {
    let tiers = [tier(TierKind::Llc, 1..3), tier(TierKind::Numa, 3..4)];
    pass(m, worker_0(&tiers, &[], true))
}

#[test]
fn a_marked_llc_makes_no_near_passes() {
    for marked in [false, true] {
        let mut m = Model {
            deque: vec![0, 0, 0, 3],
            loop_seen: marked,
            ..Model::new(4)
        };
        let got = near_pass(&mut m);
        if marked {
            assert!(stolen(&got, 3), "a marked LLC's near pass crosses");
        } else {
            assert!(matches!(got, Found::Nothing), "a near pass stays inside");
        }
    }
}

#[test]
fn a_marked_llc_looks_at_the_last_victim_first() {
    for (marked, last, robbed, looks) in [
        // Unmarked: the walk from the random start (worker 1 first), both
        // mates compared by the near choice, the first of equals robbed.
        (false, Some(2), 1, vec![1, 2]),
        // Marked: the last victim first.
        (true, Some(2), 2, vec![2]),
        // Marked, the last victim in another tier: not looked at here.
        (true, Some(3), 1, vec![1, 2]),
        (true, None, 1, vec![1, 2]),
    ] {
        let mut m = Model {
            deque: vec![0, 5, 5, 0],
            loop_seen: marked,
            last_victim: last,
            ..Model::new(4)
        };
        assert!(
            stolen(&near_pass(&mut m), robbed),
            "marked {marked}, last {last:?}"
        );
        assert_eq!(m.lens, looks, "marked {marked}, last {last:?}");
    }
    // The last victim emptied since: looked at, then the walk.
    let mut m = Model {
        deque: vec![0, 5, 0, 0],
        loop_seen: true,
        last_victim: Some(2),
        ..Model::new(4)
    };
    assert!(stolen(&near_pass(&mut m), 1));
    assert_eq!(m.lens, [2, 1, 2]);
}
