//! `par_drain` of random ranges of `Vec`, `VecDeque` (wrapped around its
//! buffer) and `String`, consumed whole, in part (short-circuiting
//! consumers stop early) or not at all, against std's `drain`: the items
//! drained, the collection left behind, and every element dropped exactly
//! once (counted per element). A failure names the case's seed;
//! `LOCUS_DRAIN_SEED=N` runs case N alone.

mod common;

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use locus::prelude::*;

use common::rng::Rng;
use common::work::{pool, virtual_pool};

/// An element that counts its drops in a table shared by its case.
struct Item {
    id: usize,
    drops: Arc<Vec<AtomicU32>>,
}

impl Drop for Item {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, Ordering::Relaxed);
    }
}

fn items(n: usize) -> (Vec<Item>, Arc<Vec<AtomicU32>>) {
    let drops: Arc<Vec<AtomicU32>> = Arc::new((0..n).map(|_| AtomicU32::new(0)).collect());
    let v = (0..n)
        .map(|id| Item {
            id,
            drops: drops.clone(),
        })
        .collect();
    (v, drops)
}

/// A random range of `0..=len` in one of the six bound forms.
fn range(rng: &mut Rng, len: usize) -> (Bound<usize>, Bound<usize>) {
    let a = rng.below(len + 1);
    let b = a + rng.below(len - a + 1);
    let start = match rng.below(3) {
        0 => Bound::Included(a),
        1 if a > 0 => Bound::Excluded(a - 1),
        _ if a == 0 => Bound::Unbounded,
        _ => Bound::Included(a),
    };
    let end = match rng.below(3) {
        0 => Bound::Excluded(b),
        1 if b > 0 => Bound::Included(b - 1),
        _ if b == len => Bound::Unbounded,
        _ => Bound::Excluded(b),
    };
    (start, end)
}

/// How the drain is consumed: whole, not at all, or in part (`take`, and
/// the short-circuits `find_any` and `any`, which stop the pieces early).
#[derive(Clone, Copy, Debug)]
enum Use {
    Collect,
    Drop,
    TakeFirst(usize),
    FindAny(usize),
    AnyAbove(usize),
    Sum,
}

fn use_of(rng: &mut Rng) -> Use {
    match rng.below(6) {
        0 => Use::Collect,
        1 => Use::Drop,
        2 => Use::TakeFirst(rng.below(40)),
        3 => Use::FindAny(rng.below(300)),
        4 => Use::AnyAbove(rng.below(300)),
        _ => Use::Sum,
    }
}

fn seeds(n: u64) -> Vec<u64> {
    match std::env::var("LOCUS_DRAIN_SEED") {
        Ok(s) => vec![s.trim().parse().expect("LOCUS_DRAIN_SEED is a case number")],
        Err(_) => (0..n).collect(),
    }
}

/// Runs `check` on every case on pools of 1 and 4 workers and on a virtual
/// pool of three LLCs.
fn on_pools(n: u64, check: impl Fn(u64) + Sync) {
    for pool in [pool(1), pool(4), virtual_pool("llc:3 core:2")] {
        // One case at a time: a case started while every worker is busy
        // would be cut less (the busy-pool split), and the cuts are the
        // point.
        pool.install(|| seeds(n).into_iter().for_each(&check));
    }
}

/// Consumes `drain` as `how` and checks what it yielded against `want`
/// (std's drained ids, in order).
fn consume(drain: impl IndexedParallelIterator<Item = Item>, how: Use, want: &[usize], ctx: &str) {
    match how {
        Use::Collect => {
            let got: Vec<usize> = drain.map(|x| x.id).collect();
            assert_eq!(got, want, "collect: {ctx}");
        }
        Use::Drop => drop(drain),
        Use::TakeFirst(k) => {
            let got: Vec<usize> = drain.take(k).map(|x| x.id).collect();
            assert_eq!(got, want[..k.min(want.len())], "take: {ctx}");
        }
        Use::FindAny(id) => {
            let got = drain.find_any(|x| x.id == id).map(|x| x.id);
            assert_eq!(got, want.contains(&id).then_some(id), "find_any: {ctx}");
        }
        Use::AnyAbove(id) => {
            let got = drain.any(|x| x.id > id);
            assert_eq!(got, want.iter().any(|&x| x > id), "any: {ctx}");
        }
        Use::Sum => {
            let got: usize = drain.map(|x| x.id).sum();
            assert_eq!(got, want.iter().sum::<usize>(), "sum: {ctx}");
        }
    }
}

