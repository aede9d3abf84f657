//! The rules of a search ([`super::Search`]) that are numbers and
//! yes-or-no answers, apart from its state machine: how many passes look
//! near ([`NEAR_PASSES`]), how many more workers a woken search wakes
//! ([`RAMP_FANOUT`]), and whether a searcher that found nothing spins on
//! or goes idle (the spinner caps: [`may_spin`], [`may_spin_on`],
//! [`may_spin_over_cap`]).
//!
//! Invariant: none of these touches the sleep protocol's words or its
//! proof: a "no" sends the searcher to its re-check and park, a "yes"
//! only delays them (a spinning searcher still parks once its backoff is
//! spent), so every answer is safe and only the cost differs.

use crate::runtime::backoff::{FLOOR_STEPS, FULL_STEPS, SEARCH_YIELDS, SPIN_STEPS};

/// The first this many passes of a search that began at an empty deque are
/// [`Reach::Near`](super::Reach::Near) (the uncounted pass is the first): the 7 spin steps of
/// `sync::Backoff` and 13 of its 32 yields, a few to tens of microseconds
/// of looking near before looking everywhere (the re-check before parking
/// always does). Fewer near passes let a worker cross to another LLC
/// before its LLC mates' next halves appear; more delay the far look an
/// empty LLC needs: 20 kept the most steals inside the LLC in the
/// shortest simulated makespan (`docs/llc-local-stealing.md`).
pub(crate) const NEAR_PASSES: u32 = 20;

/// How many idle workers a search woken from a park wakes when it finds a
/// job with more behind it ([`Sources::more_behind`](super::Sources::more_behind)), besides the
/// hand-off of the last searcher: each woken worker that finds work
/// wakes this many more, so the awake workers of a ramp-up grow by a
/// factor of about `1 + RAMP_FANOUT` per wake latency instead of one
/// worker per latency (`docs/ramp-up-wakes.md`).
pub(crate) const RAMP_FANOUT: u32 = 2;

/// The spinner cap of a pool of `threads` workers: above this many searching
/// workers, a worker without a latch that found nothing goes idle (re-check,
/// park) at once instead of spinning (see [`may_spin`]). Each spinning pass
/// looks at other workers' queues, so a crowd of spinners costs O(n²) on
/// large pools.
#[inline]
pub(crate) fn max_spinners(threads: usize) -> isize {
    (threads / 8).max(2) as isize
}

/// Whether a searcher that found nothing may spin one more backoff round
/// (else it goes idle, re-checks and parks): always while it waits for a
/// latch (`waits`: a `join` half stolen from it, a `scope`, ...), else
/// while at most `max_spinners` workers search, or while it is the only
/// searcher of its LLC in a pool of several LLCs (`alone`), or while an
/// LLC mate is crossing (`crossing`, below). The counts are read only when
/// needed, in that order, to leave their cache lines alone.
///
/// Why the only searcher of an LLC may pass the cap: over the cap every
/// worker that ran dry re-checked and parked at once, so an LLC whose
/// workers all ran dry kept nobody looking; a piece of an iterator queued
/// to it, or a mate's next `join` half, waited for a wakeup, and the
/// searchers of other LLCs (nearer the cap's count) took it across the
/// LLC. One searcher per LLC is what Linux's scheduler keeps for idle
/// balancing in each domain; it adds at most one spinner per LLC to the
/// cap, and like any spinner it parks once its backoff is completed (a
/// few tens of microseconds).
///
/// Why latch waiters may pass the cap: a parked waiter adds a wakeup
/// latency to the critical path of its `join` tree each time a thief
/// finishes its half, and at the end of a fork-join nearly every worker
/// waits on a latch, so under the cap nearly all of them parked and the
/// join tree unwound one futex wakeup per level of nested steals. Their
/// number is bounded by the running `join`s, and they stop at their latch.
/// The cap stays for workers without a latch, whose spinning passes are
/// the contention it exists for. Rayon caps neither.
///
/// Why a worker whose LLC mates are *crossing* may pass the cap
/// (`crossing`: a mate took a job from another LLC's worker and has not
/// split it yet, and such mates cover this LLC's searchers:
/// [`Sources::mate_crossing`](super::Sources::mate_crossing), `pass::crossing_covers`): an LLC runs dry
/// all at once, its workers within a few hundred nanoseconds of each
/// other, and over the cap each went straight to its re-check, which
/// looks everywhere, and took a job from another LLC too: eight crossings
/// where one would do, each moving a working set, the later ones taking
/// ever smaller jobs. Spinning instead (and, by rule 4 of "Before crossing
/// the LLC" in `pass`, leaving other LLCs' workers alone meanwhile), they
/// find the first crosser's halves with their passes a moment later (its
/// `join`s promote them, since they search). The spin is the backoff's, as
/// for any spinner (then the re-check and park). The trade: more steals
/// inside the LLC for about 1.5% of simulated makespan on work without
/// data to keep near (`docs/llc-local-stealing.md`).
#[inline]
pub(crate) fn may_spin(
    waits: bool,
    searching: impl FnOnce() -> isize,
    alone: impl FnOnce() -> bool,
    crossing: impl FnOnce() -> bool,
    max_spinners: isize,
) -> bool {
    waits || searching() <= max_spinners || alone() || crossing()
}

