//! Parallel iterators against rayon, measured in the same run (same
//! machine, same moment) so the ratio means something on a small or noisy
//! machine. Each group holds locus and rayon with as many threads as this
//! machine has CPUs.
//!
//! Run: `cargo bench --bench iter`. The pipelines are those of
//! `common/iter_cases.rs`; `benches/iter_paired.rs` times the same ones in
//! alternating pairs, which a noisy machine disturbs less.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "common/pools.rs"]
mod pools;
use pools::pools;
#[macro_use]
#[path = "common/iter_cases.rs"]
mod iter_cases;

/// One criterion group per case (the form `iter_cases!` calls): locus's
/// and rayon's runs of the body ([`locus_and_rayon`]) side by side.
macro_rules! both {
    ($c:expr, $name:expr, state: $state:expr, |$input:ident| $body:expr) => {
        locus_and_rayon!($name, state: $state, |$input| $body, |with_locus, with_rayon| {
            let mut g = $c.benchmark_group($name);
            g.sample_size(20);
            g.measurement_time(std::time::Duration::from_secs(2));
            g.bench_function("locus", |b| b.iter(&mut with_locus));
            g.bench_function("rayon", |b| b.iter(&mut with_rayon));
            g.finish();
        })
    };
}

fn bench_iter(c: &mut Criterion) {
    iter_cases!(both, c);
    stencil_sweep(c);
}

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
        let (mut a, mut b) = iter_cases::stencil_grids(cells);
        let replay = locus::iter::Replay::new();
        let mut g = c.benchmark_group(name);
        g.sample_size(20);
        g.measurement_time(std::time::Duration::from_secs(3));
        g.bench_function("locus", |bch| {
            use locus::prelude::*;
            bch.iter(|| stencil_sweeps!(lp, a, b, |it| it))
        });
        g.bench_function("locus_replay", |bch| {
            use locus::prelude::*;
            bch.iter(|| stencil_sweeps!(lp, a, b, |it| it.with_replay(&replay)))
        });
        g.bench_function("rayon", |bch| {
            use rayon::prelude::*;
            bch.iter(|| stencil_sweeps!(rp, a, b, |it| it))
        });
        g.finish();
        eprintln!("{name} replay: {}", replay.stats());
    }
}

criterion_group!(benches, bench_iter);
criterion_main!(benches);
