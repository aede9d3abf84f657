//! Random pipelines of adapters, each checked against the same pipeline
//! run on a `Vec` one step at a time: rayon documents std's results for
//! every order-keeping adapter and consumer, so a `Vec` is the oracle.
//!
//! The other `iter_*` tests check each adapter alone at many lengths; this
//! one checks them stacked (a `zip` of a `step_by` of a `rev` of a
//! `chain`, ...), where one adapter's `split_at` feeds another's and the
//! pieces the pool makes land at arbitrary offsets of each. The pipelines
//! run on a one-worker pool, a flat four-worker pool, virtual pools of
//! three and four LLCs (the first split per LLC,
//! `locus::iter::plumbing::hierarchy`), and nested in a busy pool's
//! iterator (the busy-pool split).
//!
//! Each stage is type-erased through the public plumbing traits
//! ([`erased`]: a user-written `IndexedParallelIterator` over a boxed
//! `Producer`), so each adapter is compiled once however deep the stack:
//! the producers still nest at run time. That is also a test of the
//! plumbing API as a crate writing its own producer uses it.
//!
//! Modules: [`case`] (a case's inputs, its pipeline in parallel and on a
//! `Vec`), [`erased`], [`checks`] (the consumers). A failure prints the
//! case's seed and its pipeline; `LOCUS_PIPELINE_SEED=N` runs case N
//! alone.

#[path = "../common/mod.rs"]
mod common;

mod case;
mod checks;
mod erased;

use locus::ThreadPool;
use locus::prelude::*;

use case::{Case, Tail};
use checks::{check_consumers, check_indexed};
use common::work::{pool, virtual_pool};

/// Values stay below this, so sums of a few million of them fit a `u64`.
const M: u64 = 1_000_003;

/// Builds case `seed` and checks it with every consumer that applies.
fn run_case(seed: u64) {
    let case = Case::random(seed);
    let want = case.expected();
    check_consumers(&case, &want);
    if matches!(case.tail, Tail::None) {
        check_indexed(&case, &want);
    }
}

/// The cases: `LOCUS_PIPELINE_SEED` alone if set, else `first..first + n`.
fn seeds(first: u64, n: u64) -> Vec<u64> {
    match std::env::var("LOCUS_PIPELINE_SEED") {
        Ok(s) => vec![
            s.trim()
                .parse()
                .expect("LOCUS_PIPELINE_SEED is a case number"),
        ],
        Err(_) => (first..first + n).collect(),
    }
}

fn run_on(pool: &ThreadPool, first: u64, n: u64) {
    pool.install(|| {
        for seed in seeds(first, n) {
            run_case(seed);
        }
    });
}

#[test]
fn the_pipelines_with_one_worker() {
    run_on(&pool(1), 0, 150);
}

#[test]
fn the_pipelines_on_four_workers() {
    run_on(&pool(4), 1000, 300);
}

#[test]
fn the_pipelines_on_three_llcs() {
    run_on(&virtual_pool("llc:3 core:2"), 2000, 300);
}

#[test]
fn the_pipelines_on_four_llcs() {
    run_on(&virtual_pool("llc:4 core:2"), 3000, 300);
}

/// Inside a busy pool's iterator, so every pipeline starts while the
/// other workers run the outer items (the busy-pool split).
#[test]
fn the_pipelines_nested_in_a_busy_pool() {
    let pool = virtual_pool("llc:2 core:2");
    let all = seeds(4000, 200);
    pool.install(|| {
        all.par_chunks(8)
            .with_max_len(1)
            .for_each(|chunk| chunk.iter().for_each(|&seed| run_case(seed)))
    });
}
