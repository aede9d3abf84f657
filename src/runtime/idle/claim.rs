//! The claims: a waker clears an idle bit with `fetch_and` and so owns
//! that worker's wakeup. [`IdleMasks::claim_nearest`] searches the
//! waker's cluster, its LLC, then the other LLCs nearest first (each run
//! of the LLC order by the walk of `summary`); the others are its steps
//! alone ([`IdleMasks::claim_in_llc`], [`IdleMasks::claim_remote_where`])
//! or a claim of one given worker ([`IdleMasks::claim_worker`]).
//!
//! Invariants (of [`super`]): every claim is one `fetch_and` that
//! observed the bit set (invariant 1, exactly one taker: a lost race
//! retries on what the RMW returned); a claim does not touch the summary
//! (the claimed worker stays armed until its own `clear_idle`); and a
//! claim whose search order holds the LLC of a worker whose `set_idle`
//! returned before the claim started returns *some* worker unless that
//! bit was taken meanwhile (invariant 3).
//!
//! # Fully idle cores first
//!
//! Where some core has several workers (SMT siblings, or workers sharing
//! a PU), a claim first takes a worker whose whole core is idle (its core
//! mask all set in the word it read), in the cluster then the rest of the
//! LLC (or in the remote LLC), and only then any idle worker, in the same
//! order: a woken worker then does not share its core with a busy one
//! while a core is free. Within each pass the largest capacity class goes
//! first. A core that crosses an idle word's boundary has no core mask
//! (0) and is never "whole". Without SMT and with one class, a claim in an
//! LLC of one word takes the lowest set bit of one load (`plain`). These
//! preferences change only the order in which bits are tried, so the
//! invariants hold as for any order.

use std::ops::Range;

use crate::sync::{AtomicU64, Ordering};

use super::tree::bits;
use super::{Distance, IdleMasks, LlcInfo, NO_CLUSTER};

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

impl IdleMasks {
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
