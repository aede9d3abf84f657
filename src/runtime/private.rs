//! A worker's private `join` halves, which idle workers can still take.
//!
//! `join(a, b)` records `b` here, runs `a`, and takes `b` back: a stack
//! (joins nest) of at most [`CAPACITY`] halves per worker. The owner's
//! push and pop are *fence-free*: plain stores and loads plus the light
//! side of an asymmetric fence (`sync::light_fence`, a compiler fence
//! under `membarrier`). Other threads take halves from the *bottom* (the
//! oldest, the largest pieces of work) in two ways:
//!
//! - the owner **promotes** the oldest one to its deque (`promote_oldest`,
//!   `promote_all`), after which it is an ordinary queued job;
//! - a thief **claims** the oldest one ([`PrivateStack::try_claim`]) under
//!   the heavy side of the fence (`membarrier`): the costly path, taken
//!   only by a worker about to park.
//!
//! This module is the stack and its protocol (the owner's push, pop and
//! promotions, the thief's claim, the `wanted` hint), each proof beside
//! the code it is about; `rules` says when they are used (the promotion
//! rules, the publication after a push, the claim before parking).
//!
//! # State
//!
//! Depths are kept in bytes: `top` and `bottom`'s index hold a depth
//! times the size of a slot (`STEP`), so that the owner's push addresses
//! its slot by adding `top` to the slots' address, without a
//! multiplication (two instructions of every `join`: `docs/join-cost.md`,
//! fifth round). Below, "depth `i`" and "`i + 1`" are in slots (one step
//! of `STEP` bytes); every comparison of the protocol is between two
//! such values, so it reads the same in either unit.
//!
//! - `slots[i]`: the half at depth `i`; written by the owner only, before
//!   it publishes `top > i`.
//! - `top`: the number of halves pushed and not popped; written by the
//!   owner only (Release, so a thief that reads it also reads the slots
//!   below it).
//! - `bottom`: `index | LOCKED | WANTED` (the two top bits, so that the
//!   owner's fast pop is one comparison: an unlocked, hint-free
//!   `index <= t`). Halves below `index` are gone (promoted or claimed);
//!   halves in `index..top` are private. `LOCKED` is held by a thief for
//!   the duration of one claim; every change of `index` is a CAS from an
//!   unlocked value (owner: promote, or reset after its half was taken;
//!   thief: lock), or a read-modify-write by the lock holder (its release).
//!   `WANTED` is the pop's copy of the `wanted` hint (below): set and
//!   cleared by read-modify-writes that change no other bit, and kept by
//!   every write of `index` (a CAS carries the bit of the value it
//!   replaces; the lock holder's release changes only `LOCKED` and
//!   `index`).
//! - `limit`: the push's copy of the hint (the capacity while it is clear,
//!   0 while it is set), so that the push's one comparison (`top < limit`)
//!   tests both a full stack and the hint. Not part of the claim.
//!
//! # The claim (thief) against the pop (owner)
//!
//! ```text
//! owner pops depth t                     thief claims depth i
//! O1 top := t            (Release)       T1 CAS bottom (i, free) -> (i+1, LOCKED)
//! O2 light fence                         T2 heavy fence
//! O3 w := bottom         (Relaxed)       T3 n := top       (Acquire)
//! O4 w <= t (free, no hint,              T4 n > i: read slots[i], then unlock:
//!    index <= t): mine                      bottom -= LOCKED (index stays i+1)
//!    else: slow path (below)                else: bottom -= LOCKED + 1 (give up:
//!                                           index back to i)
//! ```
//!
//! (T1 carries `WANTED` over from the value it replaces; T4's writes are
//! read-modify-writes, so a hint set or cleared during the claim stays as
//! it was set or cleared. Subtracting `LOCKED` clears exactly that bit,
//! which is set, and `index` is at least one step while locked, so neither
//! subtraction borrows from `WANTED`.)
//!
//! O1-O3 against T1-T3 is the store-buffering pattern, and the two fences
//! act as `fence(SeqCst)`s: if T3 does not read O1 or a later store, then
//! T2 precedes O2 in the fences' order and O3 reads T1 or a later value of
//! `bottom`. Hence:
//!
//! 1. **No half is run twice.** If the thief takes depth `i` (T3 reads
//!    `n > i`) and the owner pops depth `i` (O1 stores `i`), T3 did not
//!    read O1 or anything after it up to the owner's next push; so O3
//!    reads an index `> i` (T1's, or a later one: only the lock holder and
//!    the owner change `index`, the hint's writes do not, and nothing
//!    lowers it below `i + 1` before the owner's slow path), and the
//!    owner does not take the fast path (its condition implies
//!    `index <= t`, whatever `WANTED` is). On the slow path it waits
//!    while `LOCKED` is set, then sees `index > t`: the half is gone (the
//!    thief runs it; `join` waits for its latch). If T3 reads a store *after* O1 (the owner pushed a new
//!    half at depth `i` after taking the old one back), the thief takes
//!    the new half, which is as private as the old one was; T3's Acquire
//!    pairs with that push's Release, so it reads the new slot.
//! 2. **No half is lost.** If the owner takes the fast path it runs the
//!    half itself. If the thief gives up at T4 it restores `index`, and an
//!    owner on its slow path (which waited for `LOCKED` to clear) reads
//!    `index <= t`: the half is its own.
//! 3. **Slots are not overwritten while read.** A thief reads
//!    `slots[i]` while it holds `LOCKED`, so the owner's slow path (which
//!    waits for an unlocked value with Acquire) does not return, and the
//!    owner does not push at depth `i` again, before the read is done; the
//!    fast path at depth `i` is excluded by (1).
//!
//! Promotions are CASes from unlocked values, so they never run during a
//! claim; they only move `index` up, over halves the owner itself hands to
//! its deque. The owner's slow path resets `index` from `t + 1` to `t`
//! (with a CAS, against a thief locking at the same moment), keeping
//! `index <= top` outside claims. A set `WANTED` sends the pop to its
//! slow path even when `index <= t`; there the half is the owner's
//! exactly when the fast path would have said so (the slow path decides
//! on `index` alone), and the pop reports the hint with it
//! ([`Popped::Wanted`]).
//!
//! # The `wanted` hint
//!
//! The hint says that the owner's deque may hold fewer jobs than the
//! promotion rules want (`promote_at_entry`, `promote_at_exit`): a thief
//! stole from it, the owner popped from it, or a mark was set (`owner`).
//! The push tests it in `limit`, the pop in `bottom`'s `WANTED`, each with
//! the one comparison it makes anyway; a pop that sees `WANTED` (or a
//! push that sees `limit` at 0, while some worker searches) refills the
//! deque (`owner::refill`): it promotes per the rules, then settles the
//! hint only if the deque holds enough; while it is still short, the
//! refill leaves the hint set and writes nothing but a `want` (which
//! writes only where `limit` lacked the hint: the converse state below).
//! Its writes:
//!
//! ```text
//! want (anyone)                          settle (owner)
//! W1 limit load != 0 (Relaxed), then:    S1 bottom &= !WANTED   (SeqCst)
//! W2 limit := 0        (SeqCst)          S2 limit := cap        (SeqCst)
//! W3 bottom |= WANTED  (SeqCst)          S3 short = the deque's length test
//!                                        S4 if short: limit := 0, bottom |= WANTED
//! ```
//!
//! Invariant (H): once every `want` and `settle` begun has returned,
//! `limit == 0` implies that `bottom` holds `WANTED`. Else the push would
//! take its slow path at every `join` while the pop, seeing no hint,
//! never settles it (the push's slow path settles only while some worker
//! searches), until some later steal set `WANTED`.
//!
//! Proof: say `limit`'s last value is 0 and `bottom`'s lacks `WANTED`. A
//! new stack holds the bit, only S1 clears it, and every other write of
//! `bottom` keeps it (a CAS or read-modify-write carries the bit of the
//! latest value); so some S1 cleared it, and after the last S1 in
//! `bottom`'s modification order (call it S1*) nothing set it again. The
//! S2* of S1*'s `settle` stored the capacity, so the last 0 in `limit` is
//! a later store Z (in `limit`'s modification order): an S4 or a W2, whose
//! `|= WANTED` precedes S1* in `bottom`'s order.
//! - Z in an S4: its `|= WANTED` and S1* are both the owner's, so by
//!   coherence that S4 precedes S1* in program order, and S2* follows Z in
//!   program order, hence in `limit`'s order: Z was not last.
//! - Z a W2: W2 precedes its W3 (program order), W3 precedes S1*
//!   (`bottom`'s order), S1* precedes S2* (program order), S2* precedes W2
//!   (`limit`'s order). All four are SeqCst, whose single total order
//!   agrees with program order and with each location's modification
//!   order: a cycle.
//!
//! (H) is why `want` writes `limit` before `bottom` and `settle` clears
//! them in the other order. The converse state, `WANTED` set with `limit`
//! at the capacity (a `want` whose W2 a `settle` overwrote, or whose W3
//! came after it), costs one slow pop, whose refill sets `limit` again
//! (a `want`, the deque short) or settles both.
//!
//! A refill that finds its deque short runs no `settle`: a `settle` there
//! would clear the hint and set it again (S4), three locked writes of the
//! line thieves' steals write too, for no change of state (only thieves
//! touch the deque meanwhile, and they only shrink it). Its `want` is one
//! of W1-W3, so the proof above covers it: (H) holds, and the claim
//! (T1-T4) never reads `limit` and keeps `WANTED` as it is. A thief whose
//! steal lands after the refill read the length finds the hint set and
//! writes nothing, as it would after S4.
//!
//! Beyond (H) the hint is a hint: a `want` that reads `limit == 0` at W1
//! just before a `settle` clears it writes nothing, and a pop may read
//! `bottom` before a concurrent W3 lands. Either costs a promotion the
//! rules asked for, never a job: promotions only feed thieves (the sleep
//! protocol does not use them: a parking worker claims private halves
//! itself, "Private `join` halves" in `sleep`).
//!
//! Under loom both fences are `fence(SeqCst)` and `loom-tests/tests/
//! private.rs` checks this protocol (every half runs exactly once, no data
//! race on a slot, a hint set during a claim is kept, and (H)).

