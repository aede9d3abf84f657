//! Times the build, the first and the second `broadcast`, and the drop of
//! virtual pools of growing size (no pinning, so a pool may have more
//! workers than the machine has CPUs). The first `broadcast` of a pool used
//! to wait for every new worker's search of all the others' queues: see
//! `docs/first-broadcast.md`.
//!
//! `cargo run --release --example first_broadcast -- 1024 2048 4096`
//! (`LLC_SIZE=32` lays the workers out in LLCs of 32 instead of one LLC).
//! Besides the wall time, it prints the CPU time the whole process spent
//! during the first `broadcast` (all threads): on a loaded machine the wall
//! time mostly says how long the scheduler took to run every thread once,
//! the CPU time what the pool's code cost.
use std::time::Instant;

use locus::{Pinning, ThreadPoolBuilder, Topology};

#[path = "../benches/common/cpu.rs"]
mod cpu;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("worker counts"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![256, 512, 1024, 2048]
    } else {
        sizes
    };
    let llc_size: Option<usize> = std::env::var("LLC_SIZE").ok().map(|s| s.parse().unwrap());
    for n in sizes {
        let spec = match llc_size {
            Some(k) => format!("llc:{} core:{k}", n / k),
            None => format!("core:{n}"),
        };
        let t = Topology::synthetic(&spec).unwrap();
        let t0 = Instant::now();
        let pool = ThreadPoolBuilder::new()
            .topology(t)
            .pinning(Pinning::None)
            .build()
            .unwrap();
        let built = t0.elapsed();
        let c1 = cpu::process_cpu();
        let t1 = Instant::now();
        assert_eq!(
            pool.broadcast(|c| c.index()).len(),
            pool.current_num_threads()
        );
        let first = t1.elapsed();
        let first_cpu = cpu::process_cpu() - c1;
        let t2 = Instant::now();
        assert_eq!(
            pool.broadcast(|c| c.index()).len(),
            pool.current_num_threads()
        );
        let second = t2.elapsed();
        let t3 = Instant::now();
        drop(pool);
        let dropped = t3.elapsed();
        println!(
            "{:>5} workers ({spec}): build {built:>10.3?}  first broadcast {first:>10.3?} (cpu {first_cpu:>10.3?})  \
             second {second:>10.3?}  drop {dropped:>10.3?}",
            n
        );
    }
}
