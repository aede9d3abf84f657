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

mod probe;
mod shape;

use std::ops::Range;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicU64, Ordering};

pub use probe::IdleSearch;
pub use shape::IdleShape;

/// Where a woken worker is, seen from the worker that woke it: in its
/// cluster, elsewhere in its LLC, or in another LLC. [`WorkerStats::wakeups`]
/// counts the wakeups a worker received by this distance, and
/// [`IdleSearch::claim_nearest`] returns it.
///
/// [`WorkerStats::wakeups`]: crate::WorkerStats::wakeups
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

/// One level of the summary tree (see "Summary tree" in the module docs).
#[derive(Debug)]
struct Level {
    /// The packed counters.
    words: Box<[CachePadded<AtomicU64>]>,
    /// log2 of the field width `W` (a power of two, 1 to 32 bits).
    width_log: u32,
    /// log2 of the fields per word (`64 / W`).
    fields_log: u32,
    /// log2 of the LLCs under one field (1 at level 0).
    span_log: u32,
    /// The top bit of every field.
    high: u64,
    /// Every bit of every field but its top bit.
    low: u64,
}

impl Level {
    /// Word index and shift of the field above LLC `llc`.
    #[inline]
    fn place(&self, llc: usize) -> (usize, u32) {
        let f = llc >> self.span_log;
        let i = f & ((1 << self.fields_log) - 1);
        (f >> self.fields_log, (i as u32) << self.width_log)
    }

    /// The top bit of each non-zero field of `v` (SWAR: adding `low` to
    /// the low bits of a field carries into its top bit iff they are not
    /// all zero, never into the next field).
    #[inline]
    fn nonzero(&self, v: u64) -> u64 {
        (((v & self.low) + self.low) | v) & self.high
    }

