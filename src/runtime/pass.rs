//! One pass of a worker's search: the order in which it looks at every
//! source of work except its own deque, as one function over a trait.
//!
//! [`pass`] is the policy; [`PassQueues`] the mechanism. The pool's
//! `WorkerThread` implements the trait over its crossbeam queues; the
//! simulator (`crate::sim`, feature `sim`) implements it over its model
//! queues, so both walk the sources in the same order, with the same
//! randomised start inside each steal tier ([`tier_victims`]), the same
//! batch rule ([`steal_batch`], with its limit) and the same forwarding rule for pack
//! queues the worker may not take from ([`PassQueues::forward`]).
//!
//! The order (see `worker` for the why of each step):
//! 1. the worker's targeted queue;
//! 2. its cluster's spread queue (batch), its LLC's pack queue (one job),
//!    its LLC's injector (batch);
//! 3. its steal tiers, nearest first, each from a random start; before
//!    the first tier that crosses the LLC, the checks of "Before crossing
//!    the LLC" below, and across it the biggest of a few victims;
//! 4. the other LLCs' injectors, nearest LLC first;
//! 5. the other clusters' spread queues (only once a spread job was ever
//!    pushed);
//! 6. the other LLCs' pack queues, nearest first: taken only as the help
//!    rule allows, else *forwarded* (an idle worker of that LLC is woken);
//! 7. if no source reported contention: the other workers' private `join`
//!    halves (only in the re-check before parking: see `private`).
//!
//! A source that reports contention (`Retry`) does not stop the pass; the
//! pass returns `Retry` at the end if nothing was found, so the caller
//! passes again before it sleeps.
//!
//! # Idle workers
//!
//! While most workers are idle ([`PassQueues::mostly_idle`], one load of
//! the idle summary's root per pass), every steal tier is walked past the
//! workers whose idle bit is set ([`PassQueues::awake_bits`]: one word of
//! 64 idle bits per 64 workers): an idle worker's deque and private stack
//! are empty (the argument, which covers the re-check, is "Idle workers
//! hold no jobs" in `sleep`). A pass over N mostly idle workers so costs
//! about N / 64 loads instead of N looks at other threads' deques, and a
//! busy pool's pass (the hot path of every steal) does not pay for the
//! bits. The far choice's order is strided over LLCs: there the awake
//! victims are listed a word at a time and compared in that order (more
//! than 64 of them: the tier is walked past the idle ones a word at a
//! time from a random start, without the stride; testing each victim's
//! bit in the strided order cost a load per worker of the tier, in every
//! far pass of every searcher, which made a pool of many small LLCs pay
//! N loads per pass: `docs/first-broadcast.md`). The
//! claims of private halves in the re-check skip idle victims too. What
//! this is for: a pool's first calls, while its workers wake one at a time
//! and each spins a backoff of passes before it parks again, paid N passes
//! of N looks each (`docs/first-broadcast.md`, with the measurements).
//!
//! # Near passes
//!
//! The first [`NEAR_PASSES`](super::search::NEAR_PASSES) passes of a search that began because the
//! worker ran out of work ([`Reach::Near`]) stop after the steal tiers
//! inside the worker's LLC (steps 1 to 3 without the tiers that cross the
//! LLC). A worker of a busy LLC whose mates have nothing to steal *yet*
//! (their next `join` halves are still private, or about to be pushed)
//! would otherwise take a job from another LLC in its first pass, and so
//! move working sets across LLCs while its own LLC's work is a few
//! hundred nanoseconds from being stealable: this is where most
//! cross-LLC steals of a balanced fork-join came from in the simulator
//! (192 workers, 24 LLCs). Linux's scheduler does the same with balance
//! intervals that grow with the domain's distance. A worker woken from a
//! park was claimed for a job that may be anywhere, and its search passes
//! [`Reach::Far`] at once; so does every re-check before a park (the
//! sleep proof needs a full look there, and only there: see
//! `sleep_proof.md`). Where the worker has no steal tier inside its LLC,
//! or none outside it (the `Flat` order, one worker per LLC, one LLC), a
//! near pass is a full pass.
//!
//! # Before crossing the LLC
//!
//! A full pass that found nothing inside the worker's LLC checks four
//! things before it steals from another LLC's workers (only where the
//! worker has steal tiers on both sides of the boundary, so `Flat` and
//! one-LLC pools skip them):
//! 1. its LLC's pack queue, looked at again: a piece of a parallel
//!    iterator aimed at this LLC while the pass walked its tiers is the
//!    best job there is, and a far steal in that window took half of
//!    another LLC's piece instead (the first losses of the per-piece test
//!    of `tests/iter_hierarchy.rs`);
//! 2. whether a worker of its LLC shows a private `join` half, or is
//!    starting a piece of an iterator's first split that it has not split
//!    yet (`WorkerThread::start_piece`; plain loads, a few per worker of
//!    the LLC). If one does, an ordinary pass stops there, as a near pass
//!    does; the re-check before parking (the only pass that may claim
//!    private halves, see `private`) claims a private half, nearest
//!    victim first, before it looks farther. Why: a worker that split its
//!    piece while no worker of its LLC searched or was idle keeps its
//!    halves private (the promotion rules of `join` ask those two), and
//!    then runs a long leaf; its neighbours found nothing to steal and
//!    took half of another LLC's piece instead, and the robbed LLC later
//!    did the same; so did a neighbour in the few microseconds between a
//!    mate's taking its piece and its first `join` (traced on `llc:4
//!    core:2`, 8 workers, items of 3 ms);
//! 3. in an ordinary pass, it leaves the workers of an LLC where some
//!    worker is counted as searching (`Sleep::searching_in`) to that
//!    searcher, as `group_routing::helps` leaves that LLC's pack queue.
//! 4. whether a mate is *crossing*: it took a job from another LLC's
//!    worker and has not split it yet ([`PassQueues::crossed`]; it ends at
//!    the mate's first `join` or next search). While crossing mates cover
//!    the LLC's searchers ([`crossing_covers`]: up to [`CROSSING_FEEDS`]
//!    each), an ordinary pass takes no job from another LLC's workers (it
//!    still looks at the other LLCs' queues), and searchers spin past the
//!    spinner cap instead of parking (`search::may_spin`): the crossers'
//!    halves are for them. The re-check before parking, which comes once
//!    the spin is over, still looks everywhere. Why: an LLC runs dry all
//!    at once, its workers within a few hundred nanoseconds of each other,
//!    and without the rule each crossed on its own (over the cap, in its
//!    re-check before parking).
//!
//! Then it steals across the LLC from the victim, of the first
//! [`FAR_CHOICES`] holding a job in the order of [`far_victims`] (from a
//! random start, spread over the tier's LLCs), whose oldest job looks
//! biggest ([`far_size`]: deque length plus private halves), not
//! from the first. A far steal's cost is paid per crossing, so each one
//! should bring the most work: the first victim with a job was usually a
//! worker near the end of a small piece (its LLC mates had taken its
//! bigger halves), the thief's LLC ran dry again within microseconds and
//! crossed again, one to sixteen leaves at a time (traced at 192 workers
//! in 24 LLCs). Victims in an LLC that runs a piece of a parallel
//! iterator's first split (`LlcHints::placed`) are not compared by size:
//! that piece's data was placed in their LLC, and the biggest half of it
//! is the most data to move; the first of them in the random order is
//! taken, and only when none of the compared victims is outside such an
//! LLC. What was measured for these rules is in
//! `docs/llc-local-stealing.md`.
//!
//! None of this touches the sleep proof: the re-check still looks at
//! every queue and every private half (rules 3 and 4 and the stop of rule
//! 2 are for ordinary passes only, which the proof does not use, and
//! spinning longer only delays a park; the far choice stops early only
//! with a job or a `Retry`), and rule 1 only adds a look at a queue the
//! pass looked at already. Rule 4 does not apply in the re-check: a
//! parked worker could then sleep next to a job whose owner blocks until
//! it runs, for as long as a crossing mate's job blocks.

