//! Tests of the far choice (`pass::far`): which victim a steal across
//! the LLC takes, how many it compares, the lone-job rule, and the
//! strided order, on the model of `pass::tests`.
use super::super::far::*;
use super::*;

#[test]
fn a_far_steal_takes_the_victim_whose_oldest_job_looks_biggest() {
    // (deques, private halves, whose LLC runs an iterator piece, the
    // victim robbed); the random start (0) puts worker 2 first.
    let cases = [
        // Worker 3 is deeper in a larger piece.
        ([0, 0, 1, 1], [0, 0, 1, 4], [false; 4], 3),
        // Ties go to the first in the random order.
        ([0, 0, 2, 1], [0, 0, 1, 2], [false; 4], 2),
        // A victim whose LLC runs an iterator piece counts as smallest:
        // its biggest half is the most placed data to move.
        ([0, 0, 1, 1], [0, 0, 0, 9], [false, false, false, true], 2),
    ];
    for (deque, halves, placed, robbed) in cases {
        let mut m = Model {
            deque: deque.into(),
            halves: halves.into(),
            placed: placed.into(),
            ..Model::new(4)
        };
        let got = full_pass(&mut m, false);
        assert!(
            matches!(got, Found::Job(Src::Stolen(v)) if v == robbed),
            "deques {deque:?}, halves {halves:?}, placed {placed:?}"
        );
        if placed[3] {
            // It is still robbed when nobody else holds a job.
            assert!(matches!(
                full_pass(&mut m, false),
                Found::Job(Src::Stolen(3))
            ));
        }
    }
    // Inside the LLC of a pool of one LLC, the first victim with a job is
    // robbed, whatever its size (inside the LLC of a pool of several, the
    // near choice compares: `near_choice`).
    let mates = 1..4;
    let whole = Tier::new(TierKind::Llc, [mates].into(), 0, 1);
    let mut m = Model {
        deque: vec![0, 1, 1, 1],
        halves: vec![0, 0, 0, 9],
        ..Model::new(4)
    };
    assert!(matches!(
        steal_tier(&mut m, 0, &whole, false),
        Found::Job(Src::Stolen(1))
    ));
}

#[test]
fn a_far_steal_compares_at_most_far_choices_victims_with_a_job() {
    // Workers 1..=20 in one far tier, each but 4 with a job, the sizes
    // growing with the index. From the random start (0) the far order
    // steps by 3 (the least number at or above 20 / FAR_CHOICES coprime
    // with 20): 1, 4, 7, ..., 19, then 2, 5, ...; skipping 4 (no job), the
    // first FAR_CHOICES victims with a job are 1, 7, 10, 13, 16, 19, 2, 5.
    // The choice is the biggest of those (19), not of the tier (20), and
    // only their private stacks are looked at (empty victims do not count
    // as choices).
    assert_eq!(FAR_CHOICES, 8, "the order below assumes 8 choices");
    let n = 21;
    let t = tier(TierKind::Numa, 1..n);
    let mut m = Model {
        deque: (0..n).map(|v| usize::from(v != 0 && v != 4)).collect(),
        halves: (0..n).collect(),
        ..Model::new(n)
    };
    assert!(matches!(
        steal_far(&mut m, 0, std::slice::from_ref(&t), false, false),
        Found::Job(Src::Stolen(19))
    ));
    assert_eq!(m.looked, FAR_CHOICES);
    assert_eq!(m.crossed, 1, "a far steal marks the thief as crossing");
    // A lost race on the chosen victim (its job was gone by the steal) is
    // contention, not "nothing": a re-check must not park on it while
    // victims it did not compare may hold jobs.
    let mut m = Model {
        deque: vec![0, 1, 1, 1, 1, 1],
        halves: vec![0, 0, 0, 0, 7, 0],
        gone: Some(4),
        ..Model::new(6)
    };
    let t = tier(TierKind::Numa, 1..6);
    assert!(matches!(
        steal_far(&mut m, 0, std::slice::from_ref(&t), false, false),
        Found::Retry
    ));
    // Nothing anywhere: nothing.
    let mut m = Model::new(4);
    let t = tier(TierKind::Numa, 1..4);
    assert!(matches!(
        steal_far(&mut m, 0, std::slice::from_ref(&t), false, false),
        Found::Nothing
    ));
}

