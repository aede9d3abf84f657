//! The summary tree's words: levels of small counter fields packed into
//! `AtomicU64` words ("Summary tree" in [`super`]), and the bit masks of
//! word-local ranges the idle words are read with.
//!
//! Invariants (the parts of invariant 2 of [`super`] that the layout
//! alone gives):
//! - A level's fields are `W` bits, `W` the next power of two of the bit
//!   length of the most workers under one field, so a field that counts
//!   each of its workers at most once never overflows into its neighbour,
//!   and never borrows from it while it counts at most what was added.
//! - The last level is one word (the root), so "some worker is armed" is
//!   one load.
//! - Field `i` of level `k + 1` counts the workers under word `i` of level
//!   `k`; at level 0 a field is one LLC (`span_log` says how many LLCs are
//!   under a field of each level).
//!
//! Pure data and arithmetic: the atomics' protocol (who adds, who
//! subtracts, in which order) is the parent's (`set_idle`, `clear_idle`).

use crossbeam_utils::CachePadded;

use crate::sync::AtomicU64;

/// One level of the summary tree (see "Summary tree" in the module docs).
#[derive(Debug)]
pub(super) struct Level {
    /// The packed counters.
    pub(super) words: Box<[CachePadded<AtomicU64>]>,
    /// log2 of the field width `W` (a power of two, 1 to 32 bits).
    pub(super) width_log: u32,
    /// log2 of the fields per word (`64 / W`).
    pub(super) fields_log: u32,
    /// log2 of the LLCs under one field (1 at level 0).
    pub(super) span_log: u32,
    /// The top bit of every field.
    pub(super) high: u64,
    /// Every bit of every field but its top bit.
    pub(super) low: u64,
}

impl Level {
    /// Word index and shift of the field above LLC `llc`.
    #[inline]
    pub(super) fn place(&self, llc: usize) -> (usize, u32) {
        let f = llc >> self.span_log;
        let i = f & ((1 << self.fields_log) - 1);
        (f >> self.fields_log, (i as u32) << self.width_log)
    }

    /// The top bit of each non-zero field of `v` (SWAR: adding `low` to
    /// the low bits of a field carries into its top bit iff they are not
    /// all zero, never into the next field).
    #[inline]
    pub(super) fn nonzero(&self, v: u64) -> u64 {
        (((v & self.low) + self.low) | v) & self.high
    }

    /// The value of field `i` (word-local) of `v`.
    #[inline]
    pub(super) fn field(&self, v: u64, i: usize) -> u64 {
        let w = 1u32 << self.width_log;
        let m = if w >= 64 { !0 } else { (1u64 << w) - 1 };
        (v >> ((i as u32) << self.width_log)) & m
    }
}

/// Bits `lo..hi` (word-local, `lo < hi <= 64`).
pub(super) fn bits(lo: usize, hi: usize) -> u64 {
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
pub(super) fn summary_tree(sizes: Vec<usize>) -> Box<[Level]> {
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
