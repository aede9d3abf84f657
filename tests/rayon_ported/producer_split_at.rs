//! Every indexed source and adapter's `Producer::split_at`, at every cut:
//! a producer cut into four pieces at `i <= j <= k` gives pieces of the
//! right lengths whose items, chained, are the sequential ones, forward
//! and backward (rayon's `tests/producer_split_at.rs`).

use std::fmt::Debug;

use locus::iter::plumbing::{Producer, ProducerCallback};
use locus::prelude::*;

/// Cuts the producer at `k`, then its left part at `i` and `j`, and
/// collects the four pieces in order (reversed if `backward`).
#[derive(Debug, Clone, Copy)]
struct FourPieces {
    i: usize,
    j: usize,
    k: usize,
    backward: bool,
}

impl<T> ProducerCallback<T> for FourPieces {
    type Output = Vec<T>;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> Vec<T> {
        let FourPieces { i, j, k, backward } = self;
        let (front, d) = producer.split_at(k);
        let (a, middle) = front.split_at(i);
        let (b, c) = middle.split_at(j - i);
        let pieces = [a.into_iter(), b.into_iter(), c.into_iter()];
        for (piece, len) in pieces.iter().zip([i, j - i, k - j]) {
            assert_eq!(piece.size_hint(), (len, Some(len)), "{self:?}");
            assert_eq!(piece.len(), len, "{self:?}");
        }
        let [a, b, c] = pieces;
        let all = a.chain(b).chain(c).chain(d.into_iter());
        if backward {
            all.rev().collect()
        } else {
            all.collect()
        }
    }
}

/// Every `i <= j <= k <= n`.
fn cuts(n: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    (0..=n).flat_map(move |i| (i..=n).flat_map(move |j| (j..=n).map(move |k| (i, j, k))))
}

/// Checks the iterators `make` returns against `expected` at every cut.
fn check<I, F>(expected: &[I::Item], make: F)
where
    F: Fn() -> I,
    I: IntoParallelIterator<Iter: IndexedParallelIterator, Item: PartialEq + Debug>,
{
    for (i, j, k) in cuts(expected.len()) {
        for backward in [false, true] {
            let cut = FourPieces { i, j, k, backward };
            let got = make().into_par_iter().with_producer(cut);
            if backward {
                assert!(got.iter().eq(expected.iter().rev()), "{cut:?}: {got:?}");
            } else {
                assert_eq!(got, expected, "{cut:?}");
            }
        }
    }
}

/// [`check`] for iterators over `&mut` pieces of `data`, which cannot be
/// made twice at once: `run` makes one on a new borrow of `data`, copies
/// its items out, and gives it the cut.
fn check_mut<T>(
    data: &mut [T],
    expected: &[Vec<T>],
    run: impl Fn(&mut [T], FourPieces) -> Vec<Vec<T>>,
) where
    T: PartialEq + Debug,
{
    for (i, j, k) in cuts(expected.len()) {
        for backward in [false, true] {
            let cut = FourPieces { i, j, k, backward };
            let got = run(data, cut);
            if backward {
                assert!(got.iter().eq(expected.iter().rev()), "{cut:?}: {got:?}");
            } else {
                assert_eq!(got, expected, "{cut:?}");
            }
        }
    }
}

// Sources.

#[test]
fn array() {
    let a = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    check(&a, || a);
}

#[test]
fn empty() {
    check(&[], locus::iter::empty::<i32>);
}

#[test]
fn once_and_option() {
    check(&[42], || locus::iter::once(42));
    check(&[42], || Some(42));
    check(&[], || None::<i32>);
}

#[test]
fn ranges() {
    let v: Vec<i32> = (0..10).collect();
    check(&v, || 0..10);
    let v: Vec<u16> = (0u16..=10).collect();
    check(&v, || 0u16..=10);
    let v: Vec<char> = ('\u{D7FD}'..'\u{E003}').collect();
    check(&v, || '\u{D7FD}'..'\u{E003}');
}

#[test]
fn repeat_n() {
    check(&[1; 5], || locus::iter::repeat_n(1, 5));
}

#[test]
fn slices_and_vectors() {
    let s: Vec<i32> = (0..10).collect();
    let refs: Vec<&i32> = s.iter().collect();
    check(&refs, || &s);
    check(&s, || s.clone());
    let windows: Vec<&[i32]> = s.windows(2).collect();
    check(&windows, || s.par_windows(2));
    let arrays: Vec<&[i32; 3]> = s.windows(3).map(|w| w.try_into().unwrap()).collect();
    check(&arrays, || s.par_array_windows::<3>());
}

#[test]
fn slice_chunks() {
    let s: Vec<i32> = (0..10).collect();
    for size in 1..=s.len() + 1 {
        let v: Vec<&[i32]> = s.chunks(size).collect();
        check(&v, || s.par_chunks(size));
        let v: Vec<&[i32]> = s.chunks_exact(size).collect();
        check(&v, || s.par_chunks_exact(size));
        let v: Vec<&[i32]> = s.rchunks(size).collect();
        check(&v, || s.par_rchunks(size));
        let v: Vec<&[i32]> = s.rchunks_exact(size).collect();
        check(&v, || s.par_rchunks_exact(size));
    }
}

