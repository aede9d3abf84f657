//! One pass of a worker's search: the order in which it looks at every
//! source of work except its own deque, as one function over a trait.
//!
//! [`pass`] is the policy; [`PassQueues`] the mechanism. The pool's
//! `WorkerThread` implements the trait over its crossbeam queues; the
//! simulator (`crate::sim`, feature `sim`) implements it over its model
//! queues, so both walk the sources in the same order, with the same
//! randomised start inside each steal tier ([`tier_victims`](tiers::tier_victims)), the same
//! batch rule ([`steal_batch`](tiers::steal_batch), with its limit) and the same forwarding rule for pack
//! queues the worker may not take from ([`PassQueues::forward`]).
//!
//! The steps are here; the mechanism (the queues a pass names and the
//! trait its owner implements) is `queues`, the walk of a steal tier
//! (the random start, the batch rule, idle workers skipped) `tiers`, the
//! walk across the LLC (the far choice, a loop of spawns) `far`.
//!
//! The order (see `worker` for the why of each step):
//! 1. the worker's targeted queue;
//! 2. its cluster's spread queue (batch), its LLC's pack queue (one job),
//!    its LLC's injector (batch);
//! 3. its steal tiers, nearest first, each from a random start (inside
//!    the LLC of a pool of several, the biggest of a few victims: the
//!    near choice of `tiers`); after
//!    those inside its LLC, a dealt half waiting for a sleeping LLC (below,
//!    also in near passes); before the first tier that crosses the LLC,
//!    the checks of "Before crossing the LLC" below, and across it the
//!    biggest of a few victims (the far choice of `far`);
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
//! # Near passes
//!
//! The first [`NEAR_PASSES`](super::search::rules::NEAR_PASSES) passes of a search that began because the
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
//! near pass is a full pass; so it is in an LLC marked by a loop of
//! spawns (`PassQueues::loop_seen`; "A loop of spawns inside the LLC" in
//! `tiers`), whose jobs carry no working set, and whose searchers waited
//! out their near passes each time the LLC's stock ran out.
//!
//! # A dealt half of a sleeping LLC
//!
//! Where the worker has steal tiers on both sides of the LLC boundary, a
//! pass (near or full) that found nothing inside its LLC looks at the
//! LLCs marked by the deal of a ramp-up (`deal`, "A dealt half of a
//! sleeping LLC": dealt a half while none of their workers was awake),
//! nearest first, and takes one job from the pack queue of the first that
//! still has no awake worker; an LLC with an awake worker, or whose pack
//! queue looks empty, loses its mark instead. One load when nothing is
//! marked. The half would otherwise wait a wakeup's latency for the
//! worker its push woke; that worker, once awake, finds the queue empty
//! and searches, as after a helper's take. Before the checks of "Before
//! crossing the LLC" (none of them is about another LLC's queues) and in
//! near passes, because in the simulator's trace the searchers that had
//! nothing to do were in near passes while the half waited.
//!
//! # The receiver alone
//!
//! A worker that takes a job from its own LLC's pack queue while its LLC
//! is marked notes itself as that LLC's receiver (`Deal::note_receiver`;
//! a load of the marks after such a take only). While the pool is mostly
//! idle (the flag the pass reads once anyway), a marked LLC that is awake
//! keeps its mark while its receiver is its only awake worker (its armed
//! count one less than its size: one load), and the walk above steals one
//! job from the receiver's deque when it holds at least two and the
//! searcher's own LLC has another awake worker; once a second worker of
//! that LLC is awake, or none, or no receiver was noted, or the pool is
//! busier, the mark goes as before. Why: the receiver of a half dealt to a sleeping
//! LLC runs it alone for a wakeup, and the halves its promotions push
//! wait in its deque for the mates those pushes claimed, which arrive a
//! wakeup later, while the searchers of an LLC that ran dry pass near
//! (their near passes never cross) and the far walk's rule 3 leaves the
//! receiver to those claims. A searcher with no awake mate is itself a
//! lone receiver (or alone in its LLC): moving a job from one lone
//! worker to another gains nothing and crosses the LLC. Measured in the
//! simulator: `docs/mid-run-stealing.md`, "Session 38".
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
//!    searcher, as `group_routing::helps` leaves that LLC's pack queue;
//!    but not, while the pool is mostly idle, to searchers that are all
//!    claimed workers still on their way ("Claims still on their way" in
//!    `far`).
//! 4. whether a mate is *crossing*: it took a job from another LLC's
//!    worker and has not split it yet ([`PassQueues::crossed`]; it ends at
//!    the mate's first `join` or next search). While crossing mates cover
//!    the LLC's searchers ([`crossing_covers`]: up to [`CROSSING_FEEDS`]
//!    each), an ordinary pass takes no job from another LLC's workers (it
//!    still looks at the other LLCs' queues), and searchers spin past the
//!    spinner cap instead of parking (`search::rules::may_spin`): the crossers'
//!    halves are for them. The re-check before parking, which comes once
//!    the spin is over, still looks everywhere. Why: an LLC runs dry all
//!    at once, its workers within a few hundred nanoseconds of each other,
//!    and without the rule each crossed on its own (over the cap, in its
//!    re-check before parking).
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

use crate::layout::Tier;

use super::search::{Found, Reach};

use far::steal_far;
use queues::{PassQueues, Queue};
use tiers::steal_tier;

