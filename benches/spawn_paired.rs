//! `Scope::spawn` against rayon in alternating pairs, wall time and CPU.
//!
//! ```text
//! cargo bench --bench spawn_paired [-- [FILTER] [--pairs N]]
//! ```
//!
//! Cases: one scope with 100 000 tiny `spawn`s (`scope_spawn/100k`), the
//! same with `spawn_fifo` (`scope_spawn_fifo/100k`), and a short scope of
//! 1 000 spawns (`scope_spawn/1k`). Each pair times a batch of locus calls
//! and a batch of rayon calls (the order alternates), so a disturbance of
//! the loaded machine falls on both sides of most pairs. Per case it
//! prints the medians per call, the median of the per-pair wall ratios
//! locus/rayon with its quartiles, and the median per-pair ratio of
//! process CPU time (`getrusage`: every thread, so the other pool's
//! workers winding down after their batch count too, on both sides).
//! `benches/spawn_wake.rs` has the criterion group of the 100k case;
//! `docs/spawn-cost.md` what was measured with this one.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[path = "common/cli.rs"]
mod cli;
#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/pools.rs"]
mod pools;
use pools::pools;

/// The time one batch of calls should take.
const BATCH: Duration = Duration::from_millis(60);

/// The warm-up per case, alternating the two libraries.
const WARM_UP: Duration = Duration::from_millis(400);

/// `$n` tiny jobs spawned with `$spawn` in one `$scope` of `$pool` (the
/// same text for locus and rayon, whose scope types differ).
macro_rules! spawn_n {
    ($pool:expr, $scope:ident, $spawn:ident, $n:expr) => {{
        let count = AtomicUsize::new(0);
        $pool.$scope(|s| {
            for _ in 0..$n {
                s.$spawn(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(count.into_inner(), $n);
    }};
}

/// The median of a sorted slice.
fn median<T: Copy>(v: &[T]) -> T {
    v[v.len() / 2]
}

/// Times `locus` and `rayon` in `pairs` alternating pairs of batches and
/// prints the case.
fn measure(name: &str, pairs: usize, mut locus: impl FnMut(), mut rayon: impl FnMut()) {
    let batch = |f: &mut dyn FnMut(), n: u32| {
        let (t, c) = (Instant::now(), cpu::process_cpu());
        for _ in 0..n {
            f();
        }
        (t.elapsed(), cpu::process_cpu() - c)
    };
    let start = Instant::now();
    let (mut calls, mut spent) = (0u32, Duration::ZERO);
    while start.elapsed() < WARM_UP || calls < 3 {
        spent += batch(&mut locus, 1).0 + batch(&mut rayon, 1).0;
        calls += 1;
    }
    let per_call = spent / (2 * calls);
    let n = ((BATCH.as_secs_f64() / per_call.as_secs_f64().max(1e-9)).ceil() as u32).max(1);
    let (mut lt, mut rt, mut wall, mut cpu) = (vec![], vec![], vec![], vec![]);
    for i in 0..pairs {
        let ((lw, lc), (rw, rc)) = if i % 2 == 0 {
            let l = batch(&mut locus, n);
            (l, batch(&mut rayon, n))
        } else {
            let r = batch(&mut rayon, n);
            (batch(&mut locus, n), r)
        };
        lt.push(lw / n);
        rt.push(rw / n);
        wall.push(lw.as_secs_f64() / rw.as_secs_f64());
        cpu.push(lc.as_secs_f64() / rc.as_secs_f64().max(1e-9));
    }
    lt.sort();
    rt.sort();
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let q = |v: &[f64], k: usize| v[(k * (v.len() - 1)) / 4];
    println!(
        "{name:<22} locus {:>9.2?} rayon {:>9.2?} wall ratio {:.2} (quartiles {:.2} to {:.2}) cpu ratio {:.2} (quartiles {:.2} to {:.2}), {pairs} pairs of {n} calls",
        median(&lt),
        median(&rt),
        q(&wall, 2),
        q(&wall, 1),
        q(&wall, 3),
        q(&cpu, 2),
        q(&cpu, 1),
        q(&cpu, 3),
    );
}

fn main() {
    let (mut filter, mut pairs) = (None, 20usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => {}
            "--pairs" => pairs = cli::pairs("spawn_paired", args.next()),
            o if o.starts_with('-') => eprintln!("spawn_paired: ignoring {o}"),
            f => filter = Some(f.to_string()),
        }
    }
    let wants = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let (lp, rp) = pools();
    println!(
        "locus / rayon, {} threads each, alternating pairs of batches",
        pools::threads()
    );
    // A case: its name, the scope and spawn methods it calls, the spawns.
    macro_rules! case {
        ($name:expr, $scope:ident, $spawn:ident, $n:expr) => {
            if wants($name) {
                measure(
                    $name,
                    pairs,
                    || spawn_n!(lp, $scope, $spawn, black_box($n)),
                    || spawn_n!(rp, $scope, $spawn, black_box($n)),
                );
            }
        };
    }
    case!("scope_spawn/100k", scope, spawn, 100_000);
    case!("scope_spawn_fifo/100k", scope_fifo, spawn_fifo, 100_000);
    case!("scope_spawn/1k", scope, spawn, 1_000);
}
