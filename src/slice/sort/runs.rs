//! Passes over a whole run: finding where a run ends, checking that a
//! piece is one run, and reversing a descending one.
//!
//! A sorted, reversed or all-equal slice is finished by these passes alone
//! (one check, and one reversal if it descends), in both sorts, so on such
//! input a sort costs one pass over the slice. rayon's sorts make the
//! same passes with a loop that compares one pair per step. Here:
//!
//! - **Blocks.** [`first_pair`] compares [`BLOCK`] neighbours per step
//!   without a branch per pair and looks for the pair inside the block
//!   only once a block has one. Where a comparison is cheap the block
//!   vectorizes; and with one branch per block, the loop's speed does not
//!   depend on where the linker puts it (a one-pair loop ran at half speed
//!   in some builds of the development machine and at full speed with its
//!   loops aligned to 64 bytes). The price: up to
//!   [`BLOCK`] calls more per scan, spent only where a pass is made at all.
//! - **Halves.** A piece of more than [`SPLIT_BYTES`] is cut into halves
//!   that other workers may take, down to leaves of [`LEAF`] elements; a
//!   half nobody takes runs on the caller after the first, as any `join`.
//!   Only above [`SPLIT_BYTES`]: the caller has usually just written or
//!   read the piece, so a piece that fits its core's private cache is
//!   there, and a thief would fetch its half from that cache line by line,
//!   which costs more than the pass (on the development machine, 2 MiB of
//!   L2 per core, a pass split at every size took 1.0 to 1.1 times
//!   rayon's time on 1 MiB of `u32`, 0.8 to 0.9 on 4 MiB and 0.6 to 0.7 on
//!   32 MiB, where the unsplit pass took 1.0; `docs/sort-passes.md`).
//!
//! Every pass only reads or swaps: no element is ever outside the slice,
//! so a comparator that panics leaves the slice a permutation of the
//! input, as every part of the sorts must. The halves are disjoint `&mut`
//! slices, never a shared `&[T]`, so `T: Send` is enough, as in rayon.

/// A pass splits only a piece larger than this: 2 MiB, the largest
/// per-core L2 of the machines locus is built for (a piece that fits
/// one is likely in the caller's). Under Miri it is a few elements, so
/// that tests of a few hundred elements reach the split.
const SPLIT_BYTES: usize = if cfg!(miri) { 64 } else { 2 << 20 };

/// The leaves of a split pass: a pass over 8,192 `u32` takes about a
/// microsecond here, about what a steal costs.
pub(super) const LEAF: usize = if cfg!(miri) { 16 } else { 8192 };

/// Neighbours compared per step of [`first_pair`].
const BLOCK: usize = 16;

/// Whether a pass over `len` elements of `T` is split.
pub(super) fn splits<T>(len: usize) -> bool {
    len > LEAF && len.saturating_mul(size_of::<T>()) > SPLIT_BYTES
}

/// The first `i` with `hit(&v[i], &v[i + 1])`, if any, by blocks of
/// [`BLOCK`] pairs (module docs). At most `len - 1 + BLOCK` calls: each
/// pair once, and the pairs of the block with the hit again.
pub(super) fn first_pair<T>(v: &[T], hit: impl Fn(&T, &T) -> bool) -> Option<usize> {
    let mut start = 0;
    while start + BLOCK < v.len() {
        // The range has BLOCK + 1 elements: the conversion cannot fail.
        let block: &[T; BLOCK + 1] = v[start..=start + BLOCK].try_into().unwrap();
        let mut any = false;
        for k in 0..BLOCK {
            any |= hit(&block[k], &block[k + 1]);
        }
        if any {
            break;
        }
        start += BLOCK;
    }
    v[start..]
        .windows(2)
        .position(|w| hit(&w[0], &w[1]))
        .map(|k| start + k)
}

/// Whether no pair of neighbours of `v` is a hit, checked in halves down to
/// [`LEAF`] elements ([`first_pair`] in each). At most `len - 1 + BLOCK`
/// calls per leaf; the caller asks only where the pass [`splits`].
fn no_pair_split<T, H>(v: &mut [T], hit: &H) -> bool
where
    T: Send,
    H: Fn(&T, &T) -> bool + Sync,
{
    if v.len() <= LEAF {
        return first_pair(v, hit).is_none();
    }
    let mid = v.len() / 2;
    // The pair across the cut first: neither half looks at it, and a
    // slice with a hit there is answered without splitting.
    if hit(&v[mid - 1], &v[mid]) {
        return false;
    }
    let (left, right) = v.split_at_mut(mid);
    let (a, b) = crate::join(|| no_pair_split(left, hit), || no_pair_split(right, hit));
    a && b
}

/// Whether no pair of neighbours of `v` is a hit: [`first_pair`], or in
/// halves where the pass [`splits`].
fn no_pair<T, H>(v: &mut [T], hit: &H) -> bool
where
    T: Send,
    H: Fn(&T, &T) -> bool + Sync,
{
    if splits::<T>(v.len()) {
        no_pair_split(v, hit)
    } else {
        first_pair(v, hit).is_none()
    }
}

/// Whether `v` is sorted (no `v[i + 1] < v[i]`).
pub(super) fn is_sorted<T, L>(v: &mut [T], is_less: &L) -> bool
where
    T: Send,
    L: Fn(&T, &T) -> bool + Sync,
{
    no_pair(v, &|a: &T, b: &T| is_less(b, a))
}

/// Sorts `v` (at least 2 elements) if it is one run: non-descending, or
/// strictly descending (then reversed, which keeps equal elements in
/// order: there are none). Returns whether it was.
pub(super) fn finish_one_run<T, L>(v: &mut [T], is_less: &L) -> bool
where
    T: Send,
    L: Fn(&T, &T) -> bool + Sync,
{
    if !is_less(&v[1], &v[0]) {
        return is_sorted(v, is_less);
    }
    let descending = no_pair(v, &|a: &T, b: &T| !is_less(b, a));
    if descending {
        reverse(v);
    }
    descending
}

/// Reverses `v` in place: the element at `i` and the one at `len - 1 - i`
/// swap places; in halves where the pass [`splits`]. No comparator calls.
pub(super) fn reverse<T: Send>(v: &mut [T]) {
    if splits::<T>(v.len()) {
        reverse_split(v);
    } else {
        v.reverse();
    }
}

/// [`reverse`] in pairs of mirrored pieces down to [`LEAF`] elements.
pub(super) fn reverse_split<T: Send>(v: &mut [T]) {
    let half = v.len() / 2;
    let (front, rest) = v.split_at_mut(half);
    // The middle element of an odd length stays where it is.
    let back_start = rest.len() - half;
    swap_mirrored(front, &mut rest[back_start..]);
}

/// Swaps `front[i]` with `back[len - 1 - i]` for every `i`; the two slices
/// have the same length.
fn swap_mirrored<T: Send>(front: &mut [T], back: &mut [T]) {
    debug_assert_eq!(front.len(), back.len());
    let len = front.len();
    if 2 * len <= LEAF {
        for (a, b) in front.iter_mut().zip(back.iter_mut().rev()) {
            std::mem::swap(a, b);
        }
        return;
    }
    // front[..mid] pairs with the last `mid` of `back`, front[mid..] with
    // its first `len - mid`.
    let mid = len / 2;
    let (front_a, front_b) = front.split_at_mut(mid);
    let (back_b, back_a) = back.split_at_mut(len - mid);
    crate::join(
        || swap_mirrored(front_a, back_a),
        || swap_mirrored(front_b, back_b),
    );
}
