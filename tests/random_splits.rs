//! The string and slice splitters on random inputs, against std's
//! sequential forms (which rayon's document as their results; for
//! `par_lines`, against rayon's, which differs from std's).
//!
//! `rayon_ported/str.rs` and `rayon_ported/slice_splits.rs` check hand-made
//! edge cases; here thousands of random texts and slices, dense in
//! separators, multi-byte chars and `\r\n`, are cut by pools of one to
//! eight workers, so the parallel cuts land next to, inside and between
//! every kind of separator. A failure names the case's seed;
//! `LOCUS_SPLIT_SEED=N` runs case N alone.

mod common;

use locus::prelude::*;

use common::rng::Rng;
use common::work::{pool, virtual_pool};

/// Mostly short (the edge cases), sometimes long enough for many cuts.
fn random_len(rng: &mut Rng) -> usize {
    match rng.below(3) {
        0 => rng.below(8),
        1 => rng.below(100),
        _ => rng.below(3000),
    }
}

/// Chars of every UTF-8 width, ASCII and Unicode-only whitespace, and the
/// separators the checks use; `\r` so that `\r\n` pairs occur.
const ALPHABET: &[char] = &[
    'a', 'b', ' ', ' ', '\n', '\r', '\t', ',', ',', '\u{a0}', '\u{3000}', '\u{2028}', 'é', 'ß',
    '€', '😀', '\u{1f}',
];

fn text(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let n = random_len(&mut rng);
    // Some texts draw from a few chars only (long runs of separators).
    let alphabet = if rng.below(4) == 0 {
        &ALPHABET[..3 + rng.below(4)]
    } else {
        ALPHABET
    };
    (0..n)
        .map(|_| alphabet[rng.below(alphabet.len())])
        .collect()
}

/// The case numbers: `LOCUS_SPLIT_SEED` alone if set, else `0..n`.
fn seeds(n: u64) -> Vec<u64> {
    match std::env::var("LOCUS_SPLIT_SEED") {
        Ok(s) => vec![s.trim().parse().expect("LOCUS_SPLIT_SEED is a case number")],
        Err(_) => (0..n).collect(),
    }
}

/// Runs `check` on every case on pools of 1, 2, 4 and 8 workers and on a
/// virtual pool of three LLCs (the cuts differ with each).
fn on_pools(n: u64, check: impl Fn(u64) + Sync) {
    let pools = [
        pool(1),
        pool(2),
        pool(4),
        pool(8),
        virtual_pool("llc:3 core:2"),
    ];
    for pool in &pools {
        // One case at a time: a case started while every worker is busy
        // would be cut less (the busy-pool split), and the cuts are the
        // point.
        pool.install(|| seeds(n).into_iter().for_each(&check));
    }
}

/// Checks a split form against std's with each kind of pattern.
macro_rules! same_as_std {
    ($s:expr, $seed:expr, $par:ident, $seq:ident) => {{
        let (s, seed) = ($s, $seed);
        let what = concat!(stringify!($par), ", case ");
        assert_eq!(
            s.$par(',').collect::<Vec<_>>(),
            s.$seq(',').collect::<Vec<_>>(),
            "{what}{seed}, a char: {s:?}"
        );
        assert_eq!(
            s.$par(&[' ', 'é', '😀'][..]).collect::<Vec<_>>(),
            s.$seq(&[' ', 'é', '😀'][..]).collect::<Vec<_>>(),
            "{what}{seed}, a slice of chars: {s:?}"
        );
        assert_eq!(
            s.$par(['\n', '€']).collect::<Vec<_>>(),
            s.$seq(['\n', '€']).collect::<Vec<_>>(),
            "{what}{seed}, an array of chars: {s:?}"
        );
        assert_eq!(
            s.$par(char::is_whitespace).collect::<Vec<_>>(),
            s.$seq(char::is_whitespace).collect::<Vec<_>>(),
            "{what}{seed}, a closure: {s:?}"
        );
    }};
}

