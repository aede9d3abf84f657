//! Builds a virtual pool of 1024 workers over 64 LLCs, runs fork-join work,
//! drops it, and reports the time of each phase and the RSS per worker.
use std::time::Instant;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let spec = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "llc:64 core:16".into());
    let t = locus::Topology::synthetic(&spec).unwrap();
    let r0 = rss_kib();
    let t0 = Instant::now();
    let pool = locus::ThreadPoolBuilder::new().topology(t).build().unwrap();
    let n = pool.current_num_threads();
    let built = t0.elapsed();
    let r1 = rss_kib();
    if std::env::var_os("SETTLE").is_some() {
        std::thread::sleep(std::time::Duration::from_secs(1));
        println!("settled: searching {}", pool.stats().searching);
    }
    let t1 = Instant::now();
    assert_eq!(pool.install(|| fib(22)), 17711);
    let t2 = Instant::now();
    let v = pool.broadcast(|c| c.index());
    assert_eq!(v.len(), n);
    let t3 = Instant::now();
    let r2 = rss_kib();
    let total = pool.stats().total();
    // Waits for the workers to exit (a plain drop returns at once).
    pool.shutdown_and_wait()
        .expect("called outside every pool, with no job group left");
    let t4 = Instant::now();
    println!(
        "{n} workers ({spec}): build {built:?}, fib(22) {:?}, broadcast {:?}, shutdown {:?}",
        t2 - t1,
        t3 - t2,
        t4 - t3
    );
    println!(
        "RSS {r0} KiB -> built {r1} KiB -> after work {r2} KiB: {:.1} KiB/worker built, {:.1} KiB/worker after work",
        (r1 - r0) as f64 / n as f64,
        (r2 - r0) as f64 / n as f64
    );
    println!("{total:?}");
}
