//! `stream`: the STREAM triad `a = b + s*c` over arrays well above the
//! LLC, cut in 4 chunks per worker, each chunk a job; the `locus-group`
//! configuration runs the chunks in a `Placement::Spread` group (dealt over
//! the clusters by capacity). GB/s counts 24 bytes per element (two reads,
//! one write), as STREAM does.

use std::cell::RefCell;

use locus::{GroupOptions, Placement};

use crate::env::{Env, cache_bytes, finish, record};
use crate::measure::{Better, Config, Runner, measure};
use crate::report::Scenario;

#[path = "../../benches/common/triad.rs"]
mod triad;
use triad::{chunks, triad};

const SEED: &str =
    "cluster scheduling: STREAM +10 to 19% with threads spread over clusters (Kunpeng 920)";

/// One triad pass on `$on` (a locus pool or group, or a rayon pool), in GB/s.
macro_rules! pass {
    ($on:expr, $a:expr, $b:expr, $c:expr, $parts:expr) => {{
        let mut guard = $a.borrow_mut();
        let a: &mut [f64] = &mut guard;
        let n = a.len();
        let t = std::time::Instant::now();
        $on.scope(|s| {
            for (x, y, z) in chunks(a, $b, $c, $parts) {
                s.spawn(move |_| triad(x, y, z));
            }
        });
        (24 * n) as f64 / t.elapsed().as_secs_f64() / 1e9
    }};
}

/// Elements per array: the three arrays together twice the machine's LLCs
/// (at least 48 MiB, at most 768 MiB).
fn elements(env: &Env) -> usize {
    let llc = cache_bytes(3).or(cache_bytes(2)).unwrap_or(32 << 20);
    let real_llcs = locus::Topology::detect().llcs().len().max(1) as u64;
    let total = env.pick(
        3 << 20,
        (2 * llc * real_llcs).clamp(48 << 20, 768 << 20),
        (2 * llc * real_llcs).clamp(48 << 20, 768 << 20),
    );
    (total / 3 / 8) as usize
}

/// Runs the scenario.
pub fn run(env: &Env) -> Result<Scenario, String> {
    let mut sc = Scenario::new("stream", SEED, "GB/s", Better::Higher);
    let n = elements(env);
    let parts = 4 * env.threads;
    let pools = env.locus_pools()?;
    let [lp, off, flat, gp] = &pools;
    let spread = gp
        .group(GroupOptions::new().placement(Placement::Spread))
        .map_err(|e| e.to_string())?;
    let rp = env.rayon()?;
    let a = RefCell::new(vec![0.0f64; n]);
    let (b, c) = (vec![1.0f64; n], vec![2.0f64; n]);
    let (b, c) = (&b[..], &c[..]);
    let runners: Vec<(Config, Runner)> = vec![
        (Config::Locus, Box::new(|| pass!(lp, a, b, c, parts))),
        (Config::ClusterOff, Box::new(|| pass!(off, a, b, c, parts))),
        (Config::Flat, Box::new(|| pass!(flat, a, b, c, parts))),
        (Config::Group, Box::new(|| pass!(spread, a, b, c, parts))),
        (Config::Rayon, Box::new(|| pass!(rp, a, b, c, parts))),
    ];
    let case = format!("triad 3x{} MiB", (n * 8) >> 20);
    sc.runs = measure(&case, Better::Higher, env.budget(1), &env.progress, runners);
    if !a.borrow().iter().all(|&x| x == 7.0) {
        return Err("stream: the triad computed a wrong result".into());
    }
    drop(spread);
    record(&mut sc, &pools);
    finish(
        &mut sc,
        env.limits(),
        format!(
            "{parts} chunk jobs per pass over {} MiB; the gain needs fewer bandwidth-bound jobs in flight than cores and several clusters or LLCs, each with its own path to memory",
            (3 * n * 8) >> 20
        ),
        true,
        true,
        false,
    );
    Ok(sc)
}