use std::mem::MaybeUninit;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicUsize, Ordering, SpinWait, UnsafeCell, heavy_fence, light_fence};

pub(crate) mod rules;

/// Private halves a worker holds at most; a `join` nested deeper pushes
/// its `b` on the deque directly (as rayon does for every `join`). Small
/// under loom, whose models push a few.
pub const CAPACITY: usize = if cfg!(loom) { 4 } else { 64 };

/// The `bottom` word's lock bit (see the module docs).
const LOCKED: usize = 1 << (usize::BITS - 1);

/// The `bottom` word's copy of the `wanted` hint (see the module docs):
/// below `LOCKED`, above every index, so that a set hint fails the pop's
/// fast test as a lock does.
const WANTED: usize = 1 << (usize::BITS - 2);

/// The `bottom` word's index bits.
const INDEX: usize = !(LOCKED | WANTED);

/// The two ends, in one cache line: the owner writes `top` and reads
/// `bottom` on every pop, thieves rarely touch either. With them the
/// `limit`, which the owner reads on every push (the capacity and the
/// `wanted` hint in one word).
#[derive(Debug)]
struct Ends {
    top: AtomicUsize,
    bottom: AtomicUsize,
    /// [`CAPACITY`] (in bytes, as `top`), or 0 where the process has no
    /// `membarrier` (then every half is public at once: see
    /// [`PrivateStack::disabled`]).
    cap: usize,
    /// `cap` while the `wanted` hint is clear, 0 while it is set, so that
    /// the push's one comparison (`top < limit`) tests both a full stack
    /// and the hint (the pop tests `bottom`'s `WANTED`). The hint is set
    /// when the owner's deque may have shrunk since the owner last saw it
    /// hold enough promoted halves (a thief took a job from it, or the
    /// owner popped one), and cleared by the owner once it holds enough
    /// again ([`PrivateStack::want`], [`PrivateStack::settle`], and "The
    /// `wanted` hint" in the module docs). Not part of the claim protocol:
    /// a hint that spares the owner a look at its deque's length at every
    /// `join`.
    limit: AtomicUsize,
}

