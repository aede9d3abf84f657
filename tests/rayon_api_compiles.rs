//! A guard on rayon 1.12's and rayon-core 1.13's public API: code written
//! against rayon must compile against locus. Most of this file is checked
//! by the compiler (every public path rayon has; generic functions with
//! exactly rayon's bounds, no more; iterator types named with unbounded
//! parameters; `Clone` where rayon has it; the deprecated rayon-core entry
//! points); the tests run the few that have a result to compare.
//!
//! The path list was made from rayon's generated docs (every struct, enum,
//! trait and function page of `rayon` and `rayon_core`); a missing item is a
//! compile error here, before a user finds it.

#![allow(deprecated)]

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

use locus::prelude::*;

/// Every public item of rayon and rayon-core, at rayon's path (one module
/// per rayon module, since names repeat).
#[allow(unused_imports)]
mod paths {
    mod root {
        pub use locus::{
            BroadcastContext, Configuration, FnContext, Scope, ScopeFifo, ThreadBuilder,
            ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield, broadcast,
            current_num_threads, current_thread_has_pending_tasks, current_thread_index,
            in_place_scope, in_place_scope_fifo, initialize, join, join_context, max_num_threads,
            scope, scope_fifo, spawn, spawn_broadcast, spawn_fifo, yield_local, yield_now,
        };
    }
    mod array {
        pub use locus::array::IntoIter;
    }
    mod binary_heap {
        pub use locus::collections::binary_heap::{Drain, IntoIter, Iter};
    }
    mod btree_map {
        pub use locus::collections::btree_map::{IntoIter, Iter, IterMut};
    }
    mod btree_set {
        pub use locus::collections::btree_set::{IntoIter, Iter};
    }
    mod hash_map {
        pub use locus::collections::hash_map::{Drain, IntoIter, Iter, IterMut};
    }
    mod hash_set {
        pub use locus::collections::hash_set::{Drain, IntoIter, Iter};
    }
    mod linked_list {
        pub use locus::collections::linked_list::{IntoIter, Iter, IterMut};
    }
    mod vec_deque {
        pub use locus::collections::vec_deque::{Drain, IntoIter, Iter, IterMut};
    }
    mod iter {
        pub use locus::iter::{
            Chain, Chunks, Cloned, Copied, Either, Empty, Enumerate, ExponentialBlocks, Filter,
            FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldChunks,
            FoldChunksWith, FoldWith, FromParallelIterator, IndexedParallelIterator, Inspect,
            Interleave, InterleaveShortest, Intersperse, IntoParallelIterator,
            IntoParallelRefIterator, IntoParallelRefMutIterator, IterBridge, Map, MapInit, MapWith,
            MaxLen, MinLen, MultiZip, Once, PanicFuse, ParallelBridge, ParallelDrainFull,
            ParallelDrainRange, ParallelExtend, ParallelIterator, Positions, Repeat, RepeatN, Rev,
            Skip, SkipAny, SkipAnyWhile, Split, StepBy, Take, TakeAny, TakeAnyWhile, TryFold,
            TryFoldWith, UniformBlocks, Update, WalkTree, WalkTreePostfix, WalkTreePrefix,
            WhileSome, Zip, ZipEq, empty, once, repeat, repeat_n, repeatn, split, walk_tree,
            walk_tree_postfix, walk_tree_prefix,
        };
    }
    mod plumbing {
        pub use locus::iter::plumbing::{
            Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
            UnindexedProducer, bridge, bridge_producer_consumer, bridge_unindexed,
        };
    }
    mod option {
        pub use locus::option::{IntoIter, Iter, IterMut};
    }
    mod range {
        pub use locus::range::Iter;
    }
    mod range_inclusive {
        pub use locus::range_inclusive::Iter;
    }
    mod result {
        pub use locus::result::{IntoIter, Iter, IterMut};
    }
    mod slice {
        pub use locus::slice::{
            ArrayWindows, ChunkBy, ChunkByMut, Chunks, ChunksExact, ChunksExactMut, ChunksMut,
            Iter, IterMut, ParallelSlice, ParallelSliceMut, RChunks, RChunksExact, RChunksExactMut,
            RChunksMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut, Windows,
        };
    }
    mod str {
        pub use locus::str::{
            Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches, ParallelString,
            Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator, SplitWhitespace,
        };
    }
    mod string {
        pub use locus::string::Drain;
    }
    mod vec {
        pub use locus::vec::{Drain, IntoIter};
    }
}

