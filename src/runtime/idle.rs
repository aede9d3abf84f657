//! Lock-free masks of idle workers, one set per LLC, with a summary tree of
//! per-LLC counts, so that finding the nearest idle worker never walks all
//! workers, nor all LLCs.
//!
//! This follows the kernel's per-LLC idle cpumask: instead of scanning every
//! worker's flag, a waker reads its own cluster's and LLC's words, then walks
//! down a small tree of summary words to the nearest other LLC with idle
//! workers (a few loads per tree level, whatever the number of LLCs: the
//! `idle_search` bench measures 26 to 37 ns from 64 to 4096 workers).
//!
//! # Layout
//!
//! Workers are numbered so that every LLC is a contiguous range of worker
//! indices and every cluster a contiguous sub-range of one LLC (see
//! [`IdleShape`]).
//!
//! - **Idle words**: each LLC owns `ceil(len / 64)` cache-padded `AtomicU64`
//!   words; bit `i % 64` of its word `i / 64` is the worker `llc.start + i`.
//!   A set bit means "this worker is idle and nobody has claimed it yet".
//! - **Summary tree**: levels of small counter fields packed into
//!   cache-padded `AtomicU64` words. Level 0 has one field per LLC (the
//!   *leaf*); level `k + 1` one field per word of level `k`; the last level
//!   is one word, the *root*. A level's fields are `W` bits, `W` the next
//!   power of two of the bit length of the most workers under one field
//!   (so `64 / W` fields per word, and locating a field takes shifts, no
//!   division): with 16 workers per LLC, 8-bit leaves, 8 LLCs per word;
//!   4096 such workers make 32 leaf words, 4 words at level 1 and the
//!   root. A field counts the *armed* workers under it: those between
//!   their [`IdleMasks::set_idle`] and their next
//!   [`IdleMasks::clear_idle`]. "The LLC's summary is set" means "its leaf
//!   is non-zero". A pool of up to 8 LLCs of 16 (64 of one worker) has
//!   one level: its leaf word is the root.
//! - **Capacity classes**: the worker capacities grouped into classes
//!   (largest first; a class reaches down to 7/8 of its largest member), and
//!   for each idle word one mask per class, so a search can take the big
//!   cores first without reading capacities.
//!
//! # Operations
//!
//! - [`set_idle(w)`](IdleMasks::set_idle) (owner only): arm `w` (if not armed
//!   yet: `fetch_add` one to each field on its LLC's path, root first, leaf
//!   last), *then* `fetch_or` its bit.
//! - [`clear_idle(w)`](IdleMasks::clear_idle) (owner only): `fetch_and` its
//!   bit away, *then* disarm (`fetch_sub` one from each field on the path,
//!   leaf first, root last). Returns whether this call cleared the bit
//!   (false: a waker had claimed it).
//! - [`claim_nearest`](IdleMasks::claim_nearest) (anyone): claims a bit with
//!   `fetch_and`, searching the caller's cluster, then its LLC, then the other
//!   LLCs nearest first. Each run of the LLC order (consecutive LLC ids, a
//!   few per LLC for a real layout) is searched by a walk down the tree
//!   that skips every subtree whose field reads zero
//!   (`visit_armed`). Within each domain the largest capacity class goes
//!   first. A claim does not touch the summary: the claimed worker stays
//!   armed until it calls `clear_idle`.
//!
//! All accesses to the idle words and summary are `SeqCst`, so they take part
//! in the single total order `S` of `SeqCst` operations; the runtime's sleep
//! protocol relies on that (a worker sets its bit then re-checks the queues;
//! a pusher pushes then claims: one of them must see the other).
//!
//! # Invariants
//!
//! 1. **Exactly one taker.** A set bit is cleared by exactly one
//!    read-modify-write that observed it set: either one claimer's `fetch_and`
//!    (that claimer owns the wakeup) or the owner's `clear_idle` (which then
//!    returns `true`). Every clear is a `fetch_and` on the same word, and an
//!    RMW reads the latest value in the word's modification order, so two RMWs
//!    cannot both observe the bit set without a set in between; only the owner
//!    sets it, and not concurrently with its own `clear_idle`.
//! 2. **No false negatives in the summary.** At every point of `S`, every
//!    field `F` of every level counts the workers under it whose increment
//!    of `F` is done and decrement not yet (so `0 <= F <=` workers under
//!    `F`), and every set bit belongs to a worker counted by every field on
//!    its path; hence a field that reads zero has no set bit under it:
//!    stale positives (a worker counted whose bit is gone) are possible,
//!    stale negatives are not.
//!
//!    *Proof sketch.* Only the owner arms and disarms a worker, and
//!    `armed[w]` is owner-private state, so each worker's `fetch_add` on a
//!    field is matched by at most one later `fetch_sub` on it by the same
//!    worker, and a field (changed only by those RMWs) counts the workers
//!    between the two; at most once each, so it never exceeds the workers
//!    under it, fits in its `W` bits and never borrows from or carries into
//!    a neighbour. A worker's increments run root first, its decrements leaf
//!    first, so its interval at level `k` contains its interval at level
//!    `k - 1`. A bit is set only by `set_idle` *after* its owner's last
//!    increment (the leaf's), and the owner decrements only in `clear_idle`,
//!    *after* its `fetch_and` removed the bit; claimers only remove bits. So
//!    "bit set ⇒ counted on the whole path" holds at every point. ∎
//! 3. **A later claimer finds an earlier idle worker.** If `set_idle(w)`
//!    returns before `claim_nearest` starts, and `w`'s LLC is in the
//!    claimer's search order, the claim returns *some* worker unless `w`'s bit
//!    was cleared in between (claimed by someone else, or by `w`'s own
//!    `clear_idle`). Every `SeqCst` load of the claimer comes after `w`'s
//!    increments and `fetch_or` in `S`. While the bit is set, by (2) each
//!    field on its path reads non-zero, so the walk of the run that holds
//!    `w`'s LLC never moves its cursor past that LLC without trying it (see
//!    `visit_armed`); the load of `w`'s word sees the bit unless a later RMW
//!    removed it, and a `fetch_and` that loses a race retries on what is
//!    left.
//!
//! False positives are allowed and harmless: a worker that was claimed stays
//! counted until it calls `clear_idle` (or re-arms with `set_idle`), so a
//! waker may scan an LLC and find nothing.
//!
//! ## Why a count, not one bit per LLC
//!
//! A one-bit summary must be cleared when an LLC's words become empty, and
//! that clear cannot be atomic with the check of the words (they are other
//! memory locations). The classic remedy (clear the bit after seeing the
//! words empty, re-check the words, re-set the bit if needed) leaves a
//! window: a claimer sees the words empty, `set_idle(b)` sets `b`'s bit and
//! finds the summary bit still set, returns; the claimer clears the summary
//! bit; a second claimer now starts, reads the summary as clear and misses
//! `b`; only later does the first claimer re-check and re-set the bit. That
//! breaks invariant 3, on which the sleep protocol's Dekker argument relies
//! (worker: set idle, then re-check the queues; pusher: push, then claim).
//! Counting armed workers avoids any clear-after-check: the count moves only
//! with its owner's own transitions, ordered around the bit. The same holds
//! one level up: a level-1 field that said "some leaf of this word is
//! non-zero" with one bit would need the same clear-after-check, so it
//! counts workers too, and so on up to the root.
//!
//! ## Cost
//!
//! Arming and disarming take one RMW per level (one for pools of up to 8
//! LLCs of 16 workers, three at 4096 such workers); the upper words are
//! shared by more workers, so they see more contention, but a worker arms
//! once per idle period (a woken worker that sleeps again does not re-arm).
//! A claim reads its own LLC's word, then per run of its order a few words
//! per level; [`IdleMasks::any_idle`] and the `join` path's check
//! ([`IdleMasks::root_word`]) read the root alone.
//!
//! # Contract
//!
//! `set_idle(w)` and `clear_idle(w)` are called only by worker `w`'s own
//! thread (or under external synchronization): they read and write `w`'s
//! private `armed` flag without read-modify-writes. `set_idle` may be called
//! again while armed (after a wakeup, before sleeping again); call
//! `clear_idle` when the worker leaves the idle state for good, including
//! after being woken by a claim (it then returns `false`), so its LLC stops
//! advertising it.