/// The spinner cap of a mostly idle pool, whatever its size (see
/// [`may_spin_on`]).
pub(crate) const IDLE_SPINNERS: isize = 8;

/// Whether a searcher that found nothing may spin on to pass number `next`
/// of its search, once [`may_spin`] said it may spin: always a latch
/// waiter (`waits`) and a search that resumed after a park (`woken`), any
/// searcher of a pool whose own spinner cap is at most [`IDLE_SPINNERS`]
/// (`small`: at most 71 workers, whose passes read one or two idle words),
/// and any searcher while the pool is not mostly idle (`mostly_idle`: at least
/// half its workers idle). In a mostly idle pool, a search that began at
/// an empty deque spins only its first [`NEAR_PASSES`] passes (inside its
/// LLC, where the pool has several), and only while at most
/// [`IDLE_SPINNERS`] workers search (`searching`), whatever the pool's
/// size, or while it is the only searcher of its LLC (`alone`, as in
/// [`may_spin`]: an LLC keeps one worker looking at its queues, which the
/// next call's pieces aimed at it find; such a spinner's near passes look
/// at its LLC only). Else the worker goes idle: its re-check looks
/// everywhere, then it parks. The hints are read only when needed, in
/// that order.
///
/// Why: in a mostly idle pool a push wakes an idle worker (one of the
/// pusher's LLC, where the pool keeps per-LLC counts: "Waking in the
/// pusher's LLC" in [`crate::runtime::sleep`]), so searchers spinning on over the
/// pool catch little that a wakeup would not bring, and each of their
/// passes costs more the bigger the pool: a far pass loads an idle word
/// per LLC (or per 64 workers) and looks at every other LLC's injector and
/// pack queue, and every pass looks at the deque of every awake worker,
/// the spinners included. In a pool's first `broadcast`, whose workers run
/// for the first time one after another, nearly every worker spun its
/// whole backoff (about 20 near and 20 far passes each) while hundreds of
/// others did, and the call's CPU grew as the square of the pool
/// (`docs/first-broadcast.md`). A search that began at a wakeup was
/// claimed for a job that may be anywhere, and a latch waiter's latch is
/// on the critical path: both keep their budget.
#[inline]
pub(crate) fn may_spin_on(
    waits: bool,
    woken: bool,
    small: bool,
    next: u32,
    mostly_idle: impl FnOnce() -> bool,
    searching: impl FnOnce() -> isize,
    alone: impl FnOnce() -> bool,
) -> bool {
    waits
        || woken
        || small
        || !mostly_idle()
        || (next < NEAR_PASSES && (searching() <= IDLE_SPINNERS || alone()))
}

/// Over the pool's spinner cap, at most this many searchers of one LLC (of
/// the pool, in a pool of one LLC) keep spinning ([`may_spin_over_cap`]).
pub(crate) const LLC_SPINNERS: isize = 64;

/// A search whose budget ([`Sources::search_steps`](super::Sources::search_steps)) is at least this many
/// backoff steps may spin over the pool's spinner cap: the idle governor
/// (`runtime::backoff`) gives it at least half the yields only while this
/// worker's recent idle periods were short.
pub(crate) const LONG_BUDGET: u32 = SPIN_STEPS + SEARCH_YIELDS / 2;

// A worker at the governor's floor never spins over the cap, one with the
// full budget does.
const _: () = assert!(LONG_BUDGET > FLOOR_STEPS && LONG_BUDGET <= FULL_STEPS);

/// Whether a searcher that [`may_spin`] sends idle (it is over the pool's
/// spinner cap) may spin on anyway, its next passes far ones, the look its
/// re-check would take (see [`Search`](super::Search)'s "over the cap"): while its budget
/// is long (`long_budget`: its idle governor saw short gaps lately, at
/// least [`LONG_BUDGET`] steps) and at most [`LLC_SPINNERS`] workers of its
/// LLC search (`llc_searching`, read only if the budget is long; in a pool
/// of one LLC, the pool's searchers). [`may_spin_on`] still applies: in a
/// mostly idle pool a search over [`IDLE_SPINNERS`] goes idle.
///
/// Why: over the cap a worker that found nothing re-checked and parked at
/// once, and a pool whose work comes in bursts with short gaps (the sweeps
/// of a stencil, the runs of a reduction, back-to-back parallel calls)
/// parked and re-woke most of its workers at every gap, a futex wakeup
/// (microseconds) on the critical path of the next burst each time; in
/// the simulator, at 192 workers, hierarchical's workers parked about
/// 1,500 times in an 8-sweep stencil and rayon's, which have no cap,
/// never (`docs/spin-over-cap.md`). The cap bounded the crowd of spinners
/// because each pass looks at other workers' queues; bounded per LLC
/// instead, each LLC's queues see at most [`LLC_SPINNERS`] readers while a
/// far pass loads a few words per other LLC. The spins are far passes,
/// not near ones, because a worker over the cap has no mate's halves to
/// wait for (many mates search) and would have looked everywhere at its
/// re-check: near passes there delayed a scope's far jobs (`spawn` 1.3 to
/// 1.8 times slower in the simulator). The budget condition keeps light
/// and irregular loads parking after their short spins, as before.
#[inline]
pub(crate) fn may_spin_over_cap(long_budget: bool, llc_searching: impl FnOnce() -> isize) -> bool {
    long_budget && llc_searching() <= LLC_SPINNERS
}