use std::ops::{ControlFlow, Range};

use crate::layout::{Tier, TierKind};

use super::search::{Found, Reach};

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
    /// look at its private stack's two ends: [`far_size`] adds the deque
    /// length to it).
    fn victim_private(&mut self, v: usize) -> usize;

    /// Whether worker `v`'s LLC runs a piece of a parallel iterator's
    /// first split (a plain look at a per-LLC count).
    fn victim_placed(&mut self, v: usize) -> bool;

    /// Steals from worker `v`'s deque: one job, or with `batch` a batch of
    /// at most that many jobs into the own deque and one job of it
    /// ([`steal_batch`]). Counts the steal on success.
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
    /// stacks are empty (see "Idle workers" in the module docs). The
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

    /// Whether some worker of `v`'s LLC is counted as searching.
    fn llc_searched(&mut self, v: usize) -> bool;

    /// This worker just took a job from a worker of another LLC (a far
    /// steal): it marks itself as *crossing* until its first `join` or the
    /// end of its search, so that its LLC mates spin for its halves
    /// instead of crossing too (`search::may_spin`).
    fn crossed(&mut self);

    /// Whether a worker of this worker's LLC is crossing (took a job from
    /// another LLC's worker and has not split it yet: [`Self::crossed`]).
    fn mate_crossing(&mut self) -> bool;
}

