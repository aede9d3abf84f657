//! The simulator's checks (issue "Scale simulator"): here determinism, the
//! greedy bound and agreement with the real pool, with the helpers the
//! others share; by concern, the policy at scale (`scale`), job groups
//! (`groups`), parallel iterators (`iter`), and workload names and reports
//! (`reports`).

use super::*;
use crate::topology::Topology;

mod fence;
mod groups;
mod iter;
mod lazy;
mod reports;
mod scale;

fn machine(spec: &str) -> Topology {
    Topology::synthetic(spec).unwrap()
}

/// The hierarchical layout of every PU of synthetic `spec`: the machine
/// of the cache and bandwidth models' unit tests.
pub(super) fn hierarchical_layout(spec: &str) -> crate::layout::Layout {
    layout(&machine(spec), Policy::Hierarchical, None).unwrap()
}

/// A hierarchical simulation of every PU of synthetic `spec` running
/// `fib`, with one root pending, so that a worker's search does not end
/// at the pool's exit; every worker starts running (none idle).
pub(super) fn sim_running<'a>(
    spec: &str,
    cost: &'a crate::sim::CostModel,
    fib: &'a crate::sim::Fib,
) -> crate::sim::engine::Sim<'a> {
    let mut sim = crate::sim::engine::Sim::new(
        hierarchical_layout(spec),
        cost,
        Policy::Hierarchical,
        fib,
        0,
    );
    sim.roots_left = 1;
    sim
}

fn run(spec: &str, w: &dyn Workload, p: Policy, n: Option<usize>) -> Run {
    simulate(&machine(spec), w, p, n, &CostModel::default()).unwrap()
}

/// `w` on `spec` under `Hierarchical` and under `Flat`, every worker.
fn hierarchical_and_flat(spec: &str, w: &dyn Workload) -> (Run, Run) {
    (
        run(spec, w, Policy::Hierarchical, None),
        run(spec, w, Policy::Flat, None),
    )
}

fn in_llc(r: &Run) -> f64 {
    r.counts.steals_within_llc() as f64 / r.counts.steals_total().max(1) as f64
}

#[test]
fn fib_runs_every_job_once() {
    for p in Policy::ALL {
        let r = run("llc:2 cluster:2 core:2", &Fib { n: 12, ns: 2 }, p, None);
        // fib(12) has 465 calls: 232 joins, each one `b` run as a job.
        assert_eq!(r.counts.jobs, 1 + 232, "{p}: {:?}", r.counts);
        assert!(r.counts.makespan_ns > 0);
    }
}

#[test]
fn same_seed_same_report_byte_for_byte() {
    let t = machine("numa:2 llc:2 cluster:2 core:2");
    let w = RandomTree {
        len: 1 << 16,
        grain: 512,
        seed: 7,
    };
    let once = || {
        report(
            "m",
            &t,
            &w,
            &Policy::ALL,
            &[Some(5), None],
            &CostModel::default(),
        )
        .unwrap()
    };
    let (a, b) = (once(), once());
    assert_eq!(a.json(), b.json());
    assert_eq!(a.table(), b.table());
    assert!(
        a.runs.iter().all(|r| r.counts.steals_total() > 0),
        "{}",
        a.table()
    );
}

/// Makespan against the greedy bound T1/P + T∞ (Graham, Brent), plus the
/// overheads the model charges: per job (its pushes, pops, fences and a
/// steal with its transfer, spread over P workers), per level of the span
/// (a steal and a wakeup), and the start-up chain of wakeups (one per
/// worker). Also never below max(T1/P, T∞).
#[test]
fn fork_join_makespan_within_the_greedy_bound() {
    let c = CostModel::default();
    let per_job = c.push_ns
        + c.pop_ns
        + 2.0 * c.private_ns
        + 2.0 * c.fence_ns
        + c.steal_ns
        + c.job_lines * c.line_remote_ns
        + 64.0 * c.idle_word_ns;
    for seed in 1..=6 {
        let w = RandomTree {
            len: 1 << 17,
            grain: 1024,
            seed,
        };
        let root = &w.roots()[0].node;
        // Work in this machine's ns (`work_scale`), as the simulator charges it.
        let (t1, tinf) = work_span(&w, root);
        let (t1, tinf) = (t1 as f64 * c.work_scale, tinf as f64 * c.work_scale);
        for (spec, p) in [("llc:2 core:4", 8usize), ("numa:2 llc:2 core:4", 16)] {
            for policy in Policy::ALL {
                let r = run(spec, &w, policy, None);
                let k = &r.counts;
                let depth = 64.0; // 2^17 items, splits at most 9:1: depth < 64
                let refill = (1u64 << 17) as f64 * 8.0 / c.bw_remote * 2.0;
                let overhead = k.jobs as f64 * per_job / p as f64
                    + depth * (c.steal_ns + c.wake_ns + c.yield_ns * 4.0)
                    + p as f64 * c.wake_ns
                    + refill;
                let bound = t1 / p as f64 + tinf + overhead;
                let ms = k.makespan_ns as f64;
                assert!(
                    ms <= bound,
                    "{spec} {policy} seed {seed}: {ms} > {bound} (T1 {t1}, T∞ {tinf})"
                );
                assert!(
                    ms >= (t1 / p as f64).max(tinf),
                    "{spec} {policy}: {ms} below the lower bound"
                );
            }
        }
    }
}

