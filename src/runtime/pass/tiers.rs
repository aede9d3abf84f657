//! The steal tiers of a pass (step 3 of [`super::pass`]'s order): the
//! victims of a tier in the order one pass tries them (from a random
//! start: [`tier_victims`], with the workers' random numbers,
//! [`worker_seed`] and [`next_random`]), the near choice inside the LLC
//! (below), the batch rule ([`steal_batch`]) and the walk past idle
//! workers. Across the LLC the far choice is [`super::far`]'s.
//!
//! Invariant: a tier's walk looks at every worker of the tier but the
//! searcher once (the last victim of an LLC fed by a loop of spawns may
//! be looked at twice, below), or stops early only with a job or a
//! `Retry`; an idle worker is skipped only by its idle bit (its deque and
//! private stack are empty: "Idle workers hold no jobs" in `sleep`).
//!
//! # The near choice
//!
//! Inside the LLC of a pool of several LLCs ([`TierBatch::Near`]) a steal
//! takes, of the first [`NEAR_CHOICES`] victims holding a job in the
//! walk's order, the one whose oldest job looks biggest (the
//! [`victim_size`] the far choice compares), not the first
//! ([`steal_near`], [`near_pick`]). Why: the first victim with a job is
//! as often a mate near the end of a small piece as one deep in a large
//! one, and each steal of a small piece is soon followed by another. On
//! the simulated 2x Xeon 6230 (LLCs of 20 workers and 13.75 MB) a blocked
//! product then takes a fifth fewer steals inside its LLCs, whose workers
//! at any moment read fewer distinct rows and columns (15 panels in a
//! block's time against 19, traced), and reads a fifth fewer bytes from
//! DRAM and other LLCs (`docs/locality-bound.md`, "Session 41", with the
//! numbers). The looks cost two lines of each victim compared, hence the
//! bound [`NEAR_CHOICES`]. A pool of one LLC ([`TierBatch::WholePool`]),
//! the tiers that cross the LLC (the far choice compares there:
//! `super::far`) and a pass while most workers are idle
//! ([`steal_tier_awake`]) keep the first victim with a job: in an idle
//! pool a small tree's first steals are what its time is made of, and
//! comparing mates there made the simulated `fib:14` 8 to 12% slower on
//! the Kunpeng and the Xeon (`docs/locality-bound.md`, "Session 41").
//!
//! # A loop of spawns inside the LLC
//!
//! A steal from a long deque ([`LONG_DEQUE`]: a loop of spawns; a
//! recursion's deque never gets there) by a worker of a pool of several
//! LLCs, inside its LLC or across it, marks the worker's LLC
//! ([`mark_loop`], [`PassQueues::set_loop_seen`]); a far walk that finds
//! no job in any crossing tier clears the mark (`super::far`). While the
//! LLC is marked, a tier inside it looks first at the mate the worker
//! stole its last job from ([`PassQueues::last_victim`]), then makes the
//! near choice as always; and the LLC's searchers make no near
//! passes (`super::pass`, "Near passes"). Why: a loop's jobs reach an LLC
//! as a few batches (a crossing's, and the [`BATCH`]es its mates take
//! from it), and the rest of the LLC takes them one job a steal from the
//! few mates that hold them. A walk from a random start then looks at
//! empty deques first, a line at the LLC's distance each, where the flat
//! order pops the batches it took; and an LLC whose stock ran out waits
//! out its searchers' near passes before one of them crosses. The jobs
//! of a loop carry no working set to keep inside the LLC. Workloads that
//! never rob a long deque never set the mark and walk as before. What it
//! gains, in the simulator: `docs/spawn-long-batch.md`, "Session 36".
//!
//! # Idle workers
//!
//! While most workers are idle ([`PassQueues::mostly_idle`], one load of
//! the idle summary's root per pass), every steal tier is walked past the
//! workers whose idle bit is set ([`walk_awake`], the one such walk, over
//! [`PassQueues::awake_bits`]: one word of 64 idle bits per 64 workers): an idle worker's deque and private stack
//! are empty (the argument, which covers the re-check, is "Idle workers
//! hold no jobs" in `sleep`). A pass over N mostly idle workers so costs
//! about N / 64 loads instead of N looks at other threads' deques, and a
//! busy pool's pass (the hot path of every steal) does not pay for the
//! bits. The far choice walks past idle workers too, in its own order
//! ([`super::far`], "Idle workers"). The claims of private halves in the re-check skip idle victims too. What
//! this is for: a pool's first calls, while its workers wake one at a time
//! and each spins a backoff of passes before it parks again, paid N passes
//! of N looks each (`docs/first-broadcast.md`, with the measurements).
//!

use std::ops::{ControlFlow, Range};