/// Where the worker of a pass is, and its orders.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'a> {
    /// Its index.
    pub(crate) index: usize,
    /// Its LLC.
    pub(crate) llc: usize,
    /// Its cluster.
    pub(crate) cluster: usize,
    /// Number of clusters of the pool.
    pub(crate) clusters: usize,
    /// Its steal tiers in the current cluster mode.
    pub(crate) tiers: &'a [Tier],
    /// The other LLCs, nearest first, as runs (`Layout::llc_order_runs`).
    pub(crate) llc_order: &'a [Range<usize>],
    /// For a near pass that differs from a full one, the number of steal
    /// tiers it walks ([`near_tiers`]); `None` for a full pass (see "Near
    /// passes").
    pub(crate) near_cut: Option<usize>,
    /// The worker's [`near_tiers`]: its steal tiers inside its LLC, when it
    /// has tiers on both sides of the LLC boundary (see "Before crossing
    /// the LLC").
    pub(crate) llc_cut: Option<usize>,
}

/// The `near_cut` of a [`Place`] for a pass of reach `reach`, given the
/// worker's [`near_tiers`].
#[inline]
pub(crate) fn near_cut(reach: Reach, near_tiers: Option<usize>) -> Option<usize> {
    match reach {
        Reach::Near => near_tiers,
        Reach::Far => None,
    }
}

/// The number of steal tiers a near pass over `tiers` walks: those before
/// the first that crosses the LLC; `None` when there is no tier on one
/// side of that boundary (then a near pass is a full pass). Callers compute
/// it once per tier list.
pub(crate) fn near_tiers(tiers: &[Tier]) -> Option<usize> {
    let cut = tiers.iter().position(|t| t.kind.crosses_llc())?;
    (cut > 0).then_some(cut)
}

/// One pass over every source except the own deque, in the order of the
/// module docs.
#[inline]
pub(crate) fn pass<Q: PassQueues>(q: &mut Q, at: Place<'_>) -> Found<Q::Job> {
    if let Some(job) = q.targeted() {
        return Found::Job(job);
    }
    let mut retry = false;
    match shared_sources(q, at, &mut retry) {
        ControlFlow::Break(job) => Found::Job(job),
        ControlFlow::Continue(_) if retry => Found::Retry,
        ControlFlow::Continue(Rest::Done) => Found::Nothing,
        ControlFlow::Continue(Rest::Private) => q.find_private(),
    }
}

/// What is left for the end of a pass that found no job.
enum Rest {
    /// Nothing: a near pass, or the private halves were looked at already.
    Done,
    /// The private halves (step 7).
    Private,
}

/// What one source's answer means for the pass: stop with a job, or go on
/// (noting contention).
#[inline]
fn take<J>(found: Found<J>, retry: &mut bool) -> ControlFlow<J> {
    match found {
        Found::Job(job) => ControlFlow::Break(job),
        Found::Retry => {
            *retry = true;
            ControlFlow::Continue(())
        }
        Found::Nothing => ControlFlow::Continue(()),
    }
}

