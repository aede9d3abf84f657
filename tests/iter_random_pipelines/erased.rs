//! Any indexed iterator of `u64` as one type, [`Erased`], through the
//! public plumbing traits: a user-written `IndexedParallelIterator` whose
//! producer is a boxed `Producer`. Each adapter is then compiled once
//! however deep the stack, and the producers still nest at run time.

use locus::iter::plumbing::{Consumer, UnindexedConsumer};
use locus::iter::plumbing::{Producer, ProducerCallback, bridge};
use locus::prelude::*;

/// A producer's iterator, erased.
trait DynIter: DoubleEndedIterator<Item = u64> + ExactSizeIterator {}
impl<I: DoubleEndedIterator<Item = u64> + ExactSizeIterator> DynIter for I {}

/// A `Producer` of `u64`, object-safe.
trait DynProducer<'p>: Send {
    fn split_dyn(self: Box<Self>, index: usize) -> (Boxed<'p>, Boxed<'p>);
    fn iter_dyn(self: Box<Self>) -> Box<dyn DynIter + 'p>;
    fn min_dyn(&self) -> usize;
    fn max_dyn(&self) -> usize;
}

impl<'p, P: Producer<Item = u64> + 'p> DynProducer<'p> for P {
    fn split_dyn(self: Box<Self>, index: usize) -> (Boxed<'p>, Boxed<'p>) {
        let (left, right) = (*self).split_at(index);
        (Boxed(Box::new(left)), Boxed(Box::new(right)))
    }
    fn iter_dyn(self: Box<Self>) -> Box<dyn DynIter + 'p> {
        Box::new((*self).into_iter())
    }
    fn min_dyn(&self) -> usize {
        self.min_len()
    }
    fn max_dyn(&self) -> usize {
        self.max_len()
    }
}

/// A boxed producer: what [`Erased`] hands its consumer.
struct Boxed<'p>(Box<dyn DynProducer<'p> + 'p>);

impl<'p> Producer for Boxed<'p> {
    type Item = u64;
    type IntoIter = Box<dyn DynIter + 'p>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_dyn()
    }
    fn min_len(&self) -> usize {
        self.0.min_dyn()
    }
    fn max_len(&self) -> usize {
        self.0.max_dyn()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        self.0.split_dyn(index)
    }
}

/// An indexed iterator, erased: hands its producer, boxed, to a callback
/// (the producer only lives inside `with_producer`'s callback).
trait Source<'a>: Send + 'a {
    fn with_dyn(self: Box<Self>, callback: &mut dyn for<'p> FnMut(Boxed<'p>));
}

impl<'a, I: IndexedParallelIterator<Item = u64> + 'a> Source<'a> for I {
    fn with_dyn(self: Box<Self>, callback: &mut dyn for<'p> FnMut(Boxed<'p>)) {
        struct Grab<'c>(&'c mut dyn for<'p> FnMut(Boxed<'p>));
        impl ProducerCallback<u64> for Grab<'_> {
            type Output = ();
            fn callback<P: Producer<Item = u64>>(self, producer: P) {
                (self.0)(Boxed(Box::new(producer)))
            }
        }
        (*self).with_producer(Grab(callback))
    }
}

/// Any indexed iterator of `u64`, as one type.
pub struct Erased<'a> {
    len: usize,
    source: Box<dyn Source<'a>>,
}

impl<'a> Erased<'a> {
    pub fn new(iter: impl IndexedParallelIterator<Item = u64> + 'a) -> Self {
        Erased {
            len: iter.len(),
            source: Box::new(iter),
        }
    }
}

impl ParallelIterator for Erased<'_> {
    type Item = u64;
    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len)
    }
}

impl IndexedParallelIterator for Erased<'_> {
    fn len(&self) -> usize {
        self.len
    }
    fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
        let mut callback = Some(callback);
        let mut output = None;
        self.source.with_dyn(&mut |producer| {
            output = Some(callback.take().unwrap().callback(producer));
        });
        output.expect("the source called back")
    }
}
