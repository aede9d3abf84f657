//! A worker's operations on its own queues, one copy for the pool's
//! threads and the simulator: push and notify, the private `join` halves
//! (push, take back, promotion), the local takes, and the marks a worker
//! publishes for its LLC mates' passes (`STARTING`, `CROSSING`).
//!
//! Each operation is a generic function over an [`Owner`]: the worker
//! thread (`&WorkerThread`), whose accounting hooks are its counters and
//! which pays nothing for the genericity (one instantiation, inlined as
//! the methods were), and the simulated worker (`sim`), whose hooks charge
//! the costs of its cost model to simulated time. The rules these
//! operations apply are in `private` (`must_publish` and the promotion
//! rules `promote_at_entry`, `promote_at_exit`) and `sleep`
//! (`Sleep::notify`);
//! what the sleep proof asks of them is in "Private `join` halves" of
//! [`super::sleep`].
//!
//! The deal of a ramp-up and the re-deal to a dry LLC ([`super::deal`])
//! are applied here too, by [`promote`] and [`promote_all`] in a pool of
//! several LLCs (`deal`, `redeal`: the rules are `Deal::target` and
//! `Deal::redeal`); an owner gives them five primitives, called only from
//! there: [`Owner::llc`] and [`Owner::llc_free`] (hints for the rules),
//! [`Owner::steal_oldest`] (a steal of its own deque, which may lose to a
//! thief), [`Owner::hold_dealt`] (the hold [`Owner::take_dealt`] later
//! looks at) and [`Owner::deal_to`] (the pack queue's push and wakeup).
//!
//! Invariants: only the worker itself calls these (its private stack has
//! one owner, the [`Owner`] contract); a private push ends both marks; a
//! job moved from the private stack to the deque is followed by one
//! fenced notify; a dealt job goes through [`Owner::deal_to`] once, after
//! [`Owner::hold_dealt`] if it was a private half, without it if it was
//! the deque's oldest (whose frame then waits for its latch, as for a
//! stolen job).

use std::cell::Cell;

use crossbeam_deque::{Injector, Steal, Worker};

use super::private::{self, Popped, PrivateStack};
use super::sleep::Sleep;

/// A mark of [`start_piece`]: the worker starts a piece of a parallel
/// iterator's first split (published as `ThreadInfo::starting`).
pub(crate) const STARTING: u8 = 1;

/// A mark of [`mark_crossing`]: the worker runs a job taken from another
/// LLC's worker (counted in `LlcHints::crossing`).
pub(crate) const CROSSING: u8 = 2;

/// A worker as the operations on its own queues see it.
///
/// # Safety
/// The operations of this module are called only by the worker itself
/// (for a thread: on that thread; for the simulator: by its one thread),
/// and [`Owner::private`] is that worker's private stack, which has no
/// other owner: the owner-only operations of [`PrivateStack`] rely on it.
pub(crate) unsafe trait Owner {
    /// A job as the queues hold it (a handle: copied into the private
    /// stack and, on overflow, onto the deque).
    type Job: Copy;

    /// The own deque.
    fn deque(&self) -> &Worker<Self::Job>;

    /// The own private `join` halves.
    fn private(&self) -> &PrivateStack<Self::Job>;

    /// The pool's sleep state.
    fn sleep(&self) -> &Sleep;

    /// The idle masks' summary root word (`IdleMasks::root_word`), which
    /// [`private::rules::must_publish`] loads after every private push.
    fn idle_word(&self) -> &crate::sync::AtomicU64;

    /// The marks as last published ([`STARTING`], [`CROSSING`]).
    fn marks(&self) -> u8;

    /// Sets [`Owner::marks`] (publishing is [`Owner::publish_starting`]'s
    /// and [`Owner::count_crossing`]'s).
    fn set_marks(&mut self, marks: u8);

    /// Publishes the `STARTING` mark (`ThreadInfo::starting`).
    fn publish_starting(&mut self, on: bool);

    /// Counts the worker in (`up`) or out of its LLC's crossing workers
    /// (`LlcHints::crossing`).
    fn count_crossing(&mut self, up: bool);