/// One worker's private `join` halves (see the module docs).
#[derive(Debug)]
pub struct PrivateStack<T> {
    ends: CachePadded<Ends>,
    /// Inline, so that the owner's push needs no pointer load to reach
    /// them.
    slots: [UnsafeCell<MaybeUninit<T>>; CAPACITY],
}

// SAFETY: the slots are written only by the owner and read by a thief only
// under the protocol of the module docs (after an Acquire load of `top`
// that publishes them, while holding `LOCKED`, which keeps the owner from
// writing that slot); `T: Send` because a claimed half moves to the thief.
unsafe impl<T: Send> Sync for PrivateStack<T> {}
// SAFETY: as above; the stack owns its halves' values.
unsafe impl<T: Send> Send for PrivateStack<T> {}

/// What the owner's pop found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Popped {
    /// The half was still private: the owner runs it.
    Mine,
    /// As `Mine`, and the `wanted` hint is set: the owner runs the half
    /// and looks at its deque (`owner::pop_private`).
    Wanted,
    /// It was promoted or claimed: whoever has it runs it.
    Gone,
}

/// What a thief's claim found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim<T> {
    /// The oldest private half, now the thief's.
    Taken(T),
    /// Another thief holds the lock, or the word changed under us: the
    /// stack may still hold a half (look again before parking).
    Busy,
    /// No private half (or the owner took the last one back meanwhile).
    Empty,
}