#[test]
fn mutable_slices() {
    let mut s: Vec<i32> = (0..10).collect();
    let v = s.clone();
    let each: Vec<Vec<i32>> = v.iter().map(|&x| vec![x]).collect();
    check_mut(&mut s, &each, |s, cut| {
        s.par_iter_mut().map(|x| vec![*x]).with_producer(cut)
    });
    let owned = |c: &mut [i32]| c.to_vec();
    for size in 1..=11 {
        let want: Vec<Vec<i32>> = v.chunks(size).map(<[i32]>::to_vec).collect();
        check_mut(&mut s, &want, |s, cut| {
            s.par_chunks_mut(size).map(owned).with_producer(cut)
        });
        let want: Vec<Vec<i32>> = v.chunks_exact(size).map(<[i32]>::to_vec).collect();
        check_mut(&mut s, &want, |s, cut| {
            s.par_chunks_exact_mut(size).map(owned).with_producer(cut)
        });
        let want: Vec<Vec<i32>> = v.rchunks(size).map(<[i32]>::to_vec).collect();
        check_mut(&mut s, &want, |s, cut| {
            s.par_rchunks_mut(size).map(owned).with_producer(cut)
        });
        let want: Vec<Vec<i32>> = v.rchunks_exact(size).map(<[i32]>::to_vec).collect();
        check_mut(&mut s, &want, |s, cut| {
            s.par_rchunks_exact_mut(size).map(owned).with_producer(cut)
        });
    }
}

#[test]
fn mutable_items_are_the_slice_elements() {
    // The `&mut` items themselves, not copies: every cut hands out each
    // element once, and writes through them land in order.
    let mut s = vec![0u32; 10];
    for (i, j, k) in cuts(10) {
        for backward in [false, true] {
            let cut = FourPieces { i, j, k, backward };
            let items = s.par_iter_mut().with_producer(cut);
            assert_eq!(items.len(), 10);
            for (n, x) in items.into_iter().enumerate() {
                *x = n as u32;
            }
            let want: Vec<u32> = if backward {
                (0..10).rev().collect()
            } else {
                (0..10).collect()
            };
            assert_eq!(s, want, "{cut:?}");
        }
    }
}

// Adapters.

#[test]
fn chain_and_zip() {
    let v: Vec<i32> = (0..10).collect();
    check(&v, || (0..5).into_par_iter().chain(5..10));
    let pairs: Vec<(i32, i32)> = (0..10).zip(10..20).collect();
    check(&pairs, || (0..10).into_par_iter().zip(10..20));
    check(&pairs[..5], || (0..5).into_par_iter().zip(10..20));
    check(&pairs[..5], || (0..10).into_par_iter().zip(10..15));
    check(&pairs, || (0..10).into_par_iter().zip_eq(10..20));
}

#[test]
fn item_adapters() {
    let v: Vec<i32> = (0..10).collect();
    check(&v, || v.par_iter().cloned());
    check(&v, || v.par_iter().copied());
    check(&v, || v.par_iter().map(|&x| x));
    check(&v, || v.par_iter().map_with(vec![0], |_, &x| x));
    check(&v, || v.par_iter().map_init(|| vec![0], |_, &x| x));
    check(&v, || (0..10).into_par_iter().inspect(|_| ()));
    check(&v, || (0..10).into_par_iter().update(|_| ()));
    check(&v, || (0..10).into_par_iter().panic_fuse());
    check(&v, || (0..10).into_par_iter().with_max_len(1));
    check(&v, || (0..10).into_par_iter().with_min_len(1));
    let numbered: Vec<(usize, i32)> = (0..10).enumerate().collect();
    check(&numbered, || (0..10).into_par_iter().enumerate());
    let reversed: Vec<i32> = (0..10).rev().collect();
    check(&reversed, || (0..10).into_par_iter().rev());
}

#[test]
fn step_by() {
    for step in 1..=11 {
        let v: Vec<i32> = (0..10).step_by(step).collect();
        check(&v, || (0..10).into_par_iter().step_by(step));
    }
}

#[test]
fn skip_and_take() {
    let v: Vec<i32> = (0..10).collect();
    for n in 0..=11 {
        check(&v[n.min(10)..], || (0..10).into_par_iter().skip(n));
        check(&v[..n.min(10)], || (0..10).into_par_iter().take(n));
    }
}

#[test]
fn interleave() {
    let v = [0, 10, 1, 11, 2, 12, 3, 4];
    check(&v, || (0..5).into_par_iter().interleave(10..13));
    check(&v[..6], || (0..3).into_par_iter().interleave(10..13));
    let v = [0, 10, 1, 11, 2, 12, 13, 14];
    check(&v, || (0..3).into_par_iter().interleave(10..15));
    let v = [0, 10, 1, 11, 2, 12];
    check(&v, || (0..3).into_par_iter().interleave_shortest(10..15));
}

#[test]
fn intersperse() {
    let v = [0, -1, 1, -1, 2, -1, 3, -1, 4];
    check(&v, || (0..5).into_par_iter().intersperse(-1));
    check(&[], || (0..0).into_par_iter().intersperse(-1));
    check(&[0], || (0..1).into_par_iter().intersperse(-1));
}

#[test]
fn chunks() {
    let s: Vec<i32> = (0..10).collect();
    for size in 1..=11 {
        let v: Vec<Vec<i32>> = s.chunks(size).map(<[i32]>::to_vec).collect();
        check(&v, || s.par_iter().cloned().chunks(size));
    }
}