#[test]
fn a_far_steal_leaves_a_placed_pieces_lone_job_to_its_llc() {
    // (deques, private halves, whose LLC runs an iterator piece, the
    // victim robbed); the random start (0) puts worker 2 first.
    let placed = [false, false, true, true];
    let cases = [
        // Worker 2 holds its piece's lone job: worker 3's oldest job is
        // taken, where without the rule the tie went to worker 2.
        ([0, 0, 1, 2], [0, 0, 0, 0], placed, Some(3)),
        // Nothing but lone jobs of pieces: nothing across the LLC.
        ([0, 0, 1, 1], [0, 0, 0, 0], placed, None),
        // A private half behind the one job: robbed.
        ([0, 0, 1, 0], [0, 0, 1, 0], placed, Some(2)),
        // No piece in its LLC: robbed.
        ([0, 0, 1, 0], [0, 0, 0, 0], [false; 4], Some(2)),
    ];
    for (deque, halves, placed, robbed) in cases {
        for leave_searched in [true, false] {
            let mut m = Model {
                deque: deque.into(),
                halves: halves.into(),
                placed: placed.into(),
                ..Model::new(4)
            };
            let t = tier(TierKind::Numa, 2..4);
            let got = steal_far(&mut m, 0, std::slice::from_ref(&t), leave_searched, false);
            let ok = match robbed {
                Some(r) => matches!(got, Found::Job(Src::Stolen(v)) if v == r),
                None => matches!(got, Found::Nothing),
            };
            assert!(ok, "deques {deque:?}, halves {halves:?}, placed {placed:?}");
        }
    }
    // The flat order's one tier has no LLC to leave the job to.
    let mut m = Model {
        deque: vec![0, 0, 0, 1],
        placed: vec![false, false, false, true],
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, true),
        Found::Job(Src::Stolen(3))
    ));
}

#[test]
fn far_victims_visit_every_worker_once_and_sample_several_llcs_first() {
    // The far tiers of the 2x EPYC spec: 11 or 12 other LLCs of 8.
    for total in [88, 96, 184, 7, 1] {
        let t = tier(TierKind::Numa, 100..100 + total);
        for random in [0, 5, 87, 1 << 40] {
            let order: Vec<usize> = far_victims(&t, total, random).collect();
            let mut seen = order.clone();
            seen.sort_unstable();
            assert_eq!(seen, (100..100 + total).collect::<Vec<_>>(), "{total}");
            if total >= 8 * FAR_CHOICES {
                // One sweep of the stride holds total / stride samples, a
                // few short of FAR_CHOICES when the stride had to grow to be
                // coprime; the first victims of stride one were one LLC's.
                let llcs: std::collections::HashSet<usize> =
                    order[..FAR_CHOICES].iter().map(|v| (v - 100) / 8).collect();
                assert!(llcs.len() >= FAR_CHOICES - 1, "{total}: {order:?}");
            }
        }
    }
    assert_eq!(coprime_stride(20, 8), 3);
    assert_eq!(coprime_stride(88, 8), 13);
    assert_eq!(coprime_stride(3, 8), 1);
}

#[test]
fn the_far_list_of_awake_victims_keeps_the_strided_order() {
    let list = [10, 11, 12, 13, 14, 15, 16];
    for random in 0..7 {
        let got: Vec<usize> = strided(&list, random).collect();
        let tier = tier(TierKind::Remote, 10..17);
        let want: Vec<usize> = far_victims(&tier, 7, random).collect();
        assert_eq!(got, want);
    }
    assert_eq!(strided(&[], 3).count(), 0);
}