/// Steps 2 to 6 of the pass (2 and 3, with the tiers inside the LLC, in a
/// near pass).
#[inline]
fn shared_sources<Q: PassQueues>(
    q: &mut Q,
    at: Place<'_>,
    retry: &mut bool,
) -> ControlFlow<Q::Job, Rest> {
    // The pack queue one job at a time: a batch in our deque could be
    // stolen by other LLCs' workers past the overload rule.
    take(q.pull(Queue::Spread(at.cluster), true), retry)?;
    take(q.pull(Queue::Pack(at.llc), false), retry)?;
    take(q.pull(Queue::Injector(at.llc), true), retry)?;
    let (inside, outside) = match at.near_cut.or(at.llc_cut) {
        Some(cut) => at.tiers.split_at(cut),
        None => (at.tiers, &[][..]),
    };
    // Read once per pass (module docs, "Idle workers").
    let idle = !at.tiers.is_empty() && q.mostly_idle();
    for tier in inside {
        take(steal_tier(q, at.index, tier, idle), retry)?;
    }
    if at.near_cut.is_some() {
        return ControlFlow::Continue(Rest::Done);
    }
    if outside.is_empty() {
        return other_llcs_sources(q, at, retry, Rest::Private);
    }
    cross_llc(q, at, retry, (inside, outside), idle)
}

/// The rest of a full pass of a worker with steal tiers outside its LLC:
/// the checks of "Before crossing the LLC", the far tiers, then steps 4
/// to 6. Out of line, so that the pass of a one-LLC pool stays small.
#[inline(never)]
fn cross_llc<Q: PassQueues>(
    q: &mut Q,
    at: Place<'_>,
    retry: &mut bool,
    (inside, outside): (&[Tier], &[Tier]),
    mostly_idle: bool,
) -> ControlFlow<Q::Job, Rest> {
    // About to cross the LLC: first what this LLC got since the look above,
    // then its own private halves (module docs, "Before crossing the LLC").
    if !q.looks_empty(Queue::Pack(at.llc)) {
        take(q.pull(Queue::Pack(at.llc), false), retry)?;
    }
    let rechecking = q.rechecking();
    let mut rest = Rest::Private;
    if mates_show_private(q, at.index, inside) {
        if !rechecking {
            return ControlFlow::Continue(Rest::Done);
        }
        take(q.find_private(), retry)?;
        rest = Rest::Done;
    }
    // Rule 4, in ordinary passes only.
    if rechecking || !q.mate_crossing() {
        for tier in outside {
            take(
                steal_tier_far(q, at.index, tier, !rechecking, mostly_idle),
                retry,
            )?;
        }
    }
    other_llcs_sources(q, at, retry, rest)
}

/// Steps 4 to 6 of a full pass: the other LLCs' injectors, the other
/// clusters' spread queues, the other LLCs' pack queues; then `rest`.
#[inline]
fn other_llcs_sources<Q: PassQueues>(
    q: &mut Q,
    at: Place<'_>,
    retry: &mut bool,
    rest: Rest,
) -> ControlFlow<Q::Job, Rest> {
    let other_llcs = || at.llc_order.iter().flat_map(|r| r.clone());
    for l in other_llcs() {
        take(q.pull(Queue::Injector(l), true), retry)?;
    }
    // Spread jobs dealt to busy clusters: anyone may run them. Skipped until
    // a spread job was ever pushed, so pools without spread groups do not
    // pay for the walk in every pass.
    if q.spread_used() {
        for c in (0..at.clusters).filter(|&c| c != at.cluster) {
            take(q.pull(Queue::Spread(c), false), retry)?;
        }
    }
    // Packed jobs of other LLCs: taken only as the help rule allows (that
    // LLC overloaded, or saturated while we are idle) while none of its
    // workers searches; otherwise forwarded.
    for l in other_llcs() {
        if q.looks_empty(Queue::Pack(l)) {
            continue;
        }
        if !q.may_help(l) {
            q.forward(l);
            continue;
        }
        take(q.pull(Queue::Pack(l), false), retry)?;
    }
    ControlFlow::Continue(rest)
}