    /// After jobs were pushed on the own deque: the fenced
    /// [`Sleep::notify`], counting the wakeup.
    fn notify(&mut self);

    /// After private `join` halves were promoted to the own deque: the
    /// fenced [`Sleep::notify_queued`] with the deque's length, counting
    /// the wakeup (the spread of a ramp-up: "Spreading a ramp-up" in
    /// [`super::sleep`]). [`Owner::notify`] by default.
    #[inline(always)]
    fn notify_promoted(&mut self) {
        self.notify();
    }

    /// The own LLC (the deal's `l`, [`deal`]).
    fn llc(&self) -> usize;

    /// Whether LLC `m` may be dealt to (`Deal::target`'s and
    /// `Deal::redeal`'s `free`): its pack queue is empty and it runs no
    /// piece of a parallel iterator's first split. A hint, read without
    /// ordering.
    fn llc_free(&self, m: usize) -> bool;

    /// Takes the own deque's oldest job, as a thief does (a steal of the
    /// own deque: the re-deal's, [`redeal`]); `None` if the deque is empty
    /// or the steal lost a race.
    fn steal_oldest(&mut self) -> Option<Self::Job>;

    /// The owner's hold on `job`, a private half it deals now ("Taking a
    /// dealt half back" in [`super::deal`]): keeps the hold, newest last,
    /// for [`Owner::take_dealt`] when the half's frame comes to it, and
    /// returns the copy for the receiving LLC's pack queue.
    fn hold_dealt(&mut self, job: Self::Job) -> Self::Job;

    /// Pushes a dealt job (a held copy or the re-deal's unheld oldest) to
    /// LLC `llc`'s pack queue with that queue's wakeup
    /// (`group_routing::push_dealt`); an owner that keeps counts (the
    /// simulator's) counts the deal here.
    fn deal_to(&mut self, llc: usize, job: Self::Job);

    /// A `join` frame found its `b` gone from the private stack: if the
    /// newest half this owner holds ([`Owner::hold_dealt`]) is `b`, drops
    /// the owner's hold on it and returns whether the owner claimed it
    /// before the receiver's worker did (then the frame runs it inline;
    /// "Taking a dealt half back" in [`super::deal`]). False, doing
    /// nothing, if `b` was not dealt. Asked by every frame whose `b` is
    /// gone, in any pool: an owner that holds no dealt half answers at
    /// once.
    #[inline(always)]
    fn take_dealt(&mut self, b: Self::Job) -> bool {
        let _ = b;
        false
    }

    /// The own LLC's pack queue and the own cluster's spread queue.
    fn own_group_queues(&self) -> [&Injector<Self::Job>; 2];

    /// The own LLC's injector and the worker's turn flag for it (see
    /// [`take_own_group`]); `None` (the default): no turns.
    #[inline(always)]
    fn injector_turn(&self) -> Option<(&Injector<Self::Job>, &Cell<bool>)> {
        None
    }

    /// Counts a job pushed on the own deque.
    #[inline(always)]
    fn pushed(&mut self) {}

    /// Counts a private half promoted to the deque.
    #[inline(always)]
    fn promoted(&mut self) {}

    /// Counts a pop of the own deque (`hit`: it returned a job).
    #[inline(always)]
    fn popped(&mut self, hit: bool) {
        let _ = hit;
    }

    /// Counts a job taken from an own group queue.
    #[inline(always)]
    fn pulled(&mut self) {}

    /// Counts an operation on the private stack (a push or a take back).
    #[inline(always)]
    fn private_op(&mut self) {}

    /// Calls `f`, a path out of the `join` fast path's line, on this
    /// owner. The thread's owner (a `&WorkerThread`, `Copy`) hands `f` a
    /// copy, so that the `&mut` it passes to a function out of line is
    /// made on that path only, not stored on every `join`.
    #[inline(always)]
    fn out_of_line<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        f(self)
    }
}

/// Pushes a job on the own deque and wakes a helper if one is needed.
#[inline]
pub(crate) fn push<O: Owner>(o: &mut O, job: O::Job) {
    push_then(o, job, O::notify);
}