//!
//! # Submodules
//!
//! - `build`: [`IdleMasks::new`], from an [`IdleShape`];
//! - `tree`: the summary tree's packed fields (its levels' layout);
//! - `summary`: the reads of the summary ([`IdleMasks::any_idle`], the
//!   walk to armed LLCs);
//! - `claim`: the claims ([`IdleMasks::claim_nearest`] and its steps);
//! - `probe`: [`IdleSearch`](probe::IdleSearch), the masks alone for
//!   benchmarks (the crate root re-exports it from there, so that this
//!   module, which `probe` imports, does not import `probe`);
//! - `shape`: [`IdleShape`], the plain-data input.
//!
//! This file keeps the state, the owner's operations (`set_idle`,
//! `clear_idle`) and the reads of single workers' bits.

mod build;
mod claim;
pub(crate) mod probe;
mod shape;
mod summary;
mod tree;

use std::ops::Range;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicU64, Ordering};

pub use shape::IdleShape;
use tree::Level;

/// Where a woken worker is, seen from the worker that woke it: in its
/// cluster, elsewhere in its LLC, or in another LLC. [`WorkerStats::wakeups`]
/// counts the wakeups a worker received by this distance, and
/// [`IdleSearch::claim_nearest`] returns it.
///
/// [`WorkerStats::wakeups`]: crate::WorkerStats::wakeups
/// [`IdleSearch::claim_nearest`]: crate::IdleSearch::claim_nearest
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Distance {
    /// In the waker's own cluster.
    Cluster,
    /// In the waker's own LLC (another cluster, or no clusters known).
    Llc,
    /// In another LLC.
    Remote,
}

