//! `partitions`: Verilator-like. Several independent models, each stepping
//! P partitions of its state; every step each partition reads its
//! neighbours' boundary cells from the previous step (a 3-point stencil
//! over the whole model), so the partitions of a model exchange data every
//! step and wait for each other at the step's end. `locus-group` runs each
//! model in its own pack group with `Affinity::Auto`. Steps/s over all
//! models.

use locus::{Affinity, GroupOptions, JobGroup};

use crate::env::{Env, finish, record};
use crate::measure::{Better, Config, Runner, measure};
use crate::report::Scenario;

const SEED: &str = "cache-aware scheduling: Verilator simulation 2.03x with its 8 threads packed into one LLC (EPYC)";

/// Cells of one partition (16 KiB).
const WIDTH: usize = 2048;

/// One model: its state now and the next step's.
struct Model {
    cur: Vec<f64>,
    next: Vec<f64>,
}

impl Model {
    fn new(parts: usize, seed: usize) -> Model {
        let cur = (0..parts * WIDTH)
            .map(|i| ((i * 7 + seed) % 13) as f64)
            .collect();
        Model {
            cur,
            next: vec![0.0; parts * WIDTH],
        }
    }
}

/// The next state of cells `start..start + out.len()`.
fn stencil(cur: &[f64], out: &mut [f64], start: usize) {
    let n = cur.len();
    for (k, o) in out.iter_mut().enumerate() {
        let i = start + k;
        *o = (cur[i.saturating_sub(1)] + cur[i] + cur[(i + 1).min(n - 1)]) / 3.0;
    }
}

/// `steps` steps of model `$m`, each step a scope of `$on` (a locus pool
/// or group, or a rayon pool) with one job per partition.
macro_rules! steps {
    ($on:expr, $m:expr, $steps:expr) => {{
        let m: &mut Model = $m;
        for _ in 0..$steps {
            let cur = &m.cur[..];
            $on.scope(|s| {
                for (p, out) in m.next.chunks_mut(WIDTH).enumerate() {
                    s.spawn(move |_| stencil(cur, out, p * WIDTH));
                }
            });
            std::mem::swap(&mut m.cur, &mut m.next);
        }
    }};
}

/// Runs the scenario.
pub fn run(env: &Env) -> Result<Scenario, String> {
    let mut sc = Scenario::new("partitions", SEED, "steps/s", Better::Higher);
    let nmodels = env.topology.llcs().len().clamp(2, 8);
    let parts = (env.threads / nmodels).max(2);
    let steps = env.pick(5, 100, 300);
    let per_sample = (nmodels * steps) as f64;
    let pools = env.locus_pools()?;
    let [lp, off, flat, gp] = &pools;
    let groups: Vec<JobGroup> = (0..nmodels)
        .map(|_| gp.group(GroupOptions::new().affinity(Affinity::Auto)))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let rp = env.rayon()?;
    let mut models: Vec<Vec<Model>> = (0..5)
        .map(|_| (0..nmodels).map(|i| Model::new(parts, i)).collect())
        .collect();
    let mut it = models.iter_mut();
    let mut runners: Vec<(Config, Runner)> = Vec::new();
    for (cfg, pool) in [
        (Config::Locus, &lp),
        (Config::ClusterOff, &off),
        (Config::Flat, &flat),
    ] {
        let ms = it.next().unwrap();
        runners.push((
            cfg,
            Box::new(move || {
                let t = std::time::Instant::now();
                pool.scope(|s| {
                    for m in ms.iter_mut() {
                        s.spawn(move |_| steps!(pool, m, steps));
                    }
                });
                per_sample / t.elapsed().as_secs_f64()
            }),
        ));
    }
    let (gms, rms) = (it.next().unwrap(), it.next().unwrap());
    let (gp_ref, groups_ref, rp_ref) = (&gp, &groups, &rp);
    runners.push((
        Config::Group,
        Box::new(move || {
            let t = std::time::Instant::now();
            gp_ref.scope(|s| {
                for (m, g) in gms.iter_mut().zip(groups_ref) {
                    s.spawn(move |_| steps!(g, m, steps));
                }
            });
            per_sample / t.elapsed().as_secs_f64()
        }),
    ));
    runners.push((
        Config::Rayon,
        Box::new(move || {
            let t = std::time::Instant::now();
            rp_ref.scope(|s| {
                for m in rms.iter_mut() {
                    s.spawn(move |_| steps!(rp_ref, m, steps));
                }
            });
            per_sample / t.elapsed().as_secs_f64()
        }),
    ));
    let case = format!(
        "{nmodels} models x {parts} partitions of {} KiB",
        (WIDTH * 8) >> 10
    );
    sc.runs = measure(&case, Better::Higher, env.budget(1), &env.progress, runners);
    // Before the groups go: a dropped group's own counters are freed with
    // it (only the pool's totals of freed groups keep them).
    record(&mut sc, &pools);
    drop(groups);
    let what = format!(
        "{nmodels} models of {parts} partitions, {steps} steps per sample; the gain needs several LLCs: a model's partitions in one LLC exchange boundaries through it"
    );
    finish(&mut sc, env.limits(), what, true, false, false);
    Ok(sc)
}
