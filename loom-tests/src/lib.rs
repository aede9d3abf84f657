//! loom models of locus's lock-free protocols, in `tests/`.
//!
//! Run them with `./run.sh` (it sets `RUSTFLAGS="--cfg loom"`, under which
//! locus's `sync` facade uses loom's atomics and locus exposes the protocol
//! types in `locus::__loom`). Built without `--cfg loom` the tests compile to
//! nothing.
//!
//! The models run the workers' search loop as it ships
//! (`locus::__loom::search`, the function `WorkerThread` runs) over the
//! model pool of [`Pool`]: queues that are counters of jobs (crossbeam's
//! deques are not loom-aware), and a `find_work` pass that looks at them in
//! the order and with the rules of the real one. The parts of the registry
//! the models need (its exit condition, a spawn's count, the pack push) are
//! small copies, each named after the function it copies.

/// A model checker with preemption bound `bound` (the cost of a model grows
/// steeply with it; each model picks the largest that keeps `run.sh`
/// within its budget). `LOOM_MAX_PREEMPTIONS`, when set, overrides it for
/// every model (e.g. a deeper run by hand).
#[cfg(loom)]
pub fn builder(bound: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(bound);
    }
    b
}

#[cfg(loom)]
mod model;

#[cfg(loom)]
pub use model::{Frame, FrameOwner, Kind, Pool, Running};
