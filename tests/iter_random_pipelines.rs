//! Random pipelines of adapters, each checked against the same pipeline
//! run on a `Vec` one step at a time: rayon documents std's results for
//! every order-keeping adapter and consumer, so a `Vec` is the oracle.
//!
//! The other `iter_*` tests check each adapter alone at many lengths; this
//! one checks them stacked (a `zip` of a `step_by` of a `rev` of a
//! `chain`, ...), where one adapter's `split_at` feeds another's and the
//! pieces the pool makes land at arbitrary offsets of each. The pipelines
//! run on a one-worker pool, a flat four-worker pool, virtual pools of
//! three and four LLCs (the first split per LLC,
//! `locus::iter::plumbing::hierarchy`), and nested in a busy pool's
//! iterator (the busy-pool split).
//!
//! Each stage is type-erased through the public plumbing traits
//! ([`Erased`], a user-written `IndexedParallelIterator` over a boxed
//! `Producer`), so each adapter is compiled once however deep the stack:
//! the producers still nest at run time. That is also a test of the
//! plumbing API as a crate writing its own producer uses it.
//!
//! A failure prints the case's seed and its pipeline;
//! `LOCUS_PIPELINE_SEED=N` runs case N alone.

mod common;

use std::collections::{BTreeMap, BinaryHeap, LinkedList, VecDeque};
use std::fmt;

use locus::ThreadPool;
use locus::iter::plumbing::{Consumer, UnindexedConsumer};
use locus::iter::plumbing::{Producer, ProducerCallback, bridge};
use locus::prelude::*;

use common::rng::Rng;
use common::work::{pool, virtual_pool};

/// Values stay below this, so sums of a few million of them fit a `u64`.
const M: u64 = 1_000_003;

/// A length: mostly small (where the edge cases are), sometimes long
/// enough for every pool to split it many times.
fn random_len(rng: &mut Rng) -> usize {
    match rng.below(4) {
        0 => rng.below(4),
        1 => rng.below(40),
        2 => rng.below(400),
        _ => rng.below(3000),
    }
}

/// `n` random values below 1000.
fn values(rng: &mut Rng, n: usize) -> Vec<u64> {
    (0..n).map(|_| rng.next() % 1000).collect()
}

// ---- the erased stage ------------------------------------------------

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
struct Erased<'a> {
    len: usize,
    source: Box<dyn Source<'a>>,
}

impl<'a> Erased<'a> {
    fn new(iter: impl IndexedParallelIterator<Item = u64> + 'a) -> Self {
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

// ---- the pipelines ---------------------------------------------------

/// Where a pipeline starts.
#[derive(Clone, Debug)]
enum Base {
    /// `Vec::into_par_iter`.
    Owned,
    /// `par_iter().copied()` on a slice.
    Slice,
    /// `(0..n).into_par_iter().map(|i| data[i])`.
    Range,
    /// `par_windows(k).map(first ^ last)`.
    Windows(usize),
    /// `par_chunks(k).map(sum)`.
    Chunks(usize),
}

/// An adapter that keeps the iterator indexed. `aux` is the case's second
/// input, for the adapters that take another iterator.
#[derive(Clone, Debug)]
enum Op {
    Map(u64),
    Enumerate,
    Rev,
    Skip(usize),
    Take(usize),
    StepBy(usize),
    Zip,
    ZipEq,
    Chain,
    Chunks(usize),
    FoldChunks(usize),
    Interleave,
    InterleaveShortest,
    Intersperse(u64),
    Update,
    MinLen(usize),
    MaxLen(usize),
}

/// The last adapter, which may make the iterator unindexed.
#[derive(Clone, Debug)]
enum Tail {
    None,
    Filter(u64),
    FilterMap,
    FlatMap(u64),
    FlatMapIter(u64),
    Flatten,
    Positions(u64),
    ExponentialBlocks,
    UniformBlocks(usize),
}

/// One random case.
struct Case {
    seed: u64,
    data: Vec<u64>,
    aux: Vec<u64>,
    base: Base,
    ops: Vec<Op>,
    tail: Tail,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "case {} (LOCUS_PIPELINE_SEED={}): {} items, aux {}, {:?} -> {:?} -> {:?}",
            self.seed,
            self.seed,
            self.data.len(),
            self.aux.len(),
            self.base,
            self.ops,
            self.tail
        )
    }
}

