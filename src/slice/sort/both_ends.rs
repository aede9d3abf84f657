//! [`merge`]: the merge of two sorted runs that both the small sort and
//! the parallel merge sort use, mostly from both ends at once.
//!
//! Each step of the main loop moves the smaller head to the front of the
//! output and the larger tail to its back: two chains of comparisons that
//! do not depend on each other, and moves chosen without branches. The loop
//! runs while both runs have at least two untaken elements, so every step
//! finds a head and a tail in each run, distinct and untaken, whatever the
//! comparator answers (a step takes one element at each end). When a run
//! has fewer than two left, what remains of both is merged front to back
//! with explicit checks.
//!
//! Hence, for any comparator: reads stay in the runs, every element is
//! copied exactly once (the output is always a permutation of the runs),
//! and only untaken elements are compared. A step makes both its
//! comparisons before its copies, so no element is ever compared after it
//! was copied: the runs stay the live copies of every element until the
//! merge returns (a comparator that changes elements through shared
//! references changes the copies that end up in the output).
//!
//! With a consistent comparator the output is sorted and equal elements
//! keep their order: the front takes the first run's head on ties, the
//! back the second run's tail.

use std::ptr;

/// Merges the sorted runs `a[..na]` and `b[..nb]` into `out[..na + nb]`,
/// stably (see the module). The runs are only read. At most `na + nb`
/// calls.
///
/// # Safety
/// The runs must be readable and initialized, `out` writable for `na + nb`
/// elements and not overlapping them.
#[inline]
pub(super) unsafe fn merge<T>(
    a: *const T,
    na: usize,
    b: *const T,
    nb: usize,
    out: *mut T,
    is_less: &impl Fn(&T, &T) -> bool,
) {
    let n = na + nb;
    // Untaken: `a[i..ia]` and `b[j..jb]`; written: `out[..k]` and
    // `out[n - k..]`.
    let (mut i, mut j) = (0, 0);
    let (mut ia, mut jb) = (na, nb);
    let mut k = 0;
    // SAFETY: a step starts with at least two untaken elements in each run,
    // so every read is in the runs, of an untaken element, and a run's head
    // and tail differ: the two copies take distinct elements. Step `k`
    // writes `out[k]` and `out[n - 1 - k]`, distinct since `2 * k + 4 <=
    // n` while four elements are untaken.
    unsafe {
        while ia - i >= 2 && jb - j >= 2 {
            let take_b = is_less(&*b.add(j), &*a.add(i));
            let take_a = is_less(&*b.add(jb - 1), &*a.add(ia - 1));
            let head = if take_b { b.add(j) } else { a.add(i) };
            let tail = if take_a { a.add(ia - 1) } else { b.add(jb - 1) };
            ptr::copy_nonoverlapping(head, out.add(k), 1);
            ptr::copy_nonoverlapping(tail, out.add(n - 1 - k), 1);
            i += !take_b as usize;
            j += take_b as usize;
            ia -= take_a as usize;
            jb -= !take_a as usize;
            k += 1;
        }
    }
    // SAFETY: the untaken elements are `a[i..ia]` and `b[j..jb]`, as many
    // as the unwritten slots `out[k..n - k]`; the loop reads only untaken
    // heads and writes each slot once.
    unsafe {
        let mut dst = out.add(k);
        while i < ia && j < jb {
            let take_b = is_less(&*b.add(j), &*a.add(i));
            let head = if take_b { b.add(j) } else { a.add(i) };
            ptr::copy_nonoverlapping(head, dst, 1);
            dst = dst.add(1);
            i += !take_b as usize;
            j += take_b as usize;
        }
        // One run is used up; the rest of the other follows (element by
        // element: usually a few, where a call to `memcpy` costs more).
        for src in (i..ia).map(|x| a.add(x)).chain((j..jb).map(|y| b.add(y))) {
            ptr::copy_nonoverlapping(src, dst, 1);
            dst = dst.add(1);
        }
    }
}
