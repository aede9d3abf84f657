//! The deal of a ramp-up: the first big `join` halves of a fork-join that
//! starts while the rest of the pool has no work go one to each other LLC,
//! by a fixed bisection of the LLCs, so that a cold and a warm start
//! spread the same tree the same way.
//!
//! # The rule
//!
//! Each LLC `l` has a *region*, a range of LLCs that contains `l` (one word
//! per LLC, kept only in pools of several LLCs). When a worker of `l`
//! promotes a private `join` half (`owner::promote`, `owner::promote_all`)
//! and `l`'s region holds more than `l`, it bisects the region: the half
//! of the region without `l` gets the job (*dealt* to that half's LLC
//! nearest `l`, which gets that half as its region), and `l` keeps the
//! half with `l`. A region of `l` alone deals nothing. The region of the
//! promoter's LLC becomes the whole pool (a *start*) when
//! - at most one worker of the pool works (every other one is idle or
//!   searching, a claimed worker not yet awake counted once, as
//!   searching: [`Deal::quiet`]), and
//! - no LLC's pack queue holds a job (a deal of this start not yet taken,
//!   or a group's job) and no LLC runs a piece of a parallel iterator's
//!   first split (`LlcHints::placed`: those pieces were placed where
//!   their data is, by their own rules; the caller's look),
//!
//! and every other region is then cleared.
//!
//! So the root of a fork-join run while nothing else runs (the first call
//! of a cold pool, or the next run of a repeated tree, while the workers
//! of the last one search or park) hands its first half (half the tree) to
//! the other half of the LLCs, its second half to the other quarter, and
//! so on, and each receiving LLC's first promotion deals on inside its own
//! region: with 2^k LLCs each gets one 2^-k of a balanced tree, in an
//! order fixed by the LLCs' numbers (neighbours first inside a package),
//! not by which worker arrives first.
//!
//! Why "works" is counted exactly (the idle bits, not the armed count): a
//! claimed worker stays armed until it wakes and is counted as searching
//! from its claim, so armed plus searching counts it twice; during a
//! ramp-up, with many claims in flight, that sum says quiet while several
//! workers run the tree, and a promotion there started the deal again,
//! sending small halves and their data to other LLCs in the middle of the
//! run. In the simulator the exact test cut `reduce`'s deals on the
//! Kunpeng 920 from 33 to 24 and its bytes read across LLCs from 26.5 MB
//! to none (`docs/mid-run-stealing.md`, "Session 32: the exact quiet and
//! busy tests alone" and "Session 33").
//!
//! A dealt job goes to the receiving LLC's pack queue with the pack
//! queue's wakeup (`group_routing::push_to` with `Destination::Pack`): a
//! worker of that LLC takes it in step 2 of its next pass, another LLC's
//! only as the help rule allows, and the sleep proof's argument for pack
//! queues ("Queues of one LLC" in `sleep`) covers it as it covers a group
//! job. The owner's `join` takes the half back if no receiver claimed it
//! yet, else waits for its latch as for a stolen one (below).
//!
//! Why: the simulator's trace of `fib:28` on the Kunpeng 920 (4 LLCs of
//! 32 workers) put hierarchical stealing's loss in the first 15 us, where
//! the root's LLC took the biggest halves and the other LLCs lived on
//! small imports; a wake order that sent a cold pool's first halves to the
//! empty LLCs fixed `fib` but moved `reduce`'s data between its first run
//! and the warm ones after it (`docs/mid-run-stealing.md`).
//!
//! # Taking a dealt half back
//!
//! A dealt half has two holders: the copy in the receiving LLC's pack
//! queue and its owner's `join` frame ([`Dealt`]). Whichever claims it
//! first runs it: the receiver's worker that executes the copy, or the
//! owner when its `join` reaches the half (after `a` returned) before any
//! receiver did, which then runs it inline as if popped from its own deque
//! (`owner::take_back`). So a small tree whose `a` ends before the
//! receiving LLC's workers wake does not wait for them; a large one, whose
//! dealt halves the receivers claimed long before, is dealt as before.
//! The copy a receiver executes after the owner's claim runs nothing. The
//! owner's frames reach their halves in the reverse order of the deals (a
//! deal takes the oldest private half, and frames nest), so the owner
//! keeps its holds as a stack and looks only at its top.
//!
//! # A dealt half of a sleeping LLC
//!
//! A dealt job waits in its pack queue until the worker its push woke
//! arrives, a wakeup's latency later. When every worker of the receiving
//! LLC was armed at the deal (none awake), the deal marks that LLC
//! ([`Deal::mark_asleep`]), and a searcher of another LLC that finds
//! nothing inside its own LLC takes the half from that pack queue (a step
//! of `pass`, "A dealt half of a sleeping LLC"), instead of leaving it to
//! the worker still on its way. The mark goes once that LLC has an awake
//! worker or its pack queue looks empty (whoever sees it clears it), so
//! only the wakeup's window is covered: an LLC that is awake takes its
//! own deal as before. Only the deals of the regions mark, not the
//! re-deals (those go to dry LLCs on purpose, whose workers are coming).
//! The worker that takes the half from a marked LLC's pack queue is noted
//! as its receiver ([`Deal::note_receiver`]), and the mark stays while
//! that receiver is its LLC's only awake worker, so that searchers of
//! another LLC may take from its deque too (`pass`, "The receiver
//! alone").
//!
//! Why: a small tree started in an idle pool is dealt in two generations
//! of wakes: the root's receivers arrive a wakeup later and deal on to
//! LLCs that are all asleep, whose receivers arrive a wakeup later still,
//! while the root's LLC already has searchers with nothing to do. The
//! second-level half then starts a whole wakeup late, and the run ends
//! when it does. What taking it in that window gains, in the simulator:
//! `docs/mid-run-stealing.md`, "Session 36".
//!
//! # Re-dealing to a dry LLC
//!
//! Once the regions are spent, a promotion deals again, without a region,
//! when a busy LLC still holds a deep tree while another LLC has run dry
//! ([`Deal::redeal`]):
//! - the promoter holds at least [`REDEAL_HELD`] halves (its deque's jobs
//!   and its private halves: the oldest is that many `join` levels above
//!   its current frame, so a big subtree);
//! - no worker of its own LLC `l` is counted as searching or armed (idle);
//! - another LLC `d` is *dry*: at least three quarters of its workers are
//!   armed or searching (one load of its leaf of the idle summary, one of
//!   its searcher count);
//! - `d` is `free` (its pack queue empty, so at most one re-deal waits per
//!   LLC; no piece of an iterator's first split runs there), or *all
//!   out*: every one of its workers armed or searching, so nobody there
//!   has started what its pack queue holds (a job dealt to it a moment
//!   ago, its workers still waking);
//! - `d` received fewer than [`REDEAL_CAP`] re-deals since the last start,
//!   and the pool fewer than [`REDEAL_BURST`] in all.
//!
//! Of those LLCs, the one that received the fewest re-deals since the last
//! start, the nearest first among equals (`l`'s LLC order).
//!
//! What goes to `d`'s pack queue (the same push and wakeup as a deal) is
//! the oldest job the promoter holds: its deque's oldest, taken with an
//! ordinary steal of its own deque and pushed without a hold (its owner's
//! frame finds it gone and waits for its latch, as for a stolen one),
//! else, with an empty deque, the promoted half, dealt as above with a
//! hold. The half being promoted then goes to the deque as usual.
//!
//! Why: the deal gives `fib`'s unequal halves to the LLCs in shares of
//! 38 / 24 / 24 / 15% on four LLCs, so the dealer's LLC is the last to
//! finish. In the simulator's `fib:28` the rule fires a few times, at the
//! end of the ramp-up (11 to 16 us on the Kunpeng and the Xeon), when the
//! dealer's LLC is fully awake and holds a deep tree while the LLCs dealt
//! to are still waking: it moves `fib(16)` to `fib(21)` from the dealer's
//! LLC to them, which evens the shares out; later no worker holds that
//! many halves. It moves the deque's oldest, not the promoted half,
//! because at a promotion the deque holds the worker's bigger job and its
//! private halves are small (`docs/weighted-deal.md`, "Session 28").
//!
//! Why the fewest first, the cap and *all out*: the re-deals come in a
//! burst of 5 to 15 within 2 us, while the LLCs dealt to are still waking.
//! Nearest first sent the burst to the dealer's nearest LLC, which ended
//! with a third of the tree, while the LLC that got the deal's smallest
//! share (the last dealt, so the last to wake, its pack queue still
//! holding that share, hence not `free`) got none: the spread over seeds
//! of `fib:28` on the Kunpeng was 0.90 to 1.09 of rayon-like. Spreading
//! the burst over the dry LLCs, at most three each, and counting an LLC
//! none of whose workers has started yet as a target, evens the shares
//! (`docs/weighted-deal.md`, "Session 29").
//! Data workloads never meet the rule in the simulator: their trees are
//! shallower than [`REDEAL_HELD`], and an LLC running a placed piece is
//! not free.
//!
//! Everything here is a hint: the regions are read and bisected with CASes
//! so that two promoters of one LLC do not deal the same half of a region
//! twice, but any value only decides where a job is pushed, never whether
//! it is, so no interleaving loses or repeats a job. The same holds for
//! the counts a start reads ([`Deal::quiet`]): a start refused leaves the
//! promoter's region spent, and its half goes to its own deque as in a
//! pool of one LLC (or to a re-deal), so a stricter test makes starts
//! rarer and changes where halves run, never whether they run.

