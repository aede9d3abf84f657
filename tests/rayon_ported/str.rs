//! The string iterators against `std`'s: chars, bytes, UTF-16 and char
//! indices of random text, and every split and match form with each kind
//! of pattern (a char, a slice, an array and a reference to one of chars,
//! a closure) on edge-case strings (rayon's `tests/str.rs`).

use locus::prelude::*;

/// A text of `n` chars drawn over the whole char range (every UTF-8
/// width), from a fixed seed.
fn random_text(n: usize) -> String {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = String::new();
    while out.chars().count() < n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Mostly small code points, sometimes any.
        let c = if state % 4 == 0 {
            (state >> 32) as u32 % 0x11_0000
        } else {
            (state >> 32) as u32 % 0x800
        };
        out.extend(char::from_u32(c));
    }
    out
}

#[test]
fn chars_bytes_utf16_and_indices() {
    let s = random_text(1024);
    assert_eq!(s.par_chars().collect::<String>(), s);
    let even = |c: &char| u32::from(*c) % 2 == 0;
    assert_eq!(
        s.par_chars().filter(even).collect::<String>(),
        s.chars().filter(even).collect::<String>()
    );
    // `String` from `&char` items.
    let chars: Vec<char> = s.par_chars().collect();
    assert_eq!(chars.par_iter().collect::<String>(), s);
    assert_eq!(s.par_bytes().collect::<Vec<u8>>(), s.as_bytes());
    assert_eq!(
        s.par_encode_utf16().collect::<Vec<u16>>(),
        s.encode_utf16().collect::<Vec<_>>()
    );
    assert_eq!(
        s.par_char_indices().collect::<Vec<_>>(),
        s.char_indices().collect::<Vec<_>>()
    );
}

/// Strings from `str::split`'s documentation and other edge cases, each
/// with a separator, and this file split at spaces.
fn cases() -> Vec<(&'static str, char)> {
    vec![
        ("Mary had a little lamb", ' '),
        ("", 'X'),
        ("lionXXtigerXleopard", 'X'),
        ("||||a||b|c", '|'),
        ("(///)", '/'),
        ("010", '0'),
        ("    a  b c", ' '),
        ("A.B.", '.'),
        ("A..B..", '.'),
        ("foo\r\nbar\n\nbaz\n", '\n'),
        ("foo\nbar\n\r\nbaz", '\n'),
        ("A few words", ' '),
        (" Mary   had\ta\u{2009}little  \n\t lamb", ' '),
        ("Mary had a little lamb\nlittle lamb\nlittle lamb.", '\n'),
        ("Mary had a little lamb\nlittle lamb\nlittle lamb.\n", '\n'),
        (include_str!("str.rs"), ' '),
    ]
}

/// Checks `$par` against `$seq` for every case and every pattern form.
macro_rules! each_pattern {
    ($seq:ident, $par:ident) => {
        for (text, sep) in cases() {
            let set = ['\0', sep, '\u{1F980}'];
            let set_ref = &set;
            let set_slice: &[char] = set_ref;
            let what = concat!(stringify!($par), " on ");
            assert_eq!(
                text.$par(sep).collect::<Vec<_>>(),
                text.$seq(sep).collect::<Vec<_>>(),
                "{what}{text:?}, char {sep:?}"
            );
            assert_eq!(
                text.$par(set_slice).collect::<Vec<_>>(),
                text.$seq(set_slice).collect::<Vec<_>>(),
                "{what}{text:?}, slice"
            );
            assert_eq!(
                text.$par(set).collect::<Vec<_>>(),
                text.$seq(set).collect::<Vec<_>>(),
                "{what}{text:?}, array"
            );
            assert_eq!(
                text.$par(set_ref).collect::<Vec<_>>(),
                text.$seq(set_ref).collect::<Vec<_>>(),
                "{what}{text:?}, array reference"
            );
            assert_eq!(
                text.$par(|c| c == sep).collect::<Vec<_>>(),
                text.$seq(|c| c == sep).collect::<Vec<_>>(),
                "{what}{text:?}, closure"
            );
        }
    };
}

#[test]
fn splits_with_every_pattern_form() {
    each_pattern!(split, par_split);
    each_pattern!(split_inclusive, par_split_inclusive);
    each_pattern!(split_terminator, par_split_terminator);
}

#[test]
fn matches_with_every_pattern_form() {
    each_pattern!(matches, par_matches);
    each_pattern!(match_indices, par_match_indices);
}

#[test]
fn lines_and_whitespace() {
    for (text, _) in cases() {
        assert_eq!(
            text.par_lines().collect::<Vec<_>>(),
            text.lines().collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(
            text.par_split_ascii_whitespace().collect::<Vec<_>>(),
            text.split_ascii_whitespace().collect::<Vec<_>>()
        );
    }
}
