//! Every adapter against the sequential `std` iterator, on pseudo-random
//! inputs of lengths 0, 1, 2, primes, and (for a few cheap ones) 10^6,
//! run on a 4-worker pool so pieces really split and get stolen.

use locus::prelude::*;

mod common;
mod iter_util;

use iter_util::{data, each_len, pool};

#[test]
fn map_filter_filter_map() {
    each_len(1, |v| {
        let got: Vec<u64> = v.par_iter().map(|x| x * 3 + 1).collect();
        assert_eq!(got, v.iter().map(|x| x * 3 + 1).collect::<Vec<_>>());
        let got: Vec<&u64> = v.par_iter().filter(|&&x| x % 3 == 0).collect();
        assert_eq!(got, v.iter().filter(|&&x| x % 3 == 0).collect::<Vec<_>>());
        let got: Vec<u64> = v
            .par_iter()
            .filter_map(|&x| (x % 2 == 1).then_some(x / 2))
            .collect();
        assert_eq!(
            got,
            v.iter()
                .filter_map(|&x| (x % 2 == 1).then_some(x / 2))
                .collect::<Vec<_>>()
        );
    });
}

#[test]
fn map_with_and_map_init() {
    each_len(1, |v| {
        let got: Vec<u64> = v.par_iter().map_with(5u64, |k, &x| x + *k).collect();
        assert_eq!(got, v.iter().map(|x| x + 5).collect::<Vec<_>>());
        let got: Vec<u64> = v
            .par_iter()
            .map_init(|| 7u64, |k, &x| x * *k)
            .rev()
            .collect();
        assert_eq!(got, v.iter().rev().map(|x| x * 7).collect::<Vec<_>>());
        // Indexed: map_with keeps the iterator indexed (zip, enumerate).
        let got: Vec<(usize, u64)> = v.par_iter().map_with((), |_, &x| x).enumerate().collect();
        assert_eq!(got, v.iter().copied().enumerate().collect::<Vec<_>>());
    });
}

#[test]
fn flat_map_flatten() {
    each_len(1, |v| {
        let got: Vec<u64> = v
            .par_iter()
            .flat_map(|&x| (0..x % 5).into_par_iter())
            .collect();
        let want: Vec<u64> = v.iter().flat_map(|&x| 0..x % 5).collect();
        assert_eq!(got, want);
        let got: Vec<u64> = v.par_iter().flat_map_iter(|&x| 0..x % 5).collect();
        assert_eq!(got, want);
        let nested: Vec<Vec<u64>> = v.iter().map(|&x| (0..x % 4).collect()).collect();
        let got: Vec<u64> = nested.clone().into_par_iter().flatten().collect();
        assert_eq!(got, nested.iter().flatten().copied().collect::<Vec<_>>());
        let got: Vec<u64> = nested.clone().into_par_iter().flatten_iter().collect();
        assert_eq!(got, nested.into_iter().flatten().collect::<Vec<_>>());
    });
}

#[test]
fn enumerate_zip_chain_rev() {
    each_len(1, |v| {
        let w = data(v.len() / 2 + 1, 99);
        let got: Vec<(usize, &u64)> = v.par_iter().enumerate().collect();
        assert_eq!(got, v.iter().enumerate().collect::<Vec<_>>());
        let got: Vec<(&u64, &u64)> = v.par_iter().zip(&w).collect();
        assert_eq!(got, v.iter().zip(&w).collect::<Vec<_>>());
        let got: Vec<(&u64, &u64)> = v.par_iter().zip(&w).rev().collect();
        let mut want: Vec<_> = v.iter().zip(&w).collect();
        want.reverse();
        assert_eq!(got, want);
        let got: Vec<u64> = v
            .par_iter()
            .zip_eq(v.par_iter())
            .map(|(a, b)| a + b)
            .collect();
        assert_eq!(got, v.iter().map(|a| 2 * a).collect::<Vec<_>>());
        let got: Vec<&u64> = v.par_iter().chain(&w).collect();
        assert_eq!(got, v.iter().chain(&w).collect::<Vec<_>>());
        let got: Vec<&u64> = v.par_iter().chain(&w).rev().collect();
        assert_eq!(got, v.iter().chain(&w).rev().collect::<Vec<_>>());
        // Unindexed chain.
        let got: Vec<&u64> = v
            .par_iter()
            .filter(|x| *x % 2 == 0)
            .chain(w.par_iter().filter(|x| *x % 2 == 1))
            .collect();
        let want: Vec<&u64> = v
            .iter()
            .filter(|x| *x % 2 == 0)
            .chain(w.iter().filter(|x| *x % 2 == 1))
            .collect();
        assert_eq!(got, want);
    });
}

