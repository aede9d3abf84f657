//! Measurements of the real pools on this machine, for the simulator's
//! calibration (`scripts/calibrate.py` runs it and reads its JSON; see
//! docs/calibration.md).
//!
//! ```text
//! cargo run --release --features sim --example calibrate -- \
//!     [--rounds R] [--fib N] [--items N] [--item-work K] [--workers 1,2] [--micro]
//! ```
//!
//! Prints one JSON object:
//! - `fib`: fib(N) through `join` (the `fork_join` bench's kernel) on a
//!   fresh locus pool and a fresh rayon pool of each worker count, and
//!   serially (the same recursion with opaque calls), `rounds` times,
//!   alternating which pool runs first; per locus run its counters
//!   (steals with private-half claims, promotions, wakeups, parks).
//! - `iter`: `(0..N).into_par_iter()` folding items of `K` steps of an LCG
//!   each, as fib; per run also its leaves (calls of `fold`'s identity).
//! - `micro` (with `--micro`): the costs the model charges, each the
//!   median of many samples: a cache-line round trip between two threads,
//!   a `SeqCst` fence, an owned-line RMW, a `spin_loop` hint, `yield_now`,
//!   a crossbeam push+pop, an empty steal, a successful steal from another
//!   thread, a park/unpark wakeup, and `membarrier`, alone and while
//!   another thread of the process spins (`heavy_fence_busy`).
//!
//! Times are nanoseconds of wall clock. Nothing here asserts: the script
//! compares.

#[path = "../benches/common/cpu.rs"]
mod cpu;
#[path = "../benches/common/fib.rs"]
mod fib;
use fib::{fib_locus, fib_rayon};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: calibrate [--rounds R] [--fib N] [--items N] [--item-work K] \
[--workers 1,2] [--micro]";

struct Args {
    rounds: usize,
    fib: u64,
    items: u64,
    item_work: u64,
    workers: Vec<usize>,
    micro: bool,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        rounds: 7,
        fib: 30,
        items: 1 << 17,
        item_work: 64,
        workers: vec![1, 2],
        micro: false,
    };
    let mut argv = std::env::args().skip(1);
    while let Some(flag) = argv.next() {
        let mut num = || -> Result<u64, String> {
            argv.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{flag} needs a number\n{USAGE}"))
        };
        match flag.as_str() {
            "--rounds" => a.rounds = num()?.max(1) as usize,
            "--fib" => a.fib = num()?,
            "--items" => a.items = num()?,
            "--item-work" => a.item_work = num()?,
            "--workers" => {
                let v = argv.next().ok_or("--workers needs a list")?;
                a.workers = v
                    .split(',')
                    .map(|w| w.parse().map_err(|_| format!("--workers: `{w}`")))
                    .collect::<Result<_, _>>()?;
            }
            "--micro" => a.micro = true,
            _ => return Err(format!("unknown argument `{flag}`\n{USAGE}")),
        }
    }
    Ok(a)
}

/// The same recursion without `join`; the calls go through an opaque
/// function pointer so the compiler keeps one call per node, as the pools'
/// versions have (it would otherwise turn one of the two calls into a loop).
fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let f: fn(u64) -> u64 = black_box(fib_serial);
    f(n - 1) + f(n - 2)
}

/// One item of the iterator workload: `k` dependent LCG steps.
///
/// Never inlined, so that the serial loop and both pools run the same
/// machine code: inlined, each copy of the loop got its own alignment, and
/// on this machine's Xeon that alone made one pool's copy 20% slower than
/// the other's with identical instructions.
#[inline(never)]
fn item(i: u64, k: u64) -> u64 {
    let mut x = i;
    for _ in 0..k {
        // Opaque each step: one dependent chain per item, never vectorized.
        x = black_box(x)
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    x
}

/// The counters of one locus run: (steals + claims, promotions, wakeups, parks).
fn counts(s: &locus::PoolStats) -> [u64; 4] {
    let t = s.total();
    [
        t.total_steals() + t.claimed,
        t.promoted,
        t.wakeups.iter().sum::<u64>() + s.external_wakeups.iter().sum::<u64>(),
        t.parks,
    ]
}

fn locus_pool(n: usize) -> locus::ThreadPool {
    locus::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a locus pool")
}

fn rayon_pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a rayon pool")
}

/// Lets a new pool's workers finish starting and park: the simulator
/// starts a pool with every worker parked.
fn settle() {
    std::thread::sleep(Duration::from_millis(20));
}