/// Pushes a job on the own deque, counts it, then calls `notify` (the
/// fenced notify of [`push`] or of [`promote`]).
#[inline(always)]
fn push_then<O: Owner>(o: &mut O, job: O::Job, notify: impl FnOnce(&mut O)) {
    o.deque().push(job);
    o.pushed();
    notify(o);
}

/// Records the second half of a `join` as *private*: only this worker
/// runs it unless it is promoted or claimed (see [`super::private`]).
/// Private halves become stealable in three ways:
/// - [`promote`], at `join` entry and exit while the deque holds fewer
///   than [`private::rules::PROMOTED_AHEAD`] jobs, so thieves find the oldest halves
///   (the largest pieces of work) on the deque, and a steal is answered by
///   a new promotion at this worker's next `join`;
/// - [`promote_all`], here when some worker is idle (it may have parked
///   before this push: see "Private `join` halves" in `sleep`), and before
///   this worker waits for a latch;
/// - a claim by a worker about to park (`WorkerThread::find_private`),
///   which does not depend on this worker reaching its next `join`.
///
/// Returns false, recording nothing, when the stack is full (a `join`
/// nested deeper than [`private::CAPACITY`], or private halves disabled):
/// the caller then publishes its half on the deque, as rayon does (the
/// `join` frame's [`JoinStep::Publish`](super::join_frame::JoinStep)).
///
/// The promotion rule at entry and the marks are looked at only when the
/// `wanted` hint is set ([`PrivateStack::want`]: the deque may have
/// shrunk, or a mark was set), which spares the fast path the deque's
/// length (three loads of its shared line) and the marks' test; the fast
/// push tests the hint and a full stack in one comparison
/// ([`PrivateStack::push_if_clear`]) and leaves both cases to
/// [`push_private_slow`].
#[inline(always)]
#[must_use]
pub(crate) fn push_private<O: Owner>(o: &mut O, job: O::Job) -> bool {
    o.private_op();
    // The stack and the idle word as plain pointers, read once: through
    // `o` the compiler reloads them after every store (the cold calls
    // below take `o`'s address, and the slot store might alias it).
    let stack: *const PrivateStack<O::Job> = o.private();
    let idle_word: *const crate::sync::AtomicU64 = o.idle_word();
    // SAFETY: the worker owns its private stack (the `Owner` contract),
    // which lives as long as the worker `o` is.
    if !unsafe { (*stack).push_if_clear(job) } {
        return o.out_of_line(|o| push_private_slow(o, job));
    }
    // After the push and its light fence: the idle check of the sleep
    // proof ("Private `join` halves", rule 2).
    // SAFETY: the idle word lives in the pool's sleep state, as long as
    // the worker.
    if private::rules::must_publish(unsafe { &*idle_word }, || o.sleep().idle()) {
        o.out_of_line(promote_all);
    }
    true
}

/// [`push_private`] when its fast push refused: the stack is full (returns
/// false, recording nothing), or the `wanted` hint is set (pushes, runs the
/// idle check as the fast path does, then [`join_entry`]).
#[cold]
#[inline(never)]
fn push_private_slow<O: Owner>(o: &mut O, job: O::Job) -> bool {
    // SAFETY: the worker owns its private stack (the `Owner` contract).
    if !unsafe { o.private().push(job) } {
        return false;
    }
    // After the push and its light fence, as in `push_private`.
    if private::rules::must_publish(o.idle_word(), || o.sleep().idle()) {
        promote_all(o);
    }
    join_entry(o);
    true
}

/// The `wanted` hint was set at a `join`'s entry, after the private push:
/// the push ends both marks (a mark sets the hint too, so that the fast
/// path tests one word for both), then the entry rule
/// ([`private::rules::promote_at_entry`]) promotes if some worker is searching.
/// Out of line: with the marks' end called from [`push_private`] inline,
/// `iter_paired`'s 1M stencil sweeps measured 0.98 to 1.02 of rayon's
/// time against 0.92 to 0.94 (alternating builds, one LLC, where no mark
/// but `STARTING` is ever set); out of line, 0.95 against 0.95.
#[cold]
#[inline(never)]
fn join_entry<O: Owner>(o: &mut O) {
    if o.marks() != 0 {
        end_marks(o, STARTING | CROSSING);
    }
    if o.sleep().searching() > 0 {
        refill(o, |len| private::rules::promote_at_entry(len, || true));
    }
}

