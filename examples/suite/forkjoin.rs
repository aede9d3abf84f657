//! `forkjoin`: fine-grained fork-join, where scheduling overhead shows:
//! fib with `join` at every level (no cutoff), a quicksort with `join`
//! (serial below 4096 elements), a parallel-iterator sum of squares and a
//! parallel sort. Against rayon, and chili for the two `join` cases (chili
//! has no parallel iterators). Runs/s (whole workloads per second).

use std::cell::RefCell;
use std::hint::black_box;
use std::time::Instant;

use crate::env::{Env, finish, record};
use crate::measure::{Better, Config, Runner, measure};
use crate::report::Scenario;

const SEED: &str = "no kernel patch: the fork-join baseline, so that cache awareness costs nothing where it cannot help";

const CUTOFF: usize = 4096;

macro_rules! fib {
    ($name:ident, $join:path) => {
        fn $name(n: u64) -> u64 {
            if n < 2 {
                return n;
            }
            let (a, b) = $join(|| $name(n - 1), || $name(n - 2));
            a + b
        }
    };
}
fib!(fib_locus, locus::join);
fib!(fib_rayon, rayon::join);

fn fib_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

fn partition(v: &mut [u32]) -> usize {
    let last = v.len() - 1;
    v.swap(v.len() / 2, last);
    let p = v[last];
    let mut store = 0;
    for i in 0..last {
        if v[i] < p {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, last);
    store
}

macro_rules! quicksort {
    ($name:ident, $join:path) => {
        fn $name(v: &mut [u32]) {
            if v.len() <= CUTOFF {
                v.sort_unstable();
                return;
            }
            let mid = partition(v);
            let (lo, hi) = v.split_at_mut(mid);
            $join(|| $name(lo), || $name(&mut hi[1..]));
        }
    };
}
quicksort!(qs_locus, locus::join);
quicksort!(qs_rayon, rayon::join);

fn qs_chili(s: &mut chili::Scope<'_>, v: &mut [u32]) {
    if v.len() <= CUTOFF {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    s.join(|s| qs_chili(s, lo), |s| qs_chili(s, &mut hi[1..]));
}

/// `n` pseudo-random words, the same in every run (the benches' input).
fn random(n: usize) -> Vec<u32> {
    crate::common::random_u64(n)
        .into_iter()
        .map(|x| x as u32)
        .collect()
}

/// One runner per locus pool (`cfgs[i]` on `lps[i]`), made by `f`.
fn per_locus<'a>(
    cfgs: &[Config],
    lps: &'a [locus::ThreadPool],
    f: impl Fn(&'a locus::ThreadPool) -> Runner<'a>,
) -> Vec<(Config, Runner<'a>)> {
    cfgs.iter().zip(lps).map(|(c, p)| (*c, f(p))).collect()
}

fn sum_locus(v: &[u64]) -> u64 {
    use locus::prelude::*;
    v.par_iter()
        .map(|x| x.wrapping_mul(*x))
        .reduce(|| 0, u64::wrapping_add)
}

fn sum_rayon(v: &[u64]) -> u64 {
    use rayon::prelude::*;
    v.par_iter()
        .map(|x| x.wrapping_mul(*x))
        .reduce(|| 0, u64::wrapping_add)
}

fn sort_locus(v: &mut [u32]) {
    use locus::prelude::*;
    v.par_sort_unstable();
}

fn sort_rayon(v: &mut [u32]) {
    use rayon::prelude::*;
    v.par_sort_unstable();
}

/// Runs per second of one call of `f` on a fresh copy of `input` (the
/// copy not timed); checks the result is sorted.
fn sorted_rate(input: &[u32], scratch: &RefCell<Vec<u32>>, f: impl FnOnce(&mut [u32])) -> f64 {
    let mut v = scratch.borrow_mut();
    v.clear();
    v.extend_from_slice(input);
    let t = Instant::now();
    f(&mut v);
    let r = 1.0 / t.elapsed().as_secs_f64();
    assert!(
        v.windows(2).all(|w| w[0] <= w[1]),
        "forkjoin: a sort returned unsorted data"
    );
    r
}

fn rate(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    1.0 / t.elapsed().as_secs_f64()
}

/// Runs the scenario.
pub fn run(env: &Env) -> Result<Scenario, String> {
    let mut sc = Scenario::new("forkjoin", SEED, "runs/s", Better::Higher);
    let lps = [
        env.locus(Config::Locus)?,
        env.locus(Config::ClusterOff)?,
        env.locus(Config::Flat)?,
    ];
    let cfgs = [Config::Locus, Config::ClusterOff, Config::Flat];
    let rp = env.rayon()?;
    let cp = env.chili();
    let budget = env.budget(4);
    let (fib_n, qs_n, sum_n, sort_n) = env.pick(
        (12, 20_000, 50_000, 20_000),
        (25, 1 << 19, 1 << 22, 1 << 19),
        (30, 1 << 20, 1 << 24, 1 << 20),
    );

    let mut runners = per_locus(&cfgs, &lps, |p| {
        Box::new(move || {
            rate(|| {
                black_box(p.install(|| fib_locus(black_box(fib_n))));
            })
        })
    });
    runners.push((
        Config::Rayon,
        Box::new(|| {
            rate(|| {
                black_box(rp.install(|| fib_rayon(black_box(fib_n))));
            })
        }),
    ));
    runners.push((
        Config::Chili,
        Box::new(|| {
            rate(|| {
                black_box(fib_chili(&mut cp.scope(), black_box(fib_n)));
            })
        }),
    ));
    sc.runs.extend(measure(
        &format!("fib({fib_n})"),
        Better::Higher,
        budget,
        &env.progress,
        runners,
    ));

    let input = random(qs_n);
    let scratch = RefCell::new(Vec::new());
    let (input, scratch) = (&input[..], &scratch);
    let mut runners = per_locus(&cfgs, &lps, |p| {
        Box::new(move || sorted_rate(input, scratch, |v| p.install(|| qs_locus(v))))
    });
    runners.push((
        Config::Rayon,
        Box::new(|| sorted_rate(input, scratch, |v| rp.install(|| qs_rayon(v)))),
    ));
    runners.push((
        Config::Chili,
        Box::new(|| sorted_rate(input, scratch, |v| qs_chili(&mut cp.scope(), v))),
    ));
    sc.runs.extend(measure(
        &format!("quicksort {}K", qs_n >> 10),
        Better::Higher,
        budget,
        &env.progress,
        runners,
    ));

    let words: Vec<u64> = (0..sum_n as u64).collect();
    let words = &words[..];
    let mut runners = per_locus(&cfgs, &lps, |p| {
        Box::new(move || {
            rate(|| {
                black_box(p.install(|| sum_locus(words)));
            })
        })
    });
    runners.push((
        Config::Rayon,
        Box::new(|| {
            rate(|| {
                black_box(rp.install(|| sum_rayon(words)));
            })
        }),
    ));
    sc.runs.extend(measure(
        &format!("par_iter sum {}K", sum_n >> 10),
        Better::Higher,
        budget,
        &env.progress,
        runners,
    ));

    let input = random(sort_n);
    let input = &input[..];
    let mut runners = per_locus(&cfgs, &lps, |p| {
        Box::new(move || sorted_rate(input, scratch, |v| p.install(|| sort_locus(v))))
    });
    runners.push((
        Config::Rayon,
        Box::new(|| sorted_rate(input, scratch, |v| rp.install(|| sort_rayon(v)))),
    ));
    sc.runs.extend(measure(
        &format!("par_sort_unstable {}K", sort_n >> 10),
        Better::Higher,
        budget,
        &env.progress,
        runners,
    ));

    record(&mut sc, &lps);
    let what = "scheduling overhead of join, iterators and sort; locus should match rayon here on any machine (no cache effect to gain)".to_string();
    finish(&mut sc, env.limits(), what, false, false, false);
    Ok(sc)
}
