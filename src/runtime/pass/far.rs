//! The far walk of a pass: its steal tiers that cross the LLC (step 3 of
//! [`super::pass`]'s order, after the checks of "Before crossing the
//! LLC"), walked nearest first ([`steal_far`]), each by the far choice
//! ([`far_pick`]) rather than the first victim with a job.
//!
//! Invariant: a far walk returns `Found::Nothing` only when no victim it
//! compared held a job (a pick found empty at the steal is a lost race,
//! a `Retry`, so a search never concludes the pool is dry from a walk
//! that raced); a victim holding a job is left out of the choice only by
//! rule 3 of "Before crossing the LLC" (ordinary passes; the sleep
//! protocol's re-check does not apply it; see "Claims still on their
//! way"), by the lone-job rule below
//! (its owner is awake and pops that job itself: a worker whose deque
//! holds a job does not park) or by its idle bit (its deque and private
//! stack are empty: "Idle workers hold no jobs" in `sleep`); every job
//! stolen across the LLC marks the thief as crossing
//! ([`PassQueues::crossed`]).
//!
//! # The far choice
//!
//! Across the LLC, after the checks of "Before crossing the LLC" in
//! `pass`, a pass steals from the victim, of the first
//! [`FAR_CHOICES`] holding a job in the order of [`far_victims`] (from a
//! random start, spread over the tier's LLCs), whose oldest job looks
//! biggest ([`victim_size`]: deque length plus private halves), not
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
//! LLC. A victim there that holds that piece's lone job is not a choice
//! at all ([`lone_placed_job`]): its owner runs the job next, where its
//! data is. What was measured for these rules is in
//! `docs/llc-local-stealing.md` and `docs/locality-bound.md`.
//!
//! # Claims still on their way
//!
//! Rule 3 of "Before crossing the LLC" leaves the workers of an LLC where
//! some worker is counted as searching to that searcher, and a worker a
//! waker claimed is counted from its claim, a wakeup's latency before it
//! runs. While the pool is mostly idle ([`PassQueues::mostly_idle`], read
//! once per pass), an ordinary pass does not leave a victim to such
//! claims ([`claims_on_their_way`]): when the victim holds more than one
//! job, every searcher its LLC counts is a claim not yet awake
//! ([`PassQueues::llc_claims`]: armed workers whose idle bit is clear),
//! that LLC still has an armed worker nobody claimed, the thief's own LLC
//! has an awake searcher besides the thief
//! ([`PassQueues::awake_searchers`]) and the victim's LLC runs no placed
//! iterator piece. Why: in a tree started in an idle pool, the receivers of
//! the deal's first halves run them alone for a wakeup while the mates
//! their promotions claimed are on their way, and the root's LLC, whose
//! first mates arrived and ran dry, would keep its searchers off those
//! receivers' deques for that wakeup. The conditions keep the rule where
//! that happens: a lone receiver that ran dry does not rob another (its
//! own mates are on their way too), a victim's lone job is its owner's
//! next, an LLC whose armed workers are all claimed is about to be full,
//! and a busy pool reads no idle words (the reads cost a load per 64
//! workers on every compared victim). What it gains and costs, measured
//! in the simulator: `docs/mid-run-stealing.md`, "Session 37".
//!
//! # A loop of spawns across the LLC
//!
//! The crossing tiers are walked nearest first ([`steal_far`]), and a
//! tier with a job wins over every farther one. While a loop of spawns
//! feeds the thief's LLC from far away, that leaves a whole package
//! living on the short second-hand deques of its own crossers while the
//! other package holds the loop's thousands of jobs. So an LLC whose
//! worker took a job from a long deque (at least
//! [`LONG_DEQUE`](super::tiers::LONG_DEQUE): a loop of spawns;
//! recursions' deques never get there), across the LLC or inside it, is
//! marked ([`PassQueues::loop_seen`]; "A loop of spawns inside the LLC"
//! in `super::tiers`); while it is, in a pool with more than one crossing
//! tier, its far walks compare the far choice's pick of every crossing
//! tier and steal from the longest deque ([`steal_longest_far`]); a far
//! walk that finds no job in any crossing tier clears the mark.
//! Workloads that never steal from a long deque never set it and walk as
//! before.
//!
//! # Idle workers
//!
//! The far choice's order is strided over LLCs ([`far_victims`]). While
//! most workers are idle ([`PassQueues::mostly_idle`]), the awake victims
//! are listed a word of idle bits at a time ([`awake_victims`]) and
//! compared in that order; more than [`AWAKE_LIST`] of them, the tier is
//! walked past the idle ones a word at a time from a random start, without
//! the stride, as [`super::tiers`] walks a near tier. Testing each
//! victim's bit in the strided order would cost a load per worker of the
//! tier in every far pass of every searcher: a pool of many small LLCs
//! would pay N loads per pass (`docs/first-broadcast.md`).

