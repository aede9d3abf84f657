//! rayon's own integration tests (`rayon-1.12.0/tests/`) and some of its
//! iterator and slice unit tests, ported to locus in new words: one module
//! per rayon test file, named after it. Bodies that could hang run under a
//! deadline; nothing asserts on timing.
//!
//! Ported elsewhere: `clones.rs` (`tests/iter_clones.rs`);
//! `named-threads.rs` (it builds the global pool:
//! `tests/rayon_named_threads.rs`); `chars.rs` (char ranges across the
//! surrogates: `char_ranges_skip_the_surrogates` in
//! `tests/iter_rayon_api.rs`); `drain_vec.rs` (`par_drain` of every range
//! shape, collected, dropped and partly consumed:
//! `vectors_arrays_options_results` in `tests/iter_sources.rs`).
//! `debug.rs` (the `Debug` impls) is not ported.

#[path = "../common/mod.rs"]
mod common;

mod collect;
mod cross_pool;
mod intersperse;
mod iter_panic;
mod octillion;
mod par_bridge_recursion;
mod producer_split_at;
mod repeat;
mod slice_splits;
mod sort_panic_safe;
mod str;
mod type_length;
