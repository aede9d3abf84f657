//! Collections that implement rayon's traits (hashbrown, indexmap,
//! dashmap) and a hash that splits its input with rayon-core's `join`
//! (blake3), run inside a pool built with locus's own builder: their
//! results are those of the serial code, and the closures handed to their
//! parallel iterators run on that pool's workers.

use std::collections::BTreeMap;

use dashmap::DashMap;
use deptree::Seen;
use hashbrown::{HashMap, HashSet};
use indexmap::IndexMap;
use rayon::prelude::*;

fn pool() -> locus::ThreadPool {
    deptree::pool("tree-coll-")
}

#[test]
fn hashbrown_maps_collect_extend_iterate_and_drain_on_the_pool() {
    let pool = pool();
    let seen = Seen::default();
    let (sum, drained, set) = pool.install(|| {
        let mut map: HashMap<u64, u64> = (0..20_000u64)
            .into_par_iter()
            .map(|k| {
                seen.record();
                (k, k * k)
            })
            .collect();
        map.par_extend((20_000..25_000u64).into_par_iter().map(|k| (k, k * k)));
        let sum: u64 = map
            .par_iter()
            .map(|(_, v)| {
                seen.record();
                *v
            })
            .sum();
        let set: HashSet<u64> = map.par_keys().map(|k| k % 1_000).collect();
        let drained: Vec<(u64, u64)> = map.par_drain().collect();
        assert!(map.is_empty());
        (sum, drained, set)
    });
    assert_eq!(sum, (0..25_000u64).map(|k| k * k).sum::<u64>());
    assert_eq!(drained.len(), 25_000);
    let sorted: BTreeMap<u64, u64> = drained.into_iter().collect();
    assert!(sorted.iter().all(|(k, v)| *v == k * k));
    assert_eq!(set.len(), 1_000);
    seen.assert_all_on("tree-coll-");
}

#[test]
fn indexmap_keeps_its_order_through_parallel_sorts_and_iterators() {
    let pool = pool();
    let seen = Seen::default();
    // Keys inserted in a scrambled order (a multiplication modulo a prime).
    let keys: Vec<u64> = (0..10_007u64).map(|i| (i * 7_919) % 10_007).collect();
    let (map, doubled) = pool.install(|| {
        let mut map: IndexMap<u64, u64> = keys
            .par_iter()
            .map(|&k| {
                seen.record();
                (k, k + 1)
            })
            .collect();
        // Collecting keeps the iterator's order, as the serial collect does.
        assert!(map.keys().copied().eq(keys.iter().copied()));
        map.par_sort_keys();
        map.par_values_mut().for_each(|v| {
            seen.record();
            *v *= 2;
        });
        let doubled: Vec<u64> = map.par_values().copied().collect();
        (map, doubled)
    });
    assert!(map.keys().copied().eq(0..10_007u64));
    assert_eq!(
        doubled,
        (0..10_007u64).map(|k| 2 * (k + 1)).collect::<Vec<_>>()
    );
    seen.assert_all_on("tree-coll-");
}

#[test]
fn dashmap_takes_concurrent_inserts_from_the_pool_and_iterates_its_shards() {
    let pool = pool();
    let seen = Seen::default();
    let map: DashMap<u64, u64> = DashMap::new();
    let total = pool.install(|| {
        (0..30_000u64).into_par_iter().for_each(|k| {
            seen.record();
            map.insert(k, 3 * k);
        });
        (&map)
            .into_par_iter()
            .map(|entry| {
                seen.record();
                *entry.value()
            })
            .sum::<u64>()
    });
    assert_eq!(map.len(), 30_000);
    assert_eq!(total, 3 * (0..30_000u64).sum::<u64>());
    let evens: DashMap<u64, u64> =
        pool.install(|| map.into_par_iter().filter(|(k, _)| k % 2 == 0).collect());
    assert_eq!(evens.len(), 15_000);
    assert!(evens.iter().all(|e| *e.value() == 3 * *e.key()));
    seen.assert_all_on("tree-coll-");
}

#[test]
fn blake3_hashes_with_rayon_core_join_as_it_does_serially() {
    let pool = pool();
    // Sizes around blake3's 1 KiB chunks and the splits of its tree, up to
    // inputs that `update_rayon` cuts into many `join`s.
    let data: Vec<u8> = (0..(4u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    for len in [
        0,
        1,
        1_023,
        1_024,
        1_025,
        65_536,
        131_073,
        1 << 20,
        data.len(),
    ] {
        let input = &data[..len];
        let serial = blake3::hash(input);
        let in_pool = pool.install(|| blake3::Hasher::new().update_rayon(input).finalize());
        assert_eq!(in_pool, serial, "{len} bytes on the pool");
        // Outside any pool, rayon-core's `join` runs on locus's global pool.
        let global = blake3::Hasher::new().update_rayon(input).finalize();
        assert_eq!(global, serial, "{len} bytes on the global pool");
    }
}