/// Whether a worker of `tiers` other than `me` seems to hold a private
/// `join` half or an unsplit piece ([`PassQueues::shows_private`]).
#[inline]
fn mates_show_private<Q: PassQueues>(q: &mut Q, me: usize, tiers: &[Tier]) -> bool {
    tiers
        .iter()
        .flat_map(|t| t.ranges.iter().flat_map(|r| r.clone()))
        .any(|v| v != me && q.shows_private(v))
}

/// Tries every worker of a tier once, from a random start
/// ([`tier_victims`]), skipping empty deques with a cheap look; while most
/// workers are idle, skipping idle workers a word of idle bits at a time
/// ([`steal_tier_awake`]).
#[inline]
fn steal_tier<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    tier: &Tier,
    mostly_idle: bool,
) -> Found<Q::Job> {
    let total = tier.len();
    if total == 0 {
        return Found::Nothing;
    }
    let random = q.random();
    if mostly_idle {
        return steal_tier_awake(q, me, tier, random);
    }
    let mut retry = false;
    for victim in tier_victims(tier, total, random).filter(|&v| v != me) {
        // A cheap look first (two loads, no epoch pin): most victims of a
        // scan are empty. Sound for the sleep protocol's re-check too:
        // after the sleeper's fence, the load of the victim's `back` sees
        // any push ordered before the pusher's fence.
        let len = q.victim_len(victim);
        if len == 0 {
            continue;
        }
        match q.steal_from(victim, steal_batch(tier.kind, len)) {
            Found::Job(job) => return Found::Job(job),
            Found::Retry => retry = true,
            Found::Nothing => {}
        }
    }
    if retry { Found::Retry } else { Found::Nothing }
}

/// [`steal_tier`] in a mostly idle pool: the same order, a run of
/// consecutive workers at a time ([`rotated_runs`]), past the idle ones a
/// word of idle bits at a time ([`PassQueues::awake_bits`]). Out of line:
/// the busy pool's walk is the hot path of every steal.
#[inline(never)]
fn steal_tier_awake<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    tier: &Tier,
    random: u64,
) -> Found<Q::Job> {
    let start = (random % tier.len() as u64) as usize;
    let mut retry = false;
    for run in rotated_runs(&tier.ranges, start) {
        let mut from = run.start;
        while from < run.end {
            let (mut awake, stop) = q.awake_bits(from, run.end);
            while awake != 0 {
                let victim = from + awake.trailing_zeros() as usize;
                awake &= awake - 1;
                if victim == me {
                    continue;
                }
                let len = q.victim_len(victim);
                if len > 0 {
                    match q.steal_from(victim, steal_batch(tier.kind, len)) {
                        Found::Job(job) => return Found::Job(job),
                        Found::Retry => retry = true,
                        Found::Nothing => {}
                    }
                }
            }
            from = stop;
        }
    }
    if retry { Found::Retry } else { Found::Nothing }
}

/// The workers of `ranges` (a tier's) from position `start` on, wrapping
/// around, as runs of consecutive indexes: the order of [`tier_victims`],
/// a run at a time.
fn rotated_runs(ranges: &[Range<usize>], start: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    // The range holding position `start`, and the offset in it.
    let mut skip = start;
    let mut first = 0;
    while first < ranges.len() && skip >= ranges[first].len() {
        skip -= ranges[first].len();
        first += 1;
    }
    let n = ranges.len();
    (0..=n).filter_map(move |k| {
        let r = &ranges[(first + k) % n.max(1)];
        let run = match k {
            0 => r.start + skip..r.end,
            k if k == n => r.start..r.start + skip,
            _ => r.clone(),
        };
        (!run.is_empty()).then_some(run)
    })
}