impl Case {
    fn random(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let data = {
            let n = random_len(&mut rng);
            values(&mut rng, n)
        };
        let aux = {
            let n = random_len(&mut rng);
            values(&mut rng, n)
        };
        let small = |rng: &mut Rng| 1 + rng.below(9);
        let base = match rng.below(5) {
            0 => Base::Owned,
            1 => Base::Slice,
            2 => Base::Range,
            3 => Base::Windows(small(&mut rng)),
            _ => Base::Chunks(small(&mut rng)),
        };
        let ops = (0..rng.below(5))
            .map(|_| match rng.below(17) {
                0 => Op::Map(1 + rng.next() % 97),
                1 => Op::Enumerate,
                2 => Op::Rev,
                3 => Op::Skip(random_len(&mut rng)),
                4 => Op::Take(random_len(&mut rng)),
                5 => Op::StepBy(small(&mut rng)),
                6 => Op::Zip,
                7 => Op::ZipEq,
                8 => Op::Chain,
                9 => Op::Chunks(small(&mut rng)),
                10 => Op::FoldChunks(small(&mut rng)),
                11 => Op::Interleave,
                12 => Op::InterleaveShortest,
                13 => Op::Intersperse(rng.next() % 1000),
                14 => Op::Update,
                15 => Op::MinLen(small(&mut rng) * 16),
                _ => Op::MaxLen(small(&mut rng)),
            })
            .collect();
        let tail = match rng.below(12) {
            0 => Tail::Filter(2 + rng.next() % 5),
            1 => Tail::FilterMap,
            2 => Tail::FlatMap(1 + rng.next() % 5),
            3 => Tail::FlatMapIter(1 + rng.next() % 5),
            4 => Tail::Flatten,
            5 => Tail::Positions(2 + rng.next() % 5),
            6 => Tail::ExponentialBlocks,
            7 => Tail::UniformBlocks(small(&mut rng)),
            _ => Tail::None,
        };
        Case {
            seed,
            data,
            aux,
            base,
            ops,
            tail,
        }
    }

