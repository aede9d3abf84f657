//! Parallel iterators against rayon, measured in the same run (same
//! machine, same moment) so the ratio means something on a small or noisy
//! machine. Each group holds locus and rayon with as many threads as this
//! machine has CPUs.
//!
//! Run: `cargo bench --bench iter`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "common/pools.rs"]
mod pools;
use pools::pools;

/// One group with the same body for both libraries: `$body` is written
/// once, with `$p` the prelude in scope (locus's or rayon's). Before the
/// timing, the body runs once with each library and the two results must
/// be equal: a group that computes something else for one of them (or
/// nothing, because the optimizer folded it) fails instead of reporting a
/// ratio.
macro_rules! both {
    ($c:expr, $name:expr, |$input:ident| $body:expr) => {
        both!($c, $name, state: (), |$input| $body)
    };
    // `$state` is made twice, one for each library, and the body sees
    // `$input: &mut` its library's copy.
    ($c:expr, $name:expr, state: $state:expr, |$input:ident| $body:expr) => {{
        let (lp, rp) = pools();
        let (mut locus_state, mut rayon_state) = ($state, $state);
        let mut with_locus = || {
            use locus::prelude::*;
            lp.install(|| {
                let $input = black_box(&mut locus_state);
                $body
            })
        };
        let mut with_rayon = || {
            use rayon::prelude::*;
            rp.install(|| {
                let $input = black_box(&mut rayon_state);
                $body
            })
        };
        assert_eq!(with_locus(), with_rayon(), "{}: locus and rayon disagree", $name);
        let mut g = $c.benchmark_group($name);
        g.sample_size(20);
        g.measurement_time(std::time::Duration::from_secs(2));
        g.bench_function("locus", |b| b.iter(&mut with_locus));
        g.bench_function("rayon", |b| b.iter(&mut with_rayon));
        g.finish();
    }};
}

