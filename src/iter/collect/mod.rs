//! Collecting into vectors: in place for indexed iterators, as a list of
//! per-piece vectors otherwise.

mod consumer;

use std::collections::LinkedList;

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};
pub(crate) use consumer::{CollectConsumer, CollectResult};

/// Appends exactly `len` items, written in place by `drive`, to `vec`.
///
/// # Panics
/// If `drive` wrote another number of items (a producer whose length lied);
/// the items written are dropped, `vec` keeps its old contents.
pub(crate) fn collect_with_consumer<T, F>(vec: &mut Vec<T>, len: usize, drive: F)
where
    T: Send,
    F: FnOnce(CollectConsumer<'_, T>) -> CollectResult<'_, T>,
{
    vec.reserve(len);
    let old_len = vec.len();
    let result = drive(CollectConsumer::appending(vec, len));
    let written = result.len();
    assert!(
        written == len,
        "collect: expected {len} items, the iterator produced {written}"
    );
    result.release();
    // SAFETY: the `len` slots after `old_len` were written (checked above)
    // and their ownership was released to the vector.
    unsafe { vec.set_len(old_len + len) };
}

/// `IndexedParallelIterator::collect_into_vec`.
pub(super) fn collect_into_vec<I: IndexedParallelIterator>(pi: I, target: &mut Vec<I::Item>) {
    target.clear();
    let len = pi.len();
    collect_with_consumer(target, len, |c| pi.drive(c));
}

/// `IndexedParallelIterator::unzip_into_vecs`.
pub(super) fn unzip_into_vecs<I, A, B>(pi: I, left: &mut Vec<A>, right: &mut Vec<B>)
where
    I: IndexedParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
{
    left.clear();
    right.clear();
    let len = pi.len();
    collect_with_consumer(left, len, |left_c| {
        let mut left_result = None;
        collect_with_consumer(right, len, |right_c| {
            let (l, r) = pi.drive(super::unzip::UnzipConsumer::pairs(left_c, right_c));
            left_result = Some(l);
            r
        });
        left_result.expect("the left result is set by the inner collect")
    });
}

/// Appends the items of `pi` to `vec`: in place if `pi` is indexed, else
/// through a list of per-piece vectors.
pub(crate) fn extend_vec<I: ParallelIterator>(vec: &mut Vec<I::Item>, pi: I) {
    match pi.opt_len() {
        Some(len) => collect_with_consumer(vec, len, |c| pi.drive_unindexed(c)),
        None => {
            let list = vec_list(pi);
            vec.reserve(list.iter().map(Vec::len).sum());
            for mut piece in list {
                vec.append(&mut piece);
            }
        }
    }
}

/// `ParallelIterator::collect_vec_list`: one vector per leaf, in order.
pub(crate) fn vec_list<I: ParallelIterator>(pi: I) -> LinkedList<Vec<I::Item>> {
    pi.drive_unindexed(ListVecConsumer)
}

struct ListVecConsumer;

struct ListVecFolder<T> {
    vec: Vec<T>,
}

struct ListReducer;

impl<T: Send> Consumer<T> for ListVecConsumer {
    type Folder = ListVecFolder<T>;
    type Reducer = ListReducer;
    type Result = LinkedList<Vec<T>>;

    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (ListVecConsumer, ListVecConsumer, ListReducer)
    }
    fn into_folder(self) -> ListVecFolder<T> {
        ListVecFolder { vec: Vec::new() }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for ListVecConsumer {
    fn split_off_left(&self) -> Self {
        ListVecConsumer
    }
    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

impl<T> Folder<T> for ListVecFolder<T> {
    type Result = LinkedList<Vec<T>>;

    fn consume(mut self, item: T) -> Self {
        self.vec.push(item);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.vec.extend(iter);
        self
    }
    fn complete(self) -> LinkedList<Vec<T>> {
        let mut list = LinkedList::new();
        if !self.vec.is_empty() {
            list.push_back(self.vec);
        }
        list
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T> Reducer<LinkedList<T>> for ListReducer {
    fn reduce(self, mut left: LinkedList<T>, mut right: LinkedList<T>) -> LinkedList<T> {
        left.append(&mut right);
        left
    }
}
