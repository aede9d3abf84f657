//! The rules around a worker's private `join` halves ([`super`]): when
//! the owner promotes its oldest half to its deque ([`PROMOTED_AHEAD`],
//! [`promote_at_entry`], [`promote_at_exit`]), when it must publish them
//! all because a worker may have parked without seeing them
//! ([`must_publish`]), and the one look a thief takes at them, in the
//! re-check before it parks ([`claim_before_parking`]; unfenced in a lazy
//! park's first re-check, [`look_before_parking`]).
//!
//! Invariant: [`claim_before_parking`] and [`must_publish`] are the two
//! rules of "Private `join` halves" in the sleep proof (`sleep_proof.md`),
//! with no other copy: a parking worker looks, under a heavy fence, and
//! claims a private half it sees; an owner that sees an idle worker after
//! its push publishes all its halves. The pool (`owner`,
//! `worker::pass_queues`), the simulator and the loom models call these.

use crate::runtime::idle::IdleMasks;
use crate::sync::{AtomicU64, Ordering, heavy_fence};

use super::{Claim, PrivateStack};

/// A worker holding private `join` halves promotes one at each `join`
/// entry and exit while its deque holds fewer jobs than this. Two rather
/// than one: after a steal one job is still there for the next thief
/// (or the same one), so repeated steals from one victim do not wait for
/// its next `join`; more pays for promotions (a fenced push each) that no thief needs
/// (`docs/promotion.md`).
pub(crate) const PROMOTED_AHEAD: usize = 2;

/// The promotion rule of private `join` halves at a `join`'s exit: promote
/// the oldest half while the deque holds fewer than [`PROMOTED_AHEAD`]
/// jobs. Asked only while the `wanted` hint is set (the deque may have
/// shrunk: the pop's [`Popped::Wanted`](super::Popped::Wanted)), by `owner::pop_private`.
#[inline]
pub(crate) fn promote_at_exit(deque_len: usize) -> bool {
    deque_len < PROMOTED_AHEAD
}

/// The promotion rule at a `join`'s entry (after the private push): as at
/// its exit, and only while some worker is searching (`searching`, asked
/// only when the deque is short). Asked only while the push sees the
/// `wanted` hint set ([`PrivateStack::push_if_clear`] refused), by
/// `owner::push_private`.
///
/// Why the entry asks: while every worker is busy (an inner `par_iter` in
/// each item of an outer one) nobody would steal a promoted half, and each
/// promotion is a fenced push followed by a fenced pop back. The exit does
/// not ask: a thief's first pass, before it counts as searching, must find
/// the halves promoted at the exits (`docs/promotion.md`).
#[inline]
pub(crate) fn promote_at_entry(deque_len: usize, searching: impl FnOnce() -> bool) -> bool {
    promote_at_exit(deque_len) && searching()
}

/// Owner, right after [`PrivateStack::push`] (whose light fence orders
/// these reads after the push): whether it must publish all its private
/// halves because some worker is idle and unclaimed, so it may have parked
/// without seeing them (rule 2 of "Private `join` halves" in `sleep`).
/// `root` is `idle().root_word()`, kept by the caller: one load of a word
/// that stays zero while all work (`IdleMasks::any_unclaimed`'s first
/// test), and `idle` is only called when it is not.
#[inline(always)]
pub fn must_publish<'a>(root: &AtomicU64, idle: impl FnOnce() -> &'a IdleMasks) -> bool {
    root.load(Ordering::SeqCst) != 0 && idle().any_bit_set()
}

/// A worker's look at the other workers' private halves, in the re-check
/// before it parks (rule 1 of "Private `join` halves" in `sleep`): if its
/// idle bit `me` is still set (not claimed: a claimed worker does not
/// stay parked), a heavy fence, unless every worker is armed (idle), then
/// a claim on the first victim, in the order given, that shows a private
/// half. Returns the victim's index with the claimed half; `Busy` if a
/// claim was contended (look again before parking); `Empty` if there is
/// nothing to take. This is [`look_before_parking`] fenced, the name the
/// loom models use; the pool and the simulator call that with their lazy
/// flag, and only in that re-check: a heavy fence is a system call.
#[cfg_attr(not(loom), allow(dead_code))]
#[inline]
pub fn claim_before_parking<'a, T: Copy + 'a>(
    idle: &IdleMasks,
    me: usize,
    victims: impl IntoIterator<Item = (usize, &'a PrivateStack<T>)>,
) -> Claim<(usize, T)> {
    look_before_parking(idle, me, victims, true)
}

/// Whether [`look_before_parking`] of an idle worker runs its heavy
/// fence: if `fenced`, unless every worker is armed (an armed worker
/// holds no private half: "`P` skips `H`" in the sleep proof). The
/// simulator charges the fence's cost by this rule.
#[inline]
pub(crate) fn look_fences(idle: &IdleMasks, fenced: bool) -> bool {
    fenced && idle.armed_total() < idle.num_workers()
}

/// [`claim_before_parking`], with its heavy fence only if `fenced`. The
/// unfenced look is a *lazy park*'s re-check: its reads of the stacks'
/// ends may be stale, so it may miss a half (one it sees is still claimed
/// under the claim's own heavy fence); the worker then parks with a
/// timeout only, and looks fenced before any park without one ("The lazy
/// park" in "Private `join` halves" of `sleep`).
pub fn look_before_parking<'a, T: Copy + 'a>(
    idle: &IdleMasks,
    me: usize,
    victims: impl IntoIterator<Item = (usize, &'a PrivateStack<T>)>,
    fenced: bool,
) -> Claim<(usize, T)> {
    if !idle.is_idle(me) {
        return Claim::Empty;
    }
    if look_fences(idle, fenced) {
        heavy_fence();
    }
    let mut busy = false;
    for (v, stack) in victims {
        if v == me || !stack.has_private() {
            continue;
        }
        match stack.try_claim() {
            Claim::Taken(job) => return Claim::Taken((v, job)),
            Claim::Busy => busy = true,
            Claim::Empty => {}
        }
    }
    if busy { Claim::Busy } else { Claim::Empty }
}