/// The process's CPU time (user and system, every thread), in ns.
fn cpu_ns() -> u64 {
    cpu::process_cpu().as_nanos() as u64
}

/// Wall-clock and CPU time of `f`, in ns: on a shared machine the CPU
/// time of a one-worker run is its work without the time others took
/// the CPU away.
fn time<R>(f: impl FnOnce() -> R) -> ((u64, u64), R) {
    let c = cpu_ns();
    let t = Instant::now();
    let r = f();
    ((t.elapsed().as_nanos() as u64, cpu_ns() - c), r)
}

fn list(v: &[u64]) -> String {
    let s: Vec<String> = v.iter().map(u64::to_string).collect();
    format!("[{}]", s.join(", "))
}

/// `{"wall": [..], "cpu": [..]}` of (wall, cpu) pairs.
fn times(v: &[(u64, u64)]) -> String {
    let (w, c): (Vec<u64>, Vec<u64>) = v.iter().copied().unzip();
    format!("{{\"wall\": {}, \"cpu\": {}}}", list(&w), list(&c))
}

fn list4(v: &[[u64; 4]]) -> String {
    let s: Vec<String> = v.iter().map(|c| list(c)).collect();
    format!("[{}]", s.join(", "))
}

/// Runs of one kernel: serial times, and per worker count the locus and
/// rayon times and the locus counters, alternating which pool goes first.
struct Runs {
    serial: Vec<(u64, u64)>,
    locus: Vec<Vec<(u64, u64)>>,
    rayon: Vec<Vec<(u64, u64)>>,
    counters: Vec<Vec<[u64; 4]>>,
    leaves_locus: Vec<Vec<u64>>,
    leaves_rayon: Vec<Vec<u64>>,
}

impl Runs {
    fn json(&self, workers: &[usize], extra: &str) -> String {
        let mut s = format!(
            "{{\"serial\": {}{extra}, \"workers\": {{",
            times(&self.serial)
        );
        for (i, n) in workers.iter().enumerate() {
            s += &format!(
                "{}\"{n}\": {{\"locus\": {}, \"rayon\": {}, \"locus_counts\": {}, \
                 \"locus_leaves\": {}, \"rayon_leaves\": {}}}",
                if i == 0 { "" } else { ", " },
                times(&self.locus[i]),
                times(&self.rayon[i]),
                list4(&self.counters[i]),
                list(&self.leaves_locus[i]),
                list(&self.leaves_rayon[i]),
            );
        }
        s + "}}"
    }
}

/// `rounds` alternating runs: `serial()`, then for each worker count a
/// fresh pool of each kind running `on_locus` / `on_rayon` (each returning
/// its leaf count, 0 if not counted).
fn alternate(
    a: &Args,
    serial: &dyn Fn(),
    on_locus: &(dyn Fn() -> u64 + Sync),
    on_rayon: &(dyn Fn() -> u64 + Sync),
) -> Runs {
    let k = a.workers.len();
    let mut r = Runs {
        serial: Vec::new(),
        locus: vec![Vec::new(); k],
        rayon: vec![Vec::new(); k],
        counters: vec![Vec::new(); k],
        leaves_locus: vec![Vec::new(); k],
        leaves_rayon: vec![Vec::new(); k],
    };
    for round in 0..a.rounds {
        r.serial.push(time(serial).0);
        for (i, &n) in a.workers.iter().enumerate() {
            let run_locus = |r: &mut Runs| {
                let pool = locus_pool(n);
                settle();
                let (t, leaves) = time(|| pool.install(on_locus));
                r.counters[i].push(counts(&pool.stats()));
                r.locus[i].push(t);
                r.leaves_locus[i].push(leaves);
            };
            let run_rayon = |r: &mut Runs| {
                let pool = rayon_pool(n);
                settle();
                let (t, leaves) = time(|| pool.install(on_rayon));
                r.rayon[i].push(t);
                r.leaves_rayon[i].push(leaves);
            };
            if round % 2 == 0 {
                run_locus(&mut r);
                run_rayon(&mut r);
            } else {
                run_rayon(&mut r);
                run_locus(&mut r);
            }
        }
    }
    r
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The median over `samples` of the per-operation time of `batch`
/// operations of `f`.
fn per_op(samples: usize, batch: u64, mut f: impl FnMut(u64)) -> f64 {
    median(
        (0..samples)
            .map(|_| {
                let t = Instant::now();
                f(batch);
                t.elapsed().as_nanos() as f64 / batch as f64
            })
            .collect(),
    )
}

/// Spins until `flag` holds `v`, yielding now and then: the other thread
/// may be waiting for a CPU on a shared machine.
fn wait_for(flag: &AtomicU64, v: u64) {
    let mut spins = 0u32;
    while flag.load(Ordering::Acquire) != v {
        spins += 1;
        if spins % 256 == 0 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Two threads bouncing `iters` times through `flag` (a cache-line round
/// trip each way); `on_ping` runs on the second thread before it answers.
fn ping_pong(iters: u64, setup: impl Fn(u64) + Sync, on_ping: impl Fn() + Sync) -> f64 {
    let flag = AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..iters {
                wait_for(&flag, 2 * i + 1);
                on_ping();
                flag.store(2 * i + 2, Ordering::Release);
            }
        });
        let t = Instant::now();
        for i in 0..iters {
            setup(i);
            flag.store(2 * i + 1, Ordering::Release);
            wait_for(&flag, 2 * i + 2);
        }
        t.elapsed().as_nanos() as f64 / iters as f64
    })
}

