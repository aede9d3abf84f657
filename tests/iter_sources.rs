//! Sources: integer ranges near their limits, slices and their chunked
//! views, vectors by value and drained, arrays, options, results,
//! collections, strings, `par_bridge`, `repeat`/`once`/`empty`.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

use locus::prelude::*;

#[path = "../benches/common/work_list.rs"]
mod work_list;
use work_list::WorkList;

mod common;

/// The 4-worker pool of the `iter_*` tests.
fn pool() -> locus::ThreadPool {
    common::work::pool(4)
}

#[test]
fn ranges_of_every_width_near_their_limits() {
    pool().install(|| {
        assert_eq!((u8::MIN..u8::MAX).into_par_iter().count(), 255);
        assert_eq!(
            (i8::MIN..i8::MAX)
                .into_par_iter()
                .map(i32::from)
                .sum::<i32>(),
            (-128..127).sum::<i32>()
        );
        assert_eq!((i16::MIN..=i16::MAX).into_par_iter().len(), 65536);
        assert_eq!(
            (u8::MIN..=u8::MAX)
                .into_par_iter()
                .rev()
                .collect::<Vec<_>>(),
            (0..=255u8).rev().collect::<Vec<_>>()
        );
        assert_eq!(
            (i32::MAX - 3..i32::MAX).into_par_iter().collect::<Vec<_>>(),
            (i32::MAX - 3..i32::MAX).collect::<Vec<_>>()
        );
        assert_eq!(
            (i32::MIN..=i32::MIN + 2)
                .into_par_iter()
                .collect::<Vec<_>>(),
            [i32::MIN, i32::MIN + 1, i32::MIN + 2]
        );
        assert_eq!(
            (u64::MAX - 5..=u64::MAX)
                .into_par_iter()
                .collect::<Vec<_>>(),
            (u64::MAX - 5..=u64::MAX).collect::<Vec<_>>()
        );
        assert_eq!(
            (i64::MIN..i64::MIN + 1000).into_par_iter().opt_len(),
            Some(1000)
        );
        assert_eq!(
            (i64::MIN..i64::MIN + 1000).into_par_iter().min(),
            Some(i64::MIN)
        );
        // u64/i64 ranges longer than usize are fine as long as they stop early.
        assert_eq!((0..u64::MAX).into_par_iter().opt_len(), Some(usize::MAX));
        assert_eq!(
            (i64::MIN..i64::MAX).into_par_iter().opt_len(),
            Some(usize::MAX)
        );
        assert_eq!((i128::MIN..i128::MAX).into_par_iter().opt_len(), None);
        assert_eq!(
            (i128::MIN..i128::MAX)
                .into_par_iter()
                .find_first(|&x| x > i128::MIN + 5),
            Some(i128::MIN + 6)
        );
        assert_eq!(
            (u128::MAX - 5000..u128::MAX)
                .into_par_iter()
                .find_last(|&x| x < u128::MAX - 3),
            Some(u128::MAX - 4)
        );
        assert!((0..u128::MAX).into_par_iter().any(|x| x == 12_345));
        assert_eq!((i128::MAX - 100..=i128::MAX).into_par_iter().count(), 101);
        let v: Vec<u128> = (u128::MAX - 9..=u128::MAX).into_par_iter().collect();
        assert_eq!(v, (u128::MAX - 9..=u128::MAX).collect::<Vec<_>>());
        // Empty and reversed ranges.
        assert_eq!((5..5u64).into_par_iter().count(), 0);
        let (lo, hi) = (std::hint::black_box(7i128), std::hint::black_box(3i128));
        assert_eq!((lo..hi).into_par_iter().count(), 0);
        let (lo, hi) = (std::hint::black_box(10u8), std::hint::black_box(9u8));
        assert_eq!((lo..=hi).into_par_iter().len(), 0);
        // A wide unindexed range splits and keeps order when collected.
        let v: Vec<i64> = (-1_000_000..1_000_000i64).into_par_iter().collect();
        assert!(v.windows(2).all(|w| w[1] == w[0] + 1) && v.len() == 2_000_000);
    });
}

