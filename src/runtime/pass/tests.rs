//! Tests of `pass`: the checks "Before crossing the LLC" on a model of
//! four workers: worker 0 (the searcher) and its mate 1 in LLC 0, workers
//! 2 and 3 in LLCs 1 and 2.
use super::*;

/// Where a job came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    OwnPack,
    Stolen(usize),
    Private,
}

#[derive(Default)]
struct Model {
    /// Jobs in each worker's deque.
    deque: [usize; 4],
    /// Which workers show a private half.
    private: [bool; 4],
    /// Jobs in worker 0's pack queue, and how many looks at it see it
    /// empty first (a piece aimed there during the pass).
    own_pack: usize,
    pack_late: usize,
    /// The searcher's idle bit is set (its re-check).
    rechecking: bool,
    /// LLCs where some worker searches.
    searched: [bool; 3],
    /// The order of the far looks, for the assertions.
    log: Vec<&'static str>,
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
            _ => Found::Nothing,
        }
    }
    fn looks_empty(&mut self, q: Queue) -> bool {
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
        self.deque[v]
    }
    fn steal_from(&mut self, v: usize, _batch: bool) -> Found<Src> {
        self.log.push("steal");
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
    fn llc_searched(&mut self, v: usize) -> bool {
        self.searched[v - 1]
    }
}

/// A tier of the workers `workers`.
fn tier(kind: TierKind, workers: Range<usize>) -> Tier {
    Tier {
        kind,
        ranges: [workers].into(),
        distance: 0,
    }
}

/// Worker 0's full pass over `m` (hierarchical tiers, or with `flat`
/// one tier of everyone).
fn full_pass(m: &mut Model, flat: bool) -> Found<Src> {
    let tiers = if flat {
        vec![tier(TierKind::Remote, 1..4)]
    } else {
        vec![tier(TierKind::Llc, 1..2), tier(TierKind::Numa, 2..4)]
    };
    let at = Place {
        index: 0,
        llc: 0,
        cluster: 0,
        clusters: 1,
        tiers: &tiers,
        llc_order: &[],
        near_cut: None,
        llc_cut: near_tiers(&tiers),
    };
    pass(m, at)
}

#[test]
fn an_ordinary_pass_stops_at_the_llc_while_a_mate_shows_a_private_half() {
    let mut m = Model {
        deque: [0, 0, 1, 1],
        private: [false, true, false, false],
        ..Model::default()
    };
    assert!(matches!(full_pass(&mut m, false), Found::Nothing));
    assert!(m.log.is_empty(), "looked farther: {:?}", m.log);
}

#[test]
fn the_recheck_claims_a_mates_private_half_before_far_jobs() {
    let mut m = Model {
        deque: [0, 0, 1, 1],
        private: [false, true, false, false],
        rechecking: true,
        ..Model::default()
    };
    assert!(matches!(full_pass(&mut m, false), Found::Job(Src::Private)));
    assert_eq!(m.log, ["claim"]);
    // No mate shows one: the re-check steals far first, as before, and
    // claims (step 7) only when it found nothing else.
    let mut m = Model {
        deque: [0, 0, 1, 1],
        rechecking: true,
        ..Model::default()
    };
    assert!(matches!(
        full_pass(&mut m, false),
        Found::Job(Src::Stolen(_))
    ));
    assert_eq!(m.log, ["steal"]);
    let mut m = Model {
        private: [false, false, true, false],
        rechecking: true,
        ..Model::default()
    };
    assert!(matches!(full_pass(&mut m, false), Found::Job(Src::Private)));
    assert_eq!(m.log, ["claim"]);
}

#[test]
fn a_piece_aimed_at_the_llc_during_the_pass_beats_a_far_steal() {
    let mut m = Model {
        deque: [0, 0, 1, 1],
        own_pack: 1,
        pack_late: 1,
        ..Model::default()
    };
    assert!(matches!(full_pass(&mut m, false), Found::Job(Src::OwnPack)));
    assert!(m.log.is_empty());
}

#[test]
fn ordinary_passes_leave_an_llc_with_a_searcher_to_it() {
    let mut m = Model {
        deque: [0, 0, 1, 1],
        searched: [false, true, false],
        ..Model::default()
    };
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
}

#[test]
fn a_flat_order_has_no_llc_to_cross() {
    let mut m = Model {
        deque: [0, 0, 1, 0],
        private: [false, true, false, false],
        searched: [false, true, false],
        ..Model::default()
    };
    assert!(matches!(
        full_pass(&mut m, true),
        Found::Job(Src::Stolen(2))
    ));
}