impl<T: Copy> Default for PrivateStack<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> PrivateStack<T> {
    /// An empty stack of [`CAPACITY`] halves.
    pub fn new() -> Self {
        Self::with_capacity(CAPACITY)
    }

    /// A stack that holds nothing: every `push` fails, so `join` makes
    /// every second half public at once, as rayon does. The mode of a
    /// process without `membarrier`: there the light fence would have to
    /// be a full fence, which costs more than it saves (see `sync`).
    pub fn disabled() -> Self {
        Self::with_capacity(0)
    }

    /// The bytes of one slot: one step of `top` and of `bottom`'s index
    /// (module docs, "State").
    const STEP: usize = {
        let step = std::mem::size_of::<UnsafeCell<MaybeUninit<T>>>();
        assert!(step > 0, "a private half must take memory");
        step
    };

    fn with_capacity(cap: usize) -> Self {
        PrivateStack {
            ends: CachePadded::new(Ends {
                top: AtomicUsize::new(0),
                bottom: AtomicUsize::new(WANTED),
                cap: cap * Self::STEP,
                // The deque starts empty: the hint is set, in both words.
                limit: AtomicUsize::new(0),
            }),
            slots: std::array::from_fn(|_| UnsafeCell::new(MaybeUninit::uninit())),
        }
    }

    /// Owner: the number of halves pushed and not popped (for tests).
    #[cfg(any(test, loom))]
    pub fn depth(&self) -> usize {
        // Only the owner writes `top`: its own load is current.
        self.ends.top.load(Ordering::Relaxed) / Self::STEP
    }

    /// The slot at byte offset `at` (a depth in bytes, module docs).
    ///
    /// # Safety
    /// `at` is a multiple of `STEP` below `cap`.
    #[inline(always)]
    unsafe fn slot(&self, at: usize) -> &UnsafeCell<MaybeUninit<T>> {
        debug_assert!(at % Self::STEP == 0 && at < CAPACITY * Self::STEP);
        // SAFETY: the caller's contract: `at` is the offset of a slot.
        unsafe { &*self.slots.as_ptr().byte_add(at) }
    }

