//! Tests of `pass`: the checks "Before crossing the LLC" on a model of
//! four workers: worker 0 (the searcher) and its mate 1 in LLC 0, workers
//! 2 and 3 in LLCs 1 and 2.
use crate::layout::TierKind;

use super::queues::{PassQueues, Queue};
use super::tiers::*;
use super::*;

/// Where a job came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    OwnPack,
    Stolen(usize),
    Private,
    /// From the pack queue of another LLC, dealt while it slept.
    Dealt(usize),
}

#[derive(Default)]
struct Model {
    /// Jobs in each worker's deque.
    deque: Vec<usize>,
    /// Which workers show a private half.
    private: Vec<bool>,
    /// How many private halves each worker holds (the far choice's size
    /// hint; independent of `private`, which is what `shows_private` says).
    halves: Vec<usize>,
    /// Whose LLC runs a piece of a first split.
    placed: Vec<bool>,
    /// Jobs in worker 0's pack queue, and how many looks at it see it
    /// empty first (a piece aimed there during the pass).
    own_pack: usize,
    pack_late: usize,
    /// The searcher's idle bit is set (its re-check).
    rechecking: bool,
    /// LLCs where some worker searches (worker `v > 0` is in LLC `v - 1`).
    searched: Vec<bool>,
    /// Per LLC (as `searched`): workers claimed and not awake yet, armed
    /// workers; none when empty.
    claims: Vec<(usize, usize)>,
    /// The searcher's LLC's awake searchers.
    awake_here: isize,
    /// How many victims rule 3 let pass for claims on their way.
    passed: usize,
    /// A victim whose job someone else takes between the look at its
    /// length and the steal.
    gone: Option<usize>,
    /// How many private stacks the far choice looked at.
    looked: usize,
    /// The order of the far looks, for the assertions.
    log: Vec<&'static str>,
    /// How many far steals marked the searcher as crossing.
    crossed: usize,
    /// Whether its mate is crossing.
    mate_crossing: bool,
    /// Workers whose idle bit is set (skipped by `awake_bits`).
    idle: Vec<bool>,
    /// The deques looked at, in order.
    lens: Vec<usize>,
    /// The searcher's LLC's mark of a loop of spawns.
    loop_seen: bool,
    /// Jobs in the other LLCs' pack queues, by LLC (0 unused).
    packs: Vec<usize>,
    /// The deal's marks of LLCs dealt a half while asleep (bit per LLC).
    marks: usize,
    /// LLCs none of whose workers is awake.
    asleep: Vec<bool>,
    /// The victim of the searcher's last steal.
    last_victim: Option<usize>,
    /// Per LLC: the deal's receiver noted there.
    receivers: Vec<Option<usize>>,
    /// Per LLC: how many of its workers are awake.
    awake: Vec<usize>,
    /// How many times the searcher noted itself as its LLC's receiver.
    noted: usize,
}

impl Model {
    /// `n` workers with nothing anywhere.
    fn new(n: usize) -> Model {
        Model {
            deque: vec![0; n],
            private: vec![false; n],
            halves: vec![0; n],
            placed: vec![false; n],
            searched: vec![false; n - 1],
            idle: vec![false; n],
            ..Default::default()
        }
    }
}

