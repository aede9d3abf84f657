//! Job groups on a virtual machine of 2 LLCs x 2 clusters x 2 cores: a
//! packed group with a given LLC, one that learns its LLC (`Auto`), and a
//! spread group, each running a few hundred small jobs; then the per-LLC
//! job histogram of each group (from `ThreadPool::stats`), and for the
//! spread group where its jobs ran per cluster, with cluster awareness on
//! and then switched off at run time (dealt per LLC).
//!
//! `cargo run --example groups` (optionally with another spec:
//! `cargo run --example groups -- "llc:4 cluster:2 core:2"`).

use std::sync::atomic::{AtomicU64, Ordering};

use locus::{Affinity, GroupOptions, Placement, ThreadPool, ThreadPoolBuilder, Topology};

fn work() {
    std::hint::black_box((0..20_000u64).fold(0u64, |a, x| a.wrapping_mul(31).wrapping_add(x)));
}

fn bar(n: u64, total: u64) -> String {
    let w = if total == 0 {
        0
    } else {
        (n * 40).div_ceil(total) as usize
    };
    "#".repeat(w)
}

/// The pool on the synthetic machine `spec`; exits with a message on a
/// bad spec.
fn pool_on(spec: &str) -> ThreadPool {
    let topo = match Topology::synthetic(spec) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bad topology spec {spec:?}: {e}");
            std::process::exit(2);
        }
    };
    let pool = ThreadPoolBuilder::new()
        .topology(topo)
        .build()
        .expect("pool");
    println!(
        "{} workers, {} LLCs, {} clusters",
        pool.current_num_threads(),
        pool.layout().llc_ranges().len(),
        pool.layout().cluster_ranges().len()
    );
    println!(
        "A virtual machine: its workers are unpinned threads sharing this machine's {} CPUs,\n\
         so how many jobs other LLCs take over (they help a packed group's LLC while none\n\
         of its workers is idle, which depends on when the kernel runs them) varies from\n\
         run to run; where the bulk of each group's jobs goes does not.\n",
        Topology::detect().allowed().len()
    );
    pool
}

/// Each group's options, preferred LLC and jobs per LLC.
fn print_groups(pool: &ThreadPool) {
    for st in &pool.stats().groups {
        println!(
            "group {} {:?} {:?}: preferred LLC {}, preference changes {}",
            st.id,
            st.options.affinity,
            st.options.placement,
            st.preferred_llc.map_or("none".into(), |l| l.to_string()),
            st.preference_changes
        );
        for (l, &n) in st.jobs_per_llc.iter().enumerate() {
            println!("  LLC {l}: {n:>5} {}", bar(n, st.total()));
        }
    }
}

fn main() {
    let spec = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "llc:2 cluster:2 core:2".into());
    let pool = pool_on(&spec);
    let llcs = pool.layout().llc_ranges().len();

    let fixed = pool
        .group(GroupOptions::new().affinity(Affinity::Llc(llcs - 1)))
        .expect("group");
    let auto = pool
        .group(GroupOptions::new().affinity(Affinity::Auto))
        .expect("group");
    let spread = pool
        .group(GroupOptions::new().placement(Placement::Spread))
        .expect("group");

    let clusters = pool.layout().cluster_ranges().len();
    let per_cluster: Vec<AtomicU64> = (0..clusters).map(|_| AtomicU64::new(0)).collect();
    let run_spread = |rounds: usize| {
        for _ in 0..rounds {
            spread.scope(|s| {
                for _ in 0..clusters {
                    s.spawn(|_| {
                        let w = locus::current_thread_index().expect("on a worker");
                        per_cluster[pool.layout().workers()[w].cluster]
                            .fetch_add(1, Ordering::Relaxed);
                        work();
                    });
                }
            });
        }
    };

    for _ in 0..50 {
        for g in [&fixed, &auto] {
            g.scope(|s| {
                for _ in 0..4 {
                    s.spawn(|_| work());
                }
            });
        }
    }
    run_spread(50);

    print_groups(&pool);

    let show = |title: &str| {
        println!("\nspread group, jobs per cluster ({title}):");
        let total: u64 = per_cluster.iter().map(|c| c.load(Ordering::Relaxed)).sum();
        for (c, n) in per_cluster.iter().enumerate() {
            let n = n.swap(0, Ordering::Relaxed);
            println!("  cluster {c}: {n:>5} {}", bar(n, total));
        }
    };
    show("cluster-aware");
    pool.set_cluster_aware(false);
    run_spread(50);
    show("cluster awareness switched off: dealt per LLC");
}