/// The steal from a tier that crosses the LLC: of the first
/// [`FAR_CHOICES`] victims from a random start ([`tier_victims`]) that hold
/// a job, the one whose oldest job looks biggest ([`far_size`]), victims of
/// an LLC running an iterator piece counting as smallest; with
/// `leave_searched` (ordinary passes), rule 3 of "Before crossing the LLC"
/// skips the victims of LLCs where some worker searches. A lost race on
/// the chosen victim is a `Retry`.
///
/// Out of line, as [`cross_llc`] that calls it: inlined into [`pass`] it
/// makes the plain pass of a one-LLC pool (every steal there) bigger and
/// fine-grained `join` measurably slower.
#[inline(never)]
fn steal_tier_far<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    tier: &Tier,
    leave_searched: bool,
    mostly_idle: bool,
) -> Found<Q::Job> {
    let total = tier.len();
    if total == 0 {
        return Found::Nothing;
    }
    let random = q.random();
    // (victim, size, deque length) of the biggest so far, and how many
    // victims holding a job were compared.
    let mut best: Option<(usize, usize, usize)> = None;
    let mut choices = 0;
    let mut consider = |q: &mut Q, victim: usize| {
        compare_far(q, victim, leave_searched, &mut best, &mut choices);
        choices == FAR_CHOICES
    };
    // While most workers are idle, only the awake ones can hold a job: they
    // are listed a word of idle bits at a time and compared in the same
    // strided order; if there are too many to list, the tier is walked
    // past the idle ones a word at a time from a random start, as
    // [`steal_tier_awake`] does (module docs, "Idle workers").
    if !mostly_idle {
        for victim in far_victims(tier, total, random).filter(|&v| v != me) {
            if consider(q, victim) {
                break;
            }
        }
    } else if let Some((list, n)) = awake_victims(q, me, tier) {
        for victim in strided(&list[..n], random) {
            if consider(q, victim) {
                break;
            }
        }
    } else {
        let start = (random % total as u64) as usize;
        'walk: for run in rotated_runs(&tier.ranges, start) {
            let mut from = run.start;
            while from < run.end {
                let (mut awake, stop) = q.awake_bits(from, run.end);
                while awake != 0 {
                    let victim = from + awake.trailing_zeros() as usize;
                    awake &= awake - 1;
                    if victim != me && consider(q, victim) {
                        break 'walk;
                    }
                }
                from = stop;
            }
        }
    }
    match best {
        Some((victim, _, len)) => match q.steal_from(victim, steal_batch(tier.kind, len)) {
            Found::Job(job) => {
                q.crossed();
                Found::Job(job)
            }
            Found::Retry | Found::Nothing => Found::Retry,
        },
        None => Found::Nothing,
    }
}

/// One victim of a far steal ([`steal_tier_far`]): if it holds a job (and,
/// with `leave_searched`, no worker of its LLC searches), counts it in
/// `choices` and keeps it in `best` (victim, size, deque length) if it
/// looks biggest so far.
#[inline]
fn compare_far<Q: PassQueues>(
    q: &mut Q,
    victim: usize,
    leave_searched: bool,
    best: &mut Option<(usize, usize, usize)>,
    choices: &mut usize,
) {
    let len = q.victim_len(victim);
    if len == 0 || (leave_searched && q.llc_searched(victim)) {
        return;
    }
    let size = if q.victim_placed(victim) {
        0
    } else {
        far_size(len, q.victim_private(victim))
    };
    if best.is_none_or(|(_, s, _)| size > s) {
        *best = Some((victim, size, len));
    }
    *choices += 1;
}

/// How many awake victims a far steal lists ([`awake_victims`]) before it
/// falls back to the tier's full order.
const AWAKE_LIST: usize = 64;

/// The awake workers of `tier` other than `me` (at most [`AWAKE_LIST`];
/// `None` if there are more), read a word of idle bits at a time.
fn awake_victims<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    tier: &Tier,
) -> Option<([usize; AWAKE_LIST], usize)> {
    let mut list = [0; AWAKE_LIST];
    let mut n = 0;
    for r in &tier.ranges {
        let mut from = r.start;
        while from < r.end {
            let (mut bits, stop) = q.awake_bits(from, r.end);
            while bits != 0 {
                let v = from + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if v == me {
                    continue;
                }
                *list.get_mut(n)? = v;
                n += 1;
            }
            from = stop;
        }
    }
    Some((list, n))
}