/// The collections as generic code sees them: rayon's bounds (`Send` by
/// value, `Sync` by reference, `Sync` keys and `Send` values by mutable
/// reference), and no `Ord`, `Hash`, `Eq` or `BuildHasher`.
mod collection_bounds {
    use super::*;
    use locus::collections::*;

    pub fn hash_map<K: Send, V: Send, S>(m: HashMap<K, V, S>) -> hash_map::IntoIter<K, V> {
        m.into_par_iter()
    }
    pub fn hash_map_ref<K: Sync, V: Sync, S>(m: &HashMap<K, V, S>) -> hash_map::Iter<'_, K, V> {
        m.par_iter()
    }
    pub fn hash_map_mut<K: Sync, V: Send, S>(
        m: &mut HashMap<K, V, S>,
    ) -> hash_map::IterMut<'_, K, V> {
        m.par_iter_mut()
    }
    pub fn hash_map_drain<K: Send, V: Send, S>(
        m: &mut HashMap<K, V, S>,
    ) -> hash_map::Drain<'_, K, V> {
        m.par_drain()
    }
    pub fn hash_set<T: Send, S>(s: HashSet<T, S>) -> hash_set::IntoIter<T> {
        s.into_par_iter()
    }
    pub fn hash_set_ref<T: Sync, S>(s: &HashSet<T, S>) -> hash_set::Iter<'_, T> {
        s.par_iter()
    }
    pub fn hash_set_drain<T: Send, S>(s: &mut HashSet<T, S>) -> hash_set::Drain<'_, T> {
        s.par_drain()
    }
    pub fn btree_map<K: Send, V: Send>(m: BTreeMap<K, V>) -> btree_map::IntoIter<K, V> {
        m.into_par_iter()
    }
    pub fn btree_map_ref<K: Sync, V: Sync>(m: &BTreeMap<K, V>) -> btree_map::Iter<'_, K, V> {
        m.par_iter()
    }
    pub fn btree_map_mut<K: Sync, V: Send>(m: &mut BTreeMap<K, V>) -> btree_map::IterMut<'_, K, V> {
        m.par_iter_mut()
    }
    pub fn btree_set<T: Send>(s: BTreeSet<T>) -> btree_set::IntoIter<T> {
        s.into_par_iter()
    }
    pub fn btree_set_ref<T: Sync>(s: &BTreeSet<T>) -> btree_set::Iter<'_, T> {
        s.par_iter()
    }
    pub fn binary_heap<T: Send>(h: BinaryHeap<T>) -> binary_heap::IntoIter<T> {
        h.into_par_iter()
    }
    pub fn binary_heap_ref<T: Sync>(h: &BinaryHeap<T>) -> binary_heap::Iter<'_, T> {
        h.par_iter()
    }
    // rayon's own bound for this one.
    pub fn binary_heap_drain<T: Ord + Send>(h: &mut BinaryHeap<T>) -> binary_heap::Drain<'_, T> {
        h.par_drain()
    }
    pub fn linked_list<T: Send>(l: LinkedList<T>) -> linked_list::IntoIter<T> {
        l.into_par_iter()
    }
    pub fn linked_list_ref<T: Sync>(l: &LinkedList<T>) -> linked_list::Iter<'_, T> {
        l.par_iter()
    }
    pub fn linked_list_mut<T: Send>(l: &mut LinkedList<T>) -> linked_list::IterMut<'_, T> {
        l.par_iter_mut()
    }
    pub fn vec_deque<T: Send>(d: VecDeque<T>) -> vec_deque::IntoIter<T> {
        d.into_par_iter()
    }
    pub fn vec_deque_ref<T: Sync>(d: &VecDeque<T>) -> vec_deque::Iter<'_, T> {
        d.par_iter()
    }
    pub fn vec_deque_mut<T: Send>(d: &mut VecDeque<T>) -> vec_deque::IterMut<'_, T> {
        d.par_iter_mut()
    }
    pub fn vec_deque_drain<T: Send>(d: &mut VecDeque<T>) -> vec_deque::Drain<'_, T> {
        d.par_drain(1..)
    }
}

/// Iterator types named with parameters that have no bounds at all: rayon
/// declares these structs without `T: Sync`/`T: Send` (the bounds are on the
/// impls), so a struct or signature that merely holds one needs none.
/// (rayon still declares `RChunksExactMut` and `vec_deque::IntoIter` with
/// `T: Send`; locus does not, which accepts every program rayon accepts.)
#[allow(dead_code)]
mod unbounded_declarations {
    use locus::collections::*;
    use locus::iter::InterleaveShortest;
    use locus::slice;