#[test]
#[should_panic(expected = "different lengths")]
fn zip_eq_panics_on_unequal_lengths() {
    let _ = (0..3).into_par_iter().zip_eq(0..4);
}

#[test]
fn copied_cloned_inspect_update() {
    each_len(1, |v| {
        let got: Vec<u64> = v.par_iter().copied().collect();
        assert_eq!(got, v);
        let strings: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        let got: Vec<String> = strings.par_iter().cloned().collect();
        assert_eq!(got, strings);
        let seen = std::sync::atomic::AtomicU64::new(0);
        let got: Vec<u64> = v
            .par_iter()
            .inspect(|&&x| {
                seen.fetch_add(x, std::sync::atomic::Ordering::Relaxed);
            })
            .copied()
            .collect();
        assert_eq!(got, v);
        assert_eq!(seen.into_inner(), v.iter().sum::<u64>());
        let got: Vec<u64> = v.par_iter().copied().update(|x| *x += 1).collect();
        assert_eq!(got, v.iter().map(|x| x + 1).collect::<Vec<_>>());
    });
}

#[test]
fn skip_take_step_by_chunks() {
    each_len(1, |v| {
        for n in [0, 1, 2, v.len() / 3, v.len(), v.len() + 5] {
            let got: Vec<&u64> = v.par_iter().skip(n).collect();
            assert_eq!(got, v.iter().skip(n).collect::<Vec<_>>());
            let got: Vec<&u64> = v.par_iter().take(n).collect();
            assert_eq!(got, v.iter().take(n).collect::<Vec<_>>());
        }
        for step in [1, 2, 3, 7] {
            let got: Vec<&u64> = v.par_iter().step_by(step).collect();
            assert_eq!(got, v.iter().step_by(step).collect::<Vec<_>>());
            let got: Vec<&u64> = v.par_iter().step_by(step).rev().collect();
            assert_eq!(got, v.iter().step_by(step).rev().collect::<Vec<_>>());
            assert_eq!(
                v.par_iter().step_by(step).len(),
                v.iter().step_by(step).len()
            );
        }
        for size in [1, 2, 5, 64] {
            let got: Vec<Vec<u64>> = v.par_iter().copied().chunks(size).collect();
            let want: Vec<Vec<u64>> = v.chunks(size).map(<[u64]>::to_vec).collect();
            assert_eq!(got, want);
            let got: Vec<Vec<u64>> = v.par_iter().copied().chunks(size).rev().collect();
            assert_eq!(got, want.into_iter().rev().collect::<Vec<_>>());
        }
    });
}