use crate::layout::{Tier, TierBatch};
use crate::runtime::search::Found;

use super::queues::{PassQueues, victim_size};

/// Tries every worker of a tier once, from a random start
/// ([`tier_victims`]), skipping empty deques with a cheap look; while most
/// workers are idle, skipping idle workers a word of idle bits at a time
/// ([`steal_tier_awake`]). The batch of a steal: [`steal_batch`] of the
/// tier's class.
#[inline]
pub(super) fn steal_tier<Q: PassQueues>(
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
    // Inside the LLC of a pool of several, unless most workers are idle:
    // the near choice (module docs).
    if tier.batch == TierBatch::Near && !mostly_idle {
        return steal_near(q, me, tier, random);
    }
    if mostly_idle {
        return steal_tier_awake(q, me, tier, random);
    }
    let mut retry = false;
    for victim in tier_victims(tier, total, random).filter(|&v| v != me) {
        match steal_looked(q, tier, victim) {
            Found::Job(job) => return Found::Job(job),
            Found::Retry => retry = true,
            Found::Nothing => {}
        }
    }
    if retry { Found::Retry } else { Found::Nothing }
}

/// [`steal_tier`] inside the LLC of a pool of several LLCs
/// ([`TierBatch::Near`]) while most workers are busy: first, in an LLC
/// fed by a loop of spawns, the mate robbed last ("A loop of spawns
/// inside the LLC" in the module docs); then the near choice
/// ([`near_pick`]: the biggest of the first [`NEAR_CHOICES`] victims
/// holding a job) and a steal from it, or
/// `Retry` if that victim's job went meanwhile (to its owner or another
/// thief): a pass that saw a job does not report `Nothing`.
#[inline(never)]
fn steal_near<Q: PassQueues>(q: &mut Q, me: usize, tier: &Tier, random: u64) -> Found<Q::Job> {
    let mut retry = false;
    match steal_last_victim(q, me, tier) {
        Found::Job(job) => return Found::Job(job),
        Found::Retry => retry = true,
        Found::Nothing => {}
    }
    match near_pick(q, me, tier, random) {
        Some((victim, len)) => match q.steal_from(victim, steal_batch(tier.batch, len)) {
            Found::Job(job) => {
                mark_loop(q, tier.batch, len);
                Found::Job(job)
            }
            Found::Retry | Found::Nothing => Found::Retry,
        },
        None if retry => Found::Retry,
        None => Found::Nothing,
    }
}

/// The near choice over a tier inside the LLC, without the steal: of the
/// first [`NEAR_CHOICES`] victims holding a job in the walk's order (from
/// the random start of [`tier_victims`]), the one whose oldest job looks
/// biggest ([`victim_size`]); of equals, the first. Its (victim, deque
/// length), or `None` if no victim of the tier holds a job (every one was
/// looked at).
fn near_pick<Q: PassQueues>(
    q: &mut Q,
    me: usize,
    tier: &Tier,
    random: u64,
) -> Option<(usize, usize)> {
    // (victim, size, deque length) of the biggest so far.
    let mut best: Option<(usize, usize, usize)> = None;
    let mut choices = 0;
    for victim in tier_victims(tier, tier.len(), random).filter(|&v| v != me) {
        let len = q.victim_len(victim);
        if len == 0 {
            continue;
        }
        let size = victim_size(len, q.victim_private(victim));
        if best.is_none_or(|(_, s, _)| size > s) {
            best = Some((victim, size, len));
        }
        choices += 1;
        if choices == NEAR_CHOICES {
            break;
        }
    }
    best.map(|(victim, _, len)| (victim, len))
}

/// How many victims holding a job a steal inside the LLC compares
/// ([`near_pick`]): as many as the far choice's
/// [`FAR_CHOICES`](super::far::FAR_CHOICES), for the same trade: enough
/// samples to find the biggest job, few enough that the looks (two lines
/// of each victim) stay a small part of a steal. In the simulator, every
/// victim of the LLC (20 on the Xeon, 32 on the Kunpeng) made the
/// Kunpeng's `fib:28` 6% slower, and 4 made it slower at the median too
/// and gained less on the Xeon's `matmul` (`docs/locality-bound.md`,
/// "Session 41").
pub(crate) const NEAR_CHOICES: usize = 8;

/// In a tier inside an LLC marked by a loop of spawns
/// ([`PassQueues::loop_seen`]), a steal from the worker's last victim
/// ([`PassQueues::last_victim`]) if it is of this tier; `Nothing` without
/// a look otherwise. Out of line, so that the walk of a tier keeps its
/// code where no loop runs (a pool of one LLC never gets here).
#[inline(never)]
fn steal_last_victim<Q: PassQueues>(q: &mut Q, me: usize, tier: &Tier) -> Found<Q::Job> {
    match q.last_victim() {
        Some(last)
            if last != me && tier.ranges.iter().any(|r| r.contains(&last)) && q.loop_seen() =>
        {
            steal_looked(q, tier, last)
        }
        _ => Found::Nothing,
    }
}