impl PassQueues for Model {
    type Job = Src;
    fn targeted(&mut self) -> Option<Src> {
        None
    }
    fn pull(&mut self, q: Queue, _batch: bool) -> Found<Src> {
        match q {
            Queue::Pack(0) if !self.looks_empty(q) => {
                self.own_pack -= 1;
                Found::Job(Src::OwnPack)
            }
            Queue::Pack(l @ 1..) if !self.looks_empty(q) => {
                self.packs[l] -= 1;
                Found::Job(Src::Dealt(l))
            }
            _ => Found::Nothing,
        }
    }
    fn looks_empty(&mut self, q: Queue) -> bool {
        if let Queue::Pack(l @ 1..) = q {
            return self.packs.get(l).is_none_or(|&n| n == 0);
        }
        if q != Queue::Pack(0) {
            return true;
        }
        if self.pack_late > 0 {
            self.pack_late -= 1;
            return true;
        }
        self.own_pack == 0
    }
    fn victim_len(&mut self, v: usize) -> usize {
        self.lens.push(v);
        self.deque[v]
    }
    fn mostly_idle(&mut self) -> bool {
        2 * self.idle.iter().filter(|&&i| i).count() >= self.idle.len()
    }
    fn awake_bits(&mut self, from: usize, end: usize) -> (u64, usize) {
        let stop = end.min(from + 64);
        let bits = (from..stop)
            .filter(|&v| !self.idle[v])
            .fold(0, |m, v| m | 1 << (v - from));
        (bits, stop)
    }
    fn victim_private(&mut self, v: usize) -> usize {
        self.looked += 1;
        self.halves[v]
    }
    fn victim_placed(&mut self, v: usize) -> bool {
        self.placed[v]
    }
    fn steal_from(&mut self, v: usize, _batch: Option<usize>) -> Found<Src> {
        self.log.push("steal");
        if self.gone == Some(v) {
            return Found::Nothing;
        }
        self.deque[v] -= 1;
        Found::Job(Src::Stolen(v))
    }
    fn random(&mut self) -> u64 {
        0
    }
    fn spread_used(&mut self) -> bool {
        false
    }
    fn may_help(&mut self, _llc: usize) -> bool {
        true
    }
    fn forward(&mut self, _llc: usize) {}
    fn asleep_deals(&mut self) -> usize {
        self.marks
    }
    fn llc_asleep(&mut self, llc: usize) -> bool {
        self.asleep.get(llc).copied().unwrap_or(false)
    }
    fn unmark_asleep(&mut self, llc: usize) {
        self.marks &= !(1 << llc);
    }
    fn note_receiver(&mut self) {
        self.noted += 1;
    }
    fn receiver(&mut self, llc: usize) -> Option<usize> {
        self.receivers.get(llc).copied().flatten()
    }
    fn llc_awake(&mut self, llc: usize) -> usize {
        self.awake.get(llc).copied().unwrap_or(0)
    }
    fn find_private(&mut self) -> Found<Src> {
        self.log.push("claim");
        match self.private.iter().position(|&p| p) {
            Some(v) if self.rechecking => {
                self.private[v] = false;
                Found::Job(Src::Private)
            }
            _ => Found::Nothing,
        }
    }
    fn shows_private(&mut self, v: usize) -> bool {
        self.private[v]
    }
    fn rechecking(&mut self) -> bool {
        self.rechecking
    }
    fn llc_searching(&mut self, v: usize) -> isize {
        isize::from(self.searched[v - 1])
    }
    fn llc_claims(&mut self, v: usize) -> (usize, usize) {
        self.claims.get(v - 1).copied().unwrap_or((0, 0))
    }
    fn awake_searchers(&mut self) -> isize {
        self.awake_here
    }
    fn passed_claims(&mut self) {
        self.passed += 1;
    }
    fn crossed(&mut self) {
        self.crossed += 1;
    }
    fn mate_crossing(&mut self) -> bool {
        self.mate_crossing
    }
    fn loop_seen(&mut self) -> bool {
        self.loop_seen
    }
    fn set_loop_seen(&mut self, on: bool) {
        self.loop_seen = on;
    }
    fn last_victim(&mut self) -> Option<usize> {
        self.last_victim
    }
}

/// A tier of the workers `workers` in the model's pool of three LLCs.
fn tier(kind: TierKind, workers: Range<usize>) -> Tier {
    Tier::new(kind, [workers].into(), 0, 3)
}

/// Worker 0's full pass over `m` (hierarchical tiers, or with `flat`
/// one tier of everyone).
fn full_pass(m: &mut Model, flat: bool) -> Found<Src> {
    let tiers = if flat {
        vec![tier(TierKind::Remote, 1..4)]
    } else {
        vec![tier(TierKind::Llc, 1..2), tier(TierKind::Numa, 2..4)]
    };
    pass_over(m, &tiers)
}

/// Worker 0's full pass over `m` in LLC 0, cluster 0, with `tiers`.
fn pass_over(m: &mut Model, tiers: &[Tier]) -> Found<Src> {
    pass(m, worker_0(tiers, &[], false))
}

/// Worker 0's place in LLC 0, cluster 0 (the only cluster), with `tiers`,
/// the other LLCs nearest first in `llc_order`, for a near pass if `near`.
fn worker_0<'a>(tiers: &'a [Tier], llc_order: &'a [Range<usize>], near: bool) -> Place<'a> {
    Place {
        index: 0,
        llc: 0,
        cluster: 0,
        clusters: 1,
        tiers,
        llc_order,
        near_cut: if near { near_tiers(tiers) } else { None },
        llc_cut: near_tiers(tiers),
    }
}

