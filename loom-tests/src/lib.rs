//! loom models of locus's lock-free protocols, in `tests/`.
//!
//! Run them with `./run.sh` (it sets `RUSTFLAGS="--cfg loom"`, under which
//! locus's `sync` facade uses loom's atomics and locus exposes the protocol
//! types in `locus::__loom`). Built without `--cfg loom` the tests compile to
//! nothing.

/// A model checker configured for these models: the preemption bound is
/// `LOOM_MAX_PREEMPTIONS` if set (`run.sh` sets 3), else `default_bound`, so
/// that every model finishes in seconds.
#[cfg(loom)]
pub fn builder(default_bound: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(default_bound);
    }
    b
}