    /// Owner: the newest half, whether still private or not (for checks).
    ///
    /// # Safety
    /// As [`PrivateStack::push`].
    pub unsafe fn newest(&self) -> Option<T> {
        let t = self.ends.top.load(Ordering::Relaxed);
        // SAFETY: the slot below `top` was written by this (owner) thread,
        // and other threads only read slots.
        (t > 0)
            .then(|| unsafe { self.slot(t - Self::STEP) }.with(|p| unsafe { (*p).assume_init() }))
    }

    /// Owner: pushes `job` and then runs the light fence, so that the
    /// owner's next loads are ordered after the push for any thief's heavy
    /// fence (the sleep protocol relies on it: see `sleep`, "Private `join`
    /// halves"). Returns false, pushing nothing, when the stack is full
    /// (or [disabled](Self::disabled)).
    ///
    /// # Safety
    /// Only the owning thread may call the owner methods (`push`, `pop`,
    /// `promote_oldest`, `promote_all`).
    #[inline]
    pub unsafe fn push(&self, job: T) -> bool {
        let t = self.ends.top.load(Ordering::Relaxed);
        if t >= self.ends.cap {
            return false;
        }
        // SAFETY: `t < cap`, and the caller's contract.
        unsafe { self.write_top(job, t) };
        true
    }

    /// Owner: [`push`](Self::push) if the `wanted` hint is clear (and the
    /// stack not full), with one comparison for both tests (see `Ends`);
    /// returns false, pushing nothing, otherwise. The `join` fast path's
    /// push: the caller takes its slow path on false.
    ///
    /// # Safety
    /// As [`PrivateStack::push`].
    #[inline(always)]
    pub unsafe fn push_if_clear(&self, job: T) -> bool {
        let t = self.ends.top.load(Ordering::Relaxed);
        if t >= self.ends.limit.load(Ordering::Relaxed) {
            return false;
        }
        // SAFETY: `t < limit <= cap`, and the caller's contract.
        unsafe { self.write_top(job, t) };
        true
    }

    /// The push at depth `t` (`top`), then the light fence.
    ///
    /// # Safety
    /// As [`PrivateStack::push`]; `t` is `top` and `t < cap`.
    #[inline(always)]
    unsafe fn write_top(&self, job: T, t: usize) {
        // SAFETY: slot `t` is not readable by thieves: `top == t`, and a
        // thief reads only below the `top` it loaded; a thief still
        // reading a slot holds `LOCKED`, and that slot is below `t` (the
        // owner's pop at its depth waited for the lock: module docs, 3).
        // SAFETY (offset): `t < cap`, a multiple of `STEP` (`top` moves by
        // one `STEP` at a time).
        let slot = unsafe { self.slot(t) };
        slot.with_mut(|p| unsafe { (*p).write(job) });
        self.ends.top.store(t + Self::STEP, Ordering::Release);
        light_fence();
    }

    /// Owner: pops the newest half. Fence-free unless a thief or a
    /// promotion took it (then the slow path, which may wait for a thief's
    /// claim to finish) or the `wanted` hint is set (the slow path too,
    /// which reports it).
    ///
    /// # Safety
    /// As [`PrivateStack::push`]; the stack must not be empty.
    #[inline]
    pub unsafe fn pop(&self) -> Popped {
        let t = self.ends.top.load(Ordering::Relaxed);
        debug_assert!(t > 0, "pop of an empty private stack");
        let t = t - Self::STEP;
        self.ends.top.store(t, Ordering::Release);
        light_fence();
        let w = self.ends.bottom.load(Ordering::Relaxed);
        // Unlocked, no hint, and `index <= t` (a locked or hinted word is
        // above every depth).
        if w <= t {
            return Popped::Mine;
        }
        self.pop_slow(t)
    }