use std::cell::{Cell, RefCell};

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicUsize, Ordering};

use super::job::{Job, JobRef};
use super::sleep::Sleep;

/// Halves (deque jobs and private halves) a promoter must hold for a
/// re-deal (module docs, "Re-dealing to a dry LLC"): a deep tree's top
/// levels are worth moving to a dry LLC, a shallow tree's are not. The
/// value is the simulator's best for `fib:28` on the Kunpeng and the Xeon
/// together, and deeper than any data workload's tree
/// (`docs/weighted-deal.md`, "Session 28").
pub(crate) const REDEAL_HELD: usize = 14;

/// Re-deals an LLC receives at most between two starts (module docs,
/// "Re-dealing to a dry LLC"): a burst of re-deals is spread over the dry
/// LLCs instead of piling onto one. The simulator's best of 2 to 4 for
/// `fib:28` on the Kunpeng and the Xeon (`docs/weighted-deal.md`,
/// "Session 29").
pub(crate) const REDEAL_CAP: usize = 3;

/// Re-deals the whole pool makes at most between two starts: with many
/// small LLCs (12 or 24 of 8 workers) most of them read all out during a
/// ramp-up, and up to [`REDEAL_CAP`] re-deals each moved more of the tree
/// than the dealer's LLC had too much. Above the 9 that four LLCs can
/// take (`docs/weighted-deal.md`, "Session 29").
pub(crate) const REDEAL_BURST: usize = 10;