/// Per-LLC constants.
#[derive(Debug, Clone)]
struct LlcInfo {
    /// Its workers.
    range: Range<usize>,
    /// Index of its first idle word in `IdleMasks::words`.
    word_base: usize,
}

const NO_CLUSTER: u32 = u32::MAX;

/// The idle-worker masks of a pool: see the `runtime::idle` module docs for the
/// protocol and its invariants.
#[derive(Debug)]
pub struct IdleMasks {
    /// Idle bits, `llcs[l].word_base ..` for LLC `l`.
    words: Box<[CachePadded<AtomicU64>]>,
    /// The summary tree, leaves (per-LLC armed counts) first; the last
    /// level is one word, the root.
    levels: Box<[Level]>,
    llcs: Box<[LlcInfo]>,
    clusters: Box<[Range<usize>]>,
    /// Per worker: its LLC.
    worker_llc: Box<[u32]>,
    /// Per worker: its cluster, or `NO_CLUSTER`.
    worker_cluster: Box<[u32]>,
    /// `class_masks[word * classes + k]`: bits of that word whose worker has
    /// the k-th largest capacity.
    class_masks: Box<[u64]>,
    classes: usize,
    llc_order: Box<[Box<[Range<usize>]>]>,
    /// Owner-private: whether the worker is counted in its LLC's field.
    armed: Box<[AtomicBool]>,
    /// Per worker: the bits of its core's workers in its idle word, or 0
    /// when the core crosses a word boundary (see "Fully idle cores first"
    /// in `claim`).
    core_mask: Box<[u64]>,
    /// Whether some core has more than one worker: only then is the fully
    /// idle pass made.
    smt: bool,
    /// No SMT and one capacity class: a claim in an LLC of one idle word
    /// takes the lowest set bit of one load (the fast path of
    /// [`IdleMasks::claim_llc`] and [`IdleMasks::claim_in_llc`]).
    plain: bool,
    /// Whether the cluster step of a claim is taken (the pool's run-time
    /// cluster switch; a hint, read relaxed: either answer is a valid
    /// search order, so it plays no part in the invariants).
    cluster_aware: AtomicBool,
}