use std::ops::ControlFlow;

use crate::layout::{Tier, TierBatch};
use crate::runtime::search::Found;

use super::queues::{PassQueues, victim_size};
use super::tiers::{
    mark_loop, rotated_runs, steal_batch, strided_positions, strided_victims, walk_awake,
};

/// The far walk of a full pass over the crossing tiers `outside`, nearest
/// first: in each, the far choice's pick ([`far_pick`]) is stolen from
/// ([`far_steal`]); a steal from a long deque marks the thief's LLC
/// ([`mark_loop`]), a walk that finds no job anywhere clears the mark, and
/// a marked LLC's walk is [`steal_longest_far`] where there are several
/// crossing tiers ("A loop of spawns across the LLC" in the module docs).
/// Stops early only with a job; a `Retry` goes on to the next tier, as a
/// pass does.
///
/// Out of line, as [`cross_llc`](super::cross_llc) that calls it: inlined
/// into [`pass`](super::pass) it makes the plain pass of a one-LLC pool
/// (every steal there) bigger and fine-grained `join` measurably slower.
#[inline(never)]
pub(super) fn steal_far<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    outside: &[Tier],
    leave_searched: bool,
    mostly_idle: bool,
) -> Found<Q::Job> {
    let several = outside.len() > 1;
    if several && q.loop_seen() {
        return steal_longest_far(q, me, outside, leave_searched, mostly_idle);
    }
    let mut retry = false;
    for tier in outside {
        let Some((victim, _, len)) = far_pick(q, me, tier, leave_searched, mostly_idle) else {
            continue;
        };
        match far_steal(q, tier, victim, len) {
            Found::Job(job) => {
                mark_loop(q, tier.batch, len);
                return Found::Job(job);
            }
            Found::Retry | Found::Nothing => retry = true,
        }
    }
    if retry {
        return Found::Retry;
    }
    // No job in any crossing tier: the loop, if there was one, is over.
    q.set_loop_seen(false);
    Found::Nothing
}

/// The far walk of an LLC marked by a loop of spawns: the far choice's
/// pick of every crossing tier, and the steal from the one whose deque is
/// longest (the nearer on a tie); no pick at all clears the mark. Why the
/// longest and not the nearest: the loop's jobs carry no data to keep
/// near, and the farther package's long deques are what the thief's own
/// package lacks (`docs/spawn-long-batch.md`, "Session 29"). Cold: only
/// a loop of spawns gets here.
#[cold]
fn steal_longest_far<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    outside: &[Tier],
    leave_searched: bool,
    mostly_idle: bool,
) -> Found<Q::Job> {
    let mut best: Option<(&Tier, usize, usize)> = None;
    for tier in outside {
        if let Some((victim, _, len)) = far_pick(q, me, tier, leave_searched, mostly_idle)
            && best.is_none_or(|(_, _, l)| len > l)
        {
            best = Some((tier, victim, len));
        }
    }
    match best {
        Some((tier, victim, len)) => far_steal(q, tier, victim, len),
        None => {
            q.set_loop_seen(false);
            Found::Nothing
        }
    }
}

