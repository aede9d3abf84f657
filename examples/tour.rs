//! A tour of locus, in under 30 seconds.
//!
//! ```text
//! cargo run --release --example tour
//! ```
//!
//! 1. The detected topology of this machine and the pool's layout (which
//!    worker sits where, and worker 0's steal order).
//! 2. A fork-join workload on this machine.
//! 3. The same workload on a virtual topology of 2 NUMA nodes x 2 LLCs x
//!    2 clusters x 4 cores (32 workers, pinning off), once with
//!    `StealOrder::Hierarchical` and once with `StealOrder::Flat` (rayon's
//!    random victim), printing the time and where steals went.
//!
//! Times on a virtual topology are not meaningful (32 threads share this
//! machine's cores); the steal histogram is the point. Steals are classified
//! by how near the victim was (`Layout::relation`) in both orders.
//! Hierarchical steals stay in the cluster and LLC and cross a NUMA node
//! only when nothing nearer is left. Flat steals go wherever the random
//! victim is. Both histograms lean towards near victims, because wakeups
//! pick the nearest idle worker in both orders, so work starts out local.

use std::time::{Duration, Instant};

use locus::{StealOrder, TIER_KINDS, ThreadPool, ThreadPoolBuilder, Topology};

/// Sum of a slice by recursive halving down to `leaf` elements.
fn sum(v: &[u64], leaf: usize) -> u64 {
    if v.len() <= leaf {
        return v.iter().fold(0u64, |a, &x| a.wrapping_add(x.wrapping_mul(x)));
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (x, y) = locus::join(|| sum(a, leaf), || sum(b, leaf));
    x.wrapping_add(y)
}

/// Runs `rounds` parallel sums over `data` and returns the time taken.
fn workload(pool: &ThreadPool, data: &[u64], rounds: usize) -> (Duration, u64) {
    let t0 = Instant::now();
    let mut check = 0u64;
    for _ in 0..rounds {
        check = check.wrapping_add(pool.install(|| sum(data, 8192)));
    }
    (t0.elapsed(), check)
}

fn histogram(pool: &ThreadPool) {
    let total = pool.stats().total();
    let all: u64 = total.total_steals().max(1);
    for kind in TIER_KINDS {
        let n = total.steals(kind);
        if n == 0 && !pool.layout().workers()[0].tiers.iter().any(|t| t.kind == kind) {
            continue;
        }
        let pct = 100.0 * n as f64 / all as f64;
        let bar = "#".repeat((pct / 2.0).round() as usize);
        println!("    steals {:<8} {n:>8} {pct:5.1}% {bar}", kind.to_string());
    }
    println!(
        "    jobs run {}, join halves promoted {}, local pops {}, parks {}",
        total.jobs_run, total.promoted, total.local_pops, total.parks
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let here = Topology::detect();
    println!("== This machine\n{here}");

    let pool = ThreadPoolBuilder::new().build()?;
    println!("== The pool's layout\n{}", pool.layout());
    for (i, p) in pool.pin_report().iter().enumerate() {
        println!("  worker {i}: {p}");
    }

    let data: Vec<u64> = (0..1u64 << 22).collect();
    let rounds = 100;
    let (t, check) = workload(&pool, &data, rounds);
    println!(
        "\n== Fork-join on this machine: {rounds} parallel sums of 4M u64 in {:.1} ms ({} threads, check {check:x})",
        t.as_secs_f64() * 1e3,
        pool.current_num_threads()
    );
    histogram(&pool);
    drop(pool);

    let spec = "numa:2 llc:2 cluster:2 core:4";
    println!("\n== A virtual machine: {spec}");
    let virt = Topology::synthetic(spec)?;
    print!("{virt}");
    for order in [StealOrder::Hierarchical, StealOrder::Flat] {
        let pool = ThreadPoolBuilder::new()
            .topology(virt.clone())
            .steal_order(order)
            .build()?;
        let (t, check) = workload(&pool, &data, rounds);
        println!(
            "\n  {order:?} steal order: {} workers, {rounds} sums in {:.1} ms (check {check:x})",
            pool.current_num_threads(),
            t.as_secs_f64() * 1e3
        );
        histogram(&pool);
    }
    Ok(())
}