/// Every element dropped exactly once (call after the collection is gone).
fn dropped_once(drops: &[AtomicU32], ctx: &str) {
    for (id, d) in drops.iter().enumerate() {
        assert_eq!(
            d.load(Ordering::Relaxed),
            1,
            "element {id} dropped that many times: {ctx}"
        );
    }
}

#[test]
fn vec_drains_are_std_s() {
    on_pools(300, |seed| {
        let mut rng = Rng::new(seed);
        let n = rng.below(if seed % 4 == 0 { 3000 } else { 60 });
        let (mut v, drops) = items(n);
        let r = range(&mut rng, n);
        let how = use_of(&mut rng);
        let ctx = format!("case {seed}: {n} items, range {r:?}, {how:?}");
        let want: Vec<usize> = (0..n).collect::<Vec<_>>().drain(r).collect();
        consume(v.par_drain(r), how, &want, &ctx);
        let mut rest: Vec<usize> = (0..n).collect();
        rest.drain(r);
        assert!(v.iter().map(|x| x.id).eq(rest), "what is left: {ctx}");
        drop(v);
        dropped_once(&drops, &ctx);
    });
}

#[test]
fn vec_deque_drains_are_std_s() {
    on_pools(300, |seed| {
        let mut rng = Rng::new(seed);
        let n = rng.below(if seed % 4 == 0 { 3000 } else { 60 });
        let (v, drops) = items(n);
        // Built from both ends, so its buffer wraps: ids in order, the
        // first `front` of them pushed at the front.
        let front = rng.below(n + 1);
        let mut d = VecDeque::with_capacity(n);
        let mut v = v.into_iter().collect::<Vec<_>>();
        let tail = v.split_off(front);
        d.extend(tail);
        for x in v.into_iter().rev() {
            d.push_front(x);
        }
        let r = range(&mut rng, n);
        let how = use_of(&mut rng);
        let ctx = format!("case {seed}: {n} items ({front} at the front), range {r:?}, {how:?}");
        let want: Vec<usize> = (0..n).collect::<Vec<_>>().drain(r).collect();
        consume(d.par_drain(r), how, &want, &ctx);
        let mut rest: Vec<usize> = (0..n).collect();
        rest.drain(r);
        assert!(d.iter().map(|x| x.id).eq(rest), "what is left: {ctx}");
        drop(d);
        dropped_once(&drops, &ctx);
    });
}

#[test]
fn string_drains_are_std_s() {
    const CHARS: &[char] = &['a', 'é', '€', '😀', ' '];
    on_pools(300, |seed| {
        let mut rng = Rng::new(seed);
        let n = rng.below(if seed % 4 == 0 { 2000 } else { 40 });
        let s: String = (0..n).map(|_| CHARS[rng.below(CHARS.len())]).collect();
        // A range on char boundaries: std's `drain` panics off them, as
        // rayon's does.
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let a = rng.below(bounds.len());
        let b = a + rng.below(bounds.len() - a);
        let r = bounds[a]..bounds[b];
        let ctx = format!("case {seed}: {s:?}, range {r:?}");
        let mut want_rest = s.clone();
        let want: String = want_rest.drain(r.clone()).collect();
        let mut got_rest = s.clone();
        if rng.below(2) == 0 {
            let got: String = got_rest.par_drain(r).collect();
            assert_eq!(got, want, "drained: {ctx}");
        } else {
            let got = got_rest.par_drain(r).count();
            assert_eq!(got, want.chars().count(), "count: {ctx}");
        }
        assert_eq!(got_rest, want_rest, "what is left: {ctx}");
    });
}
