//! Steal tiers as plain values: only the layout makes a [`Tier`] (it
//! also carries a crate-private field), so the tests compare its public
//! fields.

use locus::{Tier, TierKind};
use std::ops::Range;

/// A tier's public fields: kind, worker ranges, NUMA distance.
pub type Shape = (TierKind, Vec<Range<usize>>, u32);

/// The [`Shape`] a test expects.
pub fn tier(kind: TierKind, ranges: &[Range<usize>], distance: u32) -> Shape {
    (kind, ranges.to_vec(), distance)
}

/// The [`Shape`]s of `tiers`, to compare with [`tier`]'s.
pub fn shapes(tiers: &[Tier]) -> Vec<Shape> {
    tiers
        .iter()
        .map(|t| (t.kind, t.ranges.clone(), t.distance))
        .collect()
}