    /// The pipeline up to its last indexed adapter, in parallel.
    fn indexed(&self) -> Erased<'_> {
        let data = &self.data;
        let mut iter = match self.base {
            Base::Owned => Erased::new(data.clone().into_par_iter()),
            Base::Slice => Erased::new(data.par_iter().copied()),
            Base::Range => Erased::new((0..data.len()).into_par_iter().map(move |i| data[i])),
            Base::Windows(k) => Erased::new(data.par_windows(k).map(|w| w[0] ^ w[w.len() - 1])),
            Base::Chunks(k) => Erased::new(data.par_chunks(k).map(|c| c.iter().sum::<u64>())),
        };
        for op in &self.ops {
            iter = self.stage(iter, op);
        }
        iter
    }

    fn stage<'a>(&'a self, iter: Erased<'a>, op: &Op) -> Erased<'a> {
        let aux = &self.aux;
        match *op {
            Op::Map(c) => Erased::new(iter.map(move |x| (x * c + 1) % M)),
            Op::Enumerate => Erased::new(iter.enumerate().map(|(i, x)| (x + 7 * i as u64) % M)),
            Op::Rev => Erased::new(iter.rev()),
            Op::Skip(k) => Erased::new(iter.skip(k)),
            Op::Take(k) => Erased::new(iter.take(k)),
            Op::StepBy(k) => Erased::new(iter.step_by(k)),
            Op::Zip => Erased::new(iter.zip(aux.par_iter()).map(|(a, &b)| (a + 3 * b) % M)),
            Op::ZipEq => {
                let n = iter.len();
                Erased::new(iter.zip_eq(0..n).map(|(a, i)| (a + i as u64) % M))
            }
            Op::Chain => Erased::new(iter.chain(aux.par_iter().copied())),
            Op::Chunks(k) => Erased::new(iter.chunks(k).map(|c| c.iter().sum::<u64>() % M)),
            Op::FoldChunks(k) => Erased::new(iter.fold_chunks(k, || 0, |a, x| (a + x) % M)),
            Op::Interleave => Erased::new(iter.interleave(aux.par_iter().copied())),
            Op::InterleaveShortest => {
                Erased::new(iter.interleave_shortest(aux.par_iter().copied()))
            }
            Op::Intersperse(x) => Erased::new(iter.intersperse(x)),
            Op::Update => Erased::new(iter.update(|x| *x = (*x * 5 + 1) % M)),
            Op::MinLen(k) => Erased::new(iter.with_min_len(k)),
            Op::MaxLen(k) => Erased::new(iter.with_max_len(k)),
        }
    }

    /// The whole pipeline, on a `Vec`.
    fn expected(&self) -> Vec<u64> {
        let data = &self.data;
        let mut v: Vec<u64> = match self.base {
            Base::Owned | Base::Slice | Base::Range => data.clone(),
            Base::Windows(k) => data.windows(k).map(|w| w[0] ^ w[w.len() - 1]).collect(),
            Base::Chunks(k) => data.chunks(k).map(|c| c.iter().sum()).collect(),
        };
        for op in &self.ops {
            v = self.model(v, op);
        }
        let tail = v.into_iter();
        match self.tail {
            Tail::None | Tail::ExponentialBlocks | Tail::UniformBlocks(_) => tail.collect(),
            Tail::Filter(m) => tail.filter(|x| x % m != 0).collect(),
            Tail::FilterMap => tail.filter_map(|x| (x % 3 != 0).then_some(x / 3)).collect(),
            Tail::FlatMap(k) | Tail::FlatMapIter(k) => tail
                .flat_map(|x| (0..x % k).map(move |j| (x + j) % M))
                .collect(),
            Tail::Flatten => tail.flat_map(|x| vec![x; (x % 3) as usize]).collect(),
            Tail::Positions(m) => tail
                .enumerate()
                .filter(|(_, x)| x % m == 0)
                .map(|(i, _)| i as u64)
                .collect(),
        }
    }

    fn model(&self, v: Vec<u64>, op: &Op) -> Vec<u64> {
        let aux = &self.aux;
        match *op {
            Op::Map(c) => v.into_iter().map(|x| (x * c + 1) % M).collect(),
            Op::Enumerate => v
                .into_iter()
                .enumerate()
                .map(|(i, x)| (x + 7 * i as u64) % M)
                .collect(),
            Op::Rev => v.into_iter().rev().collect(),
            Op::Skip(k) => v.into_iter().skip(k).collect(),
            Op::Take(k) => v.into_iter().take(k).collect(),
            Op::StepBy(k) => v.into_iter().step_by(k).collect(),
            Op::Zip => v.iter().zip(aux).map(|(a, b)| (a + 3 * b) % M).collect(),
            Op::ZipEq => v.iter().zip(0..).map(|(a, i)| (a + i) % M).collect(),
            Op::Chain => v.into_iter().chain(aux.iter().copied()).collect(),
            Op::Chunks(k) | Op::FoldChunks(k) => {
                v.chunks(k).map(|c| c.iter().sum::<u64>() % M).collect()
            }
            Op::Interleave => {
                let mut out = Vec::new();
                let (mut a, mut b) = (v.iter(), aux.iter());
                loop {
                    match (a.next(), b.next()) {
                        (None, None) => break out,
                        (x, y) => out.extend(x.into_iter().chain(y).copied()),
                    }
                }
            }
            Op::InterleaveShortest => {
                // rayon: as many from the first as the second has, plus one
                // if the first is longer; then the two interleaved.
                let n = v.len().min(aux.len());
                let first = if v.len() > aux.len() { n + 1 } else { n };
                let mut out = Vec::new();
                for i in 0..first {
                    out.push(v[i]);
                    if i < n {
                        out.push(aux[i]);
                    }
                }
                out
            }
            Op::Intersperse(x) => {
                let mut out = Vec::new();
                for (i, &y) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(x);
                    }
                    out.push(y);
                }
                out
            }
            Op::Update => v.into_iter().map(|x| (x * 5 + 1) % M).collect(),
            Op::MinLen(_) | Op::MaxLen(_) => v,
        }
    }
}