/// A region as one word: `lo << SHIFT | hi` (LLCs `lo..hi`); 0 (empty) is
/// the cleared region, which deals nothing.
const SHIFT: u32 = 16;

fn pack(lo: usize, hi: usize) -> usize {
    (lo << SHIFT) | hi
}

fn unpack(v: usize) -> (usize, usize) {
    (v >> SHIFT, v & ((1 << SHIFT) - 1))
}

/// The bisection of region `lo..hi` (holding `l`, at least two LLCs): the
/// LLC the job is dealt to, its region, and what `l` keeps.
pub(crate) fn bisect(lo: usize, hi: usize, l: usize) -> (usize, (usize, usize), (usize, usize)) {
    let mid = lo + (hi - lo).div_ceil(2);
    if l < mid {
        (mid, (mid, hi), (lo, mid))
    } else {
        (mid - 1, (lo, mid), (mid, hi))
    }
}

/// The regions of a pool of several LLCs (none in a pool of one).
pub struct Deal {
    regions: Box<[CachePadded<AtomicUsize>]>,
    /// Re-deals each LLC received since the last start (a hint, as the
    /// regions: it only decides where a re-deal goes, or that none does).
    redealt: Box<[CachePadded<AtomicUsize>]>,
    /// Bit `l`: LLC `l` (the first `usize::BITS`) was dealt a half while
    /// none of its workers was awake, and nobody has seen it awake or its
    /// pack queue empty since (module docs, "A dealt half of a sleeping
    /// LLC"). A hint, read by every pass that finds nothing in its LLC,
    /// written only at such a deal and once after it. One word in a pool
    /// of several LLCs, none in a pool of one (as `regions`), so that a
    /// one-LLC pool's sleep state keeps its size.
    asleep: Box<[CachePadded<AtomicUsize>]>,
    /// Per LLC (the first `usize::BITS`): the worker that took a job from
    /// its LLC's pack queue while the LLC was marked (`NO_RECEIVER` if
    /// none since the pool started): the receiver of the deal, whose
    /// deque a searcher of another LLC may rob while it is its LLC's only
    /// awake worker (module docs, "The receiver alone"). A hint, written
    /// once per such take; none in a pool of one LLC.
    receivers: Box<[AtomicUsize]>,
}

