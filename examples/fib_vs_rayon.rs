//! Quick fork-join comparison with rayon (same machine, same moment):
//! `cargo run --release --example fib_vs_rayon [n] [reps]`. Ratios only; see
//! DESIGN.md on honest measurement.
use std::time::{Duration, Instant};

fn fib_locus(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib_locus(n - 1), || fib_locus(n - 2));
    a + b
}

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

fn best(reps: usize, mut f: impl FnMut() -> u64) -> Duration {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let n: u64 = std::env::args().nth(1).map_or(30, |s| s.parse().unwrap());
    let reps: usize = std::env::args().nth(2).map_or(10, |s| s.parse().unwrap());
    let threads: usize = std::env::args().nth(3).map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get()),
        |s| s.parse().unwrap(),
    );
    let lp = locus::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let rp = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let expect = fib_seq(n);
    let seq = best(reps, || fib_seq(n));
    // Interleave to share the machine's mood.
    let mut l = Duration::MAX;
    let mut r = Duration::MAX;
    for _ in 0..reps {
        l = l.min(best(1, || lp.install(|| fib_locus(n))));
        r = r.min(best(1, || rp.install(|| fib_rayon(n))));
    }
    assert_eq!(lp.install(|| fib_locus(n)), expect);
    println!(
        "fib({n}), {threads} threads, best of {reps}: sequential {seq:?}, locus {l:?}, rayon {r:?}, locus/rayon = {:.2}",
        l.as_secs_f64() / r.as_secs_f64()
    );
    println!("{}", lp.stats().total().jobs_run);
}
