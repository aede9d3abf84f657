//! Building the masks from an [`IdleShape`]: the per-LLC idle words, the
//! summary tree over the LLCs' sizes, the capacity classes and each
//! worker's core mask, all workers busy (no bit set, nothing armed).
//!
//! Invariants: the shape is validated first ([`IdleShape::validate`]: LLC
//! ranges contiguous from 0, clusters and cores inside one LLC), so each
//! LLC owns `ceil(len / 64)` words of its own and a worker's bit, class
//! masks and core mask are in its LLC's words; nothing here is shared or
//! atomic yet, the protocol of [`super`] starts once the masks are built.

use std::ops::Range;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicU64};

use super::tree::{bits, summary_tree};
use super::{IdleMasks, IdleShape, LlcInfo, NO_CLUSTER};

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
}
