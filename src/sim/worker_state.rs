//! A simulated worker's state between events (`SimWorker`, `Mode`): its
//! deque, frames, search state and seeded random state, built one per
//! layout slot.
//!
//! Invariants: a worker has at most one pending event (`scheduled`); a
//! parked or blocked worker has none until a wakeup schedules it; seed 0
//! gives every worker the pool's own random state (`pass::tiers::worker_seed`),
//! so a simulation with seed 0 makes the pool's own random choices.

use crossbeam_deque::{Stealer, Worker};

use crate::layout::Layout;
use crate::runtime::pass;
use crate::runtime::search::Search;

use super::job::{Frame, JobId};
use super::rayon_sleep::Phase;

/// A worker's state between events.
#[derive(Debug)]
pub(super) enum Mode {
    /// Running frames or its own deque.
    Run,
    /// Searching: its next event is the next step of this search.
    Search(Search),
    /// Parked (the search holds its idle token) until a wakeup; a lazy
    /// park ([`Search::lazy`]) also until its timeout, its one pending
    /// event.
    Parked(Search),
    /// Woken, running again after the wake latency: its next event is the
    /// search's step after the park.
    Waking(Search),
    /// A rayon-like worker's idle loop (its state in `Sim::rayon`).
    Rayon(Phase),
}

/// One simulated worker: its queues, frames and state between events.
pub(super) struct SimWorker {
    pub(super) deque: Worker<JobId>,
    pub(super) frames: Vec<Frame>,
    pub(super) mode: Mode,
    pub(super) rng: u64,
    pub(super) llc: usize,
    pub(super) cluster: usize,
    /// A pending event is in the heap.
    pub(super) scheduled: bool,
    /// The time of the pending event (last scheduled), in ns.
    pub(super) next_at: u64,
    /// The heap sequence number of the pending event: any other event of
    /// this worker in the heap is a lazy park's timeout that a wakeup
    /// cancelled, skipped when popped.
    pub(super) pending_seq: u64,
    /// The worker thread's `lazy_look`: the pass running is a lazy park's
    /// re-check, whose look at the private halves is unfenced.
    pub(super) lazy_look: bool,
    /// The fraction of a ns of cost not yet on the clock (`after_cost`).
    pub(super) carry: f64,
    /// The victim of the last job a pass took by a steal (`None`: the last
    /// job a pass took came from elsewhere), as the worker thread's
    /// `stolen_from`.
    pub(super) stolen_from: Option<usize>,
    /// The worker thread's `injector_turn` (`owner::take_own_group`).
    pub(super) injector_turn: std::cell::Cell<bool>,
}

/// One simulated worker per layout slot, each with its deque (whose
/// stealers are returned in the same order) and its seeded search rng.
pub(super) fn new_workers(layout: &Layout, seed: u64) -> (Vec<SimWorker>, Vec<Stealer<JobId>>) {
    let n = layout.len();
    let mut stealers = Vec::with_capacity(n);
    let workers = (0..n)
        .map(|i| {
            let deque = Worker::new_lifo();
            stealers.push(deque.stealer());
            let p = &layout.workers()[i];
            SimWorker {
                deque,
                frames: Vec::new(),
                mode: Mode::Run,
                rng: seeded(pass::tiers::worker_seed(i), seed),
                llc: p.llc,
                cluster: p.cluster,
                scheduled: false,
                next_at: 0,
                pending_seq: 0,
                lazy_look: false,
                carry: 0.0,
                stolen_from: None,
                injector_turn: std::cell::Cell::new(false),
            }
        })
        .collect();
    (workers, stealers)
}

/// A worker's random state for run seed `seed`: the pool's own
/// (`pass::tiers::worker_seed`) for seed 0, else mixed with the seed (never 0,
/// which would stall xorshift).
fn seeded(state: u64, seed: u64) -> u64 {
    if seed == 0 {
        return state;
    }
    match state ^ super::workload::mix(seed) {
        0 => state,
        x => x,
    }
}
