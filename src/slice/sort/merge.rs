//! Parallel stable sort: merge sort whose halves and merges run in
//! parallel.
//!
//! A slice that is one run (non-descending, or strictly descending and then
//! reversed) is done after one pass ([`runs::finish_one_run`]). A slice of at
//! most [`CHUNK`] elements is sorted sequentially ([`stable::sort`]).
//! Otherwise the slice `v` is cut in halves `depth` times (`depth` even, so
//! that leaves are at most [`CHUNK`] long and sort in place, with the same
//! range of `buf` as scratch). On the way back up, each level merges its
//! two sorted halves, alternating direction: the children of a level that
//! must end in `v` end in `buf` and are merged from `buf` into `v`, and
//! conversely. A merge longer than [`SEQUENTIAL_MERGE`] is split in two
//! independent merges at the middle of its longer run and the matching
//! binary-searched position in the other run, and the two run with `join`.
//! Two runs already in order are concatenated without a merge loop.
//!
//! Ownership of the elements (see the parent module): at the start every
//! element is in `v` and `buf` is logically uninitialized. A [`SortTask`]
//! owns a range whose elements are in `v` and delivers them, sorted if it
//! completes, into its target (`v` or the same range of `buf`). A
//! [`MergeTask`] owns two runs and an equally long destination in the other
//! region; it reads the runs and writes the destination, and its elements
//! stay live in the runs until it completes (then it is forgotten); its
//! `Drop` copies both runs, one after the other, over the destination.
//! Dropping either task never compares, so after any panic each
//! range's elements sit in the region its parent expects, and the top-level
//! task delivers everything into `v`.
//!
//! Calls, whatever the comparator answers: the first run at most `len`,
//! the leaves as in [`stable`], each merge level at most `len` plus two
//! comparisons and a binary search per merge task; there are
//! `log2(len / CHUNK) + 1` levels. Every loop is bounded by indices.
//!
//! Stability: in every merge, an element of the first run goes before an
//! equal element of the second, and the split of a parallel merge keeps
//! every pair of equal elements on the same side or in the right order.

use std::mem::{self, ManuallyDrop};
use std::ptr;
use std::slice;

use super::{both_ends, runs, stable};

/// Longest leaf: sorted sequentially by [`stable::sort`].
const CHUNK: usize = stable::MAX_LEN;

/// Merges with at most this many elements run sequentially (under Miri
/// fewer, as [`stable::MAX_LEN`]: `docs/sanitizers.md`).
const SEQUENTIAL_MERGE: usize = if cfg!(miri) { 64 } else { 4096 };

/// Sorts `v` stably, in parallel, into the order where `is_less(a, b)`
/// means `a` goes before `b`.
pub(super) fn sort<T, L>(v: &mut [T], is_less: &L)
where
    T: Send,
    L: Fn(&T, &T) -> bool + Sync,
{
    let len = v.len();
    if size_of::<T>() == 0 || len < 2 {
        return;
    }
    if runs::finish_one_run(v, is_less) {
        return;
    }
    if len <= CHUNK {
        let mut scratch = Vec::<T>::with_capacity(len);
        // SAFETY: the scratch has room for `len` elements, in its own
        // allocation; its length stays 0, so it never drops an element.
        unsafe { stable::sort(v, scratch.as_mut_ptr(), is_less) };
        return;
    }
    // Leaves of at most CHUNK elements, at an even depth: a leaf then
    // sorts in place, in `v`, which is where its parent's parent wants it.
    let mut depth = 0;
    while len.div_ceil(1 << depth) > CHUNK {
        depth += 1;
    }
    depth += depth % 2;
    // Owns the allocation only: length 0, so it never drops an element.
    let mut buf = Vec::<T>::with_capacity(len);
    let task = SortTask {
        v: v.as_mut_ptr(),
        buf: buf.as_mut_ptr(),
        len,
        into_buf: false,
    };
    task.run(depth, is_less);
}

/// Sorts `v[..len]` (where the elements are) into `v[..len]` or, if
/// `into_buf`, into `buf[..len]` (logically uninitialized). Dropping the
/// task unrun moves the elements, unsorted, into the target.
struct SortTask<T> {
    v: *mut T,
    buf: *mut T,
    len: usize,
    into_buf: bool,
}

// SAFETY: a task is the only owner of its elements and of both ranges
// (as a `&mut [T]` would be); sending it sends `T`s.
unsafe impl<T: Send> Send for SortTask<T> {}

impl<T: Send> SortTask<T> {
    fn run<L>(self, depth: u32, is_less: &L)
    where
        L: Fn(&T, &T) -> bool + Sync,
    {
        if depth == 0 {
            // SAFETY: the task's elements are in `v[..len]`, which no one
            // else touches while it runs, and `buf[..len]` is logically
            // empty (the task owns both): scratch enough for the leaf.
            unsafe {
                let leaf = slice::from_raw_parts_mut(self.v, self.len);
                stable::sort(leaf, self.buf, is_less);
            }
            // Dropping `self` moves the elements to the target, if `buf`.
            return;
        }
        // From here the two halves and the merge own the elements.
        let this = ManuallyDrop::new(self);
        let (v, buf, len, into_buf) = (this.v, this.buf, this.len, this.into_buf);
        let mid = len / 2;
        // SAFETY: `mid <= len`: the halves stay in the task's ranges.
        let (left, right) = unsafe {
            (
                SortTask {
                    v,
                    buf,
                    len: mid,
                    into_buf: !into_buf,
                },
                SortTask {
                    v: v.add(mid),
                    buf: buf.add(mid),
                    len: len - mid,
                    into_buf: !into_buf,
                },
            )
        };
        // The halves deliver into `src`; the merge moves them into `dst`.
        let (src, dst) = if into_buf { (v, buf) } else { (buf, v) };
        // SAFETY: as above. Created before the halves run: if one panics
        // (or is dropped unrun), `join` unwinds only after both delivered
        // their elements into `src`, and dropping `merge` then moves them
        // all into `dst`.
        let merge = unsafe {
            MergeTask {
                a: src,
                a_end: src.add(mid),
                b: src.add(mid),
                b_end: src.add(len),
                out: dst,
            }
        };
        crate::join(
            move || left.run(depth - 1, is_less),
            move || right.run(depth - 1, is_less),
        );
        merge.run(is_less);
    }
}

