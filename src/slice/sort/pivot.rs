//! Pivot choice for both quicksorts, and what the samples say about the
//! order of the piece.
//!
//! A piece of fewer than [`NINTHER`] elements takes the median of three
//! samples at `len/4`, `len/2` and `3len/4`; a longer one the median of the
//! medians of three triples around those points (a ninther), which makes a
//! bad pivot unlikely on random data. Every median compares all three pairs
//! of its samples (no branch on the outcomes), so the samples also tell
//! whether the piece looks sorted: all pairs in order, or all in strictly
//! descending order.

/// From this length on, the pivot is a ninther instead of a median of
/// three.
pub(super) const NINTHER: usize = 50;

/// What the sampled elements say about a piece.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Looks {
    /// Every compared pair of samples was in order.
    Sorted,
    /// Every compared pair was in strictly descending order.
    Descending,
    /// At most one pair in six was in descending order: probably a sorted
    /// piece with a few elements out of place.
    NearlySorted,
    /// Anything else.
    Mixed,
}

/// The index of a pivot of `v` (at least 8 elements) and what the samples
/// say about `v`. At most 12 calls.
pub(super) fn choose<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> (usize, Looks) {
    let len = v.len();
    debug_assert!(len >= 8);
    let (a, b, c) = (len / 4, len / 2, len / 4 * 3);
    let mut tally = Tally::default();
    let pivot = if len >= NINTHER {
        let a = median3(v, a - 1, a, a + 1, is_less, &mut tally);
        let b = median3(v, b - 1, b, b + 1, is_less, &mut tally);
        let c = median3(v, c - 1, c, c + 1, is_less, &mut tally);
        median3(v, a, b, c, is_less, &mut tally)
    } else {
        median3(v, a, b, c, is_less, &mut tally)
    };
    let looks = if tally.descents == 0 {
        Looks::Sorted
    } else if tally.descents == tally.compared {
        Looks::Descending
    } else if tally.descents * 6 <= tally.compared {
        Looks::NearlySorted
    } else {
        Looks::Mixed
    };
    (pivot, looks)
}

/// Pairs compared, and pairs found in strictly descending order.
#[derive(Default)]
struct Tally {
    compared: u32,
    descents: u32,
}

/// The index of the median of `v[a]`, `v[b]`, `v[c]` (3 calls, each pair
/// once), with `a < b < c`.
fn median3<T>(
    v: &[T],
    a: usize,
    b: usize,
    c: usize,
    is_less: &impl Fn(&T, &T) -> bool,
    tally: &mut Tally,
) -> usize {
    let ba = is_less(&v[b], &v[a]);
    let cb = is_less(&v[c], &v[b]);
    let ca = is_less(&v[c], &v[a]);
    tally.compared += 3;
    tally.descents += ba as u32 + cb as u32 + ca as u32;
    // Monotone (either way): `b`. Otherwise `b` is an extreme and the
    // median is the other extreme of `a` and `c`: if `b` is the largest
    // (`!ba`), the larger of them; if the smallest, the smaller.
    if ba == cb {
        b
    } else if ba != ca {
        a
    } else {
        c
    }
}