/// A [`Deal`] receiver slot that names no worker.
const NO_RECEIVER: usize = usize::MAX;

/// `n` words, all 0.
fn words(n: usize) -> Box<[CachePadded<AtomicUsize>]> {
    (0..n)
        .map(|_| CachePadded::new(AtomicUsize::new(0)))
        .collect()
}

impl Deal {
    /// Regions for `llcs` LLCs, all cleared (none for one LLC).
    pub(crate) fn new(llcs: usize) -> Self {
        let n = if llcs > 1 { llcs.min(1 << SHIFT) } else { 0 };
        Deal {
            regions: words(n),
            redealt: words(n),
            asleep: words(n.min(1)),
            receivers: (0..n.min(usize::BITS as usize))
                .map(|_| AtomicUsize::new(NO_RECEIVER))
                .collect(),
        }
    }

    /// Whether the pool has several LLCs (else nothing is ever dealt, and
    /// the owner does not ask).
    #[inline(always)]
    pub(crate) fn enabled(&self) -> bool {
        !self.regions.is_empty()
    }

    /// Whether at most one worker of the pool *works*: a worker works when
    /// its idle bit is clear and it is not counted as searching. So the
    /// workers whose idle bit is clear (a walk of the idle words,
    /// [`IdleMasks::awake_in`](super::idle::IdleMasks::awake_in)) minus
    /// the searching count must be at most one. A claimed worker not yet
    /// awake has its bit cleared by its claimer and is counted as
    /// searching by it: it is counted once, as not working.
    ///
    /// Why exact: the armed count keeps a claimed worker until it wakes,
    /// so "armed plus searching" counts it twice, and during a ramp-up
    /// with many claims in flight that sum reaches the pool's size while
    /// several workers work, and a promotion there would start the deal
    /// again, moving small halves (and their data) across LLCs in the
    /// middle of a run (module docs).
    ///
    /// The sum is still read first and the walk made only when it says
    /// quiet: it never says busy when this test says quiet (a set bit
    /// belongs to an armed worker, so armed plus searching is at least set
    /// bits plus searching), and it costs one load, the walk a load per 64
    /// workers. A hint: the counts are read at different times, and a
    /// wrong answer only makes a start (where halves go) more or less
    /// frequent, never whether a job is pushed (module docs).
    fn quiet(sleep: &Sleep) -> bool {
        let searching = sleep.searching().max(0) as usize;
        if !Self::counts_say_quiet(sleep, searching) {
            return false;
        }
        let idle = sleep.idle();
        // At most `searching + 1` workers awake: no `searching + 2`-th.
        idle.awake_in(0..idle.num_workers())
            .nth(searching + 1)
            .is_none()
    }

