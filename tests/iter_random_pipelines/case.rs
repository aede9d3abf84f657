//! One random case: its inputs, its pipeline (a source, indexed adapters,
//! a last adapter that may make it unindexed), the pipeline built in
//! parallel ([`Case::indexed`]) and run on a `Vec` ([`Case::expected`]).

use std::fmt;

use locus::prelude::*;

use super::M;
use super::common::rng::Rng;
use super::erased::Erased;

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

/// Where a pipeline starts.
#[derive(Clone, Debug)]
pub enum Base {
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
pub enum Op {
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
pub enum Tail {
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
pub struct Case {
    seed: u64,
    data: Vec<u64>,
    aux: Vec<u64>,
    base: Base,
    ops: Vec<Op>,
    pub tail: Tail,
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
    pub fn random(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let data = {
            let n = random_len(&mut rng);
            rng.values(n)
        };
        let aux = {
            let n = random_len(&mut rng);
            rng.values(n)
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
    pub fn indexed(&self) -> Erased<'_> {
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
    pub fn expected(&self) -> Vec<u64> {
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
