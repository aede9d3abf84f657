//! `Either` of two parallel iterators with the same items is a parallel
//! iterator (indexed when both are); `Either` of two collections extends
//! the one it holds.

use super::plumbing::*;
use super::*;

/// ```
/// use locus::prelude::*;
/// use locus::iter::Either;
/// let pick = |evens: bool| if evens {
///     Either::Left((0..10u32).into_par_iter().filter(|x| x % 2 == 0))
/// } else {
///     Either::Right((0..10u32).into_par_iter().filter(|x| x % 2 == 1))
/// };
/// assert_eq!(pick(true).sum::<u32>(), 20);
/// assert_eq!(pick(false).sum::<u32>(), 25);
/// ```
impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn drive_unindexed<C: UnindexedConsumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(l) => l.drive_unindexed(consumer),
            Either::Right(r) => r.drive_unindexed(consumer),
        }
    }
    fn opt_len(&self) -> Option<usize> {
        match self {
            Either::Left(l) => l.opt_len(),
            Either::Right(r) => r.opt_len(),
        }
    }
}

impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn drive<C: Consumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(l) => l.drive(consumer),
            Either::Right(r) => r.drive(consumer),
        }
    }
    fn len(&self) -> usize {
        match self {
            Either::Left(l) => l.len(),
            Either::Right(r) => r.len(),
        }
    }
    fn with_producer<CB: ProducerCallback<L::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(l) => l.with_producer(callback),
            Either::Right(r) => r.with_producer(callback),
        }
    }
}

/// ```
/// use locus::prelude::*;
/// use locus::iter::Either;
/// let mut target: Either<Vec<u8>, std::collections::VecDeque<u8>> = Either::Left(vec![]);
/// target.par_extend((0..3u8).into_par_iter());
/// assert_eq!(target, Either::Left(vec![0, 1, 2]));
/// ```
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self {
            Either::Left(l) => l.par_extend(par_iter),
            Either::Right(r) => r.par_extend(par_iter),
        }
    }
}