    /// The first, cheap test of [`Deal::quiet`]: armed plus `searching`
    /// workers make all but one of the pool (one load; a claimed worker
    /// not yet awake is in both counts, so this errs towards yes). The
    /// caller reads `searching` once for both tests.
    fn counts_say_quiet(sleep: &Sleep, searching: usize) -> bool {
        let idle = sleep.idle();
        idle.armed_total() + searching + 1 >= idle.num_workers()
    }

    /// After a half was dealt to LLC `to`: marks `to` if every worker of
    /// it is armed (none awake; the one the deal's push claimed counts as
    /// armed until it wakes), so that a searcher of another LLC may take
    /// the half (module docs, "A dealt half of a sleeping LLC"). Release:
    /// a searcher that sees the mark with [`Deal::asleep`] sees the push
    /// before it.
    pub(crate) fn mark_asleep(&self, sleep: &Sleep, to: usize) {
        if let Some(word) = self.asleep.first()
            && to < usize::BITS as usize
            && sleep.idle().all_armed(to)
        {
            word.fetch_or(1 << to, Ordering::Release);
        }
    }

    /// The marks of [`Deal::mark_asleep`] (bit `l` for LLC `l`; one load).
    #[inline]
    pub(crate) fn asleep(&self) -> usize {
        self.asleep.first().map_or(0, |w| w.load(Ordering::Acquire))
    }

    /// Clears LLC `l`'s mark: one of its workers is awake (other than a
    /// receiver alone: `pass`, "The receiver alone"), or its pack queue
    /// looked empty. A hint: a mark cleared while a new deal marks it
    /// again only costs that deal the take.
    pub(crate) fn unmark_asleep(&self, l: usize) {
        if let Some(word) = self.asleep.first() {
            word.fetch_and(!(1 << l), Ordering::Relaxed);
        }
    }

    /// Worker `w` of LLC `l` took a job from its LLC's pack queue while `l`
    /// was marked: it is the receiver of the deal ([`Deal::receiver`]).
    pub(crate) fn note_receiver(&self, l: usize, w: usize) {
        if let Some(slot) = self.receivers.get(l) {
            slot.store(w, Ordering::Relaxed);
        }
    }

    /// The last worker [`Deal::note_receiver`] named for LLC `l`, if any (one
    /// load; a hint: the caller checks that it is still its LLC's only
    /// awake worker, and a worker that parked since holds no job).
    #[inline]
    pub(crate) fn receiver(&self, l: usize) -> Option<usize> {
        self.receivers
            .get(l)
            .map(|slot| slot.load(Ordering::Relaxed))
            .filter(|&w| w != NO_RECEIVER)
    }

