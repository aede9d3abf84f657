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
//!
//! The unstable quicksort checks the pivots of the pieces it splits between
//! workers against a second sample spread over the whole piece
//! ([`spread_agrees`]) and takes that sample's median
//! ([`spread_median`]) when the first pivot would split off a sliver
//! (a periodic input can line up with the adjacent samples;
//! [`spread_sample`]).

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

/// Samples taken by [`spread_median`].
const SPREAD: usize = 15;

/// The index of the median of the spread sample of `v` (at least
/// [`SPREAD`] long; [`spread_sample`]), or of the next greater sample if
/// the median's copies would leave the split further from even and the
/// median is greater than `floor` (an element at most every element of
/// `v`, if known). At most `SPREAD * (SPREAD - 1) / 2 + SPREAD` (120)
/// calls; nothing moves.
pub(super) fn spread_median<T>(
    v: &[T],
    is_less: &impl Fn(&T, &T) -> bool,
    floor: Option<&T>,
) -> usize {
    let mut idx = spread_sample(v.len());
    // Insertion sort of the sample's indices by their elements: bounded by
    // the array, whatever the comparator answers.
    for i in 1..SPREAD {
        let mut j = i;
        while j > 0 && is_less(&v[idx[j]], &v[idx[j - 1]]) {
            idx.swap(j, j - 1);
            j -= 1;
        }
    }
    // The partition puts the pivot's equals on the right, so a median with
    // copies in the sample would leave only the samples below them on the
    // left: the next greater sample value is the pivot instead when its
    // split (the samples up to the median's copies on the left) is nearer
    // an even one, unless the median is not above `floor`: then it is the
    // piece's minimum, whose copies the quicksort splits off in one pass.
    // `lo`: samples less than the median; `hi`: not greater.
    let mid = SPREAD / 2;
    let mut lo = mid;
    while lo > 0 && !is_less(&v[idx[lo - 1]], &v[idx[mid]]) {
        lo -= 1;
    }
    let mut hi = mid + 1;
    while hi < SPREAD && !is_less(&v[idx[mid]], &v[idx[hi]]) {
        hi += 1;
    }
    let above_floor = || floor.is_none_or(|f| is_less(f, &v[idx[mid]]));
    if hi < SPREAD && lo + hi < SPREAD && above_floor() {
        idx[hi]
    } else {
        idx[mid]
    }
}

/// The spread sample: [`SPREAD`] positions in `0..len` (`len >= SPREAD`),
/// one at a pseudo-random place (seeded by `len`, so deterministic) in each
/// of `SPREAD` equal strata.
///
/// Why: [`choose`] samples three adjacent triples at `len/4`, `len/2` and
/// `3len/4`. In an input with a period that divides `len/4` (ascending runs
/// of 100 in 50,000 elements) every triple falls on the same spot of the
/// period (a run's last element and the next run's first two) and the
/// ninther is the period's second smallest value: the partition splits off
/// a sliver, and in the parallel sort the other worker gets nothing until
/// the next partition of the whole piece. Positions drawn at random in
/// strata line up with no period.
fn spread_sample(len: usize) -> [usize; SPREAD] {
    debug_assert!(len >= SPREAD);
    let stratum = len / SPREAD;
    let mut x = len as u64 | 1;
    let mut idx = [0usize; SPREAD];
    for (k, slot) in idx.iter_mut().enumerate() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *slot = k * stratum + (x % stratum as u64) as usize;
    }
    idx
}

/// Whether the spread sample ([`spread_sample`]; `v` at least [`SPREAD`]
/// long) puts at least two of its elements on each side of `v[pivot]`:
/// less than it, and greater. A pivot that splits off less than an eighth
/// of a piece rarely passes (two of 15 is about an eighth), one near the
/// middle almost always. `2 * SPREAD` calls; nothing moves.
pub(super) fn spread_agrees<T>(v: &[T], pivot: usize, is_less: &impl Fn(&T, &T) -> bool) -> bool {
    let idx = spread_sample(v.len());
    let p = &v[pivot];
    let less = idx.iter().filter(|&&i| is_less(&v[i], p)).count();
    let greater = idx.iter().filter(|&&i| is_less(p, &v[i])).count();
    less >= 2 && greater >= 2
}