#[test]
fn one_llc_hierarchical_and_flat_same_locality() {
    let w = Fib { n: 18, ns: 10 };
    let (h, f) = hierarchical_and_flat("llc:1 core:8", &w);
    for r in [&h, &f] {
        assert!(r.counts.steals_total() > 0);
        assert_eq!(in_llc(r), 1.0, "{:?}", r.counts);
        assert_eq!(r.counts.wakeups_within_llc(), r.counts.wakeups_total());
        assert_eq!(r.counts.llc_moves, 0);
    }
}

/// A fork-join tree of `n` leaves that sleep 500 µs: as fib, but the
/// leaves take long enough that the OS's scheduling of the two threads on
/// a loaded machine does not decide who steals.
fn sleeping_tree(n: u64) -> u64 {
    if n == 1 {
        std::thread::sleep(std::time::Duration::from_micros(500));
        return 1;
    }
    let (a, b) = crate::join(|| sleeping_tree(n / 2), || sleeping_tree(n / 2));
    a + b
}

/// `f` installed in a real pool of 2 workers: its steals (claimed private
/// halves included) and wakeups (external ones included).
fn real_steals_and_wakeups(f: &(dyn Fn() + Sync)) -> (u64, u64) {
    let pool = crate::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(f);
    let s = pool.stats();
    let steals: u64 = s
        .workers
        .iter()
        .map(|w| w.steals.iter().sum::<u64>() + w.claimed)
        .sum();
    let wakeups: u64 = s
        .workers
        .iter()
        .map(|w| w.wakeups.iter().sum::<u64>())
        .sum::<u64>()
        + s.external_wakeups.iter().sum::<u64>();
    (steals, wakeups)
}

/// The real pool and the simulated one, 2 workers each, the same `join`
/// and spawn workloads of sleeping leaves: steal and wakeup counts within
/// bands that say why they are that wide (no floor: every band fails when
/// the simulator makes no steal or twice the real wakeups).
///
/// - Join tree (32 leaves of 500 µs): the second worker must steal the
///   other half at least once in both. A real leaf sleeps 500 µs plus the
///   timer's slack and a wakeup (tens of µs, varying), so one worker
///   finishes first and steals down the other's remaining tree: each
///   steal takes the oldest half of what the victim has left, so at most
///   one per level (5 levels) in each direction; the simulated leaves take
///   exactly 500 µs, so the halves end together. Band: simulated >= 1 and
///   real in simulated..=simulated + 10.
/// - 60 spawns: the spawning worker pushes all 60 while the other steals
///   one at a time; which worker's sleep ends first decides each next
///   job, so about half are stolen. Band: within a factor of 2.
/// - Wakeups, both: the root's wakeup of a worker and that worker's wakeup
///   of the other, then both stay busy until the end. Band: equal, give
///   or take one (a worker that parked for a moment between two leaves).
#[test]
fn simulated_two_workers_agree_with_the_real_pool() {
    let band = |what: &str, real: u64, sim: u64, lo: u64, hi: u64| {
        assert!(
            (lo..=hi).contains(&real),
            "{what}: real {real} outside {lo}..={hi} (simulated {sim}; the bands' reasons are above)"
        );
    };
    type Case = (&'static str, Box<dyn Workload>, Box<dyn Fn() + Sync>);
    let cases: [Case; 2] = [
        (
            "join tree",
            Box::new(IterRange {
                len: 32,
                grain: 1,
                ns: 500_000,
            }),
            Box::new(|| assert_eq!(sleeping_tree(32), 32)),
        ),
        (
            "60 spawns",
            Box::new(SpawnStorm {
                jobs: 60,
                ns: 100_000,
            }),
            Box::new(|| {
                crate::scope(|s| {
                    for _ in 0..60 {
                        s.spawn(|_| {
                            // Sleeping, not spinning: both workers get a CPU
                            // at once on a loaded machine, so who runs which
                            // job depends on the pool, not the OS.
                            std::thread::sleep(std::time::Duration::from_micros(500))
                        });
                    }
                })
            }),
        ),
    ];
    for (name, w, f) in cases {
        // The median of three real runs (the machine is shared).
        let mut runs: Vec<(u64, u64)> = (0..3).map(|_| real_steals_and_wakeups(&*f)).collect();
        runs.sort_by_key(|r| r.0);
        let rs = runs[1].0;
        runs.sort_by_key(|r| r.1);
        let rw = runs[1].1;
        let s = run("llc:1 core:2", &*w, Policy::Hierarchical, None);
        eprintln!(
            "{name}: real steals {rs} wakeups {rw}; simulated {} {}",
            s.counts.steals_total(),
            s.counts.wakeups_total()
        );
        let (ss, sw) = (s.counts.steals_total(), s.counts.wakeups_total());
        assert!(ss >= 1, "{name}: the simulated second worker never stole");
        let (lo, hi) = if name == "join tree" {
            (ss, ss + 10)
        } else {
            (ss.div_ceil(2), 2 * ss)
        };
        band(&format!("{name} steals"), rs, ss, lo, hi);
        band(
            &format!("{name} wakeups"),
            rw,
            sw,
            sw.saturating_sub(1),
            sw + 1,
        );
    }
}