    /// Where a worker of LLC `l` that promotes a half deals it: the LLC
    /// to push it to, if the rule of the module docs says so. `free(m)`
    /// says whether LLC `m`'s pack queue is empty and `m` runs no piece of
    /// a parallel iterator's first split (asked only for a start). Returns
    /// `None` at once in a pool of one LLC.
    #[inline]
    pub fn target(&self, sleep: &Sleep, l: usize, free: impl Fn(usize) -> bool) -> Option<usize> {
        let own = self.regions.get(l)?;
        let mut cur = own.load(Ordering::Relaxed);
        loop {
            let (lo, hi) = unpack(cur);
            if hi <= lo + 1 {
                cur = self.start(sleep, l, cur, &free)?;
                continue;
            }
            let (to, theirs, mine) = bisect(lo, hi, l);
            match own.compare_exchange(
                cur,
                pack(mine.0, mine.1),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.regions[to].store(pack(theirs.0, theirs.1), Ordering::Relaxed);
                    return Some(to);
                }
                Err(v) => cur = v,
            }
        }
    }

    /// Where a worker of LLC `l` that holds `held` halves (its deque's
    /// jobs and its private halves) and whose promotion [`Deal::target`]
    /// did not deal re-deals its oldest job: of the dry LLCs that are
    /// `free` or all out and under [`REDEAL_CAP`] (and the pool under
    /// [`REDEAL_BURST`]), the one with the fewest
    /// re-deals, nearest first, if its own LLC is busy (module docs,
    /// "Re-dealing to a dry LLC"); counts the re-deal. `None` at once
    /// below [`REDEAL_HELD`] and in a pool of one LLC.
    #[inline]
    pub fn redeal(
        &self,
        sleep: &Sleep,
        l: usize,
        held: usize,
        free: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        if held < REDEAL_HELD || !self.enabled() {
            return None;
        }
        let to = self.dry_llc(sleep, l, &free)?;
        self.redealt[to].fetch_add(1, Ordering::Relaxed);
        Some(to)
    }

    /// [`Deal::redeal`] past its first test: whether `l` is busy, then the
    /// target among the dry LLCs.
    #[cold]
    #[inline(never)]
    fn dry_llc(&self, sleep: &Sleep, l: usize, free: &impl Fn(usize) -> bool) -> Option<usize> {
        let idle = sleep.idle();
        if sleep.searching_in(l) > 0 || idle.idle_count(l) > 0 {
            return None;
        }
        let redealt = |m: usize| self.redealt[m].load(Ordering::Relaxed);
        if (0..self.redealt.len()).map(redealt).sum::<usize>() >= REDEAL_BURST {
            return None;
        }
        // Armed and searching overlap while a claim is in flight (a claimed
        // worker is in both counts): capped at the LLC's size.
        let target = |m: usize| {
            let len = idle.llc_len(m);
            let out = (idle.idle_count(m) + sleep.searching_in(m).max(0) as usize).min(len);
            4 * out >= 3 * len && (out == len || free(m)) && redealt(m) < REDEAL_CAP
        };
        // `min_by_key` keeps the first of equals: the nearest.
        idle.llc_order(l)
            .iter()
            .flat_map(|r| r.clone())
            .filter(|&m| m != l && target(m))
            .min_by_key(|&m| redealt(m))
    }

    /// A start for LLC `l`, whose region was `cur` (at most `l` itself):
    /// if the pool is quiet and every LLC is `free` (its pack queue empty,
    /// no piece of an iterator's first split running in it),
    /// clears the other regions and makes `l`'s the whole pool. Returns
    /// the new region word, or `None` (no start; or another promoter of
    /// `l` changed the region, which this one then leaves to it).
    #[cold]
    fn start(
        &self,
        sleep: &Sleep,
        l: usize,
        cur: usize,
        free: &impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let n = self.regions.len();
        if !Self::quiet(sleep) || !(0..n).all(free) {
            return None;
        }
        let whole = pack(0, n);
        self.regions[l]
            .compare_exchange(cur, whole, Ordering::Relaxed, Ordering::Relaxed)
            .ok()?;
        for (m, r) in self.regions.iter().enumerate() {
            if m != l {
                r.store(0, Ordering::Relaxed);
            }
        }
        for r in self.redealt.iter() {
            r.store(0, Ordering::Relaxed);
        }
        Some(whole)
    }
}

/// A dealt half and its two holders (module docs, "Taking a dealt half
/// back"): the copy in the receiving LLC's pack queue and the owner's
/// `join` frame. The first [`Dealt::claim`] wins the job; the last
/// [`Dealt::release`] frees the record.
pub struct Dealt<J> {
    job: J,
    /// Set by the holder that runs the job.
    taken: AtomicBool,
    /// Holders that have not released it yet.
    holders: AtomicUsize,
}

impl<J: Copy> Dealt<J> {
    /// `job` with both holders (the queue's copy and the owner).
    pub fn new(job: J) -> Self {
        Dealt {
            job,
            taken: AtomicBool::new(false),
            holders: AtomicUsize::new(2),
        }
    }

    /// The dealt job (a holder recognises its half by it).
    #[inline]
    pub fn job(&self) -> J {
        self.job
    }