#[test]
fn string_splits_and_matches_are_std_s() {
    on_pools(400, |seed| {
        let s = text(seed);
        let s = s.as_str();
        same_as_std!(s, seed, par_split, split);
        same_as_std!(s, seed, par_split_inclusive, split_inclusive);
        same_as_std!(s, seed, par_split_terminator, split_terminator);
        same_as_std!(s, seed, par_matches, matches);
        same_as_std!(s, seed, par_match_indices, match_indices);
        // rayon's `par_lines`, not std's `lines`: rayon drops a `\r` that
        // ends the text, which `str::lines` keeps (rust-lang/rust#100311).
        let lines: Vec<&str> = s.par_lines().collect();
        let want: Vec<&str> =
            rayon::iter::ParallelIterator::collect(rayon::str::ParallelString::par_lines(s));
        assert_eq!(lines, want, "lines, case {seed}: {s:?}");
        let words: Vec<&str> = s.par_split_whitespace().collect();
        let want: Vec<&str> = s.split_whitespace().collect();
        assert_eq!(words, want, "split_whitespace, case {seed}: {s:?}");
        let words: Vec<&str> = s.par_split_ascii_whitespace().collect();
        let want: Vec<&str> = s.split_ascii_whitespace().collect();
        assert_eq!(words, want, "split_ascii_whitespace, case {seed}: {s:?}");
    });
}

#[test]
fn string_chars_bytes_and_utf16_are_std_s() {
    on_pools(200, |seed| {
        let s = text(seed);
        let what = |f: &str| format!("{f}, case {seed}: {s:?}");
        assert_eq!(s.par_chars().collect::<String>(), s, "{}", what("chars"));
        let got: Vec<(usize, char)> = s.par_char_indices().collect();
        assert_eq!(
            got,
            s.char_indices().collect::<Vec<_>>(),
            "{}",
            what("char_indices")
        );
        assert_eq!(
            s.par_bytes().collect::<Vec<u8>>(),
            s.as_bytes(),
            "{}",
            what("bytes")
        );
        let got: Vec<u16> = s.par_encode_utf16().collect();
        assert_eq!(
            got,
            s.encode_utf16().collect::<Vec<_>>(),
            "{}",
            what("encode_utf16")
        );
        assert_eq!(
            s.par_chars().count(),
            s.chars().count(),
            "{}",
            what("chars count")
        );
    });
}

/// A slice of small values (runs and separators of many lengths).
fn slice(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let n = random_len(&mut rng);
    let values = 2 + rng.below(5);
    (0..n).map(|_| rng.below(values) as u8).collect()
}

#[test]
fn slice_splits_and_chunks_are_std_s() {
    on_pools(300, |seed| {
        let v = slice(seed);
        let k = 1 + (seed as usize % 7);
        let what = |f: &str| format!("{f}, case {seed}, k {k}: {v:?}");
        let is0 = |x: &u8| *x == 0;
        let got: Vec<&[u8]> = v.par_split(is0).collect();
        assert_eq!(got, v.split(is0).collect::<Vec<_>>(), "{}", what("split"));
        let got: Vec<&[u8]> = v.par_split_inclusive(is0).collect();
        assert_eq!(
            got,
            v.split_inclusive(is0).collect::<Vec<_>>(),
            "{}",
            what("split_inclusive")
        );
        let got: Vec<&[u8]> = v.par_chunk_by(|a, b| a == b).collect();
        assert_eq!(
            got,
            v.chunk_by(|a, b| a == b).collect::<Vec<_>>(),
            "{}",
            what("chunk_by ==")
        );
        let got: Vec<&[u8]> = v.par_chunk_by(|a, b| a <= b).collect();
        assert_eq!(
            got,
            v.chunk_by(|a, b| a <= b).collect::<Vec<_>>(),
            "{}",
            what("chunk_by <=")
        );
        let got: Vec<&[u8]> = v.par_chunks(k).collect();
        assert_eq!(got, v.chunks(k).collect::<Vec<_>>(), "{}", what("chunks"));
        let got: Vec<&[u8]> = v.par_rchunks(k).collect();
        assert_eq!(got, v.rchunks(k).collect::<Vec<_>>(), "{}", what("rchunks"));
        let exact = v.par_chunks_exact(k);
        assert_eq!(
            exact.remainder(),
            v.chunks_exact(k).remainder(),
            "{}",
            what("chunks_exact")
        );
        let got: Vec<&[u8]> = exact.collect();
        assert_eq!(
            got,
            v.chunks_exact(k).collect::<Vec<_>>(),
            "{}",
            what("chunks_exact")
        );
        let exact = v.par_rchunks_exact(k);
        assert_eq!(
            exact.remainder(),
            v.rchunks_exact(k).remainder(),
            "{}",
            what("rchunks_exact")
        );
        let got: Vec<&[u8]> = exact.collect();
        assert_eq!(
            got,
            v.rchunks_exact(k).collect::<Vec<_>>(),
            "{}",
            what("rchunks_exact")
        );
        let got: Vec<&[u8]> = v.par_windows(k).collect();
        assert_eq!(got, v.windows(k).collect::<Vec<_>>(), "{}", what("windows"));
    });
}

