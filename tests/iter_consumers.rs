//! Every consumer against the sequential `std` iterator (lengths 0, 1, 2,
//! primes, 10^6 for cheap ones), on a 4-worker pool.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};

use locus::iter::Either;
use locus::prelude::*;

mod common;
mod iter_util;

use iter_util::{each_len, pool};

#[test]
fn for_each_variants() {
    each_len(11, |v| {
        let sum = AtomicUsize::new(0);
        v.par_iter().for_each(|&x| {
            sum.fetch_add(x as usize, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed) as u64, v.iter().sum::<u64>());
        let (tx, rx) = std::sync::mpsc::channel();
        v.par_iter().for_each_with(tx, |tx, &x| tx.send(x).unwrap());
        let mut got: Vec<u64> = rx.iter().collect();
        got.sort();
        let mut want = v.clone();
        want.sort();
        assert_eq!(got, want);
        let inits = AtomicUsize::new(0);
        v.par_iter()
            .for_each_init(|| inits.fetch_add(1, Ordering::Relaxed), |_, _| {});
        assert!(inits.load(Ordering::Relaxed) <= v.len().max(1) * 2);
        let r: Result<(), u64> = v
            .par_iter()
            .try_for_each(|&x| if x == 777 { Err(x) } else { Ok(()) });
        assert_eq!(r.is_err(), v.contains(&777));
        let r: Option<()> = v
            .par_iter()
            .try_for_each_with(1u64, |one, &x| (x + *one > 0).then_some(()));
        assert_eq!(r, Some(()));
        let r: Option<()> = v
            .par_iter()
            .try_for_each_init(|| (), |_, &x| (x < 990).then_some(()));
        assert_eq!(r.is_some(), v.iter().all(|&x| x < 990));
    });
}

#[test]
fn sums_products_reductions() {
    each_len(11, |v| {
        assert_eq!(v.par_iter().sum::<u64>(), v.iter().sum::<u64>());
        assert_eq!(v.par_iter().count(), v.len());
        let small: Vec<u64> = v.iter().map(|x| x % 3 + 1).take(30).collect();
        assert_eq!(
            small.par_iter().product::<u64>(),
            small.iter().product::<u64>()
        );
        assert_eq!(
            v.par_iter().map(|&x| x as f64).sum::<f64>(),
            v.iter().map(|&x| x as f64).sum::<f64>()
        );
        assert_eq!(
            v.par_iter().copied().reduce(|| 0, |a, b| a.max(b)),
            v.iter().copied().max().unwrap_or(0)
        );
        assert_eq!(
            v.par_iter().copied().reduce_with(|a, b| a + b),
            v.iter().copied().reduce(|a, b| a + b)
        );
        // reduce keeps operand order: string concatenation is not commutative.
        let s: String = v
            .par_iter()
            .map(|x| x.to_string())
            .reduce(String::new, |a, b| a + &b);
        assert_eq!(s, v.iter().map(|x| x.to_string()).collect::<String>());
        let r = v
            .par_iter()
            .map(|&x| Some(x))
            .try_reduce_with(|a, b| a.checked_add(b));
        assert_eq!(r, v.iter().copied().reduce(|a, b| a + b).map(Some));
        let r = v
            .par_iter()
            .map(|&x| if x < 995 { Ok(x) } else { Err(x) })
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(r.is_ok(), v.iter().all(|&x| x < 995));
    });
}

#[test]
fn min_max_and_keys_pick_like_std() {
    each_len(11, |v| {
        // Pairs with equal keys: which one std picks is observable.
        let pairs: Vec<(u64, usize)> = v.iter().enumerate().map(|(i, &x)| (x % 10, i)).collect();
        assert_eq!(
            pairs.par_iter().min_by_key(|p| p.0),
            pairs.iter().min_by_key(|p| p.0)
        );
        assert_eq!(
            pairs.par_iter().max_by_key(|p| p.0),
            pairs.iter().max_by_key(|p| p.0)
        );
        assert_eq!(
            pairs.par_iter().min_by(|a, b| a.0.cmp(&b.0)),
            pairs.iter().min_by(|a, b| a.0.cmp(&b.0))
        );
        assert_eq!(
            pairs.par_iter().max_by(|a, b| a.0.cmp(&b.0)),
            pairs.iter().max_by(|a, b| a.0.cmp(&b.0))
        );
        assert_eq!(v.par_iter().min(), v.iter().min());
        assert_eq!(v.par_iter().max(), v.iter().max());
    });
}

#[test]
fn searches() {
    each_len(11, |v| {
        let pred = |x: &&u64| **x % 97 == 3;
        assert_eq!(v.par_iter().find_first(pred), v.iter().find(pred));
        assert_eq!(v.par_iter().find_last(pred), v.iter().rev().find(pred));
        assert_eq!(
            v.par_iter().filter(|x| **x > 10).find_first(pred),
            v.iter().filter(|x| **x > 10).find(pred)
        );
        assert_eq!(
            v.par_iter().filter(|x| **x > 10).find_last(pred),
            v.iter().filter(|x| **x > 10).rev().find(pred)
        );
        if let Some(x) = v.par_iter().find_any(pred) {
            assert!(pred(&x));
        } else {
            assert!(!v.iter().any(|x| pred(&x)));
        }
        let fm = |x: &u64| (x % 89 == 1).then(|| x * 2);
        assert_eq!(v.par_iter().find_map_first(fm), v.iter().find_map(fm));
        assert_eq!(v.par_iter().find_map_last(fm), v.iter().rev().find_map(fm));
        assert_eq!(
            v.par_iter().find_map_any(fm).is_some(),
            v.iter().find_map(fm).is_some()
        );
        assert_eq!(v.par_iter().any(|&x| x == 5), v.contains(&5));
        assert_eq!(v.par_iter().all(|&x| x < 999), v.iter().all(|&x| x < 999));
        let p = |x: &u64| x % 53 == 0;
        assert_eq!(v.par_iter().position_first(p), v.iter().position(p));
        assert_eq!(v.par_iter().position_last(p), v.iter().rposition(p));
        if let Some(i) = v.par_iter().position_any(p) {
            assert!(p(&v[i]));
        }
    });
}

#[test]
fn comparisons() {
    each_len(11, |v| {
        let mut w = v.clone();
        assert!(v.par_iter().eq(&w));
        assert_eq!(v.par_iter().cmp(&w), std::cmp::Ordering::Equal);
        if let Some(last) = w.last_mut() {
            *last += 1;
            assert!(v.par_iter().lt(&w));
            assert!(v.par_iter().ne(&w));
            assert_eq!(v.par_iter().cmp(&w), v.iter().cmp(&w));
            assert_eq!(v.par_iter().partial_cmp(&w), v.iter().partial_cmp(&w));
        }
        w.push(0);
        assert_eq!(v.par_iter().cmp(&w), std::cmp::Ordering::Less);
        assert!(w.par_iter().gt(&v) && w.par_iter().ge(&v) && v.par_iter().le(&w));
    });
}

#[test]
fn collect_into_every_collection() {
    each_len(11, |v| {
        let s: Vec<u64> = v.par_iter().copied().collect();
        assert_eq!(s, v);
        let s: Vec<u64> = v.par_iter().copied().filter(|x| x % 2 == 0).collect();
        assert_eq!(
            s,
            v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>()
        );
        let d: VecDeque<u64> = v.par_iter().copied().collect();
        assert_eq!(d, v.iter().copied().collect::<VecDeque<_>>());
        let l: LinkedList<u64> = v.par_iter().copied().collect();
        assert_eq!(l, v.iter().copied().collect::<LinkedList<_>>());
        let h: HashSet<u64> = v.par_iter().copied().collect();
        assert_eq!(h, v.iter().copied().collect::<HashSet<_>>());
        let b: BTreeSet<u64> = v.par_iter().copied().collect();
        assert_eq!(b, v.iter().copied().collect::<BTreeSet<_>>());
        let m: HashMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
        assert_eq!(
            m,
            v.iter()
                .enumerate()
                .map(|(i, &x)| (x, i))
                .collect::<HashMap<_, _>>()
        );
        let m: BTreeMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
        assert_eq!(
            m,
            v.iter()
                .enumerate()
                .map(|(i, &x)| (x, i))
                .collect::<BTreeMap<_, _>>()
        );
        let s: String = v
            .par_iter()
            .map(|&x| char::from(b'a' + (x % 26) as u8))
            .collect();
        assert_eq!(
            s,
            v.iter()
                .map(|&x| char::from(b'a' + (x % 26) as u8))
                .collect::<String>()
        );
        let strs: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        let s: String = strs.par_iter().map(String::as_str).collect();
        assert_eq!(s, strs.concat());
        let s: String = strs.clone().into_par_iter().collect();
        assert_eq!(s, strs.concat());
        let b: Box<[u64]> = v.par_iter().copied().collect();
        assert_eq!(&*b, &v[..]);
        let c: std::borrow::Cow<'_, [u64]> = v.par_iter().copied().collect();
        assert_eq!(&*c, &v[..]);
        let r: Result<Vec<u64>, u64> = v.par_iter().map(|&x| Ok(x)).collect();
        assert_eq!(r, Ok(v.clone()));
        let r: Result<Vec<u64>, u64> = v
            .par_iter()
            .map(|&x| if x == 500 { Err(x) } else { Ok(x) })
            .collect();
        assert_eq!(r.is_err(), v.contains(&500));
        let o: Option<Vec<u64>> = v.par_iter().map(|&x| (x != 501).then_some(x)).collect();
        assert_eq!(o.is_none(), v.contains(&501));
        let () = v.par_iter().map(|_| ()).collect();
        let mut out = vec![1, 2, 3];
        v.par_iter().copied().collect_into_vec(&mut out);
        assert_eq!(out, v);
        let mut ext = vec![42u64];
        ext.par_extend(v.par_iter());
        assert_eq!(ext[1..], v[..]);
        let mut ext = vec![42u64];
        ext.par_extend(v.par_iter().copied().filter(|x| x % 3 == 0));
        assert_eq!(
            ext[1..],
            v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>()[..]
        );
        let list = v.par_iter().copied().collect_vec_list();
        assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), v);
    });
}

