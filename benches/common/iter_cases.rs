//! The parallel-iterator pipelines both iterator benches time
//! (`benches/iter.rs` with criterion, `benches/iter_paired.rs` in
//! alternating pairs), written once (`#[path]` include).
//!
//! `iter_cases!(each, ctx)` builds the inputs and calls
//! `each!(ctx, NAME, state: STATE, |input| BODY)` for every case; `BODY` is
//! written once for both libraries: the caller brings `locus::prelude::*`
//! or `rayon::prelude::*` into scope around it, and runs it on its pool.

/// The two sides of one case: builds a locus and a rayon pool
/// (`pools()`) and a `$state` for each, binds `$l` and `$r` to closures
/// that run `$body` with locus's (rayon's) prelude in scope on its pool
/// (`$input`: `&mut` that library's state), checks that both compute the
/// same result (a case that computes something else for one of them, or
/// nothing because the optimizer folded it, fails instead of reporting a
/// ratio), then evaluates `$then`.
macro_rules! locus_and_rayon {
    ($name:expr, state: $state:expr, |$input:ident| $body:expr, |$l:ident, $r:ident| $then:expr) => {{
        let (lp, rp) = pools();
        let (mut locus_state, mut rayon_state) = ($state, $state);
        let mut $l = || {
            use locus::prelude::*;
            lp.install(|| {
                let $input = black_box(&mut locus_state);
                $body
            })
        };
        let mut $r = || {
            use rayon::prelude::*;
            rp.install(|| {
                let $input = black_box(&mut rayon_state);
                $body
            })
        };
        assert_eq!($l(), $r(), "{}: locus and rayon disagree", $name);
        $then
    }};
}

/// Ten passes of a 3-point stencil, ping-pong between the grids `$a` and
/// `$b`, chunk by chunk (`par_chunks_mut(4096)`),
/// inside one `install` on `$pool` (the prelude in scope decides whose
/// `par_chunks_mut`); `$wrap` is applied to the chunk iterator before
/// `enumerate` (e.g. a replay). Evaluates to a cell of the result.
#[allow(unused_macros)]
macro_rules! stencil_sweeps {
    ($pool:expr, $a:ident, $b:ident, |$it:ident| $wrap:expr) => {{
        /// The chunk length.
        const STENCIL_CHUNK: usize = 4096;
        /// The passes of one call.
        const STENCIL_PASSES: usize = 10;
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
    }};
}

/// The two grids of [`stencil_sweeps`] for `cells` cells: ones with a
/// spike in the middle, and zeros.
#[allow(dead_code)]
pub fn stencil_grids(cells: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = vec![1.0f64; cells];
    a[cells / 2] = 1e6;
    (a, vec![0.0f64; cells])
}

/// Calls `$each!($ctx, name, state: expr, |input| body)` for each case.
macro_rules! iter_cases {
    ($each:ident, $ctx:expr) => {{
        // A plain `sum of x * x over 0..n` is turned by LLVM into a closed
        // formula per leaf, whether `n` is a constant or not (both libraries
        // then measured only their split overhead: ~3 us and ~27 us for 10M
        // items). Squaring each item xored with a key the compiler cannot see
        // keeps one multiply-add per item; `N` is opaque as well.
        const N: u64 = 10_000_000;
        let key = black_box(0x0005_DEEC_E66D_u64);
        $each!($ctx, "sum_of_squares/10M", state: (), |_x| {
            let s: u64 = (0..black_box(N))
                .into_par_iter()
                .map(|x| (x ^ key).wrapping_mul(x ^ key))
                .reduce(|| 0, u64::wrapping_add);
            black_box(s)
        });

        let v: Vec<u32> = (0..1_000_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        $each!($ctx, "map_collect/1M", state: (), |_x| {
            let out: Vec<u64> = v.par_iter().map(|&x| u64::from(x) * 3).collect();
            black_box(out.len())
        });
        $each!($ctx, "filter_count/1M", state: (), |_x| black_box(
            v.par_iter().filter(|&&x| x % 3 == 0).count()
        ));

        // Halves times small integers: every partial sum is exact in f64, so
        // both libraries' results are equal whatever their reduction order.
        let a: Vec<f64> = (0..1_000_000).map(|i| f64::from(i) * 0.5).collect();
        let b2: Vec<f64> = (0..1_000_000).map(|i| f64::from(i % 97)).collect();
        $each!($ctx, "zip_dot/1M", state: (), |_x| {
            let d: f64 = a.par_iter().zip(&b2).map(|(x, y)| x * y).sum();
            black_box(d)
        });

        $each!($ctx, "fold_reduce_histogram/1M", state: (), |_x| {
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
        $each!($ctx, "chunks_mut_stencil/1M", state: vec![0.0f64; 1 << 20], |grid| {
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

        $each!($ctx, "nested/1000x1000", state: (), |_x| {
            let s: u64 = (0..black_box(1000u64))
                .into_par_iter()
                .map(|i| (0..1000u64).into_par_iter().map(|j| i ^ j).sum::<u64>())
                .sum();
            black_box(s)
        });

        $each!($ctx, "par_bridge/100k", state: (), |_x| {
            let s: u64 = (0..black_box(100_000u64)).par_bridge().map(|x| x % 7).sum();
            black_box(s)
        });
    }};
}
