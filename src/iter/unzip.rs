//! `unzip`, `partition` and `partition_map`: one pass over the iterator
//! feeds two collections.
//!
//! The two collections each want to drive an iterator themselves (through
//! `par_extend` or `from_par_iter`). So the first collection is given
//! [`UnzipA`], whose `drive_unindexed` receives the first collection's
//! consumer and hands the second collection [`UnzipB`], which in turn
//! receives the second consumer and finally drives the base iterator with
//! an [`UnzipConsumer`] that splits every item between both consumers. The
//! first consumer's result travels back through a slot in `UnzipB`.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::{Either, FromParallelIterator, ParallelExtend, ParallelIterator};

/// How an item splits between the two sides.
pub(super) trait UnzipOp<T>: Sync {
    type Left: Send;
    type Right: Send;

    /// Feeds `item` to one side or both.
    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<Self::Left>,
        FB: Folder<Self::Right>;

    /// Whether every item reaches both sides (then an indexed base keeps
    /// both sides indexed).
    fn both_sides() -> bool {
        false
    }
}

/// Pairs: the first element left, the second right.
pub(super) struct Pairs;

impl<A: Send, B: Send> UnzipOp<(A, B)> for Pairs {
    type Left = A;
    type Right = B;
    fn consume<FA: Folder<A>, FB: Folder<B>>(
        &self,
        (a, b): (A, B),
        left: FA,
        right: FB,
    ) -> (FA, FB) {
        (left.consume(a), right.consume(b))
    }
    fn both_sides() -> bool {
        true
    }
}

/// Items for which the predicate holds go left, the others right.
struct Partition<P>(P);

impl<T: Send, P: Fn(&T) -> bool + Sync> UnzipOp<T> for Partition<P> {
    type Left = T;
    type Right = T;
    fn consume<FA: Folder<T>, FB: Folder<T>>(&self, item: T, left: FA, right: FB) -> (FA, FB) {
        if (self.0)(&item) {
            (left.consume(item), right)
        } else {
            (left, right.consume(item))
        }
    }
}

/// `Either::Left` values go left, `Either::Right` values right.
struct PartitionMap<P>(P);

impl<T, L: Send, R: Send, P: Fn(T) -> Either<L, R> + Sync> UnzipOp<T> for PartitionMap<P> {
    type Left = L;
    type Right = R;
    fn consume<FA: Folder<L>, FB: Folder<R>>(&self, item: T, left: FA, right: FB) -> (FA, FB) {
        match (self.0)(item) {
            Either::Left(l) => (left.consume(l), right),
            Either::Right(r) => (left, right.consume(r)),
        }
    }
}

/// `ParallelIterator::unzip`.
pub(super) fn unzip<I, A, B, FromA, FromB>(pi: I) -> (FromA, FromB)
where
    I: ParallelIterator<Item = (A, B)>,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
    A: Send,
    B: Send,
{
    extend_both(pi, Pairs)
}

/// `ParallelIterator::partition`.
pub(super) fn partition<I, A, B, P>(pi: I, pred: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<I::Item>,
    B: Default + Send + ParallelExtend<I::Item>,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    extend_both(pi, Partition(pred))
}

/// `ParallelIterator::partition_map`.
pub(super) fn partition_map<I, A, B, P, L, R>(pi: I, pred: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
    P: Fn(I::Item) -> Either<L, R> + Sync + Send,
    L: Send,
    R: Send,
{
    extend_both(pi, PartitionMap(pred))
}

fn extend_both<I, OP, A, B>(pi: I, op: OP) -> (A, B)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    A: Default + Send + ParallelExtend<OP::Left>,
    B: Default + Send + ParallelExtend<OP::Right>,
{
    let mut a = A::default();
    let mut b = B::default();
    a.par_extend(UnzipA {
        base: pi,
        op: &op,
        second: ExtendInto(&mut b),
    });
    (a, b)
}

fn collect_both<I, OP, A, B>(pi: I, op: OP) -> (A, B)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    A: Send + FromParallelIterator<OP::Left>,
    B: Send + FromParallelIterator<OP::Right>,
{
    let mut b = None;
    let a = A::from_par_iter(UnzipA {
        base: pi,
        op: &op,
        second: CollectInto(&mut b),
    });
    (
        a,
        b.expect("unzip: the first collection did not drive its iterator"),
    )
}

impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + FromParallelIterator<A>,
    FromB: Send + FromParallelIterator<B>,
{
    fn from_par_iter<I: super::IntoParallelIterator<Item = (A, B)>>(pi: I) -> Self {
        collect_both(pi.into_par_iter(), Pairs)
    }
}

impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + FromParallelIterator<L>,
    B: Send + FromParallelIterator<R>,
{
    fn from_par_iter<I: super::IntoParallelIterator<Item = Either<L, R>>>(pi: I) -> Self {
        collect_both(pi.into_par_iter(), PartitionMap(|e: Either<L, R>| e))
    }
}

impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I: super::IntoParallelIterator<Item = (A, B)>>(&mut self, pi: I) {
        let op = Pairs;
        self.0.par_extend(UnzipA {
            base: pi.into_par_iter(),
            op: &op,
            second: ExtendInto(&mut self.1),
        });
    }
}

impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I: super::IntoParallelIterator<Item = Either<L, R>>>(&mut self, pi: I) {
        let op = PartitionMap(|e: Either<L, R>| e);
        self.0.par_extend(UnzipA {
            base: pi.into_par_iter(),
            op: &op,
            second: ExtendInto(&mut self.1),
        });
    }
}