/// The steal from the far choice's pick `victim` of `tier` (its deque
/// `len` long): a batch by [`steal_batch`], the thief marked as crossing;
/// a lost race is a `Retry`.
fn far_steal<Q: PassQueues>(q: &mut Q, tier: &Tier, victim: usize, len: usize) -> Found<Q::Job> {
    match q.steal_from(victim, steal_batch(tier.batch, len)) {
        Found::Job(job) => {
            q.crossed();
            Found::Job(job)
        }
        Found::Retry | Found::Nothing => Found::Retry,
    }
}

/// The far choice over a tier that crosses the LLC, without the steal:
/// of the first [`FAR_CHOICES`] victims from a random start
/// ([`far_victims`]) that hold a job, the one whose oldest job looks
/// biggest ([`victim_size`]), victims of an LLC running an iterator piece
/// counting as smallest; with `leave_searched` (ordinary passes), rule 3
/// of "Before crossing the LLC" skips the victims of LLCs where some
/// worker searches. Its (victim, size, deque length), if any.
fn far_pick<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    tier: &Tier,
    leave_searched: bool,
    mostly_idle: bool,
) -> Option<(usize, usize, usize)> {
    let total = tier.len();
    if total == 0 {
        return None;
    }
    let random = q.random();
    // (victim, size, deque length) of the biggest so far, and how many
    // victims holding a job were compared.
    let mut best: Option<(usize, usize, usize)> = None;
    let mut choices = 0;
    let leave_lone = leaves_lone_jobs(tier);
    let mut consider = |q: &mut Q, victim: usize| {
        let rules = (leave_searched, leave_lone, mostly_idle);
        compare_far(q, victim, rules, &mut best, &mut choices);
        choices == FAR_CHOICES
    };
    // While most workers are idle, only the awake ones can hold a job: they
    // are listed a word of idle bits at a time and compared in the same
    // strided order; if there are too many to list, the tier is walked
    // past the idle ones a word at a time from a random start, as a
    // near tier's walk does (module docs, "Idle workers").
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
        let runs = rotated_runs(&tier.ranges, start);
        let _ = walk_awake(q, me, runs, |q, victim| {
            if consider(q, victim) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
    }
    best
}

/// One victim of the far choice ([`far_pick`]): if it holds a job (and,
/// with `leave_searched`, no worker of its LLC searches; with
/// `leave_lone`, it is not a placed piece's lone job:
/// [`lone_placed_job`]), counts it in `choices` and keeps it in `best`
/// (victim, size, deque length) if it looks biggest so far.
#[inline]
fn compare_far<Q: PassQueues>(
    q: &mut Q,
    victim: usize,
    (leave_searched, leave_lone, mostly_idle): (bool, bool, bool),
    best: &mut Option<(usize, usize, usize)>,
    choices: &mut usize,
) {
    let len = q.victim_len(victim);
    if len == 0 || (leave_searched && leaves_to_searchers(q, victim, len, mostly_idle)) {
        return;
    }
    let size = if q.victim_placed(victim) {
        if leave_lone && lone_placed_job(q, victim, len) {
            return;
        }
        0
    } else {
        victim_size(len, q.victim_private(victim))
    };
    if best.is_none_or(|(_, s, _)| size > s) {
        *best = Some((victim, size, len));
    }
    *choices += 1;
}

/// Rule 3 of "Before crossing the LLC" for `victim`, whose deque holds
/// `len` jobs: whether an ordinary pass leaves it to the searchers of its
/// LLC. Not if none is counted there (one load); else yes, unless the
/// pool is mostly idle (`mostly_idle`, read once per pass), the victim
/// holds more than one job and its LLC's searchers are claims still on
/// their way ([`claims_on_their_way`]; module docs).
#[inline]
fn leaves_to_searchers<Q: PassQueues>(
    q: &mut Q,
    victim: usize,
    len: usize,
    mostly_idle: bool,
) -> bool {
    let searching = q.llc_searching(victim);
    searching > 0 && (!mostly_idle || len < 2 || !claims_on_their_way(q, victim, searching))
}

/// Whether the far choice compares `victim` although its LLC counts
/// `searching` searchers (module docs, "Claims still on their way"):
/// every one of them is a worker claimed by a waker and not awake yet,
/// some armed worker of that LLC is still unclaimed, this worker's LLC
/// has an awake searcher besides it, and the victim's LLC runs no placed
/// iterator piece. The cheap answers first; out of line, as only a
/// mostly idle pool gets here.
#[inline(never)]
fn claims_on_their_way<Q: PassQueues>(q: &mut Q, victim: usize, searching: isize) -> bool {
    let (claimed, armed) = q.llc_claims(victim);
    let passes = searching <= isize::try_from(claimed).unwrap_or(isize::MAX)
        && armed > claimed
        && q.awake_searchers() >= 2
        && !q.victim_placed(victim);
    if passes {
        q.passed_claims();
    }
    passes
}

/// Whether the far choice over `tier` leaves a placed piece's lone job
/// to its LLC ([`lone_placed_job`]): only across the LLC of the
/// hierarchical order ([`TierBatch::Cross`]). The flat order's one tier
/// ([`TierBatch::Far`]) knows no LLC whose data the job could stay near.
#[inline]
fn leaves_lone_jobs(tier: &Tier) -> bool {
    tier.batch == TierBatch::Cross
}

/// The far choice's lone-job rule: a victim of an LLC running an
/// iterator piece ([`PassQueues::victim_placed`]) that holds one job and
/// no private half (`len` is its deque's length) is not a choice. Its
/// owner runs that job next, in the LLC its piece's data was placed in;
/// a thief would first read the data across the LLC (a 192 KiB chunk of
/// STREAM triad from the other socket of a two-socket EPYC takes about
/// 14 us at one core's bandwidth, against 3 us from the own L3), and a
/// piece's lone job is often its last, so the crossing ends the iterator
/// later. Victims holding more than that keep the far choice: their
/// oldest job is work the owner would not reach soon. The private stack
/// is looked at only for a lone job.
#[inline]
fn lone_placed_job<Q: PassQueues>(q: &mut Q, victim: usize, len: usize) -> bool {
    len == 1 && q.victim_private(victim) == 0
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
    let runs = tier.ranges.iter().cloned();
    let walk = walk_awake(q, me, runs, |_, victim| {
        let Some(slot) = list.get_mut(n) else {
            return ControlFlow::Break(());
        };
        *slot = victim;
        n += 1;
        ControlFlow::Continue(())
    });
    walk.is_continue().then_some((list, n))
}

/// The victims `list` in the order of [`far_victims`] over a tier of that
/// many workers: from `random % len`, with the same stride.
pub(super) fn strided(list: &[usize], random: u64) -> impl Iterator<Item = usize> + '_ {
    let stride = coprime_stride(list.len(), FAR_CHOICES);
    strided_positions(list.len(), random, stride).map(|p| list[p])
}

/// The victims of a tier that crosses the LLC in the order a far steal
/// compares them: from position `random % total`, every `stride`-th
/// position after it, wrapping around, where `stride` is the number
/// nearest above `total / FAR_CHOICES` that is coprime with `total` (so
/// every victim comes once). A tier numbers its workers LLC by LLC, so
/// with a stride of one (the order of [`tier_victims`](super::tiers::tier_victims)) the first
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
/// once (1 for a `total` of 0 or 1).
pub(super) fn coprime_stride(total: usize, parts: usize) -> usize {
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
/// ([`far_pick`], in the order of [`far_victims`]): the "power of d
/// choices" of load balancing. Enough samples, spread over several LLCs,
/// to find a big job; few enough that looking at them (cache-line
/// transfers at a far distance) costs less than the choice brings. 8 kept
/// the most steals inside the LLC in the shortest makespans of the counts
/// tried in the simulator (`docs/llc-local-stealing.md`); to be measured
/// on a real multi-LLC machine.
pub(crate) const FAR_CHOICES: usize = 8;