// ---- the checks ------------------------------------------------------

/// Runs the case's tail adapter on `iter` and passes the result to
/// `check` (each tail has its own type).
macro_rules! with_tail {
    ($case:expr, $iter:expr, |$it:ident| $check:expr) => {{
        let iter = $iter;
        match $case.tail {
            Tail::None => {
                let $it = iter;
                $check
            }
            Tail::Filter(m) => {
                let $it = iter.filter(move |x| x % m != 0);
                $check
            }
            Tail::FilterMap => {
                let $it = iter.filter_map(|x| (x % 3 != 0).then_some(x / 3));
                $check
            }
            Tail::FlatMap(k) => {
                let $it =
                    iter.flat_map(move |x| (0..x % k).into_par_iter().map(move |j| (x + j) % M));
                $check
            }
            Tail::FlatMapIter(k) => {
                let $it = iter.flat_map_iter(move |x| (0..x % k).map(move |j| (x + j) % M));
                $check
            }
            Tail::Flatten => {
                let $it = iter.map(|x| vec![x; (x % 3) as usize]).flatten();
                $check
            }
            Tail::Positions(m) => {
                let $it = iter.positions(move |x| x % m == 0).map(|i| i as u64);
                $check
            }
            Tail::ExponentialBlocks => {
                let $it = iter.by_exponential_blocks();
                $check
            }
            Tail::UniformBlocks(k) => {
                let $it = iter.by_uniform_blocks(k);
                $check
            }
        }
    }};
}

