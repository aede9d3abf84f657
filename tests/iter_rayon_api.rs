//! The parts of rayon 1.11's and 1.12's API added after the first iterator layer,
//! each against the sequential `std` equivalent on lengths 0, 1, 2, primes
//! (the `iter_util` lengths), on a 4-worker pool: `take_any_while`,
//! `skip_any_while`, `fold_chunks(_with)`, `by_*_blocks`, `iter::split`,
//! `walk_tree*`, tuples (`MultiZip`), `Either`, char ranges, boxed slices,
//! `par_array_windows`, string and slice splitting, `OsString`, and the tie
//! rules of `min`/`max`.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};

use locus::iter::{Either, split, walk_tree, walk_tree_postfix, walk_tree_prefix};
use locus::prelude::*;

mod common;
mod iter_util;

use iter_util::{LENS, each_len, pool};

#[test]
fn take_any_while_and_skip_any_while() {
    each_len(11, |v| {
        // A predicate that does not depend on the order: exactly std's
        // filter (every piece sees the same answer for every item).
        let got: Vec<u64> = v.par_iter().copied().take_any_while(|_| true).collect();
        assert_eq!(got, v);
        let got: Vec<u64> = v.par_iter().copied().skip_any_while(|_| false).collect();
        assert_eq!(got, v);
        assert_eq!(v.par_iter().take_any_while(|_| false).count(), 0);
        assert_eq!(v.par_iter().skip_any_while(|_| true).count(), 0);
        // A stop at a value: which passing items are taken (or skipped)
        // depends on timing, as in rayon, because the flag is shared by all
        // pieces. What holds: take_any_while yields only passing items,
        // skip_any_while keeps every failing item, and both keep the input
        // order. (Not that skip_any_while keeps the std suffix: a passing
        // item after the first failing one may be skipped by a piece that
        // reached it before the flag flipped.)
        let taken: Vec<u64> = v.par_iter().copied().take_any_while(|&x| x < 900).collect();
        assert!(taken.iter().all(|&x| x < 900));
        assert!(is_subsequence(&taken, &v));
        let kept: Vec<u64> = v.par_iter().copied().skip_any_while(|&x| x < 900).collect();
        assert!(is_subsequence(&kept, &v));
        assert!(
            kept.iter().filter(|&&x| x >= 900).count() == v.iter().filter(|&&x| x >= 900).count()
        );
    });
    // Endless source, stopped by the flag.
    let n = pool().install(|| {
        (0..u64::MAX)
            .into_par_iter()
            .take_any_while(|&x| x < 10_000)
            .count()
    });
    assert!(n <= 10_000);
}

fn is_subsequence(sub: &[u64], of: &[u64]) -> bool {
    let mut it = of.iter();
    sub.iter().all(|x| it.any(|y| y == x))
}