#[test]
fn an_ordinary_pass_stops_at_the_llc_while_a_mate_shows_a_private_half() {
    let mut m = Model {
        deque: vec![0, 0, 1, 1],
        private: vec![false, true, false, false],
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, false), Found::Nothing));
    assert!(m.log.is_empty(), "looked farther: {:?}", m.log);
}

#[test]
fn the_recheck_claims_a_mates_private_half_before_far_jobs() {
    let mut m = Model {
        deque: vec![0, 0, 1, 1],
        private: vec![false, true, false, false],
        rechecking: true,
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, false), Found::Job(Src::Private)));
    assert_eq!(m.log, ["claim"]);
    // No mate shows one: the re-check steals far first, as before, and
    // claims (step 7) only when it found nothing else.
    let mut m = Model {
        deque: vec![0, 0, 1, 1],
        rechecking: true,
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(_))
    ));
    assert_eq!(m.log, ["steal"]);
    let mut m = Model {
        private: vec![false, false, true, false],
        rechecking: true,
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, false), Found::Job(Src::Private)));
    assert_eq!(m.log, ["claim"]);
}

#[test]
fn a_piece_aimed_at_the_llc_during_the_pass_beats_a_far_steal() {
    let mut m = Model {
        deque: vec![0, 0, 1, 1],
        own_pack: 1,
        pack_late: 1,
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, false), Found::Job(Src::OwnPack)));
    assert!(m.log.is_empty());
}

/// The four-worker model with `deque`s, where a worker of LLC 1 (worker
/// 2's) searches.
fn llc_1_searched(deque: [usize; 4]) -> Model {
    Model {
        deque: deque.into(),
        searched: vec![false, true, false],
        ..Model::new(4)
    }
}

#[test]
fn ordinary_passes_leave_an_llc_with_a_searcher_to_it() {
    let mut m = llc_1_searched([0, 0, 1, 1]);
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(3))
    ));
    assert!(matches!(full_pass(&mut m, false), Found::Nothing));
    // The re-check looks everywhere (the sleep proof's full look).
    m.rechecking = true;
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(2))
    ));
    // However many jobs the victim holds, and whether or not its LLC runs
    // an iterator piece.
    for placed in [false, true] {
        let mut m = llc_1_searched([0, 0, 2, 0]);
        m.placed[2] = placed;
        assert!(matches!(full_pass(&mut m, false), Found::Nothing));
        m.rechecking = true;
        assert!(matches!(
            full_pass(&mut m, false),
            Found::Job(Src::Stolen(2))
        ));
    }
}

#[test]
fn an_llc_searched_only_by_claims_on_their_way_is_not_left_to_them() {
    // A mostly idle pool (workers 1 and 3 idle). LLC 1's one counted
    // searcher is a claimed worker not yet awake, one of its two armed
    // workers is unclaimed, worker 2 holds two jobs, and the searcher's
    // LLC has another awake searcher: worker 2's job is the far choice's.
    let claimed = |claims, awake_here, deque: [usize; 4]| Model {
        claims: vec![(0, 0), claims, (0, 0)],
        awake_here,
        idle: vec![false, true, false, true],
        ..llc_1_searched(deque)
    };
    let mut m = claimed((1, 2), 2, [0, 0, 2, 0]);
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(2))
    ));
    assert_eq!((m.passed, m.crossed), (1, 1));
    // Left to LLC 1 while an awake worker searches there, once all its
    // armed workers are claimed, while the searcher is its own LLC's only
    // awake searcher, when worker 2 holds one job, when LLC 1 runs a
    // placed piece, and in a pool that is not mostly idle.
    let left = [
        claimed((0, 2), 2, [0, 0, 2, 0]),
        claimed((1, 1), 2, [0, 0, 2, 0]),
        claimed((1, 2), 1, [0, 0, 2, 0]),
        claimed((1, 2), 2, [0, 0, 1, 0]),
        Model {
            placed: vec![false, false, true, false],
            ..claimed((1, 2), 2, [0, 0, 2, 0])
        },
        Model {
            idle: vec![false; 4],
            ..claimed((1, 2), 2, [0, 0, 2, 0])
        },
    ];
    for mut m in left {
        assert!(matches!(full_pass(&mut m, false), Found::Nothing));
        assert_eq!(m.passed, 0);
    }
}