fn bench_iter(c: &mut Criterion) {
    // A plain `sum of x * x over 0..n` is turned by LLVM into a closed
    // formula per leaf, whether `n` is a constant or not (both libraries
    // then measured only their split overhead: ~3 us and ~27 us for 10M
    // items). Squaring each item xored with a key the compiler cannot see
    // keeps one multiply-add per item; `N` is opaque as well.
    const N: u64 = 10_000_000;
    let key = black_box(0x0005_DEEC_E66D_u64);
    both!(c, "sum_of_squares/10M", |_x| {
        let s: u64 = (0..black_box(N))
            .into_par_iter()
            .map(|x| (x ^ key).wrapping_mul(x ^ key))
            .reduce(|| 0, u64::wrapping_add);
        black_box(s)
    });

    let v: Vec<u32> = (0..1_000_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    both!(c, "map_collect/1M", |_x| {
        let out: Vec<u64> = v.par_iter().map(|&x| u64::from(x) * 3).collect();
        black_box(out.len())
    });
    both!(c, "filter_count/1M", |_x| black_box(
        v.par_iter().filter(|&&x| x % 3 == 0).count()
    ));

    // Halves times small integers: every partial sum is exact in f64, so
    // both libraries' results are equal whatever their reduction order.
    let a: Vec<f64> = (0..1_000_000).map(|i| f64::from(i) * 0.5).collect();
    let b2: Vec<f64> = (0..1_000_000).map(|i| f64::from(i % 97)).collect();
    both!(c, "zip_dot/1M", |_x| {
        let d: f64 = a.par_iter().zip(&b2).map(|(x, y)| x * y).sum();
        black_box(d)
    });

    both!(c, "fold_reduce_histogram/1M", |_x| {
        let h = v
            .par_iter()
            .fold(
                || [0u32; 64],
                |mut h, &x| {
                    h[(x % 64) as usize] += 1;
                    h
                },
            )
            .reduce(
                || [0u32; 64],
                |mut l, r| {
                    l.iter_mut().zip(r).for_each(|(a, b)| *a += b);
                    l
                },
            );
        black_box(h)
    });

    let src: Vec<f64> = (0..1 << 20).map(|i| f64::from(i % 1000)).collect();
    both!(c, "chunks_mut_stencil/1M", state: vec![0.0f64; 1 << 20], |grid| {
        grid.par_chunks_mut(4096).enumerate().for_each(|(i, chunk)| {
            let base = i * 4096;
            for (j, cell) in chunk.iter_mut().enumerate() {
                let k = base + j;
                let l = src[k.saturating_sub(1)];
                let r = src[(k + 1).min(src.len() - 1)];
                *cell = 0.25 * l + 0.5 * src[k] + 0.25 * r;
            }
        });
        black_box((grid[12345], grid[(1 << 20) - 1]))
    });

    stencil_sweep(c);

    both!(c, "nested/1000x1000", |_x| {
        let s: u64 = (0..black_box(1000u64))
            .into_par_iter()
            .map(|i| (0..1000u64).into_par_iter().map(|j| i ^ j).sum::<u64>())
            .sum();
        black_box(s)
    });

    both!(c, "par_bridge/100k", |_x| {
        let s: u64 = (0..black_box(100_000u64)).par_bridge().map(|x| x % 7).sum();
        black_box(s)
    });
}

/// `STENCIL_PASSES` passes of a 3-point stencil, ping-pong between `$a`
/// and `$b`, chunk by chunk, on `$pool` (the prelude in scope decides
/// whose `par_chunks_mut`); `$wrap` is applied to the chunk iterator
/// before `enumerate` (e.g. a replay).
macro_rules! sweeps {
    ($bch:expr, $pool:expr, $a:ident, $b:ident, |$it:ident| $wrap:expr) => {
        $bch.iter(|| {
            $pool.install(|| {
                for _ in 0..STENCIL_PASSES {
                    let src: &[f64] = &$a;
                    let $it = $b.par_chunks_mut(STENCIL_CHUNK);
                    $wrap.enumerate().for_each(|(i, chunk)| {
                        let base = i * STENCIL_CHUNK;
                        for (j, cell) in chunk.iter_mut().enumerate() {
                            let k = base + j;
                            let l = src[k.saturating_sub(1)];
                            let r = src[(k + 1).min(src.len() - 1)];
                            *cell = 0.25 * l + 0.5 * src[k] + 0.25 * r;
                        }
                    });
                    std::mem::swap(&mut $a, &mut $b);
                }
            });
            black_box($a[12345])
        })
    };
}

const STENCIL_CHUNK: usize = 4096;
const STENCIL_PASSES: usize = 10;

/// Repeated sweeps over the same two grids, the case affinity replay is
/// for: locus with and without `with_replay`, and rayon, in one group.
/// Two sizes: grids of 1 MiB each (128K cells: a worker's share of both
/// fits a core's L2 on most machines, so keeping it on its core pays) and
/// of 8 MiB each (1M cells: L3-resident).
fn stencil_sweep(c: &mut Criterion) {
    let (lp, rp) = pools();
    for (name, cells) in [
        ("stencil_sweep/128Kx10", 1 << 17),
        ("stencil_sweep/1Mx10", 1 << 20),
    ] {
        let mut a = vec![1.0f64; cells];
        let mut b = vec![0.0f64; cells];
        a[cells / 2] = 1e6;
        let replay = locus::iter::Replay::new();
        let mut g = c.benchmark_group(name);
        g.sample_size(20);
        g.measurement_time(std::time::Duration::from_secs(3));
        g.bench_function("locus", |bch| {
            use locus::prelude::*;
            sweeps!(bch, lp, a, b, |it| it)
        });
        g.bench_function("locus_replay", |bch| {
            use locus::prelude::*;
            sweeps!(bch, lp, a, b, |it| it.with_replay(&replay))
        });
        g.bench_function("rayon", |bch| {
            use rayon::prelude::*;
            sweeps!(bch, rp, a, b, |it| it)
        });
        g.finish();
        eprintln!("{name} replay: {}", replay.stats());
    }
}

criterion_group!(benches, bench_iter);
criterion_main!(benches);
