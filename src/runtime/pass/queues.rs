//! The mechanism of a pass ([`super::pass`]): the queues it names
//! ([`Queue`]) and what it asks of the queues' owner ([`PassQueues`]),
//! implemented by the pool's worker (`worker::pass_queues`) and by the
//! simulator's (`sim::queues`).
//!
//! Invariant: every method is a look or a take by the searching worker's
//! own thread; the cheap looks (`victim_len`, `looks_empty`,
//! `shows_private`, `awake_bits`, `loop_seen`, `last_victim`) take nothing and need no fence (the
//! sleep proof's re-check reads after its own fence: `sleep_proof.md`).

use super::super::search::Found;

/// A queue shared by several workers, as a pass names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queue {
    /// The spread-group queue of a cluster.
    Spread(usize),
    /// The pack-group queue of an LLC.
    Pack(usize),
    /// The injector of an LLC.
    Injector(usize),
}

/// The sources one pass looks at, and what it may do besides taking a job
/// (forwarding a wakeup). Implemented by the pool's worker and by the
/// simulator's.
pub(crate) trait PassQueues {
    /// A job as the queues hold it.
    type Job;

    /// A job only this worker may run, if any.
    fn targeted(&mut self) -> Option<Self::Job>;

    /// Takes a job from `q`, with `batch` also a batch into the own deque.
    fn pull(&mut self, q: Queue, batch: bool) -> Found<Self::Job>;

    /// Whether `q` looks empty (a cheap look, no claim).
    fn looks_empty(&mut self, q: Queue) -> bool;

    /// The length of worker `v`'s deque (a cheap look).
    fn victim_len(&mut self, v: usize) -> usize;

    /// How many of worker `v`'s `join` halves are still private (a plain
    /// look at its private stack's two ends: [`victim_size`] adds the deque
    /// length to it).
    fn victim_private(&mut self, v: usize) -> usize;

    /// Whether worker `v`'s LLC runs a piece of a parallel iterator's
    /// first split (a plain look at a per-LLC count).
    fn victim_placed(&mut self, v: usize) -> bool;

    /// Steals from worker `v`'s deque: one job, or with `batch` a batch of
    /// at most that many jobs into the own deque and one job of it
    /// ([`steal_batch`](super::tiers::steal_batch)). Counts the steal on success.
    fn steal_from(&mut self, v: usize, batch: Option<usize>) -> Found<Self::Job>;

    /// The worker's next random number (the start inside a tier).
    fn random(&mut self) -> u64;

    /// Whether a spread job was ever pushed (step 5 is skipped before).
    fn spread_used(&mut self) -> bool;

    /// Whether this worker may take a job from LLC `llc`'s pack queue (the
    /// help rule of job groups, `crate::groups::may_help`, while no worker
    /// of `llc` searches: `group_routing::helps`).
    fn may_help(&mut self, llc: usize) -> bool;

    /// Makes sure a worker of LLC `llc` is awake for its pack queue, which
    /// this worker may not take from (the take-or-forward rule of the sleep
    /// proof, "Queues of one LLC").
    fn forward(&mut self, llc: usize);

    /// The marks of the LLCs dealt a half while none of their workers was
    /// awake (`deal::Deal::asleep`, bit `l` for LLC `l`; one load of a
    /// word rarely written). The default: none.
    #[inline]
    fn asleep_deals(&mut self) -> usize {
        0
    }

    /// Whether every worker of LLC `llc` is armed (none awake; a claimed
    /// one still on its way counts as armed): `IdleMasks::all_armed`.
    fn llc_asleep(&mut self, _llc: usize) -> bool {
        false
    }

    /// Clears LLC `llc`'s mark (`deal::Deal::unmark_asleep`).
    fn unmark_asleep(&mut self, _llc: usize) {}

    /// This worker took a job from its own LLC's pack queue while its LLC
    /// was marked: it is the deal's receiver there
    /// (`deal::Deal::note_receiver`).
    fn note_receiver(&mut self) {}

    /// The receiver of a deal to LLC `llc` (`deal::Deal::receiver`), if one
    /// was noted. The default: none.
    fn receiver(&mut self, _llc: usize) -> Option<usize> {
        None
    }

    /// A searcher stole a job from a receiver alone (`pass`, "The
    /// receiver alone"): a count for the simulator's reports. The default
    /// does nothing.
    #[inline]
    fn robbed_receiver(&mut self) {}

    /// How many workers of LLC `llc` are awake: its workers less its armed
    /// ones (`group_routing::busy_in`; a claimed worker still on its way
    /// counts as armed). A hint, one load. The default: none.
    fn llc_awake(&mut self, _llc: usize) -> usize {
        0
    }

    /// The last step: another worker's private `join` half (re-check before
    /// parking only), nearest victim first.
    fn find_private(&mut self) -> Found<Self::Job>;

    /// Whether worker `v` seems to hold a private `join` half, or to start
    /// a piece it has not split yet (a cheap look, no fence: see "Before
    /// crossing the LLC").
    fn shows_private(&mut self, v: usize) -> bool;