    pub struct Holds<'a, T, U, P> {
        pub iter: slice::Iter<'a, T>,
        pub iter_mut: slice::IterMut<'a, T>,
        pub chunks: slice::Chunks<'a, T>,
        pub chunks_mut: slice::ChunksMut<'a, T>,
        pub chunks_exact: slice::ChunksExact<'a, T>,
        pub chunks_exact_mut: slice::ChunksExactMut<'a, T>,
        pub rchunks: slice::RChunks<'a, T>,
        pub rchunks_mut: slice::RChunksMut<'a, T>,
        pub rchunks_exact: slice::RChunksExact<'a, T>,
        pub windows: slice::Windows<'a, T>,
        pub split: slice::Split<'a, T, P>,
        pub split_mut: slice::SplitMut<'a, T, P>,
        pub split_inclusive: slice::SplitInclusive<'a, T, P>,
        pub split_inclusive_mut: slice::SplitInclusiveMut<'a, T, P>,
        pub chunk_by: slice::ChunkBy<'a, T, P>,
        pub chunk_by_mut: slice::ChunkByMut<'a, T, P>,
        pub heap: binary_heap::IntoIter<T>,
        pub heap_ref: binary_heap::Iter<'a, T>,
        pub heap_drain: binary_heap::Drain<'a, T>,
        pub tree_map: btree_map::IntoIter<T, U>,
        pub tree_map_ref: btree_map::Iter<'a, T, U>,
        pub tree_map_mut: btree_map::IterMut<'a, T, U>,
        pub tree_set: btree_set::IntoIter<T>,
        pub tree_set_ref: btree_set::Iter<'a, T>,
        pub hash_map: hash_map::IntoIter<T, U>,
        pub hash_map_ref: hash_map::Iter<'a, T, U>,
        pub hash_map_mut: hash_map::IterMut<'a, T, U>,
        pub hash_map_drain: hash_map::Drain<'a, T, U>,
        pub hash_set: hash_set::IntoIter<T>,
        pub hash_set_ref: hash_set::Iter<'a, T>,
        pub hash_set_drain: hash_set::Drain<'a, T>,
        pub list: linked_list::IntoIter<T>,
        pub list_ref: linked_list::Iter<'a, T>,
        pub list_mut: linked_list::IterMut<'a, T>,
        pub deque_ref: vec_deque::Iter<'a, T>,
        pub deque_mut: vec_deque::IterMut<'a, T>,
        pub deque_drain: vec_deque::Drain<'a, T>,
        pub interleave_shortest: InterleaveShortest<T, U>,
    }
}

/// `Clone` under rayon's bounds: none on the element type for the
/// iterators over shared references, `P: Clone` for the predicates,
/// `T: Clone` for the collections' iterators by value (where rayon has
/// them: not for the hash and B-tree ones, whose `std` iterators are not
/// `Clone`).
#[allow(dead_code)]
mod clone_bounds {
    use locus::collections::*;
    use locus::slice;

    pub fn shared_slices<'a, T>(
        i: &slice::Iter<'a, T>,
        c: &slice::Chunks<'a, T>,
        ce: &slice::ChunksExact<'a, T>,
        rc: &slice::RChunks<'a, T>,
        rce: &slice::RChunksExact<'a, T>,
        w: &slice::Windows<'a, T>,
    ) -> impl Sized {
        (
            i.clone(),
            c.clone(),
            ce.clone(),
            rc.clone(),
            rce.clone(),
            w.clone(),
        )
    }
    pub fn array_windows<'a, T: Sync, const N: usize>(
        w: &slice::ArrayWindows<'a, T, N>,
    ) -> slice::ArrayWindows<'a, T, N> {
        w.clone()
    }
    pub fn splits<'a, T, P: Clone>(
        s: &slice::Split<'a, T, P>,
        si: &slice::SplitInclusive<'a, T, P>,
        cb: &slice::ChunkBy<'a, T, P>,
    ) -> impl Sized {
        (s.clone(), si.clone(), cb.clone())
    }
    pub fn collection_refs<'a, K, V>(
        heap: &binary_heap::Iter<'a, K>,
        tree_map: &btree_map::Iter<'a, K, V>,
        tree_set: &btree_set::Iter<'a, K>,
        hash_map: &hash_map::Iter<'a, K, V>,
        hash_set: &hash_set::Iter<'a, K>,
        list: &linked_list::Iter<'a, K>,
        deque: &vec_deque::Iter<'a, K>,
    ) -> impl Sized {
        (
            heap.clone(),
            tree_map.clone(),
            tree_set.clone(),
            hash_map.clone(),
            hash_set.clone(),
            list.clone(),
            deque.clone(),
        )
    }
    pub fn collections_by_value<T: Clone>(
        heap: &binary_heap::IntoIter<T>,
        list: &linked_list::IntoIter<T>,
    ) -> impl Sized {
        (heap.clone(), list.clone())
    }
    // rayon's `vec_deque::IntoIter` is declared with `T: Send`.
    pub fn deque_by_value<T: Clone + Send>(deque: &vec_deque::IntoIter<T>) -> impl Sized {
        deque.clone()
    }
}