/// Every consumer that works on any parallel iterator, against `want`.
fn check_consumers(case: &Case, want: &[u64]) {
    let ctx = || case.to_string();
    let pick = want.get(want.len() / 2).copied().unwrap_or(1);
    let first_even = want.iter().position(|x| x % 2 == 0);
    let last_even = want.iter().rposition(|x| x % 2 == 0);

    with_tail!(case, case.indexed(), |it| {
        assert_eq!(it.collect::<Vec<_>>(), want, "collect: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        assert_eq!(it.count(), want.len(), "count: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        assert_eq!(it.sum::<u64>(), want.iter().sum(), "sum: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.reduce(|| 0, |a, b| (a + b) % M);
        assert_eq!(got, want.iter().sum::<u64>() % M, "reduce: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.min_by_key(|x| x % 10);
        assert_eq!(
            got,
            want.iter().copied().min_by_key(|x| x % 10),
            "min_by_key: {}",
            ctx()
        )
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.max_by_key(|x| x % 10);
        assert_eq!(
            got,
            want.iter().copied().max_by_key(|x| x % 10),
            "max_by_key: {}",
            ctx()
        )
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.find_first(|x| x % 2 == 0);
        assert_eq!(got, first_even.map(|i| want[i]), "find_first: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.find_last(|x| x % 2 == 0);
        assert_eq!(got, last_even.map(|i| want[i]), "find_last: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.find_any(|&x| x == pick);
        assert_eq!(
            got,
            want.contains(&pick).then_some(pick),
            "find_any: {}",
            ctx()
        )
    });
    with_tail!(case, case.indexed(), |it| {
        assert_eq!(
            it.any(|x| x == pick),
            want.contains(&pick),
            "any: {}",
            ctx()
        )
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.all(|x| x % 7 != 3);
        assert_eq!(got, want.iter().all(|x| x % 7 != 3), "all: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it
            .fold(Vec::new, |mut v, x| {
                v.push(x);
                v
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        assert_eq!(got, want, "fold and reduce: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let (even, odd): (Vec<u64>, Vec<u64>) = it.partition(|x| x % 2 == 0);
        let (e, o): (Vec<u64>, Vec<u64>) = want.iter().partition(|&&x| x % 2 == 0);
        assert_eq!((even, odd), (e, o), "partition: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let (a, b): (Vec<u64>, LinkedList<u64>) = it.map(|x| (x, x + 1)).unzip();
        assert_eq!(a, want, "unzip: {}", ctx());
        assert!(
            b.into_iter().eq(want.iter().map(|x| x + 1)),
            "unzip: {}",
            ctx()
        )
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.try_for_each(|x| if x == pick { Err(x) } else { Ok(()) });
        let wanted = if want.contains(&pick) {
            Err(pick)
        } else {
            Ok(())
        };
        assert_eq!(got, wanted, "try_for_each: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got: Vec<u64> = it.collect_vec_list().into_iter().flatten().collect();
        assert_eq!(got, want, "collect_vec_list: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let mut v = vec![M];
        v.par_extend(it);
        assert_eq!(v[0], M, "par_extend: {}", ctx());
        assert_eq!(&v[1..], want, "par_extend: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got: Result<Vec<u64>, u64> =
            it.map(|x| if x == pick { Err(x) } else { Ok(x) }).collect();
        let wanted = if want.contains(&pick) {
            Err(pick)
        } else {
            Ok(want.to_vec())
        };
        assert_eq!(got, wanted, "collect into Result: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got: Option<VecDeque<u64>> = it.map(|x| (x % 101 != 7).then_some(x)).collect();
        let wanted = want
            .iter()
            .all(|x| x % 101 != 7)
            .then(|| want.iter().copied().collect());
        assert_eq!(got, wanted, "collect into Option: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got: BTreeMap<u64, usize> = it.map(|x| (x, 1)).collect();
        let wanted: BTreeMap<u64, usize> = want.iter().map(|&x| (x, 1)).collect();
        assert_eq!(got, wanted, "collect into BTreeMap: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it.collect::<BinaryHeap<u64>>().into_sorted_vec();
        let mut wanted = want.to_vec();
        wanted.sort_unstable();
        assert_eq!(got, wanted, "collect into BinaryHeap: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let got = it
            .map(Ok::<u64, u64>)
            .try_reduce(|| 0, |a, b| Ok((a + b) % M));
        assert_eq!(
            got,
            Ok(want.iter().sum::<u64>() % M),
            "try_reduce: {}",
            ctx()
        )
    });
    with_tail!(case, case.indexed(), |it| {
        assert_eq!(it.max(), want.iter().copied().max(), "max: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let k = want.len() / 3;
        let mut got = it.take_any(k).collect::<Vec<_>>();
        assert_eq!(got.len(), k, "take_any: {}", ctx());
        got.sort_unstable();
        assert!(is_sub_multiset(&got, want), "take_any: {}", ctx())
    });
    with_tail!(case, case.indexed(), |it| {
        let k = want.len() / 3;
        let mut got = it.skip_any(k).collect::<Vec<_>>();
        assert_eq!(got.len(), want.len() - k, "skip_any: {}", ctx());
        got.sort_unstable();
        assert!(is_sub_multiset(&got, want), "skip_any: {}", ctx())
    });
}

/// The consumers of indexed iterators only (the case with no tail).
fn check_indexed(case: &Case, want: &[u64]) {
    let ctx = || case.to_string();
    assert_eq!(case.indexed().len(), want.len(), "len: {}", ctx());
    let mut v = Vec::new();
    case.indexed().collect_into_vec(&mut v);
    assert_eq!(v, want, "collect_into_vec: {}", ctx());
    let (mut a, mut b) = (vec![1], Vec::new());
    case.indexed()
        .map(|x| (x, x % 7))
        .unzip_into_vecs(&mut a, &mut b);
    assert_eq!(a, want, "unzip_into_vecs: {}", ctx());
    assert!(
        b.into_iter().eq(want.iter().map(|x| x % 7)),
        "unzip_into_vecs: {}",
        ctx()
    );
    let got = case.indexed().position_first(|x| x % 3 == 0);
    assert_eq!(
        got,
        want.iter().position(|x| x % 3 == 0),
        "position_first: {}",
        ctx()
    );
    let got = case.indexed().position_last(|x| x % 3 == 0);
    assert_eq!(
        got,
        want.iter().rposition(|x| x % 3 == 0),
        "position_last: {}",
        ctx()
    );
    let got: Vec<u64> = case.indexed().rev().collect();
    assert!(got.iter().eq(want.iter().rev()), "rev: {}", ctx());
    assert!(case.indexed().eq(want.par_iter().copied()), "eq: {}", ctx());
    let got: Vec<(usize, u64)> = case.indexed().enumerate().collect();
    assert!(
        got.iter().map(|p| p.0).eq(0..want.len()),
        "enumerate: {}",
        ctx()
    );
    assert!(
        got.iter().map(|p| p.1).eq(want.iter().copied()),
        "enumerate: {}",
        ctx()
    );
}

/// Whether sorted `part` is a sub-multiset of `whole`.
fn is_sub_multiset(part: &[u64], whole: &[u64]) -> bool {
    let mut whole = whole.to_vec();
    whole.sort_unstable();
    let mut w = whole.iter().peekable();
    part.iter().all(|x| {
        while w.next_if(|&&y| y < *x).is_some() {}
        w.next_if(|&&y| y == *x).is_some()
    })
}

fn run_case(seed: u64) {
    let case = Case::random(seed);
    let want = case.expected();
    check_consumers(&case, &want);
    if matches!(case.tail, Tail::None) {
        check_indexed(&case, &want);
    }
}

/// The cases: `LOCUS_PIPELINE_SEED` alone if set, else `first..first + n`.
fn seeds(first: u64, n: u64) -> Vec<u64> {
    match std::env::var("LOCUS_PIPELINE_SEED") {
        Ok(s) => vec![
            s.trim()
                .parse()
                .expect("LOCUS_PIPELINE_SEED is a case number"),
        ],
        Err(_) => (first..first + n).collect(),
    }
}

fn run_on(pool: &ThreadPool, first: u64, n: u64) {
    pool.install(|| {
        for seed in seeds(first, n) {
            run_case(seed);
        }
    });
}

#[test]
fn the_pipelines_with_one_worker() {
    run_on(&pool(1), 0, 150);
}

#[test]
fn the_pipelines_on_four_workers() {
    run_on(&pool(4), 1000, 300);
}

#[test]
fn the_pipelines_on_three_llcs() {
    run_on(&virtual_pool("llc:3 core:2"), 2000, 300);
}

#[test]
fn the_pipelines_on_four_llcs() {
    run_on(&virtual_pool("llc:4 core:2"), 3000, 300);
}

/// Inside a busy pool's iterator, so every pipeline starts while the
/// other workers run the outer items (the busy-pool split).
#[test]
fn the_pipelines_nested_in_a_busy_pool() {
    let pool = virtual_pool("llc:2 core:2");
    let all = seeds(4000, 200);
    pool.install(|| {
        all.par_chunks(8)
            .with_max_len(1)
            .for_each(|chunk| chunk.iter().for_each(|&seed| run_case(seed)))
    });
}