/// A steal from `victim` of `tier` after a cheap look at its deque (two
/// loads, no epoch pin: most victims of a scan are empty; sound for the
/// sleep protocol's re-check too: after the sleeper's fence, the load of
/// the victim's `back` sees any push ordered before the pusher's fence),
/// a batch by [`steal_batch`]; a job from a long deque marks the LLC
/// ([`mark_loop`]).
#[inline(always)]
fn steal_looked<Q: PassQueues>(q: &mut Q, tier: &Tier, victim: usize) -> Found<Q::Job> {
    let len = q.victim_len(victim);
    if len == 0 {
        return Found::Nothing;
    }
    let found = q.steal_from(victim, steal_batch(tier.batch, len));
    if let Found::Job(_) = found {
        mark_loop(q, tier.batch, len);
    }
    found
}

/// After a job taken from a deque of `len` jobs in a tier of class
/// `batch`: a long deque ([`LONG_DEQUE`]: a loop of spawns, never a
/// recursion) robbed by a worker of a pool of several LLCs, inside its
/// LLC ([`TierBatch::Near`]) or across it ([`TierBatch::Cross`]), marks
/// the worker's LLC ([`PassQueues::set_loop_seen`]; "A loop of spawns
/// inside the LLC" in the module docs).
#[inline(always)]
pub(super) fn mark_loop<Q: PassQueues>(q: &mut Q, batch: TierBatch, len: usize) {
    if len >= LONG_DEQUE && matches!(batch, TierBatch::Near | TierBatch::Cross) {
        mark_loop_seen(q);
    }
}

/// Marks the LLC (out of line: only a loop of spawns gets here).
#[cold]
#[inline(never)]
fn mark_loop_seen<Q: PassQueues>(q: &mut Q) {
    q.set_loop_seen(true);
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
    let runs = rotated_runs(&tier.ranges, start);
    let walk = walk_awake(q, me, runs, |q, victim| {
        match steal_looked(q, tier, victim) {
            Found::Job(job) => return ControlFlow::Break(job),
            Found::Retry => retry = true,
            Found::Nothing => {}
        }
        ControlFlow::Continue(())
    });
    match walk {
        ControlFlow::Break(job) => Found::Job(job),
        ControlFlow::Continue(()) if retry => Found::Retry,
        ControlFlow::Continue(()) => Found::Nothing,
    }
}

/// Visits the workers of `runs` other than `me` whose idle bit is clear,
/// in order, reading a word of idle bits at a time
/// ([`PassQueues::awake_bits`]), until `visit` breaks. The one walk past
/// idle workers: a near tier's ([`steal_tier`]), the far choice's list of
/// awake victims and its walk of a tier with too many to list
/// ([`super::far`]).
#[inline(always)]
pub(super) fn walk_awake<Q: PassQueues, B>(
    q: &mut Q,
    me: usize,
    runs: impl IntoIterator<Item = Range<usize>>,
    mut visit: impl FnMut(&mut Q, usize) -> ControlFlow<B>,
) -> ControlFlow<B> {
    for run in runs {
        let mut from = run.start;
        while from < run.end {
            let (mut awake, stop) = q.awake_bits(from, run.end);
            while awake != 0 {
                let victim = from + awake.trailing_zeros() as usize;
                awake &= awake - 1;
                if victim != me {
                    visit(q, victim)?;
                }
            }
            from = stop;
        }
    }
    ControlFlow::Continue(())
}

/// The workers of `ranges` (a tier's) from position `start` on, wrapping
/// around, as runs of consecutive indexes: the order of [`tier_victims`],
/// a run at a time.
pub(super) fn rotated_runs(
    ranges: &[Range<usize>],
    start: usize,
) -> impl Iterator<Item = Range<usize>> + '_ {
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

/// The workers of a tier of `total` workers in the order of
/// [`strided_positions`].
#[inline(always)]
pub(super) fn strided_victims(
    tier: &Tier,
    total: usize,
    random: u64,
    stride: usize,
) -> impl Iterator<Item = usize> + '_ {
    strided_positions(total, random, stride).map(|p| nth_in_ranges(&tier.ranges, p))
}

/// The positions `0..total` from `random % total`, every `stride`-th
/// after it, wrapping around: each once when `stride` is coprime with
/// `total`, none when `total` is 0. The one order of a tier's victims
/// ([`strided_victims`]) and of the far choice's list of awake ones
/// ([`super::far`]).
#[inline(always)]
pub(super) fn strided_positions(
    total: usize,
    random: u64,
    stride: usize,
) -> impl Iterator<Item = usize> {
    let start = (random % total.max(1) as u64) as usize;
    (0..total).map(move |k| (start + k * stride) % total)
}