#[test]
fn unzip_partition() {
    each_len(11, |v| {
        let (a, b): (Vec<u64>, Vec<usize>) = v.par_iter().enumerate().map(|(i, &x)| (x, i)).unzip();
        assert_eq!(a, v);
        assert_eq!(b, (0..v.len()).collect::<Vec<_>>());
        let (a, b): (Vec<u64>, HashSet<u64>) = v
            .par_iter()
            .filter(|x| **x > 3)
            .map(|&x| (x, x % 5))
            .unzip();
        assert_eq!(a, v.iter().copied().filter(|x| *x > 3).collect::<Vec<_>>());
        assert_eq!(
            b,
            v.iter()
                .filter(|x| **x > 3)
                .map(|x| x % 5)
                .collect::<HashSet<_>>()
        );
        let (mut l, mut r) = (vec![9u64], Vec::new());
        v.par_iter()
            .map(|&x| (x, x + 1))
            .unzip_into_vecs(&mut l, &mut r);
        assert_eq!(l, v);
        assert_eq!(r, v.iter().map(|x| x + 1).collect::<Vec<_>>());
        let (even, odd): (Vec<u64>, Vec<u64>) = v.par_iter().partition(|&&x| x % 2 == 0);
        let (we, wo): (Vec<u64>, Vec<u64>) = v.iter().partition(|&&x| x % 2 == 0);
        assert_eq!((even, odd), (we, wo));
        let (small, big): (Vec<u64>, Vec<String>) = v.par_iter().partition_map(|&x| {
            if x < 500 {
                Either::Left(x)
            } else {
                Either::Right(x.to_string())
            }
        });
        assert_eq!(
            small,
            v.iter().copied().filter(|x| *x < 500).collect::<Vec<_>>()
        );
        assert_eq!(
            big,
            v.iter()
                .filter(|x| **x >= 500)
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
        );
        let (a, b): (Vec<u64>, Vec<u64>) = v.par_iter().map(|&x| (x, x)).collect();
        assert_eq!((a.len(), b.len()), (v.len(), v.len()));
        let (l, r): (Vec<u64>, Vec<u64>) = v
            .par_iter()
            .map(|&x| {
                if x % 2 == 0 {
                    Either::Left(x)
                } else {
                    Either::Right(x)
                }
            })
            .collect();
        assert_eq!(l.len() + r.len(), v.len());
    });
}

#[test]
fn million_items_cheap_consumers() {
    pool().install(|| {
        let n = 1_000_000u64;
        assert_eq!((0..n).into_par_iter().sum::<u64>(), n * (n - 1) / 2);
        assert_eq!(
            (0..n).into_par_iter().filter(|x| x % 7 == 0).count(),
            142_858
        );
        assert_eq!(
            (0..n).into_par_iter().find_first(|&x| x * x > n),
            Some(1001)
        );
        assert_eq!(
            (0..n).into_par_iter().max_by_key(|x| x % 1000),
            Some(999_999)
        );
        let v: Vec<u64> = (0..n).into_par_iter().collect();
        assert_eq!(v.len(), n as usize);
        assert!(v.iter().enumerate().all(|(i, &x)| i as u64 == x));
    });
}
