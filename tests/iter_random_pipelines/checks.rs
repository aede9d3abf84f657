//! The consumers each case is checked with, against the case's expected
//! items.

use std::collections::{BTreeMap, BinaryHeap, LinkedList, VecDeque};

use locus::prelude::*;

use super::M;
use super::case::{Case, Tail};

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
pub fn check_consumers(case: &Case, want: &[u64]) {
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
pub fn check_indexed(case: &Case, want: &[u64]) {
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