/// The victims `list` in the order of [`far_victims`] over a tier of that
/// many workers: from `random % len`, with the same stride.
fn strided(list: &[usize], random: u64) -> impl Iterator<Item = usize> + '_ {
    let len = list.len();
    let (start, stride) = if len == 0 {
        (0, 1)
    } else {
        (
            (random % len as u64) as usize,
            coprime_stride(len, FAR_CHOICES),
        )
    };
    (0..len).map(move |k| list[(start + k * stride) % len])
}

/// The victims of a tier that crosses the LLC in the order a far steal
/// compares them: from position `random % total`, every `stride`-th
/// position after it, wrapping around, where `stride` is the number
/// nearest above `total / FAR_CHOICES` that is coprime with `total` (so
/// every victim comes once). A tier numbers its workers LLC by LLC, so
/// with a stride of one (the order of [`tier_victims`]) the first
/// [`FAR_CHOICES`] victims holding a job were mostly workers of one LLC,
/// whose sizes say the same thing; spread over the tier, they sample
/// several LLCs, as the "power of d choices" wants independent samples.
#[inline]
pub(crate) fn far_victims(
    tier: &Tier,
    total: usize,
    random: u64,
) -> impl Iterator<Item = usize> + '_ {
    strided_victims(tier, total, random, coprime_stride(total, FAR_CHOICES))
}

/// The least number at or above `total / parts` (at least 1) that is
/// coprime with `total`: a stride that visits each of `total` positions
/// once. `total` is at least 1.
fn coprime_stride(total: usize, parts: usize) -> usize {
    fn gcd(mut a: usize, mut b: usize) -> usize {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    let mut stride = (total / parts.max(1)).max(1);
    while gcd(stride, total) != 1 {
        stride += 1;
    }
    stride
}

/// How many victims holding a job a steal across the LLC compares
/// ([`steal_tier_far`], in the order of [`far_victims`]): the "power of d
/// choices" of load balancing. Enough samples, spread over several LLCs,
/// to find a big job; few enough that looking at them (cache-line
/// transfers at a far distance) costs less than the choice brings. 8 kept
/// the most steals inside the LLC in the shortest makespans of the counts
/// tried in the simulator (`docs/llc-local-stealing.md`); to be measured
/// on a real multi-LLC machine.
pub(crate) const FAR_CHOICES: usize = 8;

/// Whether the LLC mates that are *crossing* (`crossing` of them: each
/// took a job from another LLC's worker and has not split it yet, see
/// [`PassQueues::crossed`]) cover the LLC's searchers (`searching`, read
/// only when some mate crosses): at most [`CROSSING_FEEDS`] searchers per
/// crossing mate. While they do, a pass takes no job from another LLC's
/// workers (rule 4 of "Before crossing the LLC") and a searcher may spin
/// past the spinner cap (`search::may_spin`): the crossers' halves are
/// for them.
#[inline]
pub(crate) fn crossing_covers(crossing: usize, searching: impl FnOnce() -> isize) -> bool {
    crossing > 0
        && searching()
            <= CROSSING_FEEDS.saturating_mul(isize::try_from(crossing).unwrap_or(isize::MAX))
}

/// How many searching LLC mates one crossing worker keeps from crossing
/// ([`crossing_covers`]): the halves of its job after three levels of
/// `join` (2^3). Fewer left some of the simulator's fork-joins at 192
/// workers under 90% of steals inside the LLC; more cost makespan on LLCs
/// of 32 workers for the same locality (`docs/llc-local-stealing.md`).
pub(crate) const CROSSING_FEEDS: isize = 8;

/// The size estimate of a victim's oldest job that a steal across the LLC
/// compares: its deque length plus its private halves, the number of
/// `join` levels between the victim's oldest public half and the one it
/// runs. In a balanced recursion a half pushed `k` levels above the
/// running one holds about `2^k` leaves, so the victim with the largest
/// estimate gives the thief's LLC the most work for one crossing. A
/// worker's deque holds about [`PROMOTED_AHEAD`](super::private::PROMOTED_AHEAD) jobs in any recursion, so
/// its length alone does not tell a victim deep in a large piece from one
/// near the end of a small one.
#[inline]
pub(crate) fn far_size(deque_len: usize, private: usize) -> usize {
    deque_len + private
}

/// The victims of a tier of `total` workers in the order one pass tries
/// them: from position `random % total`, wrapping around.
/// [`steal_tier_awake`] walks them a run at a time ([`rotated_runs`]) to
/// skip idle workers by the word; the tests check the two orders agree.
pub(crate) fn tier_victims(
    tier: &Tier,
    total: usize,
    random: u64,
) -> impl Iterator<Item = usize> + '_ {
    strided_victims(tier, total, random, 1)
}

