//! `intersperse` puts its separator between neighbours, also twice over,
//! after an unindexed source, and through its producer forward and
//! reversed (rayon's `tests/intersperse.rs`).

use locus::prelude::*;

#[test]
fn between_every_two_items() {
    let v: Vec<i32> = (0..1000).into_par_iter().intersperse(-1).collect();
    assert_eq!(v.len(), 1999);
    for (i, x) in v.into_iter().enumerate() {
        let want = if i % 2 == 0 { i as i32 / 2 } else { -1 };
        assert_eq!(x, want, "at {i}");
    }
}

#[test]
fn twice_over() {
    let v: Vec<i32> = (0..1000)
        .into_par_iter()
        .intersperse(-1)
        .intersperse(-2)
        .collect();
    assert_eq!(v.len(), 3997);
    for (i, x) in v.into_iter().enumerate() {
        let want = match i % 4 {
            0 => i as i32 / 4,
            2 => -1,
            _ => -2,
        };
        assert_eq!(x, want, "at {i}");
    }
}

#[test]
fn after_an_unindexed_source() {
    let words: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    let commas = words.join(",");
    let got: String = commas.par_split(',').intersperse(";").collect();
    assert_eq!(got, words.join(";"));
}

#[test]
fn through_the_producer_both_ways() {
    let expect = |(x, i): (i32, i32)| {
        let want = if i % 2 == 0 { i / 2 } else { -1 };
        assert_eq!(x, want, "at {i}");
    };
    let paired = || (0..1000).into_par_iter().intersperse(-1).zip_eq(0..1999);
    paired().for_each(expect);
    paired().rev().for_each(expect);
}
