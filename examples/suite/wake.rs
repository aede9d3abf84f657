//! `wake`: how fast a sleeping pool starts a job handed to it from outside
//! (every worker parked first), and the search for the nearest idle worker
//! at 64 to 4096 virtual workers: locus's per-LLC idle masks against a
//! scan of one flag per worker (what a pool without masks does). ns.

use std::hint::black_box;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use locus::IdleSearch;

#[path = "../../benches/common/scan.rs"]
mod scan;
use scan::Scan;

use crate::env::{Env, counters, finish};
use crate::measure::{Better, Config, Runner, measure, median};
use crate::report::{Comparison, Scenario};

const SEED: &str = "per-LLC idle cpumask: select_idle_cpu 223 ns -> 63 ns at 192 CPUs";

/// Workers per LLC in the idle-search shapes (clusters of 4).
const PER_LLC: usize = 16;

type Job = Box<dyn FnOnce() + Send>;

/// Median ns from handing a job to a settled pool until it starts, over `n`.
fn latency(n: usize, settle: Duration, spawn: &dyn Fn(Job)) -> f64 {
    let mut ns = Vec::with_capacity(n);
    for _ in 0..n {
        std::thread::sleep(settle);
        let (tx, rx) = mpsc::channel();
        let t0 = Instant::now();
        spawn(Box::new(move || {
            let _ = tx.send(Instant::now());
        }));
        if let Ok(t1) = rx.recv() {
            ns.push((t1 - t0).as_nanos() as f64);
        }
    }
    median(&ns)
}

/// ns per claim of the nearest idle worker, masks and scan, the only idle
/// workers being three in the farthest LLC from the waker (worker 0).
fn idle_search(workers: usize, iters: usize, rounds: usize) -> (f64, f64) {
    let far = [workers - PER_LLC + 1, workers - PER_LLC + 6, workers - 1];
    let masks = IdleSearch::uniform(workers, PER_LLC, 4);
    let scan = Scan::new(workers);
    for &w in &far {
        masks.set_idle(w);
        scan.0[w].store(true, Ordering::SeqCst);
    }
    let (mut m, mut s) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..iters {
            if let Some((w, _)) = masks.claim_nearest(black_box(0)) {
                masks.set_idle(w);
            }
        }
        m.push(t.elapsed().as_nanos() as f64 / iters as f64);
        let t = Instant::now();
        for _ in 0..iters {
            if let Some(w) = scan.claim() {
                scan.0[w].store(true, Ordering::SeqCst);
            }
        }
        s.push(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    (median(&m), median(&s))
}

/// Runs the scenario.
pub fn run(env: &Env) -> Result<Scenario, String> {
    let mut sc = Scenario::new("wake", SEED, "ns", Better::Lower);
    let wakes = env.pick(2, 5, 11);
    let settle = Duration::from_millis(env.pick(2, 8, 20));
    let lp = env.locus(Config::Locus)?;
    let off = env.locus(Config::ClusterOff)?;
    let flat = env.locus(Config::Flat)?;
    let rp = env.rayon()?;
    let on = |p: &locus::ThreadPool| latency(wakes, settle, &|f| p.spawn(f));
    let runners: Vec<(Config, Runner)> = vec![
        (Config::Locus, Box::new(|| on(&lp))),
        (Config::ClusterOff, Box::new(|| on(&off))),
        (Config::Flat, Box::new(|| on(&flat))),
        (
            Config::Rayon,
            Box::new(|| latency(wakes, settle, &|f| rp.spawn(f))),
        ),
    ];
    sc.runs = measure(
        "wake latency",
        Better::Lower,
        env.budget(1),
        &env.progress,
        runners,
    );
    for (cfg, p) in [
        (Config::Locus, &lp),
        (Config::ClusterOff, &off),
        (Config::Flat, &flat),
    ] {
        sc.counters(cfg.name(), counters(p));
    }
    let (iters, rounds) = env.pick((1000, 1), (20_000, 5), (100_000, 9));
    for workers in [64usize, 256, 1024, 4096] {
        env.progress
            .set_message(format!("wake: idle search at {workers} workers"));
        let (masks, scan) = idle_search(workers, iters, rounds);
        sc.comparisons.push(Comparison {
            case: format!("idle search, {workers} workers"),
            unit: "ns",
            locus: masks,
            baseline: scan,
            baseline_name: "scan",
            ratio: scan / masks,
        });
    }
    let what = format!(
        "latency: median of {wakes} wakes per sample, each after {} ms of idleness (every worker parked); idle search: virtual shapes of {PER_LLC} workers per LLC, clusters of 4, the idle workers in the farthest LLC, so both searches go all the way (this machine can show it: it needs no big machine)",
        settle.as_millis()
    );
    finish(&mut sc, env.limits(), what, false, false, false);
    Ok(sc)
}