#[test]
fn slices_and_chunk_views() {
    pool().install(|| {
        for n in [0usize, 1, 2, 7, 31, 1009] {
            let v: Vec<usize> = (0..n).collect();
            for size in [1usize, 2, 3, 8, 64] {
                let got: Vec<&[usize]> = v.par_chunks(size).collect();
                assert_eq!(got, v.chunks(size).collect::<Vec<_>>());
                let got: Vec<&[usize]> = v.par_rchunks(size).collect();
                assert_eq!(got, v.rchunks(size).collect::<Vec<_>>());
                let it = v.par_chunks_exact(size);
                assert_eq!(it.remainder(), v.chunks_exact(size).remainder());
                assert_eq!(
                    it.collect::<Vec<_>>(),
                    v.chunks_exact(size).collect::<Vec<_>>()
                );
                let it = v.par_rchunks_exact(size);
                assert_eq!(it.remainder(), v.rchunks_exact(size).remainder());
                assert_eq!(
                    it.rev().collect::<Vec<_>>(),
                    v.rchunks_exact(size).rev().collect::<Vec<_>>()
                );
                let got: Vec<&[usize]> = v.par_windows(size).collect();
                assert_eq!(got, v.windows(size).collect::<Vec<_>>());
                let mut w = v.clone();
                w.par_chunks_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c.iter_mut().for_each(|x| *x = i));
                let mut want = v.clone();
                want.chunks_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c.iter_mut().for_each(|x| *x = i));
                assert_eq!(w, want);
                let mut w = v.clone();
                w.par_rchunks_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c[0] = i + 1000);
                let mut want = v.clone();
                want.rchunks_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c[0] = i + 1000);
                assert_eq!(w, want);
                let mut w = v.clone();
                let mut it = w.par_chunks_exact_mut(size);
                let rem = it.take_remainder().len();
                it.for_each(|c| c[0] = 7);
                assert_eq!(rem, n % size);
                let mut w = v.clone();
                w.par_rchunks_exact_mut(size)
                    .for_each(|c| c[c.len() - 1] = 9);
                let mut want = v.clone();
                want.rchunks_exact_mut(size)
                    .for_each(|c| c[c.len() - 1] = 9);
                assert_eq!(w, want);
            }
            let mut w = v.clone();
            w.par_iter_mut().for_each(|x| *x *= 2);
            assert_eq!(w, v.iter().map(|x| x * 2).collect::<Vec<_>>());
        }
    });
}

#[test]
fn vectors_arrays_options_results() {
    pool().install(|| {
        for n in [0usize, 1, 2, 13, 1009] {
            let v: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            assert_eq!(v.clone().into_par_iter().collect::<Vec<_>>(), v);
            assert_eq!(
                v.clone().into_par_iter().rev().collect::<Vec<_>>(),
                v.iter().rev().cloned().collect::<Vec<_>>()
            );
            for (a, b) in [(0, 0), (0, n), (n / 3, n / 2), (n, n)] {
                let mut w = v.clone();
                let drained: Vec<String> = w.par_drain(a..b).collect();
                let mut want = v.clone();
                let want_drained: Vec<String> = want.drain(a..b).collect();
                assert_eq!((drained, w), (want_drained, want));
                // A drain that is never run still removes its range.
                let mut w = v.clone();
                drop(w.par_drain(a..b));
                assert_eq!(w.len(), n - (b - a));
                // A drain whose consumer takes only part of it.
                let mut w = v.clone();
                let first: Vec<String> = w.par_drain(a..b).take(1).collect();
                assert_eq!(first.len(), usize::from(b > a));
                assert_eq!(w.len(), n - (b - a));
            }
        }
        let arr = [String::from("x"), String::from("y"), String::from("z")];
        assert_eq!(arr.par_iter().cloned().collect::<String>(), "xyz");
        assert_eq!(arr.into_par_iter().skip(1).collect::<String>(), "yz");
        let mut arr = [1, 2, 3];
        arr.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(arr, [2, 3, 4]);
        assert_eq!(Some(4).into_par_iter().collect::<Vec<_>>(), [4]);
        let mut o = Some(1);
        o.par_iter_mut().for_each(|x| *x = 5);
        assert_eq!(o.par_iter().copied().sum::<i32>(), 5);
        assert_eq!(None::<u8>.into_par_iter().count(), 0);
        let r: Result<i32, String> = Ok(3);
        assert_eq!(r.par_iter().copied().collect::<Vec<_>>(), [3]);
        let e: Result<i32, String> = Err("no".into());
        assert_eq!(e.into_par_iter().count(), 0);
        assert_eq!(locus::iter::repeat(1u8).take(10).zip(0..5).count(), 5);
        assert_eq!(locus::iter::repeat(3).take_any(7).sum::<i32>(), 21);
        assert_eq!(locus::iter::repeat_n(2u32, 1000).sum::<u32>(), 2000);
        assert_eq!(
            locus::iter::once(9)
                .chain(locus::iter::empty())
                .collect::<Vec<_>>(),
            [9]
        );
    });
}