/// The `wanted` hint is set: promotes the oldest private half if `rule`
/// (a promotion rule of `private`, given the deque's length) says so;
/// then, if the deque is still short
/// ([`private::rules::promote_at_exit`]), returns with the hint left set
/// (in both words: the `want` writes only where `limit` lacked it), else
/// clears it ([`PrivateStack::settle`]).
///
/// Why a short deque skips `settle`: `settle` would clear the hint and set
/// it again (only thieves touch the deque meanwhile, and they only shrink
/// it), three locked read-modify-writes of the line thieves read, for no
/// change of state. Where it shows: back-to-back short calls, where the
/// hint is set at nearly every `join` and the deque never holds
/// [`private::rules::PROMOTED_AHEAD`] jobs (about 20 refills per 20k
/// `sum_squares` call), and an iterator inside an iterator's items, whose
/// inner exits come here with nothing to promote (`docs/join-cost.md`,
/// "Session 32"; `docs/iter-paired.md`, "Session 26: nested").
#[cold]
#[inline(never)]
fn refill<O: Owner>(o: &mut O, rule: impl FnOnce(usize) -> bool) {
    let mut len = o.deque().len();
    if o.private().has_private() && rule(len) {
        promote(o);
        // The promotion pushed (or dealt) one half: the length again.
        len = o.deque().len();
    }
    if private::rules::promote_at_exit(len) {
        o.private().want();
        return;
    }
    o.private()
        .settle(|| private::rules::promote_at_exit(o.deque().len()));
}

/// Takes back the newest private `join` half (nested joins took theirs
/// back before returning). Returns true if it is still private (the
/// caller runs it); false if it was promoted to the deque or claimed by a
/// thief.
#[inline(always)]
pub(crate) fn pop_private<O: Owner>(o: &mut O) -> bool {
    o.private_op();
    // A plain pointer, read once (see `push_private`).
    let stack: *const PrivateStack<O::Job> = o.private();
    // SAFETY: the worker owns its private stack (the `Owner` contract),
    // which lives as long as the worker `o` is.
    match unsafe { (*stack).pop() } {
        Popped::Mine => true,
        Popped::Gone => false,
        // The exit is a second chance to refill the deque after a thief
        // took from it while `a` ran, so a long stretch without joins (a
        // serial partition before the next `join`) does not delay the
        // next promotion. Asked only when the hint says the deque may have
        // shrunk, which the pop's one comparison tests (`bottom`'s
        // `WANTED`, `private`'s module docs).
        Popped::Wanted => {
            o.out_of_line(|o| refill(o, private::rules::promote_at_exit));
            true
        }
    }
}

/// Makes the *oldest* private `join` half stealable: pushes it on the
/// deque with the fenced [`push`], which wakes a helper if some worker is
/// idle and none is searching. Does nothing when no half is private.
#[cold]
#[inline(never)]
pub(crate) fn promote<O: Owner>(o: &mut O) {
    // SAFETY: the worker owns its private stack (the `Owner` contract).
    if let Some(job) = unsafe { o.private().promote_oldest() } {
        o.promoted();
        let job = if o.sleep().deal().enabled() {
            match deal(o, job) {
                Some(job) => job,
                None => return,
            }
        } else {
            job
        };
        push_then(o, job, O::notify_promoted);
    }
}

/// Promotes every private `join` half (oldest first, so the deque's steal
/// end gets the largest), with one fenced notify for all.
#[cold]
#[inline(never)]
pub(crate) fn promote_all<O: Owner>(o: &mut O) {
    let mut moved = 0usize;
    if o.sleep().deal().enabled() {
        // The deal of a ramp-up takes the oldest halves first (`deal`);
        // the first it leaves goes on the deque with the rest.
        // SAFETY: the worker owns its private stack (the `Owner` contract).
        while let Some(job) = unsafe { o.private().promote_oldest() } {
            o.promoted();
            if let Some(job) = deal(o, job) {
                o.deque().push(job);
                o.pushed();
                moved += 1;
                break;
            }
        }
    }
    let counted = moved;
    // SAFETY: the worker owns its private stack (the `Owner` contract).
    unsafe {
        o.private().promote_all(|job| {
            o.deque().push(job);
            moved += 1;
        })
    };
    for _ in counted..moved {
        o.promoted();
        o.pushed();
    }
    if moved > 0 {
        o.notify_promoted();
    }
}

