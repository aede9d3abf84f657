//! How often `par_split` and its variants ask a char predicate: once per
//! char, as rayon (and a sequential `str::split`) do, whatever the pool
//! size and however the string is cut; `par_split_terminator` asks once
//! more, as rayon's does, to know whether the string ends with a
//! terminator; `par_split_inclusive` once per char, where rayon asks again
//! about some separators (at most rayon's count). The pieces are `std`'s in
//! each case.

use std::sync::atomic::{AtomicUsize, Ordering};

use locus::prelude::*;

/// rayon's side (its traits kept apart from locus's of the same names).
mod with_rayon {
    use rayon::prelude::*;

    pub fn split(s: &str, p: &(dyn Fn(char) -> bool + Sync)) -> usize {
        s.par_split(p).count()
    }
    pub fn split_inclusive(s: &str, p: &(dyn Fn(char) -> bool + Sync)) -> usize {
        s.par_split_inclusive(p).count()
    }
    pub fn split_terminator(s: &str, p: &(dyn Fn(char) -> bool + Sync)) -> usize {
        s.par_split_terminator(p).count()
    }
}

/// Strings to split at `' '` and `'é'`: words, multi-byte chars,
/// separators at both ends, runs of separators, none, only separators.
fn texts() -> Vec<String> {
    let mut words = String::new();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    while words.chars().count() < 1000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let c = match state % 8 {
            0 | 1 => ' ',
            2 => 'é',
            3 => '€',
            4 => '𝄞',
            _ => char::from(b'a' + (state >> 40) as u8 % 26),
        };
        words.push(c);
    }
    let mut out = vec![
        words.clone(),
        format!(" {words} "),
        format!("{words}é"),
        "x".repeat(1000),
        " ".repeat(1000),
        "é".repeat(999) + "a",
        "a é".repeat(300),
        String::new(),
        " ".into(),
        "€".into(),
    ];
    out.push(words.replace(' ', ""));
    out
}

fn is_sep(c: char) -> bool {
    c == ' ' || c == 'é'
}

/// Runs `split` with a counting predicate; returns the pieces and the count.
fn counted<R>(split: impl FnOnce(&(dyn Fn(char) -> bool + Sync)) -> R) -> (R, usize) {
    let calls = AtomicUsize::new(0);
    let pred = |c: char| {
        calls.fetch_add(1, Ordering::Relaxed);
        is_sep(c)
    };
    let pieces = split(&pred);
    (pieces, calls.into_inner())
}

fn pools(threads: usize) -> (locus::ThreadPool, rayon::ThreadPool) {
    let l = locus::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let r = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    (l, r)
}

#[test]
fn par_split_asks_once_per_char() {
    for threads in [1, 2, 4] {
        let (lp, rp) = pools(threads);
        for s in texts() {
            let s = s.as_str();
            let n = s.chars().count();
            let (v, calls) = counted(|p| lp.install(|| s.par_split(p).collect::<Vec<_>>()));
            assert_eq!(v, s.split(is_sep).collect::<Vec<_>>(), "{threads} threads");
            assert_eq!(calls, n, "{threads} threads, {n} chars");
            let (_, rayon_calls) = counted(|p| rp.install(|| with_rayon::split(s, p)));
            assert_eq!(calls, rayon_calls, "{threads} threads, {n} chars");
        }
    }
}

#[test]
fn par_split_inclusive_asks_once_per_char() {
    for threads in [1, 2, 4] {
        let (lp, rp) = pools(threads);
        for s in texts() {
            let s = s.as_str();
            let n = s.chars().count();
            let (v, calls) =
                counted(|p| lp.install(|| s.par_split_inclusive(p).collect::<Vec<_>>()));
            assert_eq!(v, s.split_inclusive(is_sep).collect::<Vec<_>>());
            let (_, rayon_calls) = counted(|p| rp.install(|| with_rayon::split_inclusive(s, p)));
            assert_eq!(calls, n, "{threads} threads, {n} chars");
            // rayon asks again about a separator it found while cutting
            // when it folds the piece that ends with it (how often depends
            // on its cuts).
            assert!(calls <= rayon_calls, "{threads} threads, {n} chars");
        }
    }
}

#[test]
fn par_split_terminator_asks_as_rayon_does() {
    for threads in [1, 2, 4] {
        let (lp, rp) = pools(threads);
        for s in texts() {
            let s = s.as_str();
            let n = s.chars().count();
            let (v, calls) =
                counted(|p| lp.install(|| s.par_split_terminator(p).collect::<Vec<_>>()));
            assert_eq!(v, s.split_terminator(is_sep).collect::<Vec<_>>());
            // One more for the check of the last char, when there is one.
            assert_eq!(calls, n + usize::from(n > 0), "{threads} threads");
            let (_, rayon_calls) = counted(|p| rp.install(|| with_rayon::split_terminator(s, p)));
            assert_eq!(calls, rayon_calls, "{threads} threads, {n} chars");
        }
    }
}

/// A `char` or a set of chars gives the same pieces as the predicate.
#[test]
fn char_patterns_split_as_std() {
    let (lp, _) = pools(2);
    for s in texts() {
        let s = s.as_str();
        lp.install(|| {
            assert_eq!(
                s.par_split(' ').collect::<Vec<_>>(),
                s.split(' ').collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_terminator(['é', ' ']).collect::<Vec<_>>(),
                s.split_terminator(['é', ' ']).collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_inclusive(&['€'][..]).collect::<Vec<_>>(),
                s.split_inclusive(&['€'][..]).collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_whitespace().collect::<Vec<_>>(),
                s.split_whitespace().collect::<Vec<_>>()
            );
            assert_eq!(s.par_matches('é').count(), s.matches('é').count());
            assert_eq!(
                s.par_match_indices(&['a', '€']).collect::<Vec<_>>(),
                s.match_indices(&['a', '€']).collect::<Vec<_>>()
            );
        });
    }
}
