//! Both sides of the search backoff's trade, against rayon, in one run:
//! what a lightly loaded pool burns, and how fast short calls issued back
//! to back run (see `docs/light-load.md`).
//!
//! ```text
//! cargo bench --bench light_load [-- [FILTER] [--runs N] [--pairs N]]
//! ```
//!
//! - `light/<period>`: the main thread hands the pool one no-op `spawn`
//!   every `period` (1 ms, 100 us; absolute deadlines, so a late wakeup
//!   does not stretch the schedule) for a [`WINDOW`]. The cost is the CPU
//!   time of the process (`getrusage`, user + system) minus the main
//!   thread's own (`CLOCK_THREAD_CPUTIME_ID`): what the pool's workers
//!   burnt, printed as a share of one core. Each run measures a window of
//!   locus and one of rayon, the order alternating from run to run; the
//!   statistic is the median over `--runs` (default 7) of the per-run
//!   ratio locus/rayon. A floor is measured in the same runs (the three
//!   windows rotate their order): one `std` thread blocked on a channel
//!   and woken for each job, which is the least a pool that parks between
//!   jobs pays; floor/rayon is the smallest ratio such a pool can show at
//!   that moment. `FILTER` keeps the cases whose name contains it.
//! - `calls/<name>`: a short parallel iterator (`sum` of the squares of
//!   a slice of 20k or 200k `u64`) called in a loop, nothing between the calls: the pattern that
//!   the search's yields keep the workers awake for. A sample is a batch
//!   of calls lasting about [`BATCH`]; locus's and rayon's batches
//!   alternate in pairs (the order alternating too), and the statistic is
//!   the median over `--pairs` (default 40) of the per-pair ratio of the
//!   times per call. Locus's parks per call are printed beside it.
//!
//! Every pool has one thread per CPU. Both pools exist for the whole run;
//! the one not being measured is parked (it burns nothing).

use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "common/cli.rs"]
mod cli;
#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/pools.rs"]
mod pools;
use pools::pools;

/// How long one light-load window lasts.
const WINDOW: Duration = Duration::from_millis(250);
/// Lets every worker of both pools finish searching and park.
const SETTLE: Duration = Duration::from_millis(20);
/// The time one batch of calls should take.
const BATCH: Duration = Duration::from_millis(10);

/// The workers' CPU time while `spawn` is called every `period` for
/// [`WINDOW`], as a share of one core.
fn light_window(period: Duration, spawn: &dyn Fn()) -> f64 {
    std::thread::sleep(SETTLE);
    let (p0, t0) = (cpu::process_cpu(), cpu::thread_cpu());
    let start = Instant::now();
    let mut next = start;
    while next - start < WINDOW {
        spawn();
        next += period;
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        }
    }
    let elapsed = start.elapsed();
    let pool = (cpu::process_cpu() - p0).saturating_sub(cpu::thread_cpu() - t0);
    pool.as_secs_f64() / elapsed.as_secs_f64()
}

/// The median of `v` (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The smallest of `v`.
fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The largest of `v`.
fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

/// Calls `f` `n` times; the elapsed time.
fn time_calls(n: u64, f: &mut dyn FnMut()) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed()
}

/// Command-line options.
struct Opts {
    runs: usize,
    pairs: usize,
    /// Only the cases whose name contains this.
    filter: String,
}

fn opts() -> Opts {
    let mut o = Opts {
        runs: 7,
        pairs: 40,
        filter: String::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |what: &str| cli::count("light_load", what, args.next());
        match a.as_str() {
            "--runs" => o.runs = num("--runs"),
            "--pairs" => o.pairs = num("--pairs"),
            // `cargo bench` passes `--bench`.
            other if other.starts_with('-') => eprintln!("light_load: ignoring {other}"),
            other => o.filter = other.to_string(),
        }
    }
    o
}

fn main() {
    let o = opts();
    let (locus_pool, rayon_pool) = pools();
    println!(
        "light_load: {} threads per pool, {} runs, {} pairs",
        locus_pool.current_num_threads(),
        o.runs,
        o.pairs
    );
    for (name, period) in [
        ("1ms", Duration::from_millis(1)),
        ("100us", Duration::from_micros(100)),
    ] {
        if format!("light/{name}").contains(&o.filter) {
            light_case(name, period, &o, &locus_pool, &rayon_pool);
        }
    }
    for (name, n) in [
        ("sum_squares/20k", 20_000usize),
        ("sum_squares/200k", 200_000),
    ] {
        if format!("calls/{name}").contains(&o.filter) {
            calls_case(name, n, &o, &locus_pool, &rayon_pool);
        }
    }
}

