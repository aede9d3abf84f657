//! Every iterator rayon makes `Clone` is `Clone` here too, and a clone runs
//! to the same items as the original (rayon's `tests/clones.rs`, in other
//! words): sources (collections, slices, strings, ranges, options, results),
//! adapters, and the free constructors.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;

use locus::prelude::*;

mod common;
#[allow(dead_code)]
mod iter_util;

/// Runs a clone of `it`, then `it` itself, on a 4-worker pool; both must
/// give the same items in the same order.
fn same_as_clone<I>(it: I)
where
    I: ParallelIterator<Item: Debug + PartialEq> + Clone,
{
    iter_util::pool().install(|| {
        let copy: Vec<I::Item> = it.clone().collect();
        let original: Vec<I::Item> = it.collect();
        assert_eq!(copy, original);
    });
}

/// For the iterators whose items depend on timing (`skip_any`,
/// `take_any`): a clone gives as many items.
fn same_count_as_clone<I: ParallelIterator + Clone>(it: I) {
    assert_eq!(it.clone().count(), it.count());
}

#[test]
fn collection_iterators() {
    let heap: BinaryHeap<u32> = (0..500).collect();
    same_as_clone(heap.par_iter());
    same_as_clone(heap.clone().into_par_iter());
    let tree_map: BTreeMap<u32, usize> = (0..500).map(|i| (i, i as usize)).collect();
    same_as_clone(tree_map.par_iter());
    let tree_set: BTreeSet<u32> = (0..500).collect();
    same_as_clone(tree_set.par_iter());
    let hash_map: HashMap<u32, u32> = (0..500).map(|i| (i, i)).collect();
    same_as_clone(hash_map.par_iter());
    let hash_set: HashSet<u32> = (0..500).collect();
    same_as_clone(hash_set.par_iter());
    let list: LinkedList<u32> = (0..500).collect();
    same_as_clone(list.par_iter());
    same_as_clone(list.clone().into_par_iter());
    let mut deque: VecDeque<u32> = (0..500).collect();
    deque.rotate_left(100); // two slices
    same_as_clone(deque.par_iter());
    same_as_clone(deque.clone().into_par_iter());
}

#[test]
fn option_result_range_and_array() {
    let some = Some(3u8);
    same_as_clone(some.par_iter());
    same_as_clone(some.into_par_iter());
    let ok: Result<u8, ()> = Ok(4);
    same_as_clone(ok.par_iter());
    same_as_clone(ok.into_par_iter());
    same_as_clone((0..777u32).into_par_iter());
    same_as_clone((0..=777u64).into_par_iter());
    same_as_clone(('a'..='z').into_par_iter());
    same_as_clone([7i16; 64].into_par_iter());
}

#[test]
fn string_iterators() {
    let text = include_str!("iter_clones.rs");
    same_as_clone(text.par_chars());
    same_as_clone(text.par_char_indices());
    same_as_clone(text.par_bytes());
    same_as_clone(text.par_encode_utf16());
    same_as_clone(text.par_lines());
    same_as_clone(text.par_split('\n'));
    same_as_clone(text.par_split_inclusive('\n'));
    same_as_clone(text.par_split_terminator(';'));
    same_as_clone(text.par_split_whitespace());
    same_as_clone(text.par_split_ascii_whitespace());
    same_as_clone(text.par_matches(char::is_uppercase));
    same_as_clone(text.par_match_indices('('));
}

#[test]
fn slice_iterators() {
    let v: Vec<u32> = (0..1000).collect();
    same_as_clone(v.par_iter());
    same_as_clone(v.par_chunks(37));
    same_as_clone(v.par_chunks_exact(37));
    same_as_clone(v.par_rchunks(37));
    same_as_clone(v.par_rchunks_exact(37));
    same_as_clone(v.par_windows(37));
    same_as_clone(v.par_array_windows::<37>());
    same_as_clone(v.par_split(|x| x % 7 == 0));
    same_as_clone(v.par_split_inclusive(|x| x % 7 == 0));
    same_as_clone(v.par_chunk_by(|a, b| a / 10 == b / 10));
    same_as_clone(v.clone().into_par_iter());
    // The exact chunks keep their remainder in the clone.
    let it = v.par_chunks_exact(37);
    assert_eq!(it.clone().remainder(), it.remainder());
    let it = v.par_rchunks_exact(37);
    assert_eq!(it.clone().remainder(), it.remainder());
}