    /// Claims the job: true for the first holder to ask (it runs the
    /// job), false for the other (it must not touch the job: for the
    /// owner, the job's latch tells when it ran; for the queue's copy, the
    /// job may be gone). Each holder asks at most once.
    #[inline]
    pub fn claim(&self) -> bool {
        // AcqRel, so that the loser's `release` below is ordered after the
        // winner's claim (as `AffineProxy::execute`).
        !self.taken.swap(true, Ordering::AcqRel)
    }

    /// A holder is done with the record (after its claim, and after
    /// running the job if it won): true for the last one, which frees it.
    #[inline]
    pub fn release(&self) -> bool {
        self.holders.fetch_sub(1, Ordering::AcqRel) == 1
    }
}

impl Job for Dealt<JobRef> {
    /// The copy in the receiving LLC's pack queue.
    unsafe fn execute(this: *const Self) {
        // SAFETY: the record lives until both holders released it (below);
        // the queue's copy is one of them, executed once (a `JobRef` is
        // moved out of a queue by one pop).
        let d = unsafe { &*this };
        if d.claim() {
            // SAFETY: claimed, so the owner's claim loses: its frame, which
            // holds the job, stays until the job's latch is set, and the job
            // runs once, here.
            unsafe { d.job.execute() };
        }
        if d.release() {
            // SAFETY: the last holder; made by `Box::into_raw` in
            // `Holds::deal`.
            drop(unsafe { Box::from_raw(this.cast_mut()) });
        }
    }
}

/// A worker's holds on the halves it dealt and whose frames have not
/// reached them yet, newest last (module docs, "Taking a dealt half
/// back"). One per thread (a thread-local, so that `WorkerThread`, whose
/// layout the `join` fast path reads, does not grow for it); only worker
/// threads deal.
pub(crate) struct Holds {
    held: RefCell<Vec<*const Dealt<JobRef>>>,
    /// `held`'s length, read without a borrow by [`Holds::any`].
    count: Cell<usize>,
}

thread_local! {
    static HOLDS: Holds = const {
        Holds {
            held: RefCell::new(Vec::new()),
            count: Cell::new(0),
        }
    };
}

impl Holds {
    /// Whether the calling thread holds a dealt half (the test every
    /// `join` frame whose half is gone makes, in any pool).
    #[inline(always)]
    pub(crate) fn any() -> bool {
        HOLDS.with(|h| h.count.get() != 0)
    }

    /// Makes the record of `job`, dealt now by the calling worker, keeps
    /// its hold on it, and returns the copy for the receiving LLC's pack
    /// queue.
    pub(crate) fn deal(job: JobRef) -> JobRef {
        let d = Box::into_raw(Box::new(Dealt::new(job)));
        HOLDS.with(|h| {
            h.held.borrow_mut().push(d);
            h.count.set(h.count.get() + 1);
        });
        // SAFETY: the record lives until both holders released it: the
        // copy's `execute` and `take_back`.
        unsafe { JobRef::new(d.cast_const()) }
    }

    /// [`Owner::take_dealt`](super::owner::Owner::take_dealt): if the
    /// calling worker's newest hold is on `b`, claims it and drops the
    /// hold; returns whether the claim won (the caller runs `b` inline).
    /// Not generic and out of line: every `join` site instantiates the
    /// frame's steps, and this is not their business.
    #[cold]
    #[inline(never)]
    pub(crate) fn take_back(b: JobRef) -> bool {
        let Some(d) = HOLDS.with(|h| {
            let mut held = h.held.borrow_mut();
            // SAFETY: a held record is live (the owner has not released it).
            let d = *held
                .last()
                .filter(|&&d| unsafe { &*d }.job().id() == b.id())?;
            held.pop();
            h.count.set(held.len());
            Some(d)
        }) else {
            return false;
        };
        // SAFETY: as above, until the release below.
        let won = unsafe { &*d }.claim();
        // SAFETY: as above; the last holder frees it, as the copy does.
        if unsafe { &*d }.release() {
            // SAFETY: made by `Box::into_raw` in `deal`; no holder is left.
            drop(unsafe { Box::from_raw(d.cast_mut()) });
        }
        won
    }
}

#[cfg(test)]
mod tests;