/// The workers of a tier of `total` workers from position `random %
/// total`, every `stride`-th position after it, wrapping around (each once
/// when `stride` is coprime with `total`).
#[inline(always)]
fn strided_victims(
    tier: &Tier,
    total: usize,
    random: u64,
    stride: usize,
) -> impl Iterator<Item = usize> + '_ {
    let start = (random % total as u64) as usize;
    (0..total).map(move |k| nth_in_ranges(&tier.ranges, (start + k * stride) % total))
}

/// How many jobs at most a steal from a victim of tier `kind` whose deque
/// holds `len` jobs takes: `None` for one job, `Some(limit)` for a batch
/// (about half the victim's deque, at most `limit`, into the own deque).
/// Across an LLC or NUMA boundary always a batch (the cache misses of a
/// remote steal buy more work), of up to [`FAR_BATCH`] from a long deque
/// ([`LONG_DEQUE`]: a loop of spawns, not a recursion), else of up to
/// [`BATCH`]; inside an LLC a batch of up to [`BATCH`] from a long deque,
/// else one job.
#[inline]
pub(crate) fn steal_batch(kind: TierKind, len: usize) -> Option<usize> {
    match (kind.crosses_llc(), len >= LONG_DEQUE) {
        (true, true) => Some(FAR_BATCH),
        (true, false) | (false, true) => Some(BATCH),
        (false, false) => None,
    }
}

/// A victim deque at least this long is robbed of a batch even inside an
/// LLC. Deques of recursive `join`s hold about one job per recursion level
/// (fib(30): 30 at most); a longer deque comes from a loop of spawns, whose
/// many small jobs make one steal per job the bottleneck.
pub(crate) const LONG_DEQUE: usize = 64;

/// The most jobs a batch steal takes, but for [`FAR_BATCH`] (crossbeam's
/// own limit).
pub(crate) const BATCH: usize = 32;

/// The most jobs a steal across the LLC takes from a long deque (at least
/// [`LONG_DEQUE`]: a loop of spawns): half the deque up to this many,
/// where [`BATCH`] was the bound. Why: an LLC whose work is another LLC's
/// loop of spawns gets it one crossing at a time (rule 4 of "Before
/// crossing the LLC" keeps its other searchers from crossing while a mate
/// crosses, and a worker that ran dry looks [`Reach::Near`] for its first
/// passes), and [`BATCH`] jobs fed a 20-worker LLC for about one job
/// each: in the simulator its workers idled half the time, and `spawn`
/// took 1.12 times flat stealing's makespan on the 2x Xeon 6230. The bound
/// keeps one steal's copy of job handles short (16 KiB). Inside an LLC
/// the bound stays [`BATCH`]: half a long deque there made a scope of
/// 100,000 spawns on the 2-core development machine slower against rayon
/// (`docs/spawn-long-batch.md`). Recursions' deques are shorter than
/// [`LONG_DEQUE`] and never take it.
pub(crate) const FAR_BATCH: usize = 1024;

/// The `n`-th index of a list of ranges taken as one sequence.
fn nth_in_ranges(ranges: &[Range<usize>], mut n: usize) -> usize {
    for r in ranges {
        if n < r.len() {
            return r.start + n;
        }
        n -= r.len();
    }
    unreachable!("n < total length")
}

/// The seed of worker `index`'s random numbers (nonzero, distinct per
/// worker).
pub(crate) fn worker_seed(index: usize) -> u64 {
    0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03))
}

/// The next number of a worker's xorshift64 sequence.
#[inline]
pub(crate) fn next_random(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

#[cfg(test)]
mod tests;