#[test]
fn fold_chunks_against_std_chunks() {
    each_len(12, |v| {
        for size in [1, 2, 3, 7, 1000] {
            let got: Vec<u64> = v
                .par_iter()
                .fold_chunks(size, || 0, |a: u64, &x| a.wrapping_mul(3) + x)
                .collect();
            let want: Vec<u64> = v
                .chunks(size)
                .map(|c| c.iter().fold(0, |a: u64, &x| a.wrapping_mul(3) + x))
                .collect();
            assert_eq!(got, want);
            let got: Vec<Vec<u64>> = v
                .par_iter()
                .fold_chunks_with(size, vec![], |mut a, &x| {
                    a.push(x);
                    a
                })
                .rev()
                .collect();
            let want: Vec<Vec<u64>> = v.chunks(size).rev().map(<[u64]>::to_vec).collect();
            assert_eq!(got, want);
            assert_eq!(
                v.par_iter().fold_chunks(size, || 0, |a, _| a + 1).len(),
                v.len().div_ceil(size)
            );
            // Indexed: zip with the chunks themselves.
            let pairs: Vec<(u64, &[u64])> = v
                .par_iter()
                .fold_chunks(size, || 0, |a, &x| a + x)
                .zip(v.par_chunks(size))
                .collect();
            assert!(pairs.iter().all(|(s, c)| *s == c.iter().sum::<u64>()));
        }
    });
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn fold_chunks_zero_size_panics() {
    let _ = (0..3).into_par_iter().fold_chunks(0, || 0, |a, x| a + x);
}

#[test]
fn blocks_keep_order_and_stop_early() {
    each_len(13, |v| {
        let got: Vec<u64> = v.par_iter().copied().by_exponential_blocks().collect();
        assert_eq!(got, v);
        for size in [1, 2, 5, 1000] {
            let got: Vec<u64> = v.par_iter().copied().by_uniform_blocks(size).collect();
            assert_eq!(got, v);
            let first = v
                .par_iter()
                .by_uniform_blocks(size)
                .find_first(|&&x| x > 500);
            assert_eq!(first, v.iter().find(|&&x| x > 500));
        }
        let last = v
            .par_iter()
            .by_exponential_blocks()
            .find_last(|&&x| x < 100);
        assert_eq!(last, v.iter().rev().find(|&&x| x < 100));
        assert_eq!(
            v.par_iter().by_exponential_blocks().sum::<u64>(),
            v.iter().sum::<u64>()
        );
    });
    // `find_first` stops at the block that holds the hit: the items past it
    // are never looked at.
    let seen = std::sync::atomic::AtomicUsize::new(0);
    let hit = pool().install(|| {
        (0..1_000_000u32)
            .into_par_iter()
            .by_exponential_blocks()
            .inspect(|_| {
                seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .find_first(|&x| x == 10)
    });
    assert_eq!(hit, Some(10));
    assert!(seen.into_inner() < 1000, "blocks after the hit were run");
}

#[test]
fn split_yields_the_pieces_in_order() {
    pool().install(|| {
        for &n in LENS {
            let pieces: Vec<std::ops::Range<usize>> = split(0..n, |r| {
                if r.len() <= 3 {
                    return (r, None);
                }
                let mid = r.start + r.len() / 2;
                (r.start..mid, Some(mid..r.end))
            })
            .collect();
            let flat: Vec<usize> = pieces.iter().cloned().flatten().collect();
            assert_eq!(flat, (0..n).collect::<Vec<_>>());
            // The pool (4 workers) asks for more than one piece of a long range.
            assert!(n < 1000 || pieces.len() > 1);
        }
    });
}

/// The children of `n` in a tree of `size` nodes numbered as a heap with
/// `arity` children per node.
fn heap_children(n: usize, size: usize, arity: usize) -> Vec<usize> {
    (1..=arity)
        .map(|k| n * arity + k)
        .filter(|&c| c < size)
        .collect()
}

fn seq_prefix(n: usize, size: usize, arity: usize, out: &mut Vec<usize>) {
    out.push(n);
    for c in heap_children(n, size, arity) {
        seq_prefix(c, size, arity, out);
    }
}

fn seq_postfix(n: usize, size: usize, arity: usize, out: &mut Vec<usize>) {
    for c in heap_children(n, size, arity) {
        seq_postfix(c, size, arity, out);
    }
    out.push(n);
}

#[test]
fn walk_tree_orders() {
    pool().install(|| {
        for &size in LENS.iter().filter(|&&n| n > 0) {
            for arity in [1, 2, 3, 7] {
                if arity == 1 && size > 2000 {
                    continue; // a 10k-deep path: fine for us, slow for the recursive check
                }
                let (mut pre, mut post) = (vec![], vec![]);
                seq_prefix(0, size, arity, &mut pre);
                seq_postfix(0, size, arity, &mut post);
                let got: Vec<usize> =
                    walk_tree_prefix(0, |&n| heap_children(n, size, arity)).collect();
                assert_eq!(got, pre, "prefix, size {size}, arity {arity}");
                let got: Vec<usize> =
                    walk_tree_postfix(0, |&n| heap_children(n, size, arity)).collect();
                assert_eq!(got, post, "postfix, size {size}, arity {arity}");
                let mut got: Vec<usize> =
                    walk_tree(0, |&n| heap_children(n, size, arity)).collect();
                got.sort();
                assert_eq!(got, (0..size).collect::<Vec<_>>());
                // Early stops.
                assert_eq!(
                    walk_tree_prefix(0, |&n| heap_children(n, size, arity))
                        .find_first(|&n| n == size - 1),
                    Some(size - 1)
                );
            }
        }
        // A deep path does not overflow the workers' stacks.
        let deep =
            walk_tree_postfix(0u32, |&n| if n < 1_000_000 { vec![n + 1] } else { vec![] }).count();
        assert_eq!(deep, 1_000_001);
    });
}

#[test]
fn tuples_zip_in_lockstep() {
    each_len(14, |v| {
        let w: Vec<u64> = v.iter().map(|x| x * 2).collect();
        let u: Vec<u64> = v.iter().rev().copied().collect();
        let got: Vec<(u64, u64, u64)> = (&v, &w, &u)
            .into_par_iter()
            .map(|(a, b, c)| (*a, *b, *c))
            .collect();
        let want: Vec<(u64, u64, u64)> = v
            .iter()
            .zip(&w)
            .zip(&u)
            .map(|((a, b), c)| (*a, *b, *c))
            .collect();
        assert_eq!(got, want);
        let single: Vec<(u64,)> = (v.clone(),).into_par_iter().collect();
        assert_eq!(single, v.iter().map(|&x| (x,)).collect::<Vec<_>>());
        // Shorter member, by value, reversed.
        let short = &v[..v.len() / 2];
        let got: Vec<(u64, &u64)> = (v.clone(), short).into_par_iter().rev().collect();
        let want: Vec<(u64, &u64)> = v.iter().copied().zip(short).rev().collect();
        assert_eq!(got, want);
        let mut out = vec![0u64; v.len()];
        (&mut out, &v, &w)
            .into_par_iter()
            .for_each(|(o, a, b)| *o = a + b);
        assert_eq!(
            out,
            v.iter().zip(&w).map(|(a, b)| a + b).collect::<Vec<_>>()
        );
        let mut pair = (vec![0u64; v.len()], v.clone());
        (&mut pair).into_par_iter().for_each(|(o, a)| *o = *a + 1);
        assert!(pair.0.iter().zip(&pair.1).all(|(o, a)| *o == a + 1));
        let twelve = (&v, &v, &v, &v, &v, &v, &v, &v, &v, &v, &v, &v)
            .into_par_iter()
            .map(|t| t.11)
            .sum::<u64>();
        assert_eq!(twelve, v.iter().sum::<u64>());
    });
}

#[test]
fn either_iterates_and_extends() {
    each_len(15, |v| {
        for left in [true, false] {
            let it = if left {
                Either::Left(v.par_iter().copied())
            } else {
                Either::Right(v.par_iter().copied().rev())
            };
            let got: Vec<u64> = it.collect();
            let want: Vec<u64> = if left {
                v.clone()
            } else {
                v.iter().rev().copied().collect()
            };
            assert_eq!(got, want);
            let mut target: Either<Vec<u64>, VecDeque<u64>> = if left {
                Either::Left(vec![])
            } else {
                Either::Right(VecDeque::new())
            };
            target.par_extend(v.par_iter().copied());
            let flat: Vec<u64> = target.either(|l| l, |r| r.into_iter().collect());
            assert_eq!(flat, v);
        }
    });
}

#[test]
fn char_ranges_skip_the_surrogates() {
    pool().install(|| {
        let cases = [
            ('a', 'a'),
            ('a', 'b'),
            ('a', 'z'),
            ('\0', '\u{FF}'),
            ('\u{D7F0}', '\u{E010}'),
            ('\u{D7FF}', '\u{E000}'),
            ('\u{E000}', '\u{E005}'),
            ('\0', char::MAX),
            ('z', 'a'),
        ];
        for (a, b) in cases {
            let got: Vec<char> = (a..b).into_par_iter().collect();
            assert_eq!(got, (a..b).collect::<Vec<_>>(), "{a:?}..{b:?}");
            assert_eq!((a..b).into_par_iter().len(), (a..b).count());
            let got: Vec<char> = (a..=b).into_par_iter().rev().collect();
            assert_eq!(got, (a..=b).rev().collect::<Vec<_>>(), "{a:?}..={b:?}");
            assert_eq!((a..=b).into_par_iter().len(), (a..=b).count());
        }
    });
}

/// `par_array_windows::<N>()` against `std`'s windows, each as an array:
/// collected, reversed, one window per piece (every split point), and
/// zipped with `par_windows` (split at the same indices).
fn array_windows_as_std<const N: usize>(v: &[u64]) {
    let want: Vec<&[u64; N]> = v.windows(N).map(|w| w.try_into().unwrap()).collect();
    let it = v.par_array_windows::<N>();
    assert_eq!(it.len(), want.len());
    assert_eq!(it.clone().collect::<Vec<_>>(), want);
    let back: Vec<&[u64; N]> = it.clone().rev().collect();
    assert!(back.iter().rev().eq(want.iter()));
    let one_each: Vec<&[u64; N]> = it.clone().with_max_len(1).collect();
    assert_eq!(one_each, want);
    assert!(
        it.zip(v.par_windows(N))
            .with_max_len(2)
            .all(|(a, w)| a.as_slice() == w)
    );
}

#[test]
fn array_windows_against_std_windows() {
    each_len(17, |v| {
        array_windows_as_std::<1>(&v);
        array_windows_as_std::<2>(&v);
        array_windows_as_std::<3>(&v);
        array_windows_as_std::<8>(&v);
        let sums: Vec<u64> = v.par_array_windows().map(|[a, b]| a + b).collect();
        assert_eq!(sums, v.windows(2).map(|w| w[0] + w[1]).collect::<Vec<_>>());
    });
}

#[test]
fn boxed_slices() {
    each_len(16, |v| {
        let mut b: Box<[u64]> = v.clone().into_boxed_slice();
        assert_eq!(b.par_iter().sum::<u64>(), v.iter().sum::<u64>());
        b.par_iter_mut().for_each(|x| *x += 1);
        let got: Vec<u64> = b.into_par_iter().collect();
        assert_eq!(got, v.iter().map(|x| x + 1).collect::<Vec<_>>());
    });
}

/// Strings of every length in `LENS` made of a few words, separators and
/// multi-byte chars.
fn texts() -> Vec<String> {
    let alphabet = ['a', 'b', ',', ' ', 'é', '\n', '𝄞', ','];
    LENS.iter()
        .map(|&n| {
            iter_util::data(n, n as u64)
                .iter()
                .map(|&x| alphabet[x as usize % alphabet.len()])
                .collect()
        })
        .collect()
}

#[test]
fn string_matches_utf16_split_inclusive() {
    pool().install(|| {
        for s in texts() {
            let s = s.as_str();
            assert_eq!(
                s.par_encode_utf16().collect::<Vec<u16>>(),
                s.encode_utf16().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_inclusive(',').collect::<Vec<_>>(),
                s.split_inclusive(',').collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_inclusive(['\n', ' ']).collect::<Vec<_>>(),
                s.split_inclusive(['\n', ' ']).collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_matches(',').collect::<Vec<_>>(),
                s.matches(',').collect::<Vec<_>>()
            );
            let multi = |c: char| c.len_utf8() > 1;
            assert_eq!(
                s.par_matches(multi).collect::<Vec<_>>(),
                s.matches(multi).collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_match_indices(multi).collect::<Vec<_>>(),
                s.match_indices(multi).collect::<Vec<_>>()
            );
            // The existing splits still agree with std.
            assert_eq!(
                s.par_split(',').collect::<Vec<_>>(),
                s.split(',').collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_terminator(',').collect::<Vec<_>>(),
                s.split_terminator(',').collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_lines().collect::<Vec<_>>(),
                s.lines().collect::<Vec<_>>()
            );
        }
    });
}

#[test]
fn slice_splits_and_chunk_by() {
    each_len(17, |v| {
        let v: Vec<u64> = v.iter().map(|x| x % 4).collect();
        let sep = |x: &u64| *x == 0;
        assert_eq!(
            v.par_split(sep).collect::<Vec<_>>(),
            v.split(sep).collect::<Vec<_>>()
        );
        assert_eq!(
            v.par_split_inclusive(sep).collect::<Vec<_>>(),
            v.split_inclusive(sep).collect::<Vec<_>>()
        );
        let same = |a: &u64, b: &u64| a <= b;
        assert_eq!(
            v.par_chunk_by(same).collect::<Vec<_>>(),
            v.chunk_by(same).collect::<Vec<_>>()
        );
        // The mutable forms hand out the same pieces.
        let mut w = v.clone();
        w.par_split_mut(sep).for_each(|p| p.reverse());
        let mut want = v.clone();
        want.split_mut(sep).for_each(|p| p.reverse());
        assert_eq!(w, want);
        let mut w = v.clone();
        w.par_split_inclusive_mut(sep).for_each(|p| p.sort());
        let mut want = v.clone();
        want.split_inclusive_mut(sep).for_each(|p| p.sort());
        assert_eq!(w, want);
        let mut w = v.clone();
        let runs = w.par_chunk_by_mut(same).map(|run| {
            run.reverse();
            run.len()
        });
        let lens: Vec<usize> = runs.collect();
        assert_eq!(lens, v.chunk_by(same).map(<[u64]>::len).collect::<Vec<_>>());
        // Runs of one value only (no place to cut) and all separators.
        let ones = vec![1u64; v.len()];
        assert_eq!(
            ones.par_chunk_by(|a, b| a == b).count(),
            ones.chunk_by(|a, b| a == b).count()
        );
        let zeros = vec![0u64; v.len()];
        assert_eq!(zeros.par_split(sep).count(), zeros.split(sep).count());
    });
}

#[test]
fn os_strings_collect_and_extend() {
    pool().install(|| {
        for s in texts() {
            let parts: Vec<OsString> = s.split(',').map(OsString::from).collect();
            let got: OsString = parts.par_iter().map(|p| p.as_os_str()).collect();
            let want: OsString = parts.iter().fold(OsString::new(), |mut a, p| {
                a.push(p);
                a
            });
            assert_eq!(got, want);
            let got: OsString = parts.clone().into_par_iter().collect();
            assert_eq!(got, want);
            let mut ext = OsString::from("x");
            ext.par_extend(
                parts
                    .par_iter()
                    .map(|p| std::borrow::Cow::Borrowed(p.as_os_str())),
            );
            assert_eq!(ext.len(), want.len() + 1);
            assert_eq!(OsStr::new("x").len() + want.len(), ext.len());
        }
    });
}

#[test]
fn min_and_max_break_ties_as_std() {
    each_len(18, |v| {
        // Many equal keys: which of the equal items wins is observable.
        let keyed: Vec<(u64, usize)> = v.iter().enumerate().map(|(i, &x)| (x % 3, i)).collect();
        assert_eq!(
            keyed.par_iter().max_by_key(|p| p.0),
            keyed.iter().max_by_key(|p| p.0)
        );
        assert_eq!(
            keyed.par_iter().min_by_key(|p| p.0),
            keyed.iter().min_by_key(|p| p.0)
        );
        assert_eq!(
            keyed.par_iter().max_by(|a, b| a.0.cmp(&b.0)),
            keyed.iter().max_by(|a, b| a.0.cmp(&b.0))
        );
        assert_eq!(
            keyed.par_iter().min_by(|a, b| a.0.cmp(&b.0)),
            keyed.iter().min_by(|a, b| a.0.cmp(&b.0))
        );
    });
}

#[test]
#[allow(deprecated)]
fn deprecated_find_and_position_still_work() {
    pool().install(|| {
        assert_eq!((0..100).into_par_iter().find(|&x| x == 42), Some(42));
        assert_eq!((0..100).into_par_iter().position(|x| x == 42), Some(42));
    });
}

#[test]
fn sum_and_product_for_std_types() {
    use std::num::Wrapping;
    use std::time::Duration;
    each_len(19, |v| {
        let small: Vec<u32> = v.iter().map(|&x| (x % 3 + 1) as u32).collect();
        assert_eq!(
            small
                .par_iter()
                .map(|&x| Wrapping(x))
                .product::<Wrapping<u32>>(),
            small.iter().map(|&x| Wrapping(x)).product()
        );
        assert_eq!(
            small.par_iter().map(|&x| Some(x)).sum::<Option<u32>>(),
            Some(small.iter().sum::<u32>())
        );
        let with_none = small
            .par_iter()
            .enumerate()
            .map(|(i, &x)| (i != 1).then_some(x))
            .sum::<Option<u32>>();
        assert_eq!(with_none.is_none(), small.len() > 1);
        let r: Result<u64, String> = small
            .par_iter()
            .map(|&x| Ok::<u64, String>(u64::from(x)))
            .sum();
        assert_eq!(r, Ok(small.iter().map(|&x| u64::from(x)).sum::<u64>()));
        let r: Result<u64, usize> = small
            .par_iter()
            .enumerate()
            .map(|(i, &x)| if i == 2 { Err(i) } else { Ok(u64::from(x)) })
            .sum();
        assert_eq!(r.is_err(), small.len() > 2);
        let d: Duration = small
            .par_iter()
            .map(|&x| Duration::from_millis(u64::from(x)))
            .sum();
        assert_eq!(
            d,
            small
                .iter()
                .map(|&x| Duration::from_millis(u64::from(x)))
                .sum()
        );
        let d: Duration = small
            .iter()
            .map(|&x| Duration::from_millis(u64::from(x)))
            .collect::<Vec<_>>()
            .par_iter()
            .sum();
        assert_eq!(
            d.as_millis(),
            small.iter().map(|&x| u128::from(x)).sum::<u128>()
        );
        assert_eq!(
            v.par_iter().map(|&x| i128::from(x)).sum::<i128>(),
            v.iter().map(|&x| i128::from(x)).sum()
        );
        // Halves: exact in f32 whatever the grouping.
        assert_eq!(
            small.par_iter().map(|&x| x as f32 * 0.5).sum::<f32>(),
            small.iter().map(|&x| x as f32 * 0.5).sum::<f32>()
        );
    });
}
