//! The sequential splits that `par_split` and friends fold a piece with,
//! for the two separators where `str::split` is slow on short pieces:
//!
//! - **An ASCII `char`** ([`AsciiSplit`]): `str::split(char)` finds each
//!   separator with a fresh `memchr`, whose start-up cost dominates when
//!   pieces are a few bytes long (words). Here each block of 64 bytes is
//!   compared at once (a loop the compiler vectorizes) into a bit mask,
//!   and the pieces are cut at the mask's set bits. An ASCII byte never
//!   occurs inside the encoding of another char, so every position of the
//!   separator, and the one after it, is a char boundary: the pieces are
//!   exactly those of `str::split`.
//! - **A predicate** ([`fold_pred_splits`]): the same blocks where they
//!   are ASCII (the predicate asked about each byte as a char, in order,
//!   into the mask); a block with another char is decoded char by char.
//!   Every char is asked about once and in order, as `str::split` does
//!   (the call-count tests rely on it).

use crate::iter::plumbing::Folder;

/// Bytes compared per block (one bit each in a `u64`).
const BLOCK: usize = 64;

/// The pieces of a string between occurrences of an ASCII byte, in the
/// order (and with the empty pieces) of `str::split`, optionally without
/// the last one.
pub(super) struct AsciiSplit<'a> {
    s: &'a str,
    sep: u8,
    /// Where the next piece starts.
    start: usize,
    /// The first byte of the block `mask` describes.
    block: usize,
    /// The separators of the current block not cut at yet.
    mask: u64,
    /// The next block to compare.
    next: usize,
    /// The last piece was given (or skipped).
    finished: bool,
    skip_last: bool,
}

impl<'a> AsciiSplit<'a> {
    /// The pieces of `s` split at `sep` (which must be ASCII), without the
    /// last one if `skip_last`.
    pub(super) fn new(s: &'a str, sep: u8, skip_last: bool) -> Self {
        assert!(sep.is_ascii(), "AsciiSplit needs an ASCII separator");
        AsciiSplit {
            s,
            sep,
            start: 0,
            block: 0,
            mask: 0,
            next: 0,
            finished: false,
            skip_last,
        }
    }

    /// The piece `s[start..end]`.
    fn piece(&self, end: usize) -> &'a str {
        debug_assert!(self.s.is_char_boundary(self.start) && self.s.is_char_boundary(end));
        // SAFETY: `start` is 0 or right after a separator, `end` is the
        // position of a separator or the end, so both are char boundaries
        // (module invariant: the separator is ASCII), and `start <= end
        // <= len` since separators are cut at in increasing order.
        unsafe { self.s.get_unchecked(self.start..end) }
    }
}

/// Bit `k` set for each byte `k` of `chunk` (at most 64 bytes) equal to
/// `sep`.
#[inline(always)]
fn mask_of(chunk: &[u8], sep: u8) -> u64 {
    let mut mask = 0;
    for (i, &b) in chunk.iter().enumerate() {
        mask |= u64::from(b == sep) << i;
    }
    mask
}

/// [`mask_of`] for a whole block: one byte per answer first (a loop the
/// compiler vectorizes), then gathered eight at a time.
#[inline(always)]
fn block_mask(block: &[u8; BLOCK], sep: u8) -> u64 {
    let mut hits = [0u8; BLOCK];
    for (hit, &b) in hits.iter_mut().zip(block) {
        *hit = u8::from(b == sep);
    }
    gather_block(&hits)
}

/// Bit `k` set for each byte `k` of `hits` (each 0 or 1) that is 1.
#[inline(always)]
fn gather_block(hits: &[u8; BLOCK]) -> u64 {
    let mut mask = 0;
    for (k, word) in hits.chunks_exact(8).enumerate() {
        mask |= gather(u64::from_le_bytes(word.try_into().expect("8 bytes"))) << (8 * k);
    }
    mask
}

/// The low bits of the eight bytes of `ones` (each 0 or 1), byte `k` to
/// bit `k`.
#[inline(always)]
fn gather(ones: u64) -> u64 {
    ones.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

impl<'a> Iterator for AsciiSplit<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.s.as_bytes();
        loop {
            if self.mask != 0 {
                let at = self.block + self.mask.trailing_zeros() as usize;
                self.mask &= self.mask - 1;
                let piece = self.piece(at);
                self.start = at + 1;
                return Some(piece);
            }
            if self.next >= bytes.len() {
                if self.finished || self.skip_last {
                    self.finished = true;
                    return None;
                }
                self.finished = true;
                return Some(self.piece(bytes.len()));
            }
            self.block = self.next;
            self.mask = match bytes[self.block..].first_chunk::<BLOCK>() {
                Some(chunk) => block_mask(chunk, self.sep),
                None => mask_of(&bytes[self.block..], self.sep),
            };
            self.next = self.block + BLOCK;
        }
    }
}