impl<T> Drop for SortTask<T> {
    fn drop(&mut self) {
        if self.into_buf {
            // SAFETY: the elements are in `v[..len]`; `buf[..len]` is
            // logically empty and a different allocation.
            unsafe { ptr::copy_nonoverlapping(self.v, self.buf, self.len) };
        }
    }
}

/// Merges the sorted runs `a..a_end` and `b..b_end` into `out..`, in the
/// other region. The runs hold the task's live elements until the merge
/// completes, which forgets the task; dropping it before (a panic) copies
/// `a`, then `b`, to `out..` without comparing.
struct MergeTask<T> {
    a: *const T,
    a_end: *const T,
    b: *const T,
    b_end: *const T,
    out: *mut T,
}

// SAFETY: as for `SortTask`: the task alone owns its runs and destination.
unsafe impl<T: Send> Send for MergeTask<T> {}

impl<T: Send> MergeTask<T> {
    fn len_a(&self) -> usize {
        // SAFETY: `a <= a_end`, in one allocation.
        unsafe { self.a_end.offset_from(self.a) as usize }
    }

    fn len_b(&self) -> usize {
        // SAFETY: `b <= b_end`, in one allocation.
        unsafe { self.b_end.offset_from(self.b) as usize }
    }

    /// Settles the merge without the main loop if the runs do not
    /// interleave: returns true if the task only has to be dropped.
    fn is_concatenation(&mut self, is_less: &impl Fn(&T, &T) -> bool) -> bool {
        if self.a == self.a_end || self.b == self.b_end {
            return true;
        }
        // SAFETY: both runs are non-empty and initialized.
        unsafe {
            if !is_less(&*self.b, &*self.a_end.sub(1)) {
                // last of a <= first of b: a then b.
                return true;
            }
            if is_less(&*self.b_end.sub(1), &*self.a) {
                // All of b < first of a: b then a (equal elements keep a
                // first, so this needs the strict test).
                mem::swap(&mut self.a, &mut self.b);
                mem::swap(&mut self.a_end, &mut self.b_end);
                return true;
            }
        }
        false
    }

    fn run<L>(mut self, is_less: &L)
    where
        L: Fn(&T, &T) -> bool + Sync,
    {
        if self.is_concatenation(is_less) {
            return;
        }
        let (na, nb) = (self.len_a(), self.len_b());
        if na + nb <= SEQUENTIAL_MERGE {
            self.run_sequential(is_less);
            return;
        }
        // Split at the middle of the longer run. From the first run, the
        // low half takes the elements before the split; from the second,
        // those that go before the split element (for a split element of
        // `a`: the elements of `b` less than it; for one of `b`: the
        // elements of `a` not greater than it).
        // SAFETY: both runs are initialized and no one else touches them;
        // the split points are within the runs.
        let (i, j) = unsafe {
            let a = slice::from_raw_parts(self.a, na);
            let b = slice::from_raw_parts(self.b, nb);
            if na >= nb {
                let i = na / 2;
                (i, b.partition_point(|x| is_less(x, &a[i])))
            } else {
                let j = nb / 2;
                (a.partition_point(|x| !is_less(&b[j], x)), j)
            }
        };
        let this = ManuallyDrop::new(self);
        // SAFETY: `i <= na` and `j <= nb`; `out + i + j` is where the high
        // part's first element goes.
        let (low, high) = unsafe {
            (
                MergeTask {
                    a: this.a,
                    a_end: this.a.add(i),
                    b: this.b,
                    b_end: this.b.add(j),
                    out: this.out,
                },
                MergeTask {
                    a: this.a.add(i),
                    a_end: this.a_end,
                    b: this.b.add(j),
                    b_end: this.b_end,
                    out: this.out.add(i + j),
                },
            )
        };
        crate::join(move || low.run(is_less), move || high.run(is_less));
    }

    fn run_sequential(self, is_less: &impl Fn(&T, &T) -> bool) {
        let (na, nb) = (self.len_a(), self.len_b());
        // SAFETY: the runs are initialized and `out..out + na + nb` is the
        // task's destination, in the other region.
        unsafe { both_ends::merge(self.a, na, self.b, nb, self.out, is_less) };
        // Every element was written to the destination exactly once.
        mem::forget(self);
    }
}

impl<T> Drop for MergeTask<T> {
    fn drop(&mut self) {
        // SAFETY: the runs hold the task's live elements; `out..` has room
        // for exactly all of them, in the other region (no overlap).
        unsafe {
            let na = self.a_end.offset_from(self.a) as usize;
            let nb = self.b_end.offset_from(self.b) as usize;
            ptr::copy_nonoverlapping(self.a, self.out, na);
            ptr::copy_nonoverlapping(self.b, self.out.add(na), nb);
        }
    }
}
