//! `chunks`: a producer whose items are `Vec`s of `size` consecutive base
//! items (the last one shorter).

use super::plumbing::*;
use super::*;

/// Groups items into `Vec`s. Made by [`IndexedParallelIterator::chunks`].
#[must_use = "iterator adapters are lazy"]
#[derive(Clone, Debug)]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I> Chunks<I> {
    pub(super) fn new(base: I, size: usize) -> Self {
        Chunks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Chunks<I> {
    type Item = Vec<I::Item>;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback { callback, size: self.size, len });

        struct Callback<CB> {
            callback: CB,
            size: usize,
            len: usize,
        }

        impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(ChunkProducer { base: Some(base), size: self.size, len: self.len })
            }
        }
    }
}

/// The `len` items of `base` in chunks of `size`.
struct ChunkProducer<P> {
    /// `None` once every chunk was taken (the sequential iterator).
    base: Option<P>,
    size: usize,
    len: usize,
}

impl<P: Producer> Producer for ChunkProducer<P> {
    type Item = Vec<P::Item>;
    type IntoIter = Self;

    fn into_iter(self) -> Self {
        self
    }
    fn min_len(&self) -> usize {
        self.base.as_ref().map_or(1, |b| b.min_len().div_ceil(self.size))
    }
    fn max_len(&self) -> usize {
        self.base.as_ref().map_or(usize::MAX, |b| (b.max_len() / self.size).max(1))
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let cut = index.saturating_mul(self.size).min(self.len);
        let (l, r) = match self.base {
            Some(b) => {
                let (l, r) = b.split_at(cut);
                (Some(l), Some(r))
            }
            None => (None, None),
        };
        let size = self.size;
        (ChunkProducer { base: l, size, len: cut }, ChunkProducer { base: r, size, len: self.len - cut })
    }
}

/// The sequential iterator: splits a chunk off the front or back.
impl<P: Producer> Iterator for ChunkProducer<P> {
    type Item = Vec<P::Item>;

    fn next(&mut self) -> Option<Vec<P::Item>> {
        let base = self.base.take()?;
        if self.len == 0 {
            return None;
        }
        let n = self.size.min(self.len);
        let (chunk, rest) = base.split_at(n);
        self.base = Some(rest);
        self.len -= n;
        Some(chunk.into_iter().collect())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len.div_ceil(self.size);
        (n, Some(n))
    }
}

impl<P: Producer> DoubleEndedIterator for ChunkProducer<P> {
    fn next_back(&mut self) -> Option<Vec<P::Item>> {
        let base = self.base.take()?;
        if self.len == 0 {
            return None;
        }
        let last = match self.len % self.size {
            0 => self.size,
            r => r,
        };
        let (rest, chunk) = base.split_at(self.len - last);
        self.base = Some(rest);
        self.len -= last;
        Some(chunk.into_iter().collect())
    }
}

impl<P: Producer> ExactSizeIterator for ChunkProducer<P> {}