pub(crate) mod far;
pub(crate) mod queues;
pub(crate) mod tiers;

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
pub(crate) fn pass<Q: PassQueues>(q: &mut Q, mut at: Place<'_>) -> Found<Q::Job> {
    // An LLC fed by a loop of spawns has no working set to keep: its near
    // passes are full ("Near passes" above).
    if at.near_cut.is_some() && q.loop_seen() {
        at.near_cut = None;
    }
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
    take(own_pack(q, at), retry)?;
    take(q.pull(Queue::Injector(at.llc), true), retry)?;
    let (inside, outside) = match at.near_cut.or(at.llc_cut) {
        Some(cut) => at.tiers.split_at(cut),
        None => (at.tiers, &[][..]),
    };
    // Read once per pass ("Idle workers" in `tiers`).
    let idle = !at.tiers.is_empty() && q.mostly_idle();
    for tier in inside {
        take(steal_tier(q, at.index, tier, idle), retry)?;
    }
    if at.llc_cut.is_some() {
        take(sleeping_deal(q, at, idle), retry)?;
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
        take(
            steal_far(q, at.index, outside, !rechecking, mostly_idle),
            retry,
        )?;
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

/// A job from the own LLC's pack queue; one taken while the LLC is
/// marked (a dealt half of a sleeping LLC) names this worker its receiver
/// (module docs, "The receiver alone"; one load of the marks, after a
/// take only).
#[inline]
fn own_pack<Q: PassQueues>(q: &mut Q, at: Place<'_>) -> Found<Q::Job> {
    let found = q.pull(Queue::Pack(at.llc), false);
    if matches!(found, Found::Job(_)) && at.llc_cut.is_some() {
        note_receiver(q, at.llc);
    }
    found
}

/// [`own_pack`]'s note: out of line, as pack takes are rare.
#[inline(never)]
fn note_receiver<Q: PassQueues>(q: &mut Q, llc: usize) {
    if llc < usize::BITS as usize && q.asleep_deals() & (1 << llc) != 0 {
        q.note_receiver();
    }
}

/// A dealt half waiting for a sleeping LLC (module docs, "A dealt half of
/// a sleeping LLC"): one load, and the walk only when some LLC is marked.
/// Out of line, so that the pass of a one-LLC pool, which never calls it,
/// keeps its size.
#[inline(never)]
fn sleeping_deal<Q: PassQueues>(q: &mut Q, at: Place<'_>, mostly_idle: bool) -> Found<Q::Job> {
    let marks = q.asleep_deals();
    if marks == 0 {
        return Found::Nothing;
    }
    take_sleeping_deal(q, at, marks, mostly_idle)
}

/// The walk of [`sleeping_deal`]: the marked LLCs nearest first; the first
/// that still has no awake worker and a job in its pack queue gives one.
/// While the pool is mostly idle, an LLC with a noted receiver and one
/// awake worker (the receiver, unless it parked and a mate woke: then its
/// deque is empty) keeps its mark, and gives one job from that receiver's
/// deque to a searcher whose LLC has another awake worker ("The receiver
/// alone"); the other LLCs walked lose their marks.
#[cold]
fn take_sleeping_deal<Q: PassQueues>(
    q: &mut Q,
    at: Place<'_>,
    marks: usize,
    mostly_idle: bool,
) -> Found<Q::Job> {
    let mut retry = false;
    for l in at.llc_order.iter().flat_map(|r| r.clone()) {
        if l >= usize::BITS as usize || marks & (1 << l) == 0 {
            continue;
        }
        let found = if q.looks_empty(Queue::Pack(l)) || !q.llc_asleep(l) {
            match receiver_alone(q, at, l, mostly_idle) {
                Some(found) => found,
                None => {
                    q.unmark_asleep(l);
                    continue;
                }
            }
        } else {
            q.pull(Queue::Pack(l), false)
        };
        match found {
            Found::Job(job) => return Found::Job(job),
            Found::Retry => retry = true,
            Found::Nothing => {}
        }
    }
    if retry { Found::Retry } else { Found::Nothing }
}

/// A marked LLC `l` that is awake: `None` if it loses its mark; else its
/// receiver is alone there (the pool mostly idle, one awake worker), the
/// mark stays, and a searcher whose own LLC has another awake worker
/// steals one job from the receiver's deque if it holds two or more
/// (module docs, "The receiver alone").
fn receiver_alone<Q: PassQueues>(
    q: &mut Q,
    at: Place<'_>,
    l: usize,
    mostly_idle: bool,
) -> Option<Found<Q::Job>> {
    if !mostly_idle {
        return None;
    }
    let r = q.receiver(l)?;
    if q.llc_awake(l) != 1 {
        return None;
    }
    if q.llc_awake(at.llc) < 2 || q.victim_len(r) < 2 {
        return Some(Found::Nothing);
    }
    let found = q.steal_from(r, None);
    if matches!(found, Found::Job(_)) {
        q.crossed();
        q.robbed_receiver();
    }
    Some(found)
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

/// Whether the LLC mates that are *crossing* (`crossing` of them: each
/// took a job from another LLC's worker and has not split it yet, see
/// [`PassQueues::crossed`]) cover the LLC's searchers (`searching`, read
/// only when some mate crosses): at most [`CROSSING_FEEDS`] searchers per
/// crossing mate. While they do, a pass takes no job from another LLC's
/// workers (rule 4 of "Before crossing the LLC") and a searcher may spin
/// past the spinner cap (`search::rules::may_spin`): the crossers' halves are
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

#[cfg(test)]
mod tests;
