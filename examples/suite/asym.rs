//! `asym`: fewer jobs than workers on a machine with big and little cores
//! (its real capacities, or the virtual topology `cluster:2 core:4 big:2`
//! where the machine reports none): one job per big core, handed to an
//! idle pool from outside. Reports where the jobs ran (the share on big
//! cores, in the counters) and the rate. Jobs/s.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use locus::{ThreadPool, Topology};
use serde_json::json;

use crate::env::{Env, counters, finish, with};
use crate::measure::{Better, Config, Runner, measure};
use crate::report::Scenario;

const SEED: &str =
    "DynamiQ asymmetric packing and x86 hybrid cluster scheduling: fill the big cores first";

/// The virtual machine used when the real one has one core kind.
const VIRTUAL: &str = "cluster:2 core:4 big:2";

/// A fixed amount of arithmetic.
fn work(n: u64) -> u64 {
    (0..n).fold(black_box(1u64), |a, i| {
        a.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i)
    })
}

/// Jobs counted on big and on all workers of a locus pool.
#[derive(Default)]
struct Where {
    big: AtomicU64,
    all: AtomicU64,
}

/// `batches` batches of `jobs` jobs spawned from outside into a settled
/// pool; returns jobs/s (the settling excluded).
fn batches(batches: usize, jobs: usize, n: u64, spawn: &dyn Fn(Box<dyn FnOnce() + Send>)) -> f64 {
    let mut busy = Duration::ZERO;
    for _ in 0..batches {
        std::thread::sleep(Duration::from_millis(2));
        let (tx, rx) = mpsc::channel();
        let t = Instant::now();
        for _ in 0..jobs {
            let tx = tx.clone();
            spawn(Box::new(move || {
                let _ = tx.send(work(n));
            }));
        }
        for _ in 0..jobs {
            let _ = rx.recv();
        }
        busy += t.elapsed();
    }
    (batches * jobs) as f64 / busy.as_secs_f64()
}

/// Runs the scenario.
pub fn run(env: &Env) -> Result<Scenario, String> {
    let mut sc = Scenario::new("asym", SEED, "jobs/s", Better::Higher);
    let real = env.topology.kinds().len() > 1;
    let (topo, threads) = if real {
        (None, env.threads)
    } else {
        let t = Topology::synthetic(VIRTUAL).map_err(|e| e.to_string())?;
        let n = t.pus().len();
        (Some(t), n)
    };
    let cfgs = [Config::Locus, Config::ClusterOff, Config::Flat];
    let pools: Vec<ThreadPool> = cfgs
        .iter()
        .map(|c| env.locus_on(*c, topo.as_ref(), threads))
        .collect::<Result<_, _>>()?;
    let rp = env.rayon_with(threads)?;
    let max_cap = pools[0]
        .layout()
        .workers()
        .iter()
        .map(|w| w.capacity)
        .max()
        .unwrap_or(1024);
    let bigs: Vec<bool> = pools[0]
        .layout()
        .workers()
        .iter()
        .map(|w| w.capacity == max_cap)
        .collect();
    let jobs = bigs
        .iter()
        .filter(|b| **b)
        .count()
        .clamp(1, threads.saturating_sub(1).max(1));
    let (n, per) = env.pick((1000, 1), (200_000, 4), (500_000, 8));
    let places: Vec<Arc<Where>> = cfgs.iter().map(|_| Arc::new(Where::default())).collect();
    let mut runners: Vec<(Config, Runner)> = Vec::new();
    for ((cfg, pool), place) in cfgs.iter().zip(&pools).zip(&places) {
        let bigs = bigs.clone();
        runners.push((
            *cfg,
            Box::new(move || {
                batches(per, jobs, n, &|f| {
                    let (place, bigs) = (place.clone(), bigs.clone());
                    pool.spawn(move || {
                        let i = locus::current_thread_index().unwrap_or(0);
                        place.all.fetch_add(1, Ordering::Relaxed);
                        if bigs.get(i).copied().unwrap_or(false) {
                            place.big.fetch_add(1, Ordering::Relaxed);
                        }
                        f();
                    })
                })
            }),
        ));
    }
    runners.push((
        Config::Rayon,
        Box::new(|| batches(per, jobs, n, &|f| rp.spawn(f))),
    ));
    let case = format!("{jobs} jobs on {threads} workers");
    sc.runs = measure(&case, Better::Higher, env.budget(1), &env.progress, runners);
    for ((cfg, pool), place) in cfgs.iter().zip(&pools).zip(&places) {
        let all = place.all.load(Ordering::Relaxed).max(1);
        let share = place.big.load(Ordering::Relaxed) as f64 / all as f64;
        sc.counters(
            cfg.name(),
            with(counters(pool), json!({"big_share": share})),
        );
    }
    let big = bigs.iter().filter(|b| **b).count();
    let mut what = format!(
        "{jobs} jobs of fixed work per batch into an idle pool of {threads} workers, {big} of them big; big_share is the share of jobs that ran on big workers (rayon has no notion of big cores: not counted)"
    );
    if !real {
        what.push_str(&format!(
            "; this machine reports one core kind, so the locus pools run on the virtual topology {VIRTUAL:?} (the share shows the policy; the time cannot show faster cores)"
        ));
    }
    let limits = crate::env::Limits::of(pools[0].layout().topology(), !real || env.spec.is_some());
    finish(&mut sc, limits, what, false, false, true);
    Ok(sc)
}