#[test]
fn a_flat_order_has_no_llc_to_cross() {
    let mut m = Model {
        deque: vec![0, 0, 1, 0],
        private: vec![false, true, false, false],
        searched: vec![false, true, false],
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, true),
        Found::Job(Src::Stolen(2))
    ));
}

#[test]
fn a_crossing_mate_keeps_ordinary_passes_in_the_llc() {
    // Worker 3 (another LLC) holds a job; the mate of LLC 0 is crossing.
    let mut m = Model {
        deque: vec![0, 0, 0, 1],
        mate_crossing: true,
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, false), Found::Nothing));
    assert_eq!(m.crossed, 0);
    // Once the mate split its job, the far job is taken again.
    m.mate_crossing = false;
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(3))
    ));
    assert_eq!(m.crossed, 1);
    // The re-check before parking looks everywhere (the sleep proof).
    let mut m = Model {
        deque: vec![0, 0, 0, 1],
        mate_crossing: true,
        rechecking: true,
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(3))
    ));
    // Steals inside the LLC do not mark the thief.
    let mut m = Model {
        deque: vec![0, 1, 0, 1],
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(1))
    ));
    assert_eq!(m.crossed, 0);
}

#[test]
fn crossing_mates_cover_up_to_crossing_feeds_searchers_each() {
    let unread = || -> isize { unreachable!("not read without a crossing mate") };
    assert!(!crossing_covers(0, unread));
    assert!(crossing_covers(1, || CROSSING_FEEDS));
    assert!(!crossing_covers(1, || CROSSING_FEEDS + 1));
    assert!(crossing_covers(2, || CROSSING_FEEDS + 1));
    assert!(crossing_covers(usize::MAX, || isize::MAX));
}

#[test]
fn rotated_runs_walk_a_tier_in_the_order_of_tier_victims() {
    let tiers = [
        Tier::new(TierKind::Llc, vec![0..3, 5..9, 12..13], 0, 3),
        tier(TierKind::Llc, 4..5),
    ];
    for tier in &tiers {
        let total = tier.len();
        for random in 0..2 * total as u64 {
            let want: Vec<usize> = tier_victims(tier, total, random).collect();
            let start = (random % total as u64) as usize;
            let got: Vec<usize> = rotated_runs(&tier.ranges, start).flatten().collect();
            assert_eq!(got, want, "{tier} from {start}");
        }
    }
}

#[test]
fn passes_skip_idle_workers_near_and_far() {
    // Workers 1 (LLC tier) and 3 (far) idle; 2 holds a job.
    let mut m = Model {
        deque: vec![0, 0, 1, 0],
        idle: vec![false, true, false, true],
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(2))
    ));
    assert_eq!(m.lens, [2], "looked at an idle worker's deque");
    // In one flat tier too, from every start.
    let mut m = Model {
        deque: vec![0, 0, 0, 0],
        idle: vec![false, true, false, true],
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, true), Found::Nothing));
    assert_eq!(m.lens, [2]);
    // While most workers are busy, the far choice does not pay a look at
    // idle bits per victim: it looks at every deque, as before.
    let mut m = Model {
        deque: vec![0, 0, 0, 0],
        idle: vec![false, false, false, true],
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, false), Found::Nothing));
    let mut far = m.lens[1..].to_vec();
    far.sort();
    assert_eq!(far, [2, 3]);
}

mod batch;

mod far_choice;

mod far_loop;

mod near_choice;

#[test]
fn a_near_pass_takes_a_dealt_half_of_a_sleeping_llc_and_unmarks_an_awake_one() {
    let tiers = vec![tier(TierKind::Llc, 1..2), tier(TierKind::Numa, 2..4)];
    let order = [1..2, 2..3];
    let at = worker_0(&tiers, &order, true);
    // LLCs 1 and 2 were dealt a half while asleep; LLC 1 has an awake
    // worker since (its half is left to it), LLC 2 still sleeps.
    let mut m = Model {
        deque: vec![0, 0, 1, 1],
        packs: vec![0, 1, 1],
        marks: 0b110,
        asleep: vec![false, false, true],
        ..Model::new(4)
    };
    assert!(matches!(pass(&mut m, at), Found::Job(Src::Dealt(2))));
    assert_eq!(m.marks, 0b100, "LLC 1 keeps no mark");
    assert_eq!(m.packs, [0, 1, 0]);
    // LLC 2's queue is empty now: its mark goes, and the near pass stays
    // in its LLC (the far workers' deques are not looked at).
    assert!(matches!(pass(&mut m, at), Found::Nothing));
    assert_eq!(m.marks, 0);
    assert!(m.log.is_empty(), "looked farther: {:?}", m.log);
}