/// A private half just promoted, in a pool of several LLCs
/// ([`super::deal::Deal::enabled`]): the deal of a ramp-up pushes it, held,
/// to the LLC the regions name ([`Owner::hold_dealt`], [`Owner::deal_to`]);
/// else the re-deal to a dry LLC ([`redeal`]). A deal into an LLC none of
/// whose workers is awake marks it ([`super::deal::Deal::mark_asleep`]).
/// Returns the half if it goes to the own deque after all, `None` if it
/// was dealt. Out of line, as [`promote`] and [`promote_all`], its
/// callers, are.
#[inline(never)]
fn deal<O: Owner>(o: &mut O, job: O::Job) -> Option<O::Job> {
    let sleep = o.sleep();
    let Some(to) = sleep.deal().target(sleep, o.llc(), |m| o.llc_free(m)) else {
        return redeal(o, job);
    };
    let copy = o.hold_dealt(job);
    o.deal_to(to, copy);
    let sleep = o.sleep();
    sleep.deal().mark_asleep(sleep, to);
    None
}

/// The re-deal to a dry LLC ([`super::deal::Deal::redeal`]), asked when
/// the regions dealt nothing, with the halves the owner holds (its
/// deque's jobs and its private halves): moves the deque's oldest job,
/// unheld, if there is one (`job` then goes to the deque: returned), else
/// deals `job`, held. Cold and out of line: a pool of one LLC never comes
/// here, and the `join` fast path's layout must not pay for it
/// (`docs/join-cost.md`).
#[cold]
#[inline(never)]
fn redeal<O: Owner>(o: &mut O, job: O::Job) -> Option<O::Job> {
    let held = o.deque().len() + o.private().private_count();
    let sleep = o.sleep();
    let Some(to) = sleep.deal().redeal(sleep, o.llc(), held, |m| o.llc_free(m)) else {
        return Some(job);
    };
    if let Some(oldest) = o.steal_oldest() {
        o.deal_to(to, oldest);
        return Some(job);
    }
    let copy = o.hold_dealt(job);
    o.deal_to(to, copy);
    None
}

/// Pops the most recently pushed job of the own deque.
#[inline]
pub(crate) fn take_local<O: Owner>(o: &mut O) -> Option<O::Job> {
    let job = o.deque().pop();
    o.popped(job.is_some());
    if job.is_some() {
        // The deque shrank: the next `join` looks at it.
        o.private().want();
    }
    job
}

/// Takes a job from the own LLC's pack queue or the own cluster's spread
/// queue without going through a search (no searching count, like a pop
/// of the own deque): the fast path of a chain of group jobs handed on
/// inside one LLC. The search still looks at both queues.
///
/// The injector's turn: after a job of a group queue, the next call looks
/// at the own LLC's injector first ([`Owner::injector_turn`]). Why: a
/// worker looks at its injector only when it searches, and it does not
/// search while its group queues hold a job, so a job injected from
/// outside the pool (a plain `spawn`, or one into an `Affinity::Auto`
/// group that has learned no LLC, which is placed as a plain one) waited
/// for every packed job queued after it, as long as they kept coming
/// (`tests/groups.rs`, `injected_jobs_are_not_overtaken_by_later_packed_jobs`;
/// `docs/injector-turn.md`). With the turn, the injector gets one job in
/// two of those the LLC's workers take without a search; a worker whose
/// group queues stay empty never takes the turn.
#[inline]
pub(crate) fn take_own_group<O: Owner>(o: &mut O) -> Option<O::Job> {
    let job = injector_first(o).or_else(|| {
        let job = o.own_group_queues().into_iter().find_map(take_one);
        if job.is_some()
            && let Some((_, turn)) = o.injector_turn()
        {
            turn.set(true);
        }
        job
    });
    if job.is_some() {
        o.pulled();
    }
    job
}