#[test]
fn generic_collection_functions_run_as_sequential() {
    use collection_bounds::*;
    let m: HashMap<u32, u32> = (0..100).map(|i| (i, i * i)).collect();
    let mut sum: Vec<u32> = hash_map_ref(&m).map(|(_, v)| *v).collect();
    sum.sort_unstable();
    assert_eq!(sum, (0..100).map(|i| i * i).collect::<Vec<_>>());
    let mut m2 = m.clone();
    hash_map_mut(&mut m2).for_each(|(_, v)| *v += 1);
    assert!(m2.iter().all(|(k, v)| *v == k * k + 1));
    assert_eq!(hash_map_drain(&mut m2).count(), 100);
    assert!(m2.is_empty());
    assert_eq!(hash_map(m).count(), 100);

    let s: HashSet<u32> = (0..50).collect();
    assert_eq!(hash_set_ref(&s).copied().sum::<u32>(), (0..50).sum::<u32>());
    let mut s2 = s.clone();
    assert_eq!(hash_set_drain(&mut s2).count(), 50);
    assert_eq!(hash_set(s).count(), 50);

    let b: BTreeMap<u32, char> = (0..26).map(|i| (i, (b'a' + i as u8) as char)).collect();
    let letters: String = btree_map_ref(&b).map(|(_, c)| *c).collect();
    assert_eq!(letters, "abcdefghijklmnopqrstuvwxyz");
    let mut b2 = b.clone();
    btree_map_mut(&mut b2).for_each(|(_, c)| *c = c.to_ascii_uppercase());
    let upper: String = btree_map(b2).map(|(_, c)| c).collect();
    assert_eq!(upper, letters.to_ascii_uppercase());

    let t: BTreeSet<i64> = (-5..5).collect();
    assert_eq!(
        btree_set_ref(&t).collect::<Vec<_>>(),
        t.iter().collect::<Vec<_>>()
    );
    assert_eq!(
        btree_set(t).collect::<Vec<_>>(),
        (-5..5).collect::<Vec<_>>()
    );

    let h: BinaryHeap<u8> = (0..=255).collect();
    assert_eq!(
        binary_heap_ref(&h).map(|&x| x as u32).sum::<u32>(),
        255 * 128
    );
    let mut h2 = h.clone();
    assert_eq!(binary_heap_drain(&mut h2).count(), 256);
    assert!(h2.is_empty());
    let mut by_value: Vec<u8> = binary_heap(h).collect();
    by_value.sort_unstable();
    assert_eq!(by_value, (0..=255).collect::<Vec<u8>>());

    let mut l: LinkedList<u32> = (0..10).collect();
    linked_list_mut(&mut l).for_each(|x| *x *= 2);
    assert_eq!(
        linked_list_ref(&l).copied().collect::<Vec<_>>(),
        [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]
    );
    assert_eq!(linked_list(l).sum::<u32>(), 90);

    let mut d: VecDeque<u32> = (0..10).collect();
    d.rotate_left(3); // two slices
    vec_deque_mut(&mut d).for_each(|x| *x += 100);
    assert_eq!(
        vec_deque_ref(&d).copied().collect::<Vec<_>>(),
        d.iter().copied().collect::<Vec<_>>()
    );
    let drained: Vec<u32> = vec_deque_drain(&mut d).collect();
    assert_eq!(drained, [104, 105, 106, 107, 108, 109, 100, 101, 102]);
    assert_eq!(vec_deque(d).collect::<Vec<_>>(), [103]);
}

