//! rayon's `tests/named-threads.rs`: the global pool built with a
//! `thread_name` runs every item of an iterator on its named threads. The
//! global pool exists once per process, hence a test binary of its own.

use std::collections::HashSet;

use locus::ThreadPoolBuilder;
use locus::prelude::*;

#[test]
fn the_global_pool_runs_items_on_its_named_threads() {
    ThreadPoolBuilder::new()
        .thread_name(|i| format!("named-global-{i}"))
        .build_global()
        .unwrap();
    let names: HashSet<String> = (0..10_000)
        .into_par_iter()
        .flat_map(|_| std::thread::current().name().map(str::to_owned))
        .collect();
    assert!(!names.is_empty());
    for name in &names {
        assert!(name.starts_with("named-global-"), "an item ran on {name:?}");
    }
}