#[test]
fn collections_by_value_reference_and_drain() {
    pool().install(|| {
        let v: Vec<u32> = (0..1000).collect();
        let deque: VecDeque<u32> = {
            let mut d: VecDeque<u32> = v[500..].iter().copied().collect();
            for &x in v[..500].iter().rev() {
                d.push_front(x); // wraps around: two slices
            }
            d
        };
        assert_eq!(deque.par_iter().copied().collect::<Vec<_>>(), v);
        let mut d2 = deque.clone();
        d2.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(
            d2.iter().copied().collect::<Vec<_>>(),
            v.iter().map(|x| x + 1).collect::<Vec<_>>()
        );
        assert_eq!(deque.clone().into_par_iter().collect::<Vec<_>>(), v);
        let mut d3 = deque.clone();
        assert_eq!(
            d3.par_drain(10..20).collect::<Vec<_>>(),
            (10..20).collect::<Vec<_>>()
        );
        assert_eq!(d3.len(), 990);

        let hs: HashSet<u32> = v.iter().copied().collect();
        assert_eq!(hs.par_iter().copied().sum::<u32>(), v.iter().sum());
        let mut hs2 = hs.clone();
        assert_eq!(hs2.par_drain().count(), 1000);
        assert!(hs2.is_empty());
        assert_eq!(hs.into_par_iter().max(), Some(999));

        let mut hm: HashMap<u32, u32> = v.iter().map(|&x| (x, x)).collect();
        hm.par_iter_mut().for_each(|(_, v)| *v *= 2);
        assert_eq!(
            hm.par_iter().map(|(_, v)| *v).sum::<u32>(),
            2 * v.iter().sum::<u32>()
        );
        assert_eq!(hm.clone().into_par_iter().count(), 1000);
        assert_eq!(hm.par_drain().count(), 1000);

        let bm: BTreeMap<u32, u32> = v.iter().map(|&x| (x, x + 1)).collect();
        assert_eq!(bm.par_iter().map(|(k, _)| *k).collect::<Vec<_>>(), v);
        let mut bm2 = bm.clone();
        bm2.par_iter_mut().for_each(|(_, v)| *v = 0);
        assert!(bm2.values().all(|&v| v == 0));
        assert_eq!(
            bm.into_par_iter().map(|(_, v)| v).collect::<Vec<_>>(),
            (1..=1000).collect::<Vec<_>>()
        );

        let bs: BTreeSet<u32> = v.iter().copied().collect();
        assert_eq!(bs.par_iter().copied().collect::<Vec<_>>(), v);
        assert_eq!(bs.into_par_iter().collect::<Vec<_>>(), v);

        let mut heap: BinaryHeap<u32> = v.iter().copied().collect();
        assert_eq!(heap.par_iter().count(), 1000);
        assert_eq!(heap.clone().into_par_iter().sum::<u32>(), v.iter().sum());
        assert_eq!(heap.par_drain().count(), 1000);

        let mut list: LinkedList<u32> = v.iter().copied().collect();
        list.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(
            list.par_iter().copied().collect::<Vec<_>>(),
            (1..=1000).collect::<Vec<_>>()
        );
        assert_eq!(list.into_par_iter().count(), 1000);
    });
}