/// Feeds the pieces of `haystack.split(pred)` to `folder` (without the last
/// one if `skip_last`) until it is full, asking `pred` about each char once,
/// in order. A block of 64 ASCII bytes is asked about whole into a bit
/// mask before its pieces are fed, so a folder that fills up in it may
/// have had up to 63 chars after its last piece asked about.
pub(super) fn fold_pred_splits<'ch, F: Folder<&'ch str>>(
    haystack: &'ch str,
    pred: &impl Fn(char) -> bool,
    mut folder: F,
    skip_last: bool,
) -> F {
    let bytes = haystack.as_bytes();
    // `start`: where the next piece starts (a char boundary); `pos`: the
    // next char to ask about (a char boundary).
    let (mut start, mut pos) = (0, 0);
    let piece = |start: usize, end: usize| {
        debug_assert!(haystack.is_char_boundary(start) && haystack.is_char_boundary(end));
        // SAFETY: both are char boundaries (`start` is 0 or right after a
        // separator, `end` a separator's position), `start <= end`.
        unsafe { haystack.get_unchecked(start..end) }
    };
    while pos < bytes.len() {
        let block = &bytes[pos..bytes.len().min(pos + BLOCK)];
        if block.iter().fold(0, |acc, &b| acc | b).is_ascii() {
            // Ask about the block's bytes (as chars) in order, one byte
            // each, then gather the answers into a bit mask.
            let mut hits = [0u8; BLOCK];
            for (hit, &b) in hits.iter_mut().zip(block) {
                *hit = u8::from(pred(char::from(b)));
            }
            let mut mask = gather_block(&hits);
            while mask != 0 {
                let at = pos + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                folder = folder.consume(piece(start, at));
                if folder.full() {
                    return folder;
                }
                start = at + 1;
            }
            pos += block.len();
        } else {
            // Char by char to the first boundary at or after the block's
            // end.
            let mut end = pos + block.len();
            while !haystack.is_char_boundary(end) {
                end += 1;
            }
            for (i, c) in haystack[pos..end].char_indices() {
                if pred(c) {
                    folder = folder.consume(piece(start, pos + i));
                    if folder.full() {
                        return folder;
                    }
                    start = pos + i + c.len_utf8();
                }
            }
            pos = end;
        }
    }
    if skip_last {
        folder
    } else {
        folder.consume(piece(start, bytes.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::{AsciiSplit, fold_pred_splits};
    use crate::iter::plumbing::Folder;

    /// Collects what it is fed.
    struct Pieces<'a>(Vec<&'a str>);

    impl<'a> Folder<&'a str> for Pieces<'a> {
        type Result = Vec<&'a str>;
        fn consume(mut self, item: &'a str) -> Self {
            self.0.push(item);
            self
        }
        fn complete(self) -> Vec<&'a str> {
            self.0
        }
        fn full(&self) -> bool {
            false
        }
    }

    /// `AsciiSplit` and `fold_pred_splits` against `str::split` (and without the last piece) on
    /// strings around the block length, with separators at the ends,
    /// doubled, and next to multi-byte chars.
    #[test]
    fn pieces_match_str_split() {
        let mut cases = vec![
            String::new(),
            " ".to_string(),
            "  ".to_string(),
            "a".to_string(),
            " a b  c ".to_string(),
            "é é😀 x ".to_string(),
        ];
        for len in [63, 64, 65, 127, 128, 129, 300] {
            let s: String = (0..len)
                .map(|i| match i % 7 {
                    0 | 3 => ' ',
                    5 => 'é',
                    _ => 'q',
                })
                .collect();
            cases.push(s.clone());
            cases.push(format!(" {s}"));
            cases.push(format!("{s} "));
            // ASCII blocks, and one char of two bytes across a block end.
            let ascii: String = (0..len)
                .map(|i| if i % 5 == 0 { ' ' } else { 'q' })
                .collect();
            cases.push(format!("{ascii}é {ascii}"));
            cases.push(format!("{}é{ascii}", &ascii[..63]));
        }
        for s in &cases {
            let expected: Vec<&str> = s.split(' ').collect();
            let got: Vec<&str> = AsciiSplit::new(s, b' ', false).collect();
            assert_eq!(got, expected, "{s:?}");
            let got: Vec<&str> = AsciiSplit::new(s, b' ', true).collect();
            assert_eq!(
                got,
                expected[..expected.len() - 1],
                "{s:?} without the last"
            );
            // A predicate, also on a non-ASCII separator, and its calls.
            for sep in [' ', 'é'] {
                let expected: Vec<&str> = s.split(sep).collect();
                let calls = std::cell::Cell::new(0);
                let pred = |c: char| {
                    calls.set(calls.get() + 1);
                    c == sep
                };
                let got = fold_pred_splits(s, &pred, Pieces(Vec::new()), false).0;
                assert_eq!(got, expected, "{s:?} at {sep:?}");
                assert_eq!(calls.get(), s.chars().count(), "one call per char");
                let got = fold_pred_splits(s, &pred, Pieces(Vec::new()), true).0;
                assert_eq!(got, expected[..expected.len() - 1], "{s:?} at {sep:?}");
            }
        }
    }
}
