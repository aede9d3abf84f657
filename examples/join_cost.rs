//! The cost of a `join` that nobody steals: fib(n) with `join` at every
//! level (no cutoff) in a pool of the given size, for locus, rayon, chili
//! or serially, `reps` times, printing the best and the median time and the time per
//! `join` above the serial fib's. Made to run under an instruction counter,
//! where the machine's load does not move the numbers
//! (`docs/join-cost.md`):
//!
//! ```text
//! cargo build --release --example join_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p \
//!     target/release/examples/join_cost locus 1 25 1
//! ```
//!
//! Arguments: `locus|locus-in|rayon|chili|serial` (`locus-in` times each
//! fib inside one `install`, without the call's handoff to the pool and
//! back), threads (default 1), n (default
//! 30), reps (default 10).
#[path = "../benches/common/fib.rs"]
mod fib;
use fib::{fib_chili, fib_locus, fib_rayon};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_serial(black_box(n - 1)) + fib_serial(black_box(n - 2))
    }
}

/// The number of `join` calls of fib(n): one per call with n >= 2.
fn joins(n: u64) -> u64 {
    // calls(n) = fib(n + 1) * 2 - 1; leaves (n < 2) = fib(n + 1).
    fib_serial(n + 1) - 1
}

/// The best and the median time of `reps` runs of `f`.
fn best(reps: usize, mut f: impl FnMut() -> u64, expected: u64) -> (Duration, Duration) {
    let mut t: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            assert_eq!(f(), expected);
            t.elapsed()
        })
        .collect();
    t.sort();
    (t[0], t[t.len() / 2])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map_or("locus", String::as_str);
    let threads: usize = args.get(1).map_or(1, |s| s.parse().expect("threads"));
    let n: u64 = args.get(2).map_or(30, |s| s.parse().expect("n"));
    let reps: usize = args.get(3).map_or(10, |s| s.parse().expect("reps"));
    let expected = fib_serial(n);
    let (time, median) = match which {
        "locus" => {
            let pool = locus::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("locus pool");
            best(reps, || pool.install(|| fib_locus(black_box(n))), expected)
        }
        // The same fib, timed inside one `install`: without the handoff of
        // each call to the pool and back (two cross-thread wakeups, which
        // chili's `scope`, run on the calling thread, does not pay).
        "locus-in" => {
            let pool = locus::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("locus pool");
            pool.install(|| best(reps, || fib_locus(black_box(n)), expected))
        }
        "rayon" => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("rayon pool");
            best(reps, || pool.install(|| fib_rayon(black_box(n))), expected)
        }
        "chili" => {
            let pool = chili::ThreadPool::with_config(chili::Config {
                thread_count: std::num::NonZero::new(threads),
                ..Default::default()
            });
            best(
                reps,
                || fib_chili(&mut pool.scope(), black_box(n)),
                expected,
            )
        }
        "serial" => best(reps, || fib_serial(black_box(n)), expected),
        other => panic!("unknown pool {other:?}: locus, locus-in, rayon, chili or serial"),
    };
    let serial = best(reps, || fib_serial(black_box(n)), expected).0;
    let per_join = (time.as_secs_f64() - serial.as_secs_f64()) / joins(n) as f64;
    println!(
        "{which} threads={threads} fib({n}): best {:.3} ms, median {:.3} ms, serial {:.3} ms, \
         {:.2} ns per join",
        time.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        serial.as_secs_f64() * 1e3,
        per_join * 1e9
    );
}
