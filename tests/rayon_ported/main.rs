//! rayon's own integration tests (`rayon-1.12.0/tests/`), ported to locus
//! in new words: one module per rayon test file whose subject locus had no
//! test of yet. The tests check behaviour; where a rayon test covers the
//! same case, the module says which. Bodies that could hang run under a
//! deadline; nothing asserts on timing.

#[path = "../common/mod.rs"]
mod common;

mod clones;
mod iter_panic;
mod octillion;
mod producer_split_at;
mod repeat;
mod slice_splits;
