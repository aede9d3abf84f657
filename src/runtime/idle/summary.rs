//! The reads of the summary tree: whether some worker is armed (one load
//! of the root), how many, an LLC's count, and the walk down the tree to
//! the armed LLCs of a range ([`IdleMasks::visit_armed`]), which the claims
//! of `claim` and [`IdleMasks::any_bit_set`] take.
//!
//! Invariants: every load is `SeqCst` (the protocol's total order `S`);
//! none of these reads writes, so they rely on invariant 2 of [`super`]
//! (a field that reads zero has no set bit under it) and give its answer
//! on: no false negatives for a worker armed throughout the read, stale
//! positives possible. The walk never moves its cursor past an LLC with a
//! bit set throughout (the part of invariant 3 that is the walk's).

use std::ops::Range;

use crate::sync::{AtomicU64, Ordering};

use super::IdleMasks;
use super::tree::bits;

impl IdleMasks {
    /// Whether some LLC may have an idle worker (no false negatives; false
    /// positives while a claimed worker has not yet called `clear_idle`):
    /// one load, of the summary's root word.
    #[inline]
    pub fn any_idle(&self) -> bool {
        self.root().load(Ordering::SeqCst) != 0
    }

    /// The root word of the summary tree: non-zero iff some worker is armed.
    #[inline]
    pub(super) fn root(&self) -> &AtomicU64 {
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
    /// claimer wakes it). The pool asks it as `private::rules::must_publish`,
    /// which keeps the root word; the tests ask it here.
    #[cfg(test)]
    pub fn any_unclaimed(&self) -> bool {
        self.any_idle() && self.any_bit_set()
    }

    /// The summary's root word, non-zero iff some worker is armed: a caller
    /// that asks for an armed worker very often (every `join`) keeps a
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
    pub(super) fn llc_count(&self, llc: usize) -> u64 {
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
    pub(super) fn visit_armed<R>(
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
}
