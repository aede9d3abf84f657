//! The peers' pools every comparison bench builds: locus and rayon, each
//! with one thread per CPU of this machine (`#[path]` include).

/// One thread per CPU this process may use (2 if unknown).
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// A locus pool and a rayon pool of [`threads`] threads each.
pub fn pools() -> (locus::ThreadPool, rayon::ThreadPool) {
    let l = locus::ThreadPoolBuilder::new()
        .num_threads(threads())
        .build()
        .unwrap();
    let r = rayon::ThreadPoolBuilder::new()
        .num_threads(threads())
        .build()
        .unwrap();
    (l, r)
}
