//! `find_any`: a consumer that stops every piece once any piece found a
//! match (a shared flag is its `full()`).

use std::sync::atomic::{AtomicBool, Ordering};

use super::ParallelIterator;
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Some item of `pi` for which `pred` is true.
pub(super) fn find<I, P>(pi: I, pred: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let found = AtomicBool::new(false);
    pi.drive_unindexed(FindConsumer {
        pred: &pred,
        found: &found,
    })
}

struct FindConsumer<'p, P> {
    pred: &'p P,
    found: &'p AtomicBool,
}

impl<P> Clone for FindConsumer<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for FindConsumer<'_, P> {}

impl<'p, T, P> Consumer<T> for FindConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Folder = FindFolder<'p, T, P>;
    type Reducer = FindReducer;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, FindReducer) {
        (self, self, FindReducer)
    }
    fn into_folder(self) -> Self::Folder {
        FindFolder {
            pred: self.pred,
            found: self.found,
            item: None,
        }
    }
    fn full(&self) -> bool {
        self.found.load(Ordering::Relaxed)
    }
}

impl<'p, T, P> UnindexedConsumer<T> for FindConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> FindReducer {
        FindReducer
    }
}

struct FindFolder<'p, T, P> {
    pred: &'p P,
    found: &'p AtomicBool,
    item: Option<T>,
}

impl<'p, T, P> Folder<T> for FindFolder<'p, T, P>
where
    P: Fn(&T) -> bool,
{
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        if (self.pred)(&item) {
            self.found.store(true, Ordering::Relaxed);
            self.item = Some(item);
        }
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let found = self.found;
        // Check the shared flag between items so that other pieces stop
        // this one as soon as they find something.
        let hit = iter
            .into_iter()
            .take_while(|_| !found.load(Ordering::Relaxed))
            .find(|x| (self.pred)(x));
        if hit.is_some() {
            found.store(true, Ordering::Relaxed);
            self.item = hit;
        }
        self
    }
    fn complete(self) -> Option<T> {
        self.item
    }
    fn full(&self) -> bool {
        self.item.is_some() || self.found.load(Ordering::Relaxed)
    }
}

struct FindReducer;

impl<T> Reducer<Option<T>> for FindReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}