    /// The value of field `i` (word-local) of `v`.
    #[inline]
    fn field(&self, v: u64, i: usize) -> u64 {
        let w = 1u32 << self.width_log;
        let m = if w >= 64 { !0 } else { (1u64 << w) - 1 };
        (v >> ((i as u32) << self.width_log)) & m
    }
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
    /// when the core crosses a word boundary (see "Fully idle cores first").
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

/// Claims the lowest bit of `pick(v)` in `atom` (whose value is `v`),
/// with `fetch_and`; on a lost race, retries on what `pick` leaves of the
/// value the RMW returned. Returns the bit's index.
#[inline]
fn claim_bit(atom: &AtomicU64, pick: impl Fn(u64) -> u64) -> Option<usize> {
    let mut cur = pick(atom.load(Ordering::SeqCst));
    while cur != 0 {
        let b = cur.trailing_zeros() as usize;
        let prev = atom.fetch_and(!(1u64 << b), Ordering::SeqCst);
        if prev & (1u64 << b) != 0 {
            return Some(b);
        }
        cur = pick(prev); // someone else took it: retry on what is left
    }
    None
}

/// Bits `lo..hi` (word-local, `lo < hi <= 64`).
fn bits(lo: usize, hi: usize) -> u64 {
    let len = hi - lo;
    if len >= 64 {
        !0
    } else {
        ((1u64 << len) - 1) << lo
    }
}

/// The levels of the summary tree over LLCs of `sizes` workers: each level
/// packs one counter per field of the level below (per LLC at level 0) in
/// fields of the next power of two of bits that holds the most workers
/// under one field, until one word holds them all.
fn summary_tree(sizes: Vec<usize>) -> Box<[Level]> {
    let new_word = |_| CachePadded::new(AtomicU64::new(0));
    let mut levels = Vec::new();
    // Workers under each field of the level being built.
    let mut under = sizes;
    let mut span_log = 0;
    loop {
        let most = under.iter().copied().max().unwrap_or(1);
        let bit_len = (usize::BITS - most.leading_zeros()).max(1);
        assert!(
            bit_len <= 32,
            "internal error: more than 2^32 workers under one summary field"
        );
        let width_log = bit_len.next_power_of_two().trailing_zeros();
        let fields_log = 6 - width_log;
        let per_word = 1usize << fields_log;
        let top = 1u64 << ((1u32 << width_log) - 1);
        let high = (0..per_word).fold(0u64, |h, i| h | top << (i << width_log));
        let low = (0..per_word).fold(0u64, |h, i| h | (top - 1) << (i << width_log));
        let words = under.len().div_ceil(per_word);
        levels.push(Level {
            words: (0..words).map(new_word).collect(),
            width_log,
            fields_log,
            span_log,
            high,
            low,
        });
        if words == 1 {
            return levels.into();
        }
        under = under.chunks(per_word).map(|c| c.iter().sum()).collect();
        span_log += fields_log;
    }
}

/// Capacity classes, largest first: a class starts at its largest
/// capacity and takes every smaller one down to 7/8 of it, so 1024 and
/// 1000 are one class, 1024 and 512 two (per-core jitter in reported
/// capacities must not multiply the passes of a search).
fn capacity_classes(capacity: &[u32]) -> Vec<u32> {
    let mut caps: Vec<u32> = capacity.to_vec();
    caps.sort_unstable_by(|a, b| b.cmp(a));
    caps.dedup();
    let mut classes: Vec<u32> = Vec::new();
    for c in caps {
        if classes
            .last()
            .is_none_or(|&top| u64::from(c) * 8 < u64::from(top) * 7)
        {
            classes.push(c);
        }
    }
    classes
}

/// Each worker's core mask (the field `core_mask`): the bits of its core's
/// workers in its idle word, 0 when the core crosses a word boundary, and
/// its own bit when no core range holds it.
fn core_masks(core_ranges: &[Range<usize>], llcs: &[LlcInfo], worker_llc: &[u32]) -> Vec<u64> {
    let mut core_mask: Vec<u64> = (0..worker_llc.len())
        .map(|w| {
            let l = &llcs[worker_llc[w] as usize];
            1u64 << ((w - l.range.start) % 64)
        })
        .collect();
    for r in core_ranges {
        let l = &llcs[worker_llc[r.start] as usize];
        let (lo, hi) = (r.start - l.range.start, r.end - l.range.start);
        let mask = if lo / 64 == (hi - 1) / 64 {
            bits(lo % 64, (hi - 1) % 64 + 1)
        } else {
            0
        };
        for w in r.clone() {
            core_mask[w] = mask;
        }
    }
    core_mask
}

impl IdleMasks {
    /// Builds the masks, all workers busy.
    ///
    /// # Panics
    ///
    /// If the shape breaks the rules of [`IdleShape::validate`]; the layout
    /// builds shapes that keep them, so this is an internal error.
    pub fn new(shape: IdleShape) -> IdleMasks {
        if let Err(e) = shape.validate() {
            panic!("internal error: invalid idle shape: {e}");
        }
        let n = shape.capacity.len();

        let classes = capacity_classes(&shape.capacity);

        let mut llcs = Vec::with_capacity(shape.llc_ranges.len());
        let mut worker_llc = vec![0u32; n];
        let mut word_base = 0;
        for (l, r) in shape.llc_ranges.iter().enumerate() {
            llcs.push(LlcInfo {
                range: r.clone(),
                word_base,
            });
            for w in r.clone() {
                worker_llc[w] = l as u32;
            }
            word_base += r.len().div_ceil(64);
        }
        let mut class_masks = vec![0u64; word_base * classes.len()];
        for l in &llcs {
            for w in l.range.clone() {
                let local = w - l.range.start;
                let word = l.word_base + local / 64;
                let k = classes
                    .iter()
                    .rposition(|&top| top >= shape.capacity[w])
                    .unwrap_or(0);
                class_masks[word * classes.len() + k] |= 1 << (local % 64);
            }
        }
        let mut worker_cluster = vec![NO_CLUSTER; n];
        for (c, r) in shape.cluster_ranges.iter().enumerate() {
            for w in r.clone() {
                worker_cluster[w] = c as u32;
            }
        }
        let core_mask = core_masks(&shape.core_ranges, &llcs, &worker_llc);
        let smt = shape.core_ranges.iter().any(|r| r.len() > 1);
        let sizes: Vec<usize> = shape.llc_ranges.iter().map(|r| r.len()).collect();
        IdleMasks {
            words: (0..word_base)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            levels: summary_tree(sizes),
            llcs: llcs.into(),
            clusters: shape.cluster_ranges.into(),
            worker_llc: worker_llc.into(),
            worker_cluster: worker_cluster.into(),
            class_masks: class_masks.into(),
            classes: classes.len(),
            llc_order: shape
                .llc_order
                .into_iter()
                .map(Vec::into_boxed_slice)
                .collect(),
            armed: (0..n).map(|_| AtomicBool::new(false)).collect(),
            core_mask: core_mask.into(),
            smt,
            plain: !smt && classes.len() == 1,
            cluster_aware: AtomicBool::new(true),
        }
    }

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

