//! `pingpong`: hackbench-like message passing. Pairs of jobs hand a 4 KiB
//! buffer back and forth, each hand-off a new job that reads and writes it
//! (one pair per worker). `locus-group` runs each pair in its own pack
//! group with `Affinity::Auto` (the group learns the LLC its jobs run in
//! and keeps them there). Round trips/s (two hand-offs each).

use std::hint::black_box;

use locus::{Affinity, GroupOptions, JobGroup};

use crate::env::{Env, finish, record};
use crate::measure::{Better, Config, Runner, measure};
use crate::report::Scenario;

const SEED: &str =
    "cache-aware scheduling: hackbench +24 to 35% with communicating tasks kept in one LLC";

const WORDS: usize = 512; // 4 KiB

/// A pair's buffer, aligned to 128 bytes so two pairs never share a line
/// or an adjacent-line prefetch pair.
#[repr(C, align(128))]
struct Buf([u64; WORDS]);

fn touch(buf: &mut Buf, k: usize) {
    for (i, w) in buf.0.iter_mut().enumerate() {
        *w = w.wrapping_mul(31).wrapping_add((i ^ k) as u64);
    }
}

fn ping_locus<'s>(s: &locus::Scope<'s>, mut buf: Box<Buf>, k: usize) {
    touch(&mut buf, k);
    if k > 0 {
        s.spawn(move |s| ping_locus(s, buf, k - 1));
    } else {
        black_box(&buf);
    }
}

fn ping_rayon<'s>(s: &rayon::Scope<'s>, mut buf: Box<Buf>, k: usize) {
    touch(&mut buf, k);
    if k > 0 {
        s.spawn(move |s| ping_rayon(s, buf, k - 1));
    } else {
        black_box(&buf);
    }
}

fn buf() -> Box<Buf> {
    Box::new(Buf([1; WORDS]))
}

/// Runs the scenario.
pub fn run(env: &Env) -> Result<Scenario, String> {
    let mut sc = Scenario::new("pingpong", SEED, "round trips/s", Better::Higher);
    let pairs = env.threads;
    let handoffs = env.pick(20, 200, 400);
    let trips = (pairs * handoffs / 2) as f64;
    let pools = env.locus_pools()?;
    let [lp, off, flat, gp] = &pools;
    let groups: Vec<JobGroup> = (0..pairs)
        .map(|_| gp.group(GroupOptions::new().affinity(Affinity::Auto)))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let rp = env.rayon()?;
    let plain = |pool: &locus::ThreadPool| {
        let t = std::time::Instant::now();
        pool.scope(|s| {
            for _ in 0..pairs {
                s.spawn(|s| ping_locus(s, buf(), handoffs));
            }
        });
        trips / t.elapsed().as_secs_f64()
    };
    let runners: Vec<(Config, Runner)> = vec![
        (Config::Locus, Box::new(|| plain(lp))),
        (Config::ClusterOff, Box::new(|| plain(off))),
        (Config::Flat, Box::new(|| plain(flat))),
        (
            Config::Group,
            Box::new(|| {
                let t = std::time::Instant::now();
                gp.scope(|s| {
                    for g in &groups {
                        s.spawn(move |_| g.scope(|s| ping_locus(s, buf(), handoffs)));
                    }
                });
                trips / t.elapsed().as_secs_f64()
            }),
        ),
        (
            Config::Rayon,
            Box::new(|| {
                let t = std::time::Instant::now();
                rp.scope(|s| {
                    for _ in 0..pairs {
                        s.spawn(|s| ping_rayon(s, buf(), handoffs));
                    }
                });
                trips / t.elapsed().as_secs_f64()
            }),
        ),
    ];
    let case = format!("{pairs} pairs x {handoffs} hand-offs");
    sc.runs = measure(&case, Better::Higher, env.budget(1), &env.progress, runners);
    // Before the groups go: a dropped group's own counters are freed with
    // it (only the pool's totals of freed groups keep them).
    record(&mut sc, &pools);
    drop(groups);
    finish(
        &mut sc,
        env.limits(),
        "each hand-off is an LLC hit when the pair stays in one LLC, a cross-LLC (or cross-socket) transfer otherwise"
            .to_string(),
        true,
        false,
        false,
    );
    Ok(sc)
}