/// How many jobs at most a steal from a victim of a tier of class `batch`
/// (the tier's [`TierBatch`], fixed with the layout) whose deque holds
/// `len` jobs takes: `None` for one job, `Some(limit)` for a batch (about
/// half the victim's deque, at most `limit`, into the own deque). Across
/// an LLC or NUMA boundary ([`TierBatch::Cross`], and the flat order's
/// [`TierBatch::Far`]) always a batch (the cache misses of a remote steal
/// buy more work), from a long deque ([`LONG_DEQUE`]: a loop of spawns,
/// not a recursion) of up to [`CROSS_BATCH`] ([`FAR_BATCH`] for
/// [`TierBatch::Far`]), else of up to [`BATCH`]; inside an LLC one job,
/// but from a long deque a batch of up to [`BATCH`] ([`TierBatch::Near`]),
/// or of up to [`FAR_BATCH`] when that LLC is the whole pool
/// ([`TierBatch::WholePool`]).
/// The class is read from the tier, not worked out per pass: whether the
/// pool has one LLC is a fact of the layout.
///
/// Why the pool of one LLC takes the far batch inside it: there a loop of
/// spawns has only LLC mates to feed, and a batch of [`BATCH`] left the
/// rest of the spawner's jobs to be stolen one at a time from deques
/// shorter than [`LONG_DEQUE`], where flat stealing (whose one tier
/// counts as crossing) took the far batch. In a pool of several LLCs the
/// bound inside an LLC stays [`BATCH`]: there the far batch inside every
/// LLC let the spawner's own LLC keep the loop and slowed short spawns
/// (the measurements: `docs/spawn-long-batch.md`).
#[inline]
pub(crate) fn steal_batch(batch: TierBatch, len: usize) -> Option<usize> {
    match (batch, len >= LONG_DEQUE) {
        (TierBatch::Cross, true) => Some(CROSS_BATCH),
        (TierBatch::Far | TierBatch::WholePool, true) => Some(FAR_BATCH),
        (TierBatch::Near, true) => Some(BATCH),
        (TierBatch::Cross | TierBatch::Far, false) => Some(BATCH),
        (TierBatch::Near | TierBatch::WholePool, false) => None,
    }
}

/// A victim deque at least this long is robbed of a batch even inside an
/// LLC. Deques of recursive `join`s hold about one job per recursion level
/// (fib(30): 30 at most); a longer deque comes from a loop of spawns, whose
/// many small jobs make one steal per job the bottleneck.
pub(crate) const LONG_DEQUE: usize = 64;

/// The most jobs a batch steal takes, but for [`FAR_BATCH`] and
/// [`CROSS_BATCH`] (crossbeam's own limit).
pub(crate) const BATCH: usize = 32;

/// The most jobs a steal of the flat order, or inside the LLC of a pool
/// of one LLC ([`TierBatch::Far`], [`TierBatch::WholePool`]), takes from a
/// long deque (at least [`LONG_DEQUE`]: a loop of spawns): half the deque
/// up to this many, where [`BATCH`] is the bound otherwise. Why: there a
/// thief's batch feeds only itself (every idle worker steals from the
/// spawner's deque on its own), and with [`BATCH`] the steals were the
/// bottleneck of a loop of short spawns (the simulated laptop's
/// `spawn:100000` took 1.10 times the flat order's makespan;
/// `docs/spawn-long-batch.md`, "Session 25"). The bound keeps one steal's
/// copy of job handles short (16 KiB). Recursions' deques are shorter
/// than [`LONG_DEQUE`] and never take it.
pub(crate) const FAR_BATCH: usize = 1024;

/// The most jobs a hierarchical steal across the LLC ([`TierBatch::Cross`])
/// takes from a long deque: half the deque up to this many. Why: an LLC
/// whose work is another LLC's loop of spawns gets it one crossing at a
/// time (rule 4 of "Before crossing the LLC" keeps its other searchers
/// from crossing while a mate crosses, and a worker that ran dry looks
/// [`Reach::Near`](crate::runtime::search::Reach::Near) for its first
/// passes), so what one crossing brings is what the LLC lives on until the
/// next; with [`FAR_BATCH`] those LLCs idled between crossings. The copy
/// of 4,096 handles is 64 KiB, a few microseconds at the slowest link,
/// against milliseconds of work it hands over
/// (`docs/spawn-long-batch.md`, "Session 26").
pub(crate) const CROSS_BATCH: usize = 4096;

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