    /// The pop's slow path: `bottom` said depth `t` may be gone, or that
    /// the hint is set. Waits for a claim in progress, then decides; if
    /// gone, resets `index` to `t` (keeping `WANTED`).
    #[cold]
    #[inline(never)]
    fn pop_slow(&self, t: usize) -> Popped {
        let mut wait = SpinWait::default();
        loop {
            let w = self.ends.bottom.load(Ordering::Acquire);
            if w & INDEX <= t {
                // Never taken, a thief gave up on it (module docs, 2), or
                // a thief is claiming a half below it.
                return if w & WANTED != 0 {
                    Popped::Wanted
                } else {
                    Popped::Mine
                };
            }
            if w & LOCKED != 0 {
                wait.spin();
                continue;
            }
            // Depth `t` is gone; nothing private is left above it.
            if self
                .ends
                .bottom
                .compare_exchange(w, t | (w & WANTED), Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Popped::Gone;
            }
        }
    }

    /// Owner: makes the oldest private half the caller's to publish (it
    /// will push it on its deque). `None` if every half is gone already.
    ///
    /// # Safety
    /// As [`PrivateStack::push`].
    pub unsafe fn promote_oldest(&self) -> Option<T> {
        // SAFETY: the owner calls this.
        let (i, _) = unsafe { self.promote(false) }?;
        Some(self.read_promoted(i))
    }

    /// Owner: makes every private half the caller's to publish, oldest
    /// first (`f` is called on each).
    ///
    /// # Safety
    /// As [`PrivateStack::push`].
    pub unsafe fn promote_all(&self, mut f: impl FnMut(T)) {
        // SAFETY: the owner calls this.
        if let Some((i, t)) = unsafe { self.promote(true) } {
            for d in (i..t).step_by(Self::STEP) {
                f(self.read_promoted(d));
            }
        }
    }

    /// Owner: moves `index` over the oldest private half (`all`: over
    /// every one) with a CAS from an unlocked value (keeping `WANTED`),
    /// waiting out a claim in progress. Returns the depths handed over, `i..t` (`None`: no
    /// private half).
    ///
    /// # Safety
    /// As [`PrivateStack::push`].
    unsafe fn promote(&self, all: bool) -> Option<(usize, usize)> {
        let t = self.ends.top.load(Ordering::Relaxed);
        let mut wait = SpinWait::default();
        loop {
            let w = self.ends.bottom.load(Ordering::Acquire);
            let i = w & INDEX;
            if i >= t {
                return None;
            }
            if w & LOCKED != 0 {
                wait.spin();
                continue;
            }
            let to = if all { t } else { i + Self::STEP };
            if self
                .ends
                .bottom
                .compare_exchange(w, to | (w & WANTED), Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Some((i, to));
            }
        }
    }

    /// Owner: the half at depth `d` (in bytes), just promoted (below
    /// `index`).
    fn read_promoted(&self, d: usize) -> T {
        // SAFETY: `d` is a slot's offset below `top`; that slot was written
        // by this (owner) thread; thieves only read the slot at the index
        // they lock, which is above `d`.
        unsafe { self.slot(d) }.with(|p| unsafe { (*p).assume_init() })
    }

    /// Anyone: whether the stack seemed to hold a private half at a recent
    /// point (plain loads; exact only after a heavy fence, as the module
    /// docs and `sleep` use it).
    #[inline]
    pub fn has_private(&self) -> bool {
        self.private_count() > 0
    }

    /// Anyone: how many halves seemed private at a recent point (plain
    /// loads, `bottom` then `top`; exact only after a heavy fence, as
    /// [`has_private`](Self::has_private) says; alone, a size hint for
    /// thieves choosing a victim, never a claim).
    #[inline]
    pub fn private_count(&self) -> usize {
        let w = self.ends.bottom.load(Ordering::Relaxed) & INDEX;
        self.ends.top.load(Ordering::Relaxed).saturating_sub(w) / Self::STEP
    }