#[test]
fn adapters() {
    let v: Vec<Option<u32>> = (0..600).map(|i| (i % 5 != 0).then_some(i)).collect();
    let w = &v;
    same_as_clone(v.par_iter().by_exponential_blocks());
    same_as_clone(v.par_iter().by_uniform_blocks(64));
    same_as_clone(v.par_iter().chain(w));
    same_as_clone(v.par_iter().cloned());
    same_as_clone(v.par_iter().copied());
    same_as_clone(v.par_iter().enumerate());
    same_as_clone(v.par_iter().filter(|x| x.is_some()));
    same_as_clone(v.par_iter().filter_map(|x| *x));
    same_as_clone(v.par_iter().flat_map(|x| *x));
    same_as_clone(v.par_iter().flat_map_iter(|x| *x));
    same_as_clone(v.par_iter().flatten());
    same_as_clone(v.par_iter().flatten_iter());
    // One item per piece, so the partial results do not depend on timing.
    same_as_clone(v.par_iter().with_max_len(1).fold(|| 0, |n, _| n + 1));
    same_as_clone(v.par_iter().with_max_len(1).fold_with(0, |n, _| n + 1));
    same_as_clone(v.par_iter().fold_chunks(9, || 0, |n, _| n + 1));
    same_as_clone(v.par_iter().fold_chunks_with(9, 0, |n, _| n + 1));
    same_as_clone(v.par_iter().with_max_len(1).try_fold(|| 0, |_, &x| x));
    same_as_clone(v.par_iter().with_max_len(1).try_fold_with(0, |_, &x| x));
    same_as_clone(v.par_iter().inspect(|_| ()));
    same_as_clone(v.par_iter().update(|_| ()));
    same_as_clone(v.par_iter().interleave(w));
    same_as_clone(v.par_iter().interleave_shortest(&v[..100]));
    same_as_clone(v.par_iter().intersperse(&None));
    same_as_clone(v.par_iter().chunks(11));
    same_as_clone(v.par_iter().map(|x| x.map(|y| y * 2)));
    same_as_clone(v.par_iter().map_with(1, |k, x| x.map(|y| y * *k)));
    same_as_clone(v.par_iter().map_init(|| 1, |k, x| x.map(|y| y * *k)));
    same_as_clone(v.par_iter().panic_fuse());
    same_as_clone(v.par_iter().positions(|x| x.is_none()));
    same_as_clone(v.par_iter().rev());
    same_as_clone(v.par_iter().skip(77));
    same_as_clone(v.par_iter().skip_any_while(|_| false));
    same_as_clone(v.par_iter().take(77));
    same_as_clone(v.par_iter().take_any_while(|_| true));
    same_as_clone(v.par_iter().cloned().while_some());
    same_as_clone(v.par_iter().with_max_len(3));
    same_as_clone(v.par_iter().with_min_len(3));
    same_as_clone(v.par_iter().zip(w));
    same_as_clone(v.par_iter().zip_eq(w));
    same_as_clone(v.par_iter().step_by(3));
    same_count_as_clone(v.par_iter().skip_any(77));
    same_count_as_clone(v.par_iter().take_any(77));
}

#[test]
fn free_constructors() {
    same_as_clone(locus::iter::empty::<u8>());
    same_as_clone(locus::iter::once('x'));
    same_as_clone(locus::iter::repeat(Some(1u8)).take(50));
    same_as_clone(locus::iter::repeat(None::<u8>).while_some());
    same_as_clone(locus::iter::repeat_n(Some(1u8), 50));
    // The pieces depend on how often the pool splits; their items, in
    // order, do not.
    let pieces = locus::iter::split(0..500u32, |r| {
        if r.len() < 10 {
            (r, None)
        } else {
            let mid = r.start + r.len() as u32 / 2;
            (r.start..mid, Some(mid..r.end))
        }
    });
    same_as_clone(pieces.flat_map_iter(|r| r));
    same_as_clone(locus::iter::walk_tree_prefix(1u32, |&n| {
        if n < 64 {
            vec![2 * n, 2 * n + 1]
        } else {
            vec![]
        }
    }));
}

#[test]
fn tuples_of_sources() {
    let v: Vec<u16> = (0..300).collect();
    let v = &v;
    same_as_clone((v,).into_par_iter());
    same_as_clone((v, v).into_par_iter());
    same_as_clone((v, v, v).into_par_iter());
    same_as_clone((v, v, v, v, v, v).into_par_iter());
    same_as_clone((v, v, v, v, v, v, v, v, v, v, v, v).into_par_iter());
}