    /// Whether worker `w`'s idle bit is set (idle and not claimed).
    pub fn is_idle(&self, w: usize) -> bool {
        let (word, bit) = self.slot(w);
        self.words[word].load(Ordering::SeqCst) & bit != 0
    }

    /// Whether some LLC may have an idle worker (no false negatives; false
    /// positives while a claimed worker has not yet called `clear_idle`):
    /// one load, of the summary's root word.
    #[inline]
    pub fn any_idle(&self) -> bool {
        self.root().load(Ordering::SeqCst) != 0
    }

    /// The root word of the summary tree: non-zero iff some worker is armed.
    #[inline]
    fn root(&self) -> &AtomicU64 {
        // `summary_tree` always ends with a level of one word.
        &self.levels[self.levels.len() - 1].words[0]
    }

    /// Number of armed workers (idle, possibly claimed but not yet awake)
    /// of the whole pool: the sum of the root word's fields, read with one
    /// SeqCst load, so it is the exact count at one point of `S`.
    pub fn armed_total(&self) -> usize {
        let top = &self.levels[self.levels.len() - 1];
        let v = self.root().load(Ordering::SeqCst);
        (0..1usize << top.fields_log)
            .map(|i| top.field(v, i) as usize)
            .sum()
    }

    /// Whether some worker's idle bit is set (idle and not yet claimed):
    /// the summary first (zero while every worker is busy), then, only if
    /// it shows an armed worker, the idle words. No false negatives for a
    /// `set_idle` ordered before the call (invariant 2: a set bit has a
    /// non-zero field); a worker that was claimed is not reported (its
    /// claimer wakes it). The pool asks it as `private::must_publish`,
    /// which keeps the root word; the tests ask it here.
    #[cfg(test)]
    pub fn any_unclaimed(&self) -> bool {
        self.any_idle() && self.any_bit_set()
    }

    /// The summary's root word, non-zero iff some worker is armed: a caller
    /// that asks [`Self::any_unclaimed`] very often (every `join`) keeps a
    /// reference to it, loads it, and calls [`Self::any_bit_set`] only when
    /// it is non-zero.
    #[inline]
    pub fn root_word(&self) -> &AtomicU64 {
        self.root()
    }

    /// Whether some idle bit is set: SeqCst loads down the summary tree,
    /// then of the idle words of the LLCs it shows armed workers in (so a
    /// pool with one idle worker reads a few words, not all of them).
    #[cold]
    #[inline(never)]
    pub fn any_bit_set(&self) -> bool {
        let any = |m: usize| {
            let l = &self.llcs[m];
            let words = l.word_base..l.word_base + l.range.len().div_ceil(64);
            self.words[words]
                .iter()
                .any(|w| w.load(Ordering::SeqCst) != 0)
                .then_some(())
        };
        self.visit_armed(0..self.llcs.len(), any).is_some()
    }

    /// The armed count of LLC `llc` (its leaf field).
    fn llc_count(&self, llc: usize) -> u64 {
        let lv = &self.levels[0];
        let (i, shift) = lv.place(llc);
        lv.field(lv.words[i].load(Ordering::SeqCst) >> shift, 0)
    }

