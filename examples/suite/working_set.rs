//! `working-set`: mcf-like jobs, each repeatedly chasing pointers through a
//! private working set; the sets of the workers sharing an L2 together fill
//! three quarters of it. One set per worker, one job per set per pass.
//! The locus configurations run the pass as `par_iter_mut().with_replay(..)`
//! (each set goes back to the worker that walked it last, so it is still in
//! that worker's L2), `locus-group` as jobs of a `Placement::Spread` group,
//! rayon as `par_iter_mut()`. Jobs/s.

use std::hint::black_box;

use locus::iter::Replay;
use locus::{GroupOptions, Placement};
use serde_json::json;

use crate::env::{Env, cache_bytes, counters, finish, with};
use crate::measure::{Better, Config, Runner, measure};
use crate::report::Scenario;

const SEED: &str = "cluster scheduling: SPECrate mcf +25% at 6 copies on 6 clusters of 4 cores sharing an L2 (Jacobsville)";

/// One cache line: the index of the next node, and padding.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Node {
    next: u32,
}

/// A working set: one random cycle through all its nodes.
struct Set(Vec<Node>);

impl Set {
    fn new(nodes: usize, seed: u64) -> Set {
        let mut order: Vec<u32> = (0..nodes as u32).collect();
        let mut x = seed | 1;
        for i in (1..nodes).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let mut v = vec![Node { next: 0 }; nodes];
        for w in 0..nodes {
            v[order[w] as usize].next = order[(w + 1) % nodes];
        }
        Set(v)
    }

    /// Walks the cycle `laps` times (each load depends on the one before);
    /// the end point goes through `black_box` so the loads are kept.
    fn walk(&self, laps: usize) -> u32 {
        let mut i = 0u32;
        for _ in 0..laps * self.0.len() {
            i = self.0[i as usize].next;
        }
        black_box(i)
    }
}

fn pass_locus(sets: &mut [Set], laps: usize, replay: &Replay) {
    use locus::prelude::*;
    sets.par_iter_mut().with_replay(replay).for_each(|s| {
        s.walk(laps);
    });
}

fn pass_rayon(sets: &mut [Set], laps: usize) {
    use rayon::prelude::*;
    sets.par_iter_mut().for_each(|s| {
        s.walk(laps);
    });
}

/// Runs the scenario.
pub fn run(env: &Env) -> Result<Scenario, String> {
    let mut sc = Scenario::new("working-set", SEED, "jobs/s", Better::Higher);
    let l2 = cache_bytes(2).unwrap_or(1 << 20) as usize;
    let sharing = env
        .topology
        .l2_cpusets()
        .first()
        .map_or(1, |s| s.len())
        .max(1);
    let nodes = env
        .pick(256, l2 * 3 / 4 / sharing / 64, l2 * 3 / 4 / sharing / 64)
        .max(16);
    let laps = env.pick(2, 4, 8);
    let batches = env.pick(1, 4, 8);
    let jobs = env.threads;
    let mut sets: Vec<Vec<Set>> = Vec::new();
    let cfgs = [
        Config::Locus,
        Config::ClusterOff,
        Config::Flat,
        Config::Group,
        Config::Rayon,
    ];
    for _ in cfgs {
        sets.push(
            (0..jobs)
                .map(|j| Set::new(nodes, 0x9E37_79B9 + j as u64))
                .collect(),
        );
    }
    let pools = env.locus_pools()?;
    let spread = pools[3]
        .group(GroupOptions::new().placement(Placement::Spread))
        .map_err(|e| e.to_string())?;
    let rp = env.rayon()?;
    let replays: Vec<Replay> = (0..3).map(|_| Replay::new()).collect();
    let per_sample = (jobs * batches) as f64;
    let mut it = sets.iter_mut();
    let mut runners: Vec<(Config, Runner)> = Vec::new();
    for (k, cfg) in cfgs.iter().enumerate().take(3) {
        let (pool, replay, sets) = (&pools[k], &replays[k], it.next().unwrap());
        runners.push((
            *cfg,
            Box::new(move || {
                let t = std::time::Instant::now();
                for _ in 0..batches {
                    pool.install(|| pass_locus(sets, laps, replay));
                }
                per_sample / t.elapsed().as_secs_f64()
            }),
        ));
    }
    let (gsets, rsets) = (it.next().unwrap(), it.next().unwrap());
    let spread = &spread;
    runners.push((
        Config::Group,
        Box::new(move || {
            let t = std::time::Instant::now();
            for _ in 0..batches {
                spread.scope(|s| {
                    for set in gsets.iter() {
                        s.spawn(move |_| {
                            set.walk(laps);
                        });
                    }
                });
            }
            per_sample / t.elapsed().as_secs_f64()
        }),
    ));
    let rp = &rp;
    runners.push((
        Config::Rayon,
        Box::new(move || {
            let t = std::time::Instant::now();
            for _ in 0..batches {
                rp.install(|| pass_rayon(rsets, laps));
            }
            per_sample / t.elapsed().as_secs_f64()
        }),
    ));
    let case = format!("{jobs} sets of {} KiB, {laps} laps", (nodes * 64) >> 10);
    sc.runs = measure(&case, Better::Higher, env.budget(1), &env.progress, runners);
    for (k, cfg) in cfgs.iter().enumerate().take(4) {
        let mut c = counters(&pools[k]);
        if let Some(r) = replays.get(k) {
            let s = r.stats();
            c = with(
                c,
                json!({"replay": {"pieces": s.pieces, "same_worker": s.same_worker, "same_llc": s.same_llc}}),
            );
        }
        sc.counters(cfg.name(), c);
    }
    finish(
        &mut sc,
        env.limits(),
        format!(
            "{jobs} private sets, {sharing} worker(s) per L2 here; a set walked on another L2 than last time misses in L2 (replay keeps it on its worker); cluster awareness matters where several cores share an L2"
        ),
        false,
        true,
        false,
    );
    Ok(sc)
}