/// Where the right-hand items go: a collection to extend, or one to build.
trait SecondSide<T: Send>: Send {
    fn run<I: ParallelIterator<Item = T>>(self, pi: I);
}

struct ExtendInto<'b, B>(&'b mut B);
struct CollectInto<'b, B>(&'b mut Option<B>);

impl<T: Send, B: ParallelExtend<T> + Send> SecondSide<T> for ExtendInto<'_, B> {
    fn run<I: ParallelIterator<Item = T>>(self, pi: I) {
        self.0.par_extend(pi)
    }
}

impl<T: Send, B: FromParallelIterator<T> + Send> SecondSide<T> for CollectInto<'_, B> {
    fn run<I: ParallelIterator<Item = T>>(self, pi: I) {
        *self.0 = Some(B::from_par_iter(pi))
    }
}

/// The left-hand items, as the first collection sees them.
struct UnzipA<'o, I, OP, S> {
    base: I,
    op: &'o OP,
    second: S,
}

impl<I, OP, S> ParallelIterator for UnzipA<'_, I, OP, S>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    S: SecondSide<OP::Right>,
{
    type Item = OP::Left;

    fn drive_unindexed<C: UnindexedConsumer<OP::Left>>(self, consumer: C) -> C::Result {
        let mut left = None;
        let b = UnzipB {
            base: self.base,
            op: self.op,
            left_consumer: consumer,
            left_result: &mut left,
        };
        self.second.run(b);
        left.expect("unzip: the second collection did not drive its iterator")
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::both_sides() {
            self.base.opt_len()
        } else {
            None
        }
    }
}

/// The right-hand items, as the second collection sees them; carries the
/// first collection's consumer.
struct UnzipB<'o, 'r, I, OP, CA>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: UnindexedConsumer<OP::Left>,
{
    base: I,
    op: &'o OP,
    left_consumer: CA,
    left_result: &'r mut Option<CA::Result>,
}

impl<I, OP, CA> ParallelIterator for UnzipB<'_, '_, I, OP, CA>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: UnindexedConsumer<OP::Left>,
{
    type Item = OP::Right;

    fn drive_unindexed<C: UnindexedConsumer<OP::Right>>(self, consumer: C) -> C::Result {
        let both = UnzipConsumer {
            op: self.op,
            left: self.left_consumer,
            right: consumer,
        };
        let (l, r) = self.base.drive_unindexed(both);
        *self.left_result = Some(l);
        r
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::both_sides() {
            self.base.opt_len()
        } else {
            None
        }
    }
}

/// Splits every item between two consumers.
pub(super) struct UnzipConsumer<'o, OP, CA, CB> {
    op: &'o OP,
    left: CA,
    right: CB,
}

impl<CA, CB> UnzipConsumer<'static, Pairs, CA, CB> {
    /// Pairs' first elements to `left`, second elements to `right`.
    pub(super) fn pairs(left: CA, right: CB) -> Self {
        UnzipConsumer {
            op: &Pairs,
            left,
            right,
        }
    }
}

impl<'o, T, OP, CA, CB> Consumer<T> for UnzipConsumer<'o, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: Consumer<OP::Left>,
    CB: Consumer<OP::Right>,
{
    type Folder = UnzipFolder<'o, OP, CA::Folder, CB::Folder>;
    type Reducer = UnzipReducer<CA::Reducer, CB::Reducer>;
    type Result = (CA::Result, CB::Result);

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        let (l1, l2, lr) = self.left.split_at(index);
        let (r1, r2, rr) = self.right.split_at(index);
        (
            UnzipConsumer {
                op: self.op,
                left: l1,
                right: r1,
            },
            UnzipConsumer {
                op: self.op,
                left: l2,
                right: r2,
            },
            UnzipReducer {
                left: lr,
                right: rr,
            },
        )
    }
    fn into_folder(self) -> Self::Folder {
        UnzipFolder {
            op: self.op,
            left: self.left.into_folder(),
            right: self.right.into_folder(),
        }
    }
    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
}

impl<T, OP, CA, CB> UnindexedConsumer<T> for UnzipConsumer<'_, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: UnindexedConsumer<OP::Left>,
    CB: UnindexedConsumer<OP::Right>,
{
    fn split_off_left(&self) -> Self {
        UnzipConsumer {
            op: self.op,
            left: self.left.split_off_left(),
            right: self.right.split_off_left(),
        }
    }
    fn to_reducer(&self) -> Self::Reducer {
        UnzipReducer {
            left: self.left.to_reducer(),
            right: self.right.to_reducer(),
        }
    }
}

pub(super) struct UnzipFolder<'o, OP, FA, FB> {
    op: &'o OP,
    left: FA,
    right: FB,
}

impl<T, OP, FA, FB> Folder<T> for UnzipFolder<'_, OP, FA, FB>
where
    OP: UnzipOp<T>,
    FA: Folder<OP::Left>,
    FB: Folder<OP::Right>,
{
    type Result = (FA::Result, FB::Result);

    fn consume(self, item: T) -> Self {
        let (left, right) = self.op.consume(item, self.left, self.right);
        UnzipFolder {
            op: self.op,
            left,
            right,
        }
    }
    fn complete(self) -> Self::Result {
        (self.left.complete(), self.right.complete())
    }
    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
}

pub(super) struct UnzipReducer<RA, RB> {
    left: RA,
    right: RB,
}

impl<A, B, RA: Reducer<A>, RB: Reducer<B>> Reducer<(A, B)> for UnzipReducer<RA, RB> {
    fn reduce(self, l: (A, B), r: (A, B)) -> (A, B) {
        (self.left.reduce(l.0, r.0), self.right.reduce(l.1, r.1))
    }
}