#[test]
fn nothing_marked_or_no_llc_boundary_takes_no_dealt_half() {
    // Nothing marked: the pass steals far, as before.
    let mut m = Model {
        deque: vec![0, 0, 1, 1],
        packs: vec![0, 0, 1],
        asleep: vec![false, false, true],
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(_))
    ));
    // A flat order (no tier inside the LLC) does not look at the marks.
    let mut m = Model {
        deque: vec![0, 0, 1, 1],
        packs: vec![0, 0, 1],
        marks: 0b100,
        asleep: vec![false, false, true],
        ..Model::new(4)
    };
    assert!(matches!(
        full_pass(&mut m, true),
        Found::Job(Src::Stolen(_))
    ));
    assert_eq!(m.marks, 0b100);
}

#[test]
fn the_receiver_alone_is_robbed_by_a_searcher_with_an_awake_mate() {
    let tiers = vec![tier(TierKind::Llc, 1..2), tier(TierKind::Numa, 2..4)];
    let order = [1..2, 2..3];
    let at = worker_0(&tiers, &order, true);
    // LLC 1 was dealt a half while asleep; its receiver, worker 2, took it
    // and is its LLC's only awake worker, holding three jobs; the
    // searcher's LLC has two awake workers; half the pool is idle.
    let alone = || Model {
        deque: vec![0, 0, 3, 0],
        packs: vec![0, 0, 0],
        marks: 0b010,
        receivers: vec![None, Some(2), None],
        awake: vec![2, 1, 0],
        idle: vec![false, true, false, true],
        ..Model::new(4)
    };
    let mut m = alone();
    assert!(matches!(pass(&mut m, at), Found::Job(Src::Stolen(2))));
    assert_eq!(m.marks, 0b010, "the mark stays while the receiver is alone");
    assert_eq!(m.crossed, 1);
    // The cases where the pass finds nothing: its marks and the
    // receiver's deque after it.
    let left = |mut m: Model| {
        assert!(matches!(pass(&mut m, at), Found::Nothing));
        (m.marks, m.deque[2])
    };
    // A searcher whose LLC has no other awake worker leaves it alone.
    let lone_searcher = Model {
        awake: vec![1, 1, 0],
        ..alone()
    };
    assert_eq!(left(lone_searcher), (0b010, 3));
    // So does every searcher while the receiver holds one job.
    let one_job = Model {
        deque: vec![0, 0, 1, 0],
        ..alone()
    };
    assert_eq!(left(one_job), (0b010, 1));
    // Its mates arrived: the mark goes.
    let mates_came = Model {
        awake: vec![2, 2, 0],
        ..alone()
    };
    assert_eq!(left(mates_came), (0, 3));
    // No receiver noted (a mate took the half): the mark goes too.
    let none_noted = Model {
        receivers: vec![],
        ..alone()
    };
    assert_eq!(left(none_noted).0, 0);
    // So it does while most workers are busy.
    let busy = Model {
        idle: vec![false; 4],
        ..alone()
    };
    assert_eq!(left(busy), (0, 3));
}

#[test]
fn a_take_from_the_own_marked_pack_queue_notes_the_receiver() {
    let tiers = vec![tier(TierKind::Llc, 1..2), tier(TierKind::Numa, 2..4)];
    let order = [1..2, 2..3];
    let at = worker_0(&tiers, &order, true);
    let mut m = Model {
        own_pack: 2,
        marks: 0b001,
        ..Model::new(4)
    };
    assert!(matches!(pass(&mut m, at), Found::Job(Src::OwnPack)));
    assert_eq!(m.noted, 1);
    // Unmarked: nothing noted.
    m.marks = 0;
    assert!(matches!(pass(&mut m, at), Found::Job(Src::OwnPack)));
    assert_eq!(m.noted, 1);
    // A flat order (no LLC boundary) notes nothing.
    let mut m = Model {
        own_pack: 1,
        marks: 0b001,
        ..Model::new(4)
    };
    assert!(matches!(full_pass(&mut m, true), Found::Job(Src::OwnPack)));
    assert_eq!(m.noted, 0);
}