impl IdleMasks {
    /// Turns the cluster step of [`claim_nearest`](Self::claim_nearest) on
    /// or off (on at creation; a shape without clusters has none anyway).
    pub fn set_cluster_aware(&self, on: bool) {
        self.cluster_aware.store(on, Ordering::Relaxed);
    }

    /// Number of armed (idle, possibly claimed but not yet awake) workers
    /// of LLC `llc`; 0 if out of range. A cheap snapshot (one load) for
    /// load estimates, not for the protocol.
    pub fn idle_count(&self, llc: usize) -> usize {
        if llc < self.llcs.len() {
            self.llc_count(llc) as usize
        } else {
            0
        }
    }

    /// Whether every worker of LLC `llc` is armed (none awake; a claimed
    /// worker counts as armed until it wakes). A hint, as
    /// [`IdleMasks::idle_count`] (two loads).
    pub fn all_armed(&self, llc: usize) -> bool {
        self.idle_count(llc) >= self.llc_len(llc)
    }

    /// Of LLC `llc`: how many workers a waker claimed that are not awake
    /// yet (armed, counted in the summary, with their idle bit clear), and
    /// how many are armed, claimed or not ([`IdleMasks::idle_count`]); 0
    /// and 0 if out of range. A hint (a load of the summary's field, then
    /// of each of the LLC's idle words, not one snapshot): a worker between
    /// the count and the bit of its own `set_idle` or `clear_idle` reads as
    /// claimed too.
    pub fn claims_in(&self, llc: usize) -> (usize, usize) {
        let Some(l) = self.llcs.get(llc) else {
            return (0, 0);
        };
        let armed = self.llc_count(llc) as usize;
        let set: usize = (l.word_base..l.word_base + l.range.len().div_ceil(64))
            .map(|i| self.words[i].load(Ordering::SeqCst).count_ones() as usize)
            .sum();
        (armed.saturating_sub(set), armed)
    }

    /// Number of workers of LLC `llc` (0 if out of range).
    pub fn llc_len(&self, llc: usize) -> usize {
        self.llcs.get(llc).map_or(0, |l| l.range.len())
    }

    /// Number of workers.
    pub fn num_workers(&self) -> usize {
        self.worker_llc.len()
    }

    /// Number of LLCs.
    pub fn num_llcs(&self) -> usize {
        self.llcs.len()
    }

    /// The LLC of worker `w`.
    pub fn llc_of(&self, w: usize) -> usize {
        self.worker_llc[w] as usize
    }

    /// Word index and bit of worker `w`.
    #[inline]
    fn slot(&self, w: usize) -> (usize, u64) {
        let l = &self.llcs[self.worker_llc[w] as usize];
        let local = w - l.range.start;
        (l.word_base + local / 64, 1u64 << (local % 64))
    }

    /// Marks worker `w` idle (claimable). Call only from `w`'s own thread.
    /// Calling it again while `w` is armed (before `clear_idle`) just sets
    /// the bit again, e.g. when a woken worker goes back to sleep.
    pub fn set_idle(&self, w: usize) {
        let (word, bit) = self.slot(w);
        if !self.armed[w].load(Ordering::Relaxed) {
            self.armed[w].store(true, Ordering::Relaxed);
            // Count first, root down to the leaf, so that the bit is never
            // set while some level does not count it (invariant 2).
            let llc = self.worker_llc[w] as usize;
            for lv in self.levels.iter().rev() {
                let (i, shift) = lv.place(llc);
                lv.words[i].fetch_add(1 << shift, Ordering::SeqCst);
            }
        }
        self.words[word].fetch_or(bit, Ordering::SeqCst);
    }