    /// Calls `f` on the LLCs of `llcs` whose leaf field reads non-zero, in
    /// ascending order, until it returns `Some`; returns that. Reads the
    /// summary from the root down, skipping every subtree whose field reads
    /// zero, so the cost grows with the tree's depth and the number of
    /// armed LLCs met before the hit, not with the LLCs in `llcs`.
    ///
    /// No false negative (invariant 2): if some worker's bit in `llcs` is
    /// set throughout the call, every field on its path reads non-zero
    /// whenever it is loaded, so `f` is called on its LLC (unless `f`
    /// returned `Some` before).
    ///
    /// The walk keeps a cursor `a`, the first LLC not yet ruled out, and
    /// goes down from the root to the first field at or after `a` that
    /// reads non-zero; a word whose fields from `a` on read zero moves `a`
    /// past them, and `f` returning `None` moves it past that LLC; both
    /// restart from the root (extra loads only on false positives).
    /// `a` never passes an LLC with a bit set throughout: the loads of the
    /// fields on its path read non-zero, so the walk goes down to it.
    fn visit_armed<R>(
        &self,
        llcs: Range<usize>,
        mut f: impl FnMut(usize) -> Option<R>,
    ) -> Option<R> {
        let top = self.levels.len() - 1;
        let mut a = llcs.start;
        'restart: while a < llcs.end {
            let (mut k, mut word) = (top, 0);
            loop {
                let lv = &self.levels[k];
                // The fields of this word (level-k indices) that meet a..end.
                let first = word << lv.fields_log;
                let lo = (a >> lv.span_log).max(first);
                let hi = (((llcs.end - 1) >> lv.span_log) + 1).min(first + (1 << lv.fields_log));
                debug_assert!(lo < hi, "the walk went down into a field before `a`");
                let span = bits((lo - first) << lv.width_log, (hi - first) << lv.width_log);
                let nz = lv.nonzero(lv.words[word].load(Ordering::SeqCst)) & span;
                if nz == 0 {
                    // Nothing armed in those fields: skip their LLCs.
                    a = hi << lv.span_log;
                    continue 'restart;
                }
                let field = first + (nz.trailing_zeros() >> lv.width_log) as usize;
                if k == 0 {
                    match f(field) {
                        Some(hit) => return Some(hit),
                        None => {
                            a = field + 1;
                            continue 'restart;
                        }
                    }
                }
                // Field `field` of level k counts word `field` of level k - 1.
                a = a.max(field << lv.span_log);
                (k, word) = (k - 1, field);
            }
        }
        None
    }