/// The injector's turn of [`take_own_group`]: a job of the own LLC's
/// injector if the turn is set (which it clears).
#[inline]
fn injector_first<O: Owner>(o: &O) -> Option<O::Job> {
    let (injector, turn) = o.injector_turn()?;
    if !turn.replace(false) {
        return None;
    }
    take_one(injector)
}

/// One job of `q`, if it looks non-empty and the steal succeeds.
#[inline]
fn take_one<J>(q: &Injector<J>) -> Option<J> {
    if q.is_empty() {
        return None;
    }
    match q.steal() {
        Steal::Success(job) => Some(job),
        _ => None,
    }
}

/// Marks the worker as starting a piece of a parallel iterator's first
/// split, until its first `join` (which makes a half its LLC mates can
/// see) or [`end_marks`] of [`STARTING`]: meanwhile its mates do not look
/// beyond their LLC in ordinary passes (rule 2 of "Before crossing the
/// LLC" in `pass`).
#[inline]
pub(crate) fn start_piece<O: Owner>(o: &mut O) {
    let marks = o.marks();
    o.set_marks(marks | STARTING);
    o.publish_starting(true);
    // The next `join` ends it (`join_entry`).
    o.private().want();
}

/// Marks the worker as *crossing*: it just took a job from a worker of
/// another LLC (`pass::PassQueues::crossed`). Until its first `join` or
/// its next search, its LLC mates that find nothing spin for its halves
/// past the spinner cap instead of crossing too (`search::rules::may_spin`).
#[inline]
pub(crate) fn mark_crossing<O: Owner>(o: &mut O) {
    let marks = o.marks();
    if marks & CROSSING == 0 {
        o.set_marks(marks | CROSSING);
        o.count_crossing(true);
        // The next `join` ends it (`join_entry`).
        o.private().want();
    }
}

/// Ends the marks of `which` ([`STARTING`], [`CROSSING`]) that are set,
/// taking back what each published.
#[inline]
pub(crate) fn end_marks<O: Owner>(o: &mut O, which: u8) {
    let marks = o.marks();
    let ended = marks & which;
    o.set_marks(marks & !which);
    if ended & STARTING != 0 {
        o.publish_starting(false);
    }
    if ended & CROSSING != 0 {
        o.count_crossing(false);
    }
}

/// What a `join` frame whose `b` was promoted or claimed does next
/// ([`take_back`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TakeBack<J> {
    /// `b`'s latch is set: another worker ran it.
    Done,
    /// `b` was still on the own deque, or dealt and not claimed by its
    /// receiver, and is taken back: run it inline.
    Inline,
    /// Another job was on the own deque (pushed by `a` and left behind,
    /// e.g. a scope's spawn): run it, then ask again.
    Run(J),
    /// The own deque is empty: wait until `b`'s latch is set, running
    /// other jobs meanwhile (`WorkerThread::wait_until`, which first
    /// promotes every private half).
    Wait,
}

/// One step of a `join` frame after `a` returned and [`pop_private`]
/// found `b` gone (promoted to the deque, dealt to another LLC, or
/// claimed): take `b` back if it is still on the deque or dealt and not
/// claimed by its receiver ([`Owner::take_dealt`], asked first so that
/// the owner's hold is dropped on every path), else help until whoever
/// took it has set its latch. `b` is the frame's second half, `latch_set`
/// probes its latch, `is_b` recognises it. The pool's `join`
/// (`pool::join::take_back_or_wait`) and the simulator's `join` frame both
/// step it.
#[inline]
pub(crate) fn take_back<O: Owner>(
    o: &mut O,
    b: O::Job,
    latch_set: impl FnOnce() -> bool,
    is_b: impl FnOnce(&O::Job) -> bool,
) -> TakeBack<O::Job> {
    if o.take_dealt(b) {
        return TakeBack::Inline;
    }
    if latch_set() {
        return TakeBack::Done;
    }
    match take_local(o) {
        // Promoted, but nobody stole b.
        Some(job) if is_b(&job) => TakeBack::Inline,
        Some(job) => TakeBack::Run(job),
        None => TakeBack::Wait,
    }
}