    /// Ends worker `w`'s idle state. Call only from `w`'s own thread.
    ///
    /// Returns `true` if this call cleared `w`'s bit, `false` if a waker had
    /// claimed it (the waker owns a wakeup for `w`) or `w` was not idle.
    pub fn clear_idle(&self, w: usize) -> bool {
        if !self.armed[w].load(Ordering::Relaxed) {
            return false;
        }
        let (word, bit) = self.slot(w);
        let prev = self.words[word].fetch_and(!bit, Ordering::SeqCst);
        // Uncount only once the bit is gone, leaf up to the root.
        self.armed[w].store(false, Ordering::Relaxed);
        let llc = self.worker_llc[w] as usize;
        for lv in self.levels.iter() {
            let (i, shift) = lv.place(llc);
            lv.words[i].fetch_sub(1 << shift, Ordering::SeqCst);
        }
        prev & bit != 0
    }

    /// Which workers of `from..stop` have their idle bit clear (working,
    /// searching, or claimed): bit `i` of the mask is worker `from + i`.
    /// `stop` is `end`, or earlier where the word holding `from` ends (at
    /// 64 workers, or at its LLC's end: the next LLC has its own words).
    /// One SeqCst load, so a pass over a mostly idle pool reads a word per
    /// 64 workers (see "Idle workers hold no jobs" in `sleep`). `from <
    /// end <=` the number of workers.
    pub fn awake_bits(&self, from: usize, end: usize) -> (u64, usize) {
        let l = &self.llcs[self.worker_llc[from] as usize];
        let local = from - l.range.start;
        let shift = local % 64;
        let stop = end.min(l.range.end).min(from + (64 - shift));
        let span = stop - from;
        let low = if span == 64 {
            u64::MAX
        } else {
            (1u64 << span) - 1
        };
        let word = self.words[l.word_base + local / 64].load(Ordering::SeqCst);
        ((!word >> shift) & low, stop)
    }

    /// The workers of `range` whose idle bit is clear, in order, read a
    /// word at a time ([`IdleMasks::awake_bits`], lazily: each word is
    /// loaded when the walk reaches it). A walk over a mostly idle pool so
    /// costs a load per 64 workers, not one per worker.
    pub fn awake_in(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let (mut from, end) = (range.start, range.end);
        let (mut bits, mut base) = (0u64, from);
        std::iter::from_fn(move || {
            loop {
                if bits != 0 {
                    let v = base + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    return Some(v);
                }
                if from >= end {
                    return None;
                }
                let (word, stop) = self.awake_bits(from, end);
                (bits, base, from) = (word, from, stop);
            }
        })
    }

    /// LLC `l`'s other LLCs, nearest first, as runs of consecutive LLC
    /// ids (the shape's `llc_order`).
    pub fn llc_order(&self, l: usize) -> &[Range<usize>] {
        &self.llc_order[l]
    }

    /// Whether worker `w`'s idle bit is set (idle and not claimed).
    pub fn is_idle(&self, w: usize) -> bool {
        let (word, bit) = self.slot(w);
        self.words[word].load(Ordering::SeqCst) & bit != 0
    }
}

#[cfg(test)]
impl IdleMasks {
    /// Test view of LLC `l`'s summary field.
    pub(crate) fn summary_count(&self, l: usize) -> u64 {
        self.llc_count(l)
    }

    /// Test view: every field of every level of the summary tree, as
    /// `(level, field index, value)`.
    pub(crate) fn tree_fields(&self) -> Vec<(usize, usize, u64)> {
        let mut out = Vec::new();
        for (k, lv) in self.levels.iter().enumerate() {
            for (j, word) in lv.words.iter().enumerate() {
                let v = word.load(Ordering::SeqCst);
                for i in 0..1usize << lv.fields_log {
                    out.push((k, (j << lv.fields_log) + i, lv.field(v, i)));
                }
            }
        }
        out
    }

    /// Test view: the span (log2 of LLCs under one field) of each level.
    pub(crate) fn level_spans(&self) -> Vec<u32> {
        self.levels.iter().map(|l| l.span_log).collect()
    }

    /// Test view: whether `w` is armed.
    pub(crate) fn is_armed(&self, w: usize) -> bool {
        self.armed[w].load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests;