/// The mutable forms: each piece is marked with its index, and the slice
/// must then read as std's pieces marked the same way.
#[test]
fn mutable_slice_splits_and_chunks_are_std_s() {
    fn marked<'a, I: Iterator<Item = &'a mut [u8]>>(pieces: I) {
        for (i, piece) in pieces.enumerate() {
            piece
                .iter_mut()
                .for_each(|x| *x = x.wrapping_mul(31).wrapping_add(i as u8 | 1));
        }
    }
    on_pools(300, |seed| {
        let v = slice(seed);
        let k = 1 + (seed as usize % 7);
        let what = |f: &str| format!("{f}, case {seed}, k {k}: {v:?}");
        let mark = |i: usize, piece: &mut [u8]| {
            piece
                .iter_mut()
                .for_each(|x| *x = x.wrapping_mul(31).wrapping_add(i as u8 | 1));
        };
        let is0 = |x: &u8| *x == 0;

        // The unindexed forms: the pieces' lengths in order, and each piece
        // reversed in place.
        let mut got = v.clone();
        let lens: Vec<usize> = got.par_split_mut(is0).map(|p| p.len()).collect();
        assert!(
            lens.into_iter().eq(v.split(is0).map(<[u8]>::len)),
            "{}",
            what("split_mut")
        );
        got.par_split_mut(is0).for_each(<[u8]>::reverse);
        let mut want = v.clone();
        want.split_mut(is0).for_each(<[u8]>::reverse);
        assert_eq!(got, want, "{}", what("split_mut"));

        let mut got = v.clone();
        let lens: Vec<usize> = got.par_split_inclusive_mut(is0).map(|p| p.len()).collect();
        let want_lens = v.split_inclusive(is0).map(<[u8]>::len);
        assert!(
            lens.into_iter().eq(want_lens),
            "{}",
            what("split_inclusive_mut")
        );
        got.par_split_inclusive_mut(is0).for_each(<[u8]>::reverse);
        let mut want = v.clone();
        want.split_inclusive_mut(is0).for_each(<[u8]>::reverse);
        assert_eq!(got, want, "{}", what("split_inclusive_mut"));

        let mut got = v.clone();
        let lens: Vec<usize> = got
            .par_chunk_by_mut(|a, b| a <= b)
            .map(|p| p.len())
            .collect();
        let want_lens = v.chunk_by(|a, b| a <= b).map(<[u8]>::len);
        assert!(lens.into_iter().eq(want_lens), "{}", what("chunk_by_mut"));
        got.par_chunk_by_mut(|a, b| a <= b)
            .for_each(<[u8]>::reverse);
        let mut want = v.clone();
        want.chunk_by_mut(|a, b| a <= b).for_each(<[u8]>::reverse);
        assert_eq!(got, want, "{}", what("chunk_by_mut"));

        // The indexed forms: each piece marked with its index.
        let (mut got, mut want) = (v.clone(), v.clone());
        got.par_chunks_mut(k)
            .enumerate()
            .for_each(|(i, p)| mark(i, p));
        marked(want.chunks_mut(k));
        assert_eq!(got, want, "{}", what("chunks_mut"));

        let (mut got, mut want) = (v.clone(), v.clone());
        got.par_rchunks_mut(k)
            .enumerate()
            .for_each(|(i, p)| mark(i, p));
        marked(want.rchunks_mut(k));
        assert_eq!(got, want, "{}", what("rchunks_mut"));

        let (mut got, mut want) = (v.clone(), v.clone());
        got.par_chunks_exact_mut(k)
            .enumerate()
            .for_each(|(i, p)| mark(i, p));
        marked(want.chunks_exact_mut(k));
        assert_eq!(got, want, "{}", what("chunks_exact_mut"));

        let (mut got, mut want) = (v.clone(), v.clone());
        got.par_rchunks_exact_mut(k)
            .enumerate()
            .for_each(|(i, p)| mark(i, p));
        marked(want.rchunks_exact_mut(k));
        assert_eq!(got, want, "{}", what("rchunks_exact_mut"));
    });
}