#[test]
fn strings() {
    pool().install(|| {
        let texts = [
            String::new(),
            "a".into(),
            ",".into(),
            "a,b,,c,".into(),
            ",,x".into(),
            "héllo wörld ünïcödé, ".repeat(50),
            "line one\r\nline two\n\nlast".into(),
            "  spaced\t\tout \n words  ".repeat(40),
        ];
        for s in &texts {
            assert_eq!(
                s.par_chars().collect::<Vec<_>>(),
                s.chars().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_char_indices().collect::<Vec<_>>(),
                s.char_indices().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_bytes().collect::<Vec<_>>(),
                s.bytes().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split(',').collect::<Vec<_>>(),
                s.split(',').collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split([',', ' ']).collect::<Vec<_>>(),
                s.split([',', ' ']).collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split(&[',', 'l'][..]).collect::<Vec<_>>(),
                s.split(&[',', 'l'][..]).collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split(|c: char| c == 'ö').collect::<Vec<_>>(),
                s.split('ö').collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_terminator(',').collect::<Vec<_>>(),
                s.split_terminator(',').collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_lines().collect::<Vec<_>>(),
                s.lines().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_whitespace().collect::<Vec<_>>(),
                s.split_whitespace().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_ascii_whitespace().collect::<Vec<_>>(),
                s.split_ascii_whitespace().collect::<Vec<_>>()
            );
        }
        let mut s = String::from("héllo wörld");
        let drained: String = s.par_drain(1..3).collect();
        assert_eq!((drained.as_str(), s.as_str()), ("é", "hllo wörld"));
    });
}

#[test]
fn par_bridge_yields_every_item_once() {
    pool().install(|| {
        let mut got: Vec<u32> = (0..10_000u32).par_bridge().map(|x| x * 2).collect();
        got.sort();
        assert_eq!(got, (0..10_000).map(|x| x * 2).collect::<Vec<_>>());
        // Nested parallel work inside a bridged item must not deadlock.
        let total: u64 = (0..50u64)
            .par_bridge()
            .map(|x| (0..x).into_par_iter().sum::<u64>())
            .sum();
        assert_eq!(total, (0..50u64).map(|x| (0..x).sum::<u64>()).sum());
        assert_eq!(std::iter::empty::<u8>().par_bridge().count(), 0);
        assert!((0..).par_bridge().any(|x: u64| x == 1000));
    });
    // Outside any pool: the global pool runs it.
    assert_eq!((0..100u32).par_bridge().sum::<u32>(), 4950);
}

#[test]
fn par_bridge_runs_a_work_list_whose_source_waits_for_its_consumers() {
    // The source's `next` waits for the children of items already pulled
    // (`WorkList`): a worker must consume its item before it pulls again.
    const LIMIT: u32 = 2_000;
    for threads in [1, 2, 3] {
        let pool = locus::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let list = WorkList::new(LIMIT);
        let mut seen: Vec<u32> = pool.install(|| {
            (&list)
                .par_bridge()
                .map(|n| {
                    list.finish(n);
                    n
                })
                .collect()
        });
        assert!(
            !list.timed_out(),
            "{threads} workers: the source waited 30 s for items nobody consumed"
        );
        seen.sort();
        assert_eq!(seen, (0..LIMIT).collect::<Vec<_>>(), "{threads} workers");
    }
}

/// Two items that wait for each other, late in a source of cheap items:
/// each worker holds one pulled item at most, so the second of the pair is
/// pulled by the other worker while the first waits. A deadline turns a
/// hang into a failure.
#[test]
fn par_bridge_runs_two_late_items_that_wait_for_each_other() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    let pool = locus::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let arrived = AtomicUsize::new(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let met = pool.install(|| {
        (0..5_000u32)
            .par_bridge()
            .filter(|&i| {
                if i != 4_000 && i != 4_001 {
                    return false;
                }
                arrived.fetch_add(1, Ordering::SeqCst);
                while arrived.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
                    std::thread::yield_now();
                }
                arrived.load(Ordering::SeqCst) == 2
            })
            .count()
    });
    assert_eq!(met, 2, "the pair never ran at once");
}

/// Slow items go one at a time: with 4 workers, 4 items that each wait
/// until 4 items are being processed at once must all get there (a bridge
/// that handed one worker a batch of slow items would leave the others
/// idle and fail here). A 30 s deadline turns a hang into a failure.
#[test]
fn par_bridge_spreads_slow_items_over_the_workers() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    let arrived = AtomicUsize::new(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let waited_ok = pool().install(|| {
        (0..8)
            .par_bridge()
            .map(|i: usize| {
                let phase = i / 4 + 1;
                arrived.fetch_add(1, Ordering::SeqCst);
                while arrived.load(Ordering::SeqCst) < 4 * phase && Instant::now() < deadline {
                    std::thread::yield_now();
                }
                arrived.load(Ordering::SeqCst) >= 4 * phase
            })
            .filter(|&ok| ok)
            .count()
    });
    assert_eq!(waited_ok, 8, "four slow items never ran at once");
}