    /// Owner: whether its deque may hold fewer jobs than the promotion
    /// rules want ([`promote_at_exit`]), as the push sees it (`limit`)
    /// and as the pop sees it (`bottom`'s `WANTED`). Outside a `want` or
    /// `settle` in progress, the second is set whenever the first is
    /// (invariant (H) of the module docs). For checks and tests: `join`
    /// tests the hint in the push's and the pop's comparisons.
    #[cfg(any(test, loom))]
    pub fn wanted_by(&self) -> (bool, bool) {
        (
            self.ends.limit.load(Ordering::Relaxed) == 0,
            self.ends.bottom.load(Ordering::Relaxed) & WANTED != 0,
        )
    }

    /// Anyone: the owner's deque may have shrunk (a thief took from it, or
    /// the owner popped a job). Writes `limit`, then `bottom`'s `WANTED`
    /// (W1-W3 of the module docs), and only if the hint is clear, so that
    /// steals do not write the owner's line while it is set; a steal whose
    /// thief found it set just before the owner's [`settle`](Self::settle)
    /// cleared it can go unnoticed until the next steal or pop. The hint
    /// then errs towards fewer promotions, never towards a lost job:
    /// promotions only feed thieves (a parking worker claims private
    /// halves itself; `docs/join-cost.md`).
    #[inline]
    pub fn want(&self) {
        if self.ends.limit.load(Ordering::Relaxed) != 0 {
            self.ends.limit.store(0, Ordering::SeqCst);
            self.ends.bottom.fetch_or(WANTED, Ordering::SeqCst);
        }
    }

    /// Owner: clears the hint, `bottom`'s `WANTED` first and then `limit`
    /// (S1-S4 of the module docs), then calls `short` (the deque's length
    /// test, read after the clear) and sets the hint again if it says the
    /// deque is still short. `owner::refill` calls it only once it saw
    /// the deque hold enough; the re-test catches a steal between that
    /// look and S1, whose `want` found the hint still set and wrote
    /// nothing.
    #[inline]
    pub fn settle(&self, short: impl FnOnce() -> bool) {
        self.ends.bottom.fetch_and(!WANTED, Ordering::SeqCst);
        self.ends.limit.swap(self.ends.cap, Ordering::SeqCst);
        if short() {
            self.ends.limit.store(0, Ordering::Relaxed);
            self.ends.bottom.fetch_or(WANTED, Ordering::Relaxed);
        }
    }

    /// A thief: takes the oldest private half, if there is one (T1-T4 of
    /// the module docs). Runs one heavy fence when it tries.
    pub fn try_claim(&self) -> Claim<T> {
        let w = self.ends.bottom.load(Ordering::Acquire);
        if w & LOCKED != 0 {
            return Claim::Busy;
        }
        let i = w & INDEX;
        if self.ends.top.load(Ordering::Relaxed) <= i {
            return Claim::Empty;
        }
        let locked = (i + Self::STEP) | LOCKED | (w & WANTED);
        if self
            .ends
            .bottom
            .compare_exchange(w, locked, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return Claim::Busy;
        }
        heavy_fence();
        if self.ends.top.load(Ordering::Acquire) > i {
            // SAFETY: `top > i` was published with Release after slot `i`
            // was written (Acquire above), and the owner does not write
            // slot `i` again while we hold `LOCKED` (module docs, 3); `i`
            // is a slot's offset below `top`.
            let job = unsafe { self.slot(i) }.with(|p| unsafe { (*p).assume_init() });
            // Unlock at `i + 1`, with whatever `WANTED` is now (T4).
            self.ends.bottom.fetch_sub(LOCKED, Ordering::Release);
            Claim::Taken(job)
        } else {
            // The owner took it back (module docs, 2): unlock at `i`.
            self.ends
                .bottom
                .fetch_sub(LOCKED + Self::STEP, Ordering::Release);
            Claim::Empty
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