fn micro() -> String {
    // Ping-pong needs both threads on a CPU at once: on a shared machine
    // most samples include a wait for one; the least of many short
    // samples is the hardware's cost.
    let n = 100;
    let samples = 60;
    let least = |v: Vec<f64>| v.into_iter().fold(f64::INFINITY, f64::min);
    // A round trip: two cache-line transfers.
    let round_trip = least((0..samples).map(|_| ping_pong(n, |_| (), || ())).collect());
    // The same with a crossbeam push by the first thread and a steal by
    // the second: the steal's cost over the bare round trip.
    let deque = crossbeam_deque::Worker::new_lifo();
    let stealer = deque.stealer();
    let deque = std::sync::Mutex::new(deque);
    let with_steal = least(
        (0..samples)
            .map(|_| {
                ping_pong(
                    n,
                    |i| deque.lock().unwrap().push(i),
                    || assert!(stealer.steal().is_success()),
                )
            })
            .collect(),
    );
    let lock_only = least(
        (0..samples)
            .map(|_| ping_pong(n, |_| drop(deque.lock().unwrap()), || ()))
            .collect(),
    );
    let x = AtomicU64::new(0);
    // A store between fences, or the compiler merges them.
    let fence = per_op(21, 100_000, |b| {
        for i in 0..b {
            x.store(i, Ordering::Relaxed);
            std::sync::atomic::fence(Ordering::SeqCst);
        }
    }) - per_op(21, 100_000, |b| {
        for i in 0..b {
            x.store(black_box(i), Ordering::Relaxed);
        }
    });
    let rmw = per_op(21, 100_000, |b| {
        for _ in 0..b {
            x.fetch_or(black_box(1), Ordering::AcqRel);
        }
    });
    let spin = per_op(21, 100_000, |b| {
        for _ in 0..b {
            std::hint::spin_loop();
        }
    });
    let yield_ns = per_op(21, 200, |b| {
        for _ in 0..b {
            std::thread::yield_now();
        }
    });
    let own = crossbeam_deque::Worker::new_lifo();
    let push_pop = per_op(21, 100_000, |b| {
        for i in 0..b {
            own.push(i);
            black_box(own.pop());
        }
    });
    let empty = own.stealer();
    let probe = per_op(21, 100_000, |b| {
        for _ in 0..b {
            let _ = black_box(empty.steal());
        }
    });
    // A wakeup: unpark to the parked thread running again, on one clock.
    let woke_at = AtomicU64::new(0);
    let parked = AtomicBool::new(false);
    let start = Instant::now();
    let mut wakes = Vec::new();
    std::thread::scope(|s| {
        let h = s.spawn(|| {
            for _ in 0..200 {
                parked.store(true, Ordering::SeqCst);
                while parked.load(Ordering::SeqCst) {
                    std::thread::park();
                }
                woke_at.store(start.elapsed().as_nanos() as u64, Ordering::SeqCst);
            }
        });
        for _ in 0..200 {
            while !parked.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            // Let it reach the futex wait.
            std::thread::sleep(Duration::from_micros(200));
            woke_at.store(0, Ordering::SeqCst);
            let t0 = start.elapsed().as_nanos() as u64;
            parked.store(false, Ordering::SeqCst);
            h.thread().unpark();
            let t1 = loop {
                let t = woke_at.load(Ordering::SeqCst);
                if t != 0 {
                    break t;
                }
                std::hint::spin_loop();
            };
            wakes.push(t1.saturating_sub(t0) as f64);
        }
    });
    let wake = median(wakes);
    // The heavy fence before a private-half claim, the pool's own
    // (`locus::sim::heavy_fence`): `membarrier` (private expedited), or a
    // `SeqCst` fence where the kernel has no such call.
    let heavy = time_heavy_fence();
    let heavy_busy = heavy_fence_busy();
    format!(
        "{{\"round_trip\": {round_trip:.2}, \"with_steal\": {with_steal:.2}, \"lock_only\": {lock_only:.2}, \
         \"fence\": {fence:.2}, \"rmw\": {rmw:.2}, \"spin\": {spin:.2}, \"yield\": {yield_ns:.2}, \
         \"push_pop\": {push_pop:.2}, \"probe\": {probe:.2}, \"wake\": {wake:.2}, \"heavy_fence\": {heavy:.2}, \
         \"heavy_fence_busy\": {heavy_busy:.2}}}"
    )
}

