//! `par_split` on a string against rayon's, measured in the same run.
//!
//! The input is about 1 MB of words (1 to 8 lowercase letters) one space
//! apart, split by a char predicate (`|c| c == ' '`) and by a `char`
//! (`' '`), then `.count()` or `.map(str::len).sum()`. Each body is written
//! once for both libraries (`locus_and_rayon!` of `common/iter_cases.rs`,
//! which also checks that both compute the same result).
//!
//! Run: `cargo bench --bench str_split`. Both pools have as many threads as
//! this machine has CPUs.

mod common;

use common::random_u64;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "common/pools.rs"]
mod pools;
use pools::pools;
#[macro_use]
#[allow(unused_macros)]
#[path = "common/iter_cases.rs"]
mod iter_cases;

/// About 1 MB of words of 1 to 8 lowercase letters, one space apart.
fn text() -> String {
    let mut s = String::with_capacity(1 << 20);
    for x in random_u64(1 << 18) {
        if s.len() >= 1 << 20 {
            break;
        }
        let len = 1 + (x % 8) as usize;
        for i in 0..len {
            s.push(char::from(b'a' + ((x >> (8 + 5 * i)) % 26) as u8));
        }
        s.push(' ');
    }
    s
}

/// One criterion group: locus's and rayon's side of `$body`.
macro_rules! both {
    ($c:expr, $name:expr, $body:expr) => {
        locus_and_rayon!($name, state: (), |_x| $body, |with_locus, with_rayon| {
            let mut g = $c.benchmark_group($name);
            g.sample_size(20);
            g.bench_function("locus", |b| b.iter(&mut with_locus));
            g.bench_function("rayon", |b| b.iter(&mut with_rayon));
            g.finish();
        })
    };
}

fn bench_split(c: &mut Criterion) {
    let text = text();
    let s = text.as_str();
    assert_eq!(s.len() >> 20, 1);
    both!(
        c,
        "par_split_count/pred",
        black_box(s.par_split(|c: char| c == ' ').count())
    );
    both!(
        c,
        "par_split_count/char",
        black_box(s.par_split(' ').count())
    );
    both!(
        c,
        "par_split_len_sum/pred",
        black_box(s.par_split(|c: char| c == ' ').map(str::len).sum::<usize>())
    );
    both!(
        c,
        "par_split_len_sum/char",
        black_box(s.par_split(' ').map(str::len).sum::<usize>())
    );
}

criterion_group!(benches, bench_split);
criterion_main!(benches);