#[test]
fn fold_and_try_fold() {
    each_len(1, |v| {
        let total: u64 = v.par_iter().fold(|| 0u64, |a, &x| a + x).sum();
        assert_eq!(total, v.iter().sum());
        let total: u64 = v
            .par_iter()
            .fold_with(0u64, |a, &x| a + x)
            .reduce(|| 0, |a, b| a + b);
        assert_eq!(total, v.iter().sum());
        // Fold keeps order inside pieces and the pieces in order.
        let concat: Vec<u64> = v
            .par_iter()
            .fold(Vec::new, |mut acc, &x| {
                acc.push(x);
                acc
            })
            .flatten_iter()
            .collect();
        assert_eq!(concat, v);
        let r: Option<u64> = v
            .par_iter()
            .try_fold(|| 0u64, |a, &x| a.checked_add(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        assert_eq!(r, Some(v.iter().sum()));
        let r: Result<u64, u64> = v
            .par_iter()
            .try_fold_with(0u64, |a, &x| if x == 999 { Err(x) } else { Ok(a + x) })
            .try_reduce(|| 0, |a, b| Ok(a + b));
        match r {
            Ok(s) => assert!(!v.contains(&999) && s == v.iter().sum::<u64>()),
            Err(e) => assert!(e == 999 && v.contains(&999)),
        }
    });
}

#[test]
fn min_max_len_bounds() {
    each_len(1, |v| {
        let pieces = v
            .par_iter()
            .with_min_len(100)
            .fold(|| 0usize, |n, _| n + 1)
            .collect::<Vec<_>>();
        assert!(pieces.iter().all(|&n| n >= 100.min(v.len())), "{pieces:?}");
        assert_eq!(pieces.iter().sum::<usize>(), v.len());
        let pieces = v
            .par_iter()
            .with_max_len(10)
            .fold(|| 0usize, |n, _| n + 1)
            .collect::<Vec<_>>();
        assert!(pieces.iter().all(|&n| n <= 10), "{pieces:?}");
        assert_eq!(pieces.iter().sum::<usize>(), v.len());
    });
}

#[test]
fn positions_interleave_intersperse() {
    each_len(1, |v| {
        let got: Vec<usize> = v.par_iter().positions(|&x| x % 7 == 0).collect();
        let want: Vec<usize> = v
            .iter()
            .enumerate()
            .filter(|(_, x)| *x % 7 == 0)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(got, want);
        let w = data(v.len() / 3 + 2, 5);
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .interleave(w.par_iter().copied())
            .collect();
        let mut want = Vec::new();
        let (mut a, mut b) = (v.iter(), w.iter());
        loop {
            match (a.next(), b.next()) {
                (None, None) => break,
                (x, y) => want.extend(x.into_iter().chain(y).copied()),
            }
        }
        assert_eq!(got, want);
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .interleave(w.par_iter().copied())
            .rev()
            .collect();
        assert_eq!(got, want.iter().rev().copied().collect::<Vec<_>>());
        let got: Vec<u64> = v
            .par_iter()
            .copied()
            .interleave_shortest(w.par_iter().copied())
            .collect();
        let short = want
            .len()
            .min(2 * v.len().min(w.len()) + usize::from(v.len() > w.len()));
        assert_eq!(got, want[..short]);
        let got: Vec<u64> = v.par_iter().copied().intersperse(5000).collect();
        let mut want = Vec::new();
        for (i, &x) in v.iter().enumerate() {
            if i > 0 {
                want.push(5000);
            }
            want.push(x);
        }
        assert_eq!(got, want);
        let got: Vec<u64> = v.par_iter().copied().intersperse(5000).rev().collect();
        assert_eq!(got, want.iter().rev().copied().collect::<Vec<_>>());
    });
}

#[test]
fn while_some_panic_fuse_skip_take_any() {
    each_len(1, |v| {
        let got: Vec<u64> = v.par_iter().map(|&x| Some(x)).while_some().collect();
        assert_eq!(got, v);
        let got: Vec<u64> = v
            .par_iter()
            .map(|&x| (x != 500).then_some(x))
            .while_some()
            .collect();
        if v.contains(&500) {
            // As in rayon, which items are kept is racy: a piece to the
            // right of the `None` may have yielded items before the stop
            // was seen. What holds: the `None` item is never yielded, no
            // item is invented, and `collect` keeps the input order.
            assert!(!got.contains(&500));
            let mut rest = v.iter();
            assert!(
                got.iter().all(|x| rest.any(|y| y == x)),
                "not an ordered subsequence of the input"
            );
        } else {
            assert_eq!(got, v);
        }
        let got: Vec<u64> = v.par_iter().copied().panic_fuse().collect();
        assert_eq!(got, v);
        for n in [0, 1, v.len() / 2, v.len() + 1] {
            let mut got: Vec<u64> = v.par_iter().copied().take_any(n).collect();
            assert_eq!(got.len(), n.min(v.len()));
            let mut rest: Vec<u64> = v.par_iter().copied().skip_any(n).collect();
            assert_eq!(rest.len(), v.len().saturating_sub(n));
            got.append(&mut rest);
            got.sort();
            let mut all = v.clone();
            all.sort();
            assert!(got.iter().all(|x| all.binary_search(x).is_ok()));
        }
    });
}

#[test]
fn million_items_cheap_adapters() {
    pool().install(|| {
        let n = 1_000_000u64;
        let v: Vec<u64> = (0..n).into_par_iter().map(|x| x ^ 0x55).collect();
        assert!(v.iter().enumerate().all(|(i, &x)| x == (i as u64) ^ 0x55));
        let evens = v.par_iter().filter(|&&x| x % 2 == 0).count();
        assert_eq!(evens, v.iter().filter(|&&x| x % 2 == 0).count());
        let dot: u64 = v
            .par_iter()
            .zip(&v)
            .map(|(a, b)| a.wrapping_mul(*b))
            .reduce(|| 0, u64::wrapping_add);
        assert_eq!(
            dot,
            v.iter()
                .fold(0u64, |acc, a| acc.wrapping_add(a.wrapping_mul(*a)))
        );
        let r: Vec<u64> = v.par_iter().rev().skip(10).step_by(3).copied().collect();
        assert_eq!(
            r,
            v.iter()
                .rev()
                .skip(10)
                .step_by(3)
                .copied()
                .collect::<Vec<_>>()
        );
    });
}