/// `light/<name>`: the CPU the pools and the floor burn at one job per
/// `period`, over `o.runs` runs.
fn light_case(
    name: &str,
    period: Duration,
    o: &Opts,
    locus_pool: &locus::ThreadPool,
    rayon_pool: &rayon::ThreadPool,
) {
    // The floor: one thread blocked on a channel, woken once per job
    // (what any pool that parks between jobs pays at the least). It
    // runs in every run, in the rotation with the two pools, so that
    // floor/rayon (the smallest ratio such a pool can show under these
    // conditions) is measured at the same moments as locus/rayon.
    let (tx, rx) = std::sync::mpsc::channel::<Box<dyn FnOnce() + Send>>();
    let floor_thread = std::thread::spawn(move || {
        while let Ok(job) = rx.recv() {
            job();
        }
    });
    let (mut l, mut r, mut f) = (vec![], vec![], vec![]);
    let (mut ratio, mut floor_ratio, mut over_floor) = (vec![], vec![], vec![]);
    let parks0 = locus_pool.stats().total().parks;
    for run in 0..o.runs {
        let lw = || light_window(period, &|| locus_pool.spawn(|| black_box(())));
        let rw = || light_window(period, &|| rayon_pool.spawn(|| black_box(())));
        let fw = || light_window(period, &|| tx.send(Box::new(|| black_box(()))).unwrap());
        // Three orders, one per run, so that each side is measured first,
        // second and third equally often.
        let windows: [&dyn Fn() -> f64; 3] = [&lw, &rw, &fw];
        let mut shares = [0.0f64; 3];
        for k in 0..3 {
            let i = (run + k) % 3;
            shares[i] = windows[i]();
        }
        let [a, b, c] = shares;
        l.push(a);
        r.push(b);
        f.push(c);
        ratio.push(a / b);
        floor_ratio.push(c / b);
        over_floor.push(a / c);
    }
    drop(tx);
    floor_thread.join().unwrap();
    let jobs = (o.runs as f64) * (WINDOW.as_secs_f64() / period.as_secs_f64());
    let parks = (locus_pool.stats().total().parks - parks0) as f64 / jobs;
    println!(
        "light/{name}: locus {:.1}% of a core, rayon {:.1}%, locus/rayon median {:.2} \
         (min {:.2}, max {:.2}); locus parks per job {parks:.2}; floor (one thread \
         woken per job) {:.1}%, floor/rayon median {:.2} (min {:.2}, max {:.2}); locus/floor median {:.2}",
        100.0 * median(&mut l),
        100.0 * median(&mut r),
        median(&mut ratio.clone()),
        min(&ratio),
        max(&ratio),
        100.0 * median(&mut f),
        median(&mut floor_ratio.clone()),
        min(&floor_ratio),
        max(&floor_ratio),
        median(&mut over_floor),
    );
}

/// `calls/<name>`: back-to-back `sum` calls over `n` elements, locus's
/// and rayon's batches alternated over `o.pairs` pairs.
fn calls_case(
    name: &str,
    n: usize,
    o: &Opts,
    locus_pool: &locus::ThreadPool,
    rayon_pool: &rayon::ThreadPool,
) {
    let data: Vec<u64> = (0..n as u64).collect();
    let data = &data[..];
    let mut lf = || {
        use locus::prelude::*;
        let s = locus_pool.install(|| black_box(data).par_iter().map(|&x| x * x).sum::<u64>());
        black_box(s);
    };
    let mut rf = || {
        use rayon::prelude::*;
        let s = rayon_pool.install(|| black_box(data).par_iter().map(|&x| x * x).sum::<u64>());
        black_box(s);
    };
    // Warm-up, and the batch size from it.
    let t = Instant::now();
    let mut calls = 0u64;
    while t.elapsed() < Duration::from_millis(300) {
        lf();
        rf();
        calls += 1;
    }
    let per_call = t.elapsed() / (2 * calls as u32);
    let batch = (BATCH.as_nanos() / per_call.as_nanos().max(1)).max(1) as u64;
    let (mut l, mut r, mut ratio) = (vec![], vec![], vec![]);
    let parks0 = locus_pool.stats().total().parks;
    for pair in 0..o.pairs {
        let (a, b) = if pair % 2 == 0 {
            let a = time_calls(batch, &mut lf);
            (a, time_calls(batch, &mut rf))
        } else {
            let b = time_calls(batch, &mut rf);
            (time_calls(batch, &mut lf), b)
        };
        let (a, b) = (
            a.as_secs_f64() / batch as f64,
            b.as_secs_f64() / batch as f64,
        );
        l.push(a);
        r.push(b);
        ratio.push(a / b);
    }
    let parks =
        (locus_pool.stats().total().parks - parks0) as f64 / (o.pairs as f64 * batch as f64);
    println!(
        "calls/{name}: locus {:.1} us per call, rayon {:.1} us, locus/rayon median {:.3} \
         (quartiles {:.3} to {:.3}); locus parks per call {parks:.2}",
        1e6 * median(&mut l),
        1e6 * median(&mut r),
        median(&mut ratio.clone()),
        {
            ratio.sort_by(f64::total_cmp);
            ratio[ratio.len() / 4]
        },
        ratio[3 * ratio.len() / 4],
    );
}
