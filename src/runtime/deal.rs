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
//! A dealt job goes to the receiving LLC's pack queue with the pack
//! queue's wakeup (`group_routing::push_to` with `Destination::Pack`): a
//! worker of that LLC takes it in step 2 of its next pass, another LLC's
//! only as the help rule allows, and the sleep proof's argument for pack
//! queues ("Queues of one LLC" in `sleep`) covers it as it covers a group
//! job. The owner's `join` waits for the dealt half's latch as for a
//! stolen one (it is not on its deque to take back).
//!
//! Why: the simulator's trace of `fib:28` on the Kunpeng 920 (4 LLCs of
//! 32 workers) put hierarchical stealing's loss in the first 15 us, where
//! the root's LLC took the biggest halves and the other LLCs lived on
//! small imports; a wake order that sent a cold pool's first halves to the
//! empty LLCs fixed `fib` but moved `reduce`'s data between its first run
//! and the warm ones after it (`docs/mid-run-stealing.md`).
//!
//! Everything here is a hint: the regions are read and bisected with CASes
//! so that two promoters of one LLC do not deal the same half of a region
//! twice, but any value only decides where a job is pushed, never whether
//! it is, so no interleaving loses or repeats a job.

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicUsize, Ordering};

use super::sleep::Sleep;

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
}

impl Deal {
    /// Regions for `llcs` LLCs, all cleared (none for one LLC).
    pub(crate) fn new(llcs: usize) -> Self {
        let n = if llcs > 1 { llcs.min(1 << SHIFT) } else { 0 };
        Deal {
            regions: (0..n)
                .map(|_| CachePadded::new(AtomicUsize::new(0)))
                .collect(),
        }
    }

    /// Whether the pool has several LLCs (else nothing is ever dealt, and
    /// the owner does not ask).
    #[inline(always)]
    pub(crate) fn enabled(&self) -> bool {
        !self.regions.is_empty()
    }

    /// Whether the pool has at most one working worker: all others are
    /// armed (idle) or counted as searching. A hint (a claimed worker is
    /// in both counts, so this errs towards yes while claims are in
    /// flight; a dealt job still in a pack queue stops a second start).
    fn quiet(sleep: &Sleep) -> bool {
        let idle = sleep.idle();
        let free = idle.armed_total() + sleep.searching().max(0) as usize;
        free + 1 >= idle.num_workers()
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
        Some(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::idle::{IdleMasks, IdleShape};

    #[test]
    fn bisection_halves_the_region_towards_the_dealer() {
        assert_eq!(bisect(0, 4, 0), (2, (2, 4), (0, 2)));
        assert_eq!(bisect(0, 2, 0), (1, (1, 2), (0, 1)));
        assert_eq!(bisect(0, 4, 3), (1, (0, 2), (2, 4)));
        assert_eq!(bisect(2, 4, 2), (3, (3, 4), (2, 3)));
        // An odd region: the dealer's side keeps the smaller half when it
        // is the low one.
        assert_eq!(bisect(0, 3, 0), (2, (2, 3), (0, 2)));
        assert_eq!(bisect(0, 3, 2), (1, (0, 2), (2, 3)));
    }

    /// Four LLCs of two workers; every worker but 0 idle.
    fn four_llcs() -> Sleep {
        let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(8, 2, 0)), 8);
        for w in 1..8 {
            sleep.start_searching(w);
            let _ = sleep.prepare_sleep(w);
        }
        sleep
    }

    #[test]
    fn a_quiet_pool_deals_one_half_per_llc_by_bisection() {
        let sleep = four_llcs();
        let deal = Deal::new(4);
        let empty = |_| true;
        // The root, in LLC 0: half the tree to LLC 2, a quarter to LLC 1.
        assert_eq!(deal.target(&sleep, 0, empty), Some(2));
        assert_eq!(deal.target(&sleep, 0, empty), Some(1));
        // LLC 2's first promotion deals inside its region.
        assert_eq!(deal.target(&sleep, 2, empty), Some(3));
        // Every region is one LLC now, and the dealt jobs wait in their
        // pack queues: no new start.
        assert_eq!(deal.target(&sleep, 2, |m| m == 0 || m == 2), None);
    }

    #[test]
    fn no_new_start_while_a_deal_waits_in_a_pack_queue() {
        let sleep = four_llcs();
        let deal = Deal::new(4);
        assert_eq!(deal.target(&sleep, 0, |_| true), Some(2));
        assert_eq!(deal.target(&sleep, 0, |_| true), Some(1));
        // LLC 0's region is LLC 0 alone; LLCs 1 and 2 still hold theirs.
        assert_eq!(deal.target(&sleep, 0, |m| m == 0 || m == 3), None);
    }

    #[test]
    fn no_start_while_another_worker_works() {
        let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(8, 2, 0)), 8);
        for w in 2..8 {
            sleep.start_searching(w);
            let _ = sleep.prepare_sleep(w);
        }
        let deal = Deal::new(4);
        assert_eq!(deal.target(&sleep, 0, |_| true), None);
        // Worker 1 searches: the pool is quiet again.
        sleep.start_searching(1);
        assert_eq!(deal.target(&sleep, 0, |_| true), Some(2));
    }

    #[test]
    fn one_llc_never_deals() {
        let sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(4, 4, 0)), 4);
        assert_eq!(Deal::new(1).target(&sleep, 0, |_| true), None);
    }
}