/// The by-value iterators ask `Send` of their items, not `Sync`: a `Cell`
/// goes through them.
#[test]
fn by_value_iterators_take_non_sync_items() {
    // `Cell` is `Send` but not `Sync`: the by-value iterators take it.
    let v: Vec<(u8, Cell<u32>)> = (0..4).map(|i| (i, Cell::new(u32::from(i)))).collect();
    let m: HashMap<u8, Cell<u32>> = v.into_iter().collect();
    let total: u32 = collection_bounds::hash_map(m).map(|(_, c)| c.get()).sum();
    assert_eq!(total, 6);
    let l: LinkedList<Cell<u32>> = (0..4).map(Cell::new).collect();
    assert_eq!(
        collection_bounds::linked_list(l)
            .map(Cell::into_inner)
            .sum::<u32>(),
        6
    );
}

#[test]
fn boxed_str_collects_from_every_string_item() {
    let words = ["par", "allel", " ", "str"];
    let want = "parallel str";
    let from_str: Box<str> = words.par_iter().copied().collect();
    assert_eq!(&*from_str, want);
    let from_string: Box<str> = words.par_iter().map(|w| w.to_string()).collect();
    assert_eq!(&*from_string, want);
    let from_boxed: Box<str> = words.par_iter().map(|&w| Box::<str>::from(w)).collect();
    assert_eq!(&*from_boxed, want);
    let from_cow: Box<str> = words.par_iter().map(|&w| Cow::Borrowed(w)).collect();
    assert_eq!(&*from_cow, want);
    let chars: Vec<char> = want.chars().collect();
    let from_char_refs: Box<str> = chars.par_iter().collect();
    assert_eq!(&*from_char_refs, want);
    let from_chars: Box<str> = chars.par_iter().copied().collect();
    assert_eq!(&*from_chars, want);
}

/// `fold_chunks_with` needs its `init` to be `Send + Clone`, not `Sync`
/// (rayon's bounds): a `Cell` accumulator works.
#[test]
fn fold_chunks_with_a_non_sync_init() {
    let v: Vec<u32> = (0..1000).collect();
    let got: Vec<u32> = v
        .par_iter()
        .fold_chunks_with(7, Cell::new(0), |acc, &x| {
            acc.set(acc.get() + x);
            acc
        })
        .map(Cell::into_inner)
        .collect();
    let want: Vec<u32> = v.chunks(7).map(|c| c.iter().sum()).collect();
    assert_eq!(got, want);
}

/// An integer range literal gets its item type from later use, as with
/// rayon (`-x` needs a signed type, chosen by the literal's default).
#[test]
fn range_items_are_inferred_from_use() {
    let negated: Vec<_> = (0..8).into_par_iter().map(|x| -x).collect();
    assert_eq!(negated, [0, -1, -2, -3, -4, -5, -6, -7]);
    let odd: Vec<_> = (1..=9)
        .into_par_iter()
        .filter(|x| x % 2 == 1)
        .map(|x| -x)
        .collect();
    assert_eq!(odd, [-1, -3, -5, -7, -9]);
}

/// rayon-core's deprecated `Configuration` and `ThreadPool::new`: every
/// setter is there and the pool they build works.
#[test]
fn deprecated_configuration_builds_a_pool() {
    let config = locus::Configuration::new()
        .thread_name(|i| format!("configured-{i}"))
        .num_threads(3)
        .panic_handler(|_| ())
        .stack_size(4 << 20)
        .breadth_first()
        .start_handler(|_| ())
        .exit_handler(|_| ());
    assert!(format!("{config:?}").contains("num_threads"));
    let pool = locus::ThreadPool::new(config).unwrap();
    assert_eq!(pool.current_num_threads(), 3);
    let name = pool.install(|| std::thread::current().name().map(str::to_owned));
    assert!(name.unwrap().starts_with("configured-"));
    let pool = locus::Configuration::default()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| (0..10).into_par_iter().sum::<i32>()), 45);
}

/// `initialize` builds the global pool, or says it exists (when another
/// test of this file used it first).
#[test]
fn deprecated_initialize_sets_up_the_global_pool() {
    match locus::initialize(locus::Configuration::new().num_threads(2)) {
        Ok(()) => assert_eq!(locus::current_num_threads(), 2),
        Err(e) => assert!(matches!(
            e.downcast_ref::<locus::ThreadPoolBuildError>(),
            Some(locus::ThreadPoolBuildError::GlobalAlreadyInitialized)
        )),
    }
}