    /// Of the bits `cand` of word `i` of LLC `l` (whose value is `v`), those
    /// whose whole core is idle in `v`.
    #[inline]
    fn whole_cores(&self, l: &LlcInfo, i: usize, v: u64, cand: u64) -> u64 {
        let mut out = 0;
        let mut rest = cand;
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let cm = self.core_mask[l.range.start + i * 64 + b];
            if cm != 0 && v & cm == cm {
                out |= 1u64 << b;
            }
        }
        out
    }

    /// Claims one idle bit among workers `range` (inside `l`), largest
    /// capacity class first, lowest index first within a class; with
    /// `whole`, only a worker whose whole core is idle.
    fn claim_in(&self, l: &LlcInfo, range: Range<usize>, whole: bool) -> Option<usize> {
        let lo = range.start - l.range.start;
        let hi = range.end - l.range.start;
        let (first, last) = (lo / 64, (hi - 1) / 64);
        for k in 0..self.classes {
            for i in first..=last {
                let word = l.word_base + i;
                let dom = bits(lo.max(i * 64) - i * 64, hi.min(i * 64 + 64) - i * 64);
                let m = dom & self.class_masks[word * self.classes + k];
                if m == 0 {
                    continue;
                }
                let atom = &self.words[word];
                let pick = |v: u64| {
                    if whole {
                        self.whole_cores(l, i, v, v & m)
                    } else {
                        v & m
                    }
                };
                if let Some(b) = claim_bit(atom, pick) {
                    return Some(l.range.start + i * 64 + b);
                }
            }
        }
        None
    }

    /// Claims (clears the bit of) the nearest idle worker and returns it with
    /// its distance; the caller then owns its wakeup.
    ///
    /// Searched in order, each domain largest capacity first (and, where
    /// cores have several workers, fully idle cores before all idle
    /// workers: see the module docs): the cluster of
    /// `from_worker` (when given and inside `from_llc`), the rest of
    /// `from_llc`, then the LLCs of `llc_order[from_llc]` whose summary is
    /// set. Returns `None` if no idle worker was found (or `from_llc` is out
    /// of range).
    pub fn claim_nearest(
        &self,
        from_worker: Option<usize>,
        from_llc: usize,
    ) -> Option<(usize, Distance)> {
        self.llcs.get(from_llc)?;
        if let Some(hit) = self.claim_in_llc(from_worker, from_llc) {
            return Some(hit);
        }
        self.claim_remote(from_llc)
    }

    /// The first two steps of [`claim_nearest`](Self::claim_nearest): the
    /// cluster of `from_worker` (when given, inside `from_llc`, and the
    /// cluster step is on), then the rest of `from_llc`; never another LLC.
    /// Used to wake a worker of one LLC in particular (job groups).
    pub fn claim_in_llc(
        &self,
        from_worker: Option<usize>,
        from_llc: usize,
    ) -> Option<(usize, Distance)> {
        let l = self.llcs.get(from_llc)?;
        let cluster = from_worker
            .filter(|_| self.cluster_aware.load(Ordering::Relaxed))
            .filter(|&w| w < self.num_workers() && self.worker_llc[w] as usize == from_llc)
            .map(|w| self.worker_cluster[w])
            .filter(|&c| c != NO_CLUSTER)
            .map(|c| self.clusters[c as usize].clone());
        if self.plain && l.range.len() <= 64 {
            // One word, one class, no SMT: the cluster's bits, then the
            // rest, of one load (and of what each lost race leaves).
            let near = cluster.map_or(0, |c| bits(c.start - l.range.start, c.end - l.range.start));
            let pick = |v: u64| if v & near != 0 { v & near } else { v };
            let b = claim_bit(&self.words[l.word_base], pick)?;
            let d = if near & (1 << b) != 0 {
                Distance::Cluster
            } else {
                Distance::Llc
            };
            return Some((l.range.start + b, d));
        }
        let passes: &[bool] = if self.smt { &[true, false] } else { &[false] };
        for &whole in passes {
            if let Some(c) = &cluster {
                if let Some(w) = self.claim_in(l, c.clone(), whole) {
                    return Some((w, Distance::Cluster));
                }
            }
            if cluster.as_ref() != Some(&l.range) {
                if let Some(w) = self.claim_in(l, l.range.clone(), whole) {
                    let near = cluster.as_ref().is_some_and(|c| c.contains(&w));
                    let d = if near {
                        Distance::Cluster
                    } else {
                        Distance::Llc
                    };
                    return Some((w, d));
                }
            }
        }
        None
    }

    /// Claims worker `w` itself if its bit is set (a claim like the others,
    /// restricted to one worker: invariant 1 holds, the caller owns its
    /// wakeup). Used to aim a job at one worker (affinity replay of
    /// parallel iterators). False if `w` is out of range or not claimable.
    pub fn claim_worker(&self, w: usize) -> bool {
        let Some(&l) = self.worker_llc.get(w) else {
            return false;
        };
        self.claim_in(&self.llcs[l as usize], w..w + 1, false)
            .is_some()
    }

    /// The remote step of [`claim_nearest`](Self::claim_nearest): the LLCs of
    /// `llc_order[from_llc]` whose leaf field is non-zero, in order, each
    /// run found by a walk down the summary tree
    /// ([`visit_armed`](Self::visit_armed)), so a run of many LLCs costs a
    /// few loads per tree level, not one per LLC.
    ///
    /// Every load of the walk comes after any `set_idle` that returned
    /// before the claim started, which is all invariant 3 needs.
    fn claim_remote(&self, from_llc: usize) -> Option<(usize, Distance)> {
        for run in self.llc_order[from_llc].iter() {
            if let Some(w) = self.visit_armed(run.clone(), |m| self.claim_llc(m)) {
                return Some((w, Distance::Remote));
            }
        }
        None
    }

    /// [`claim_remote`](Self::claim_remote) restricted to the LLCs for
    /// which `accept` holds (asked only of LLCs whose summary shows an
    /// armed worker): the nearest idle worker of another LLC that passes.
    pub fn claim_remote_where(
        &self,
        from_llc: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Option<(usize, Distance)> {
        for run in self.llc_order.get(from_llc)?.iter() {
            let hit = self.visit_armed(run.clone(), |m| {
                if accept(m) { self.claim_llc(m) } else { None }
            });
            if let Some(w) = hit {
                return Some((w, Distance::Remote));
            }
        }
        None
    }

    /// Claims a worker anywhere in LLC `m`: fully idle cores first (with
    /// SMT), largest capacity first.
    #[inline]
    fn claim_llc(&self, m: usize) -> Option<usize> {
        let l = &self.llcs[m];
        if self.plain && l.range.len() <= 64 {
            return claim_bit(&self.words[l.word_base], |v| v).map(|b| l.range.start + b);
        }
        let whole = self
            .smt
            .then(|| self.claim_in(l, l.range.clone(), true))
            .flatten();
        whole.or_else(|| self.claim_in(l, l.range.clone(), false))
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
