//! Iterators that are `Clone` give the same items from the clone as from
//! the original (rayon's `tests/clones.rs`, for the iterator types that
//! are `Clone` in locus so far; the slice iterators `Chunks`,
//! `ChunksExact`, `RChunks`, `RChunksExact`, `Windows`, `ChunkBy`, `Split`
//! and `SplitInclusive` and the iterators of `BinaryHeap`, `BTreeMap`,
//! `BTreeSet`, `HashMap`, `HashSet`, `LinkedList` and `VecDeque::IntoIter`
//! are not yet).

use std::collections::VecDeque;
use std::fmt::Debug;

use locus::prelude::*;

/// The clone and the original collect to the same items.
fn same_items<I>(iter: I)
where
    I: ParallelIterator<Item: Debug + PartialEq> + Clone,
{
    let copy: Vec<I::Item> = iter.clone().collect();
    assert_eq!(copy, iter.collect::<Vec<_>>());
}

/// The clone and the original count the same (for iterators whose items
/// depend on which pieces ran first).
fn same_count<I: ParallelIterator + Clone>(iter: I) {
    assert_eq!(iter.clone().count(), iter.count());
}

#[test]
fn collections() {
    let deque: VecDeque<i32> = (0..1000).collect();
    same_items(deque.par_iter());
}

#[test]
fn options_results_ranges_arrays() {
    same_items(Some(0).par_iter());
    same_items(Some(0).into_par_iter());
    same_items(Ok::<i32, ()>(0).par_iter());
    same_items(Ok::<i32, ()>(0).into_par_iter());
    same_items((0..1000).into_par_iter());
    same_items((0..=1000).into_par_iter());
    same_items([0i32; 100].into_par_iter());
}

#[test]
fn strings() {
    let s = include_str!("clones.rs");
    same_items(s.par_chars());
    same_items(s.par_lines());
    same_items(s.par_split('\n'));
    same_items(s.par_split_inclusive('\n'));
    same_items(s.par_split_terminator('\n'));
    same_items(s.par_split_whitespace());
    same_items(s.par_split_ascii_whitespace());
}

#[test]
fn slices_and_vectors() {
    let v: Vec<i32> = (0..1000).collect();
    same_items(v.par_iter());
    same_items(v.into_par_iter());
}

#[test]
fn adapters() {
    let v: Vec<Option<i32>> = (0..1000).map(Some).collect();
    same_items(v.par_iter().by_exponential_blocks());
    same_items(v.par_iter().by_uniform_blocks(100));
    same_items(v.par_iter().chain(&v));
    same_items(v.par_iter().cloned());
    same_items(v.par_iter().copied());
    same_items(v.par_iter().enumerate());
    same_items(v.par_iter().filter(|_| true));
    same_items(v.par_iter().filter_map(|x| *x));
    same_items(v.par_iter().flat_map(|x| *x));
    same_items(v.par_iter().flat_map_iter(|x| *x));
    same_items(v.par_iter().flatten());
    same_items(v.par_iter().flatten_iter());
    same_items(v.par_iter().with_max_len(1).fold(|| 0, |x, _| x));
    same_items(v.par_iter().with_max_len(1).fold_with(0, |x, _| x));
    same_items(v.par_iter().with_max_len(1).fold_chunks(1, || 0, |x, _| x));
    same_items(
        v.par_iter()
            .with_max_len(1)
            .fold_chunks_with(1, 0, |x, _| x),
    );
    same_items(v.par_iter().with_max_len(1).try_fold(|| 0, |_, &x| x));
    same_items(v.par_iter().with_max_len(1).try_fold_with(0, |_, &x| x));
    same_items(v.par_iter().inspect(|_| ()));
    same_items(v.par_iter().update(|_| ()));
    same_items(v.par_iter().interleave(&v));
    same_items(v.par_iter().interleave_shortest(&v));
    same_items(v.par_iter().intersperse(&None));
    same_items(v.par_iter().chunks(3));
    same_items(v.par_iter().map(|x| x));
    same_items(v.par_iter().map_with(0, |_, x| x));
    same_items(v.par_iter().map_init(|| 0, |_, x| x));
    same_items(v.par_iter().panic_fuse());
    same_items(v.par_iter().positions(|_| true));
    same_items(v.par_iter().rev());
    same_items(v.par_iter().skip(42));
    same_items(v.par_iter().skip_any_while(|_| false));
    same_items(v.par_iter().take(42));
    same_items(v.par_iter().take_any_while(|_| true));
    same_items(v.par_iter().cloned().while_some());
    same_items(v.par_iter().with_max_len(1));
    same_items(v.par_iter().with_min_len(1));
    same_items(v.par_iter().zip(&v));
    same_items(v.par_iter().zip_eq(&v));
    same_items(v.par_iter().step_by(2));
    let w: Vec<i32> = (0..1000).collect();
    same_count(w.par_iter().skip_any(42));
    same_count(w.par_iter().take_any(42));
}

#[test]
fn other_sources() {
    same_items(locus::iter::empty::<i32>());
    same_items(locus::iter::once(10));
    let none: Option<i32> = None;
    same_items(locus::iter::repeat(none).while_some());
    same_items(locus::iter::repeat_n(none, 1000));
    same_items(locus::iter::split(0..1000, |x| (x, None)));
}

#[test]
fn tuples_of_iterators() {
    let v: &Vec<i32> = &(0..1000).collect();
    same_items((v,).into_par_iter());
    same_items((v, v).into_par_iter());
    same_items((v, v, v).into_par_iter());
    same_items((v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v, v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v, v, v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v, v, v, v, v, v, v).into_par_iter());
    same_items((v, v, v, v, v, v, v, v, v, v, v, v).into_par_iter());
}