    /// Whether this pass is a re-check before parking (the worker's idle
    /// bit is set), the only pass that may claim private halves.
    fn rechecking(&mut self) -> bool;

    /// Whether at least half of the pool's workers are idle (a hint, one
    /// load): the steal tiers then skip idle victims a word at a time. The
    /// default says no.
    #[inline]
    fn mostly_idle(&mut self) -> bool {
        false
    }

    /// Which workers of `from..stop` are awake (idle bit clear), as a mask
    /// (bit `i`: worker `from + i`), and `stop`, at most `end` and at most
    /// 64 workers on: the pass skips idle workers, whose deques and private
    /// stacks are empty (see "Idle workers" in `pass::tiers`). The
    /// default says all are awake.
    #[inline]
    fn awake_bits(&mut self, from: usize, end: usize) -> (u64, usize) {
        let stop = end.min(from + 64);
        let span = stop - from;
        (
            if span == 64 {
                u64::MAX
            } else {
                (1 << span) - 1
            },
            stop,
        )
    }

    /// How many workers of `v`'s LLC are counted as searching
    /// (`Sleep::searching_in`, claimed workers not yet awake included; a
    /// hint, one load).
    fn llc_searching(&mut self, v: usize) -> isize;

    /// Of `v`'s LLC: how many of its workers a waker claimed that are not
    /// awake yet (`IdleMasks::claims_in`), and how many are armed, claimed
    /// or not (`IdleMasks::idle_count`). Hints, read only when
    /// [`Self::llc_searching`] is positive. The default: none of either,
    /// so that every counted searcher is awake.
    #[inline]
    fn llc_claims(&mut self, _v: usize) -> (usize, usize) {
        (0, 0)
    }

    /// How many workers of this worker's LLC search awake: counted as
    /// searching, less those claimed and not awake yet (hints; both
    /// implementations compute it with [`awake_searchers`]). The default:
    /// none.
    #[inline]
    fn awake_searchers(&mut self) -> isize {
        0
    }

    /// The far choice compared a victim of an LLC whose counted searchers
    /// are all claimed workers not yet awake (rule 3 of "Before crossing
    /// the LLC", `pass::far::claims_on_their_way`): a count for the
    /// simulator's reports. The default does nothing.
    #[inline]
    fn passed_claims(&mut self) {}

    /// Whether this worker's LLC is marked by a loop of spawns: one of its
    /// workers took a job from a long deque, inside the LLC or across it,
    /// and no far walk of the LLC found the crossing tiers empty since (a
    /// hint, one load; "A loop of spawns across the LLC" in `pass::far`,
    /// "A loop of spawns inside the LLC" in `pass::tiers`).
    fn loop_seen(&mut self) -> bool;

    /// Sets or clears the mark of [`Self::loop_seen`] (a store, only when
    /// it changes).
    fn set_loop_seen(&mut self, on: bool);

    /// The worker the last job a pass took was stolen from, if it was
    /// stolen (the worker's own record, kept for `Sources::more_behind`;
    /// no load of another thread's line): a tier inside an LLC marked by a
    /// loop of spawns looks at it first ("A loop of spawns inside the LLC"
    /// in `pass::tiers`).
    fn last_victim(&mut self) -> Option<usize>;

    /// This worker just took a job from a worker of another LLC (a far
    /// steal): it marks itself as *crossing* until its first `join` or the
    /// end of its search, so that its LLC mates spin for its halves
    /// instead of crossing too (`search::rules::may_spin`).
    fn crossed(&mut self);

    /// Whether a worker of this worker's LLC is crossing (took a job from
    /// another LLC's worker and has not split it yet: [`Self::crossed`]).
    fn mate_crossing(&mut self) -> bool;
}

/// [`PassQueues::awake_searchers`] of an LLC that counts `searching`
/// searchers: those less its claims not yet awake (`claimed`, read only
/// when the answer can reach 2, the one threshold the far choice asks
/// about: below 2 counted searchers the count is returned as it is).
pub(crate) fn awake_searchers(searching: isize, claimed: impl FnOnce() -> usize) -> isize {
    if searching < 2 {
        return searching;
    }
    searching - isize::try_from(claimed()).unwrap_or(isize::MAX)
}

/// The size estimate of a victim's oldest job that a steal compares (the
/// far choice across the LLC, `far`, and the near choice inside it,
/// `tiers`): its deque length plus its private halves, the number of
/// `join` levels between the victim's oldest public half and the one it
/// runs. In a balanced recursion a half pushed `k` levels above the
/// running one holds about `2^k` leaves, so the victim with the largest
/// estimate has the biggest job to give. A worker's deque holds about
/// [`PROMOTED_AHEAD`](crate::runtime::private::rules::PROMOTED_AHEAD) jobs in any recursion, so
/// its length alone does not tell a victim deep in a large piece from one
/// near the end of a small one.
#[inline]
pub(crate) fn victim_size(deque_len: usize, private: usize) -> usize {
    deque_len + private
}