/// ns per call of the pool's heavy fence (`locus::sim::heavy_fence`),
/// median of 11 batches of 200.
fn time_heavy_fence() -> f64 {
    per_op(11, 200, |b| {
        for _ in 0..b {
            locus::sim::heavy_fence();
        }
    })
}

/// The pool's heavy fence while another thread of the process runs: the
/// case the pool fences in (only while some worker is not armed), where
/// `membarrier` interrupts the CPUs running the process's threads and
/// waits for them. `heavy_fence` above is timed with no other thread
/// running, so nothing is interrupted; the fit takes that figure for
/// `heavy_fence_ns`. Reported, not fitted: the model prices the busy case
/// as `heavy_fence_ns` plus `fence_target_ns` per worker interrupted, with
/// published figures for bare metal, not this machine's
/// (docs/simulator-results.md, "What the fence costs while another worker
/// runs" and "Session 35").
fn heavy_fence_busy() -> f64 {
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        // Let the spinner reach its CPU.
        std::thread::sleep(Duration::from_millis(10));
        let ns = time_heavy_fence();
        stop.store(true, Ordering::Relaxed);
        ns
    })
}

fn main() {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let n = a.fib;
    let expected = fib_serial(n);
    let fib = alternate(
        &a,
        &|| assert_eq!(fib_serial(black_box(n)), expected),
        &|| {
            assert_eq!(fib_locus(black_box(n)), expected);
            0
        },
        &|| {
            assert_eq!(fib_rayon(black_box(n)), expected);
            0
        },
    );
    let (items, k) = (a.items, a.item_work);
    let want: u64 = (0..items).fold(0u64, |s, i| s.wrapping_add(item(i, k)));
    let fib_json = fib.json(&a.workers, &format!(", \"n\": {n}"));
    // The iterator kernel, written once for both libraries: the caller
    // brings locus's or rayon's prelude into scope. Folds the items,
    // counting fold's identity calls (the leaves) in `$leaves`.
    macro_rules! fold_items {
        ($leaves:ident) => {{
            $leaves.store(0, Ordering::Relaxed);
            let s = (0..items)
                .into_par_iter()
                .fold(
                    || {
                        $leaves.fetch_add(1, Ordering::Relaxed);
                        0u64
                    },
                    |s, i| s.wrapping_add(item(i, black_box(k))),
                )
                .reduce(|| 0, u64::wrapping_add);
            assert_eq!(s, want);
            $leaves.load(Ordering::Relaxed) as u64
        }};
    }
    let iter = {
        let leaves = Arc::new(AtomicUsize::new(0));
        let l2 = Arc::clone(&leaves);
        let l3 = Arc::clone(&leaves);
        alternate(
            &a,
            &|| {
                let s = (0..items).fold(0u64, |s, i| s.wrapping_add(item(i, black_box(k))));
                assert_eq!(s, want);
            },
            &move || {
                use locus::prelude::*;
                fold_items!(l2)
            },
            &move || {
                use rayon::prelude::*;
                fold_items!(l3)
            },
        )
    };
    let iter_json = iter.json(
        &a.workers,
        &format!(", \"items\": {items}, \"item_work\": {k}"),
    );
    let micro_json = if a.micro { micro() } else { "null".into() };
    println!(
        "{{\"cpus\": {}, \"rounds\": {}, \"fib\": {fib_json}, \"iter\": {iter_json}, \"micro\": {micro_json}}}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        a.rounds,
    );
}
