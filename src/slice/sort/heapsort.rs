//! Heapsort: the quicksort's fallback when a piece has made too many
//! unbalanced partitions (see [`super::quick`]).
//!
//! It moves elements only by swaps (panic-safe without a guard) and makes
//! at most `2 * len * log2(len)` comparator calls whatever the comparator
//! answers: every sift steps one level down a heap of height `log2(len)`
//! and compares twice per step.

/// Sorts `v` in place, unstably.
pub(super) fn heapsort<T>(v: &mut [T], is_less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    // Max-heap: no element below a node is greater than the node.
    for node in (0..len / 2).rev() {
        sift_down(v, node, is_less);
    }
    // Move the maximum behind the heap, shrink it, restore it.
    for end in (1..len).rev() {
        v.swap(0, end);
        sift_down(&mut v[..end], 0, is_less);
    }
}

/// Moves `heap[node]` down while a child is greater than it.
fn sift_down<T>(heap: &mut [T], mut node: usize, is_less: &impl Fn(&T, &T) -> bool) {
    loop {
        let mut child = 2 * node + 1;
        if child >= heap.len() {
            return;
        }
        if child + 1 < heap.len() && is_less(&heap[child], &heap[child + 1]) {
            child += 1;
        }
        if !is_less(&heap[node], &heap[child]) {
            return;
        }
        heap.swap(node, child);
        node = child;
    }
}
