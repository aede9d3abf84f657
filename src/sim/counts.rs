//! What one simulation counts: raw counts ([`Counts`], their byte tiers
//! [`BYTE_TIERS`]) and one run's summary ([`Run`]), which a [`Report`]
//! gathers over runs.
//!
//! Invariants: `Counts::bytes_by_tier` adds up to every byte of task data
//! touched, and its two DRAM entries to `Counts::dram_bytes_by_node`;
//! `Counts::bw_wait_by_resource` adds up to
//! `Counts::bw_wait_ns`; `Counts::steals` and `Counts::wakeups` are
//! indexed by `TierKind` and `Distance` as `usize`.
//!
//! [`Report`]: crate::sim::Report

use crate::layout::TierKind;
use crate::runtime::idle::Distance;

use super::policy::Policy;

/// The names of [`Counts::bytes_by_tier`]'s entries: a cache at each
/// relation ([`TierKind`] as `usize`: `same-core` to `other-node`), DRAM
/// of the own node, DRAM of another node, and bytes found in the worker's
/// own caches (nothing moved). The cache model (`sim::cache`) fills
/// them.
///
/// [`Counts::bytes_by_tier`]: Counts::bytes_by_tier
pub const BYTE_TIERS: [&str; 9] = [
    "same-core",
    "same-cluster",
    "same-llc",
    "same-node",
    "same-package",
    "other-node",
    "dram-local",
    "dram-remote",
    "own-cache",
];

/// One feed of an `Auto` group's tracker: (group, the tracker's counts by
/// LLC after the feed, preference before, after).
pub type Feed = (u32, Vec<u64>, Option<usize>, Option<usize>);

/// Raw counts of one simulation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Simulated time when the last root finished.
    pub makespan_ns: u64,
    /// Time workers spent on tasks' work and refills.
    pub busy_ns: u64,
    /// Events handled.
    pub events: u64,
    /// Jobs run (taken from a queue, or a `join` half taken back).
    pub jobs: u64,
    /// Steals (and private-half claims) by the thief's relation to the
    /// victim, indexed by [`TierKind`] as `usize`.
    pub steals: [u64; 6],
    /// Wakeups by distance, indexed by [`Distance`] as `usize`.
    pub wakeups: [u64; 3],
    /// Jobs taken from injectors and group queues.
    pub injector_pulls: u64,
    /// Idle-mask words touched by claims, wakeups and idle transitions,
    /// and read by the far choice's look at claims still on their way
    /// (counted in the `IdleMasks` code).
    pub claim_words: u64,
    /// Calls that touched idle masks.
    pub claim_calls: u64,
    /// Reads and writes of task data served from another LLC's cache.
    pub llc_moves: u64,
    /// Bytes of task data by where they came from, indexed as
    /// [`BYTE_TIERS`]: a cache at each relation, DRAM
    /// of the own node or another, or the worker's own caches (the cache
    /// model, `sim::cache`). The entries add up to every byte touched.
    pub bytes_by_tier: [u64; 9],
    /// Time transfers waited for shared bandwidth (an LLC's link, a
    /// node's DRAM, a socket link: `sim::bandwidth`), beyond what one
    /// core alone would have taken, summed over all transfers (ns).
    pub bw_wait_ns: u64,
    /// [`Counts::bw_wait_ns`] by the resource that decided each wait (the
    /// last of its path to move the bytes): an LLC's link, a node's DRAM,
    /// a socket link.
    pub bw_wait_by_resource: [u64; 3],
    /// Bytes read from each NUMA node's DRAM (indexed by the node's dense
    /// index, as a worker's `Place::numa`; first touches included): where
    /// the blocks' homes put the load. Adds up to the `dram-local` and
    /// `dram-remote` entries of [`Counts::bytes_by_tier`].
    pub dram_bytes_by_node: Vec<u64>,
    /// Time reads waited for a copy still arriving in a cache (the rest
    /// of the transfer that brings it, beyond the copy's own price:
    /// `sim::cache`), summed over all reads (ns).
    pub arrival_wait_ns: u64,
    /// Private `join` halves promoted to the deque.
    pub promotions: u64,
    /// Promoted halves dealt to another LLC (`runtime::deal`).
    pub deals: u64,
    /// Dealt halves their owner took back before a receiver claimed them.
    pub dealt_taken_back: u64,
    /// Dealt halves taken from a sleeping LLC's pack queue by a searcher
    /// of another LLC (`pass`, "A dealt half of a sleeping LLC").
    pub asleep_takes: u64,
    /// Victims the far choice compared although their LLC counted
    /// searchers, all of them claimed workers not yet awake (`pass::far`,
    /// "Claims still on their way").
    pub claim_passes: u64,
    /// Jobs a searcher of another LLC stole from the deque of a marked
    /// LLC's receiver, its LLC's only awake worker (`pass`, "The receiver
    /// alone").
    pub receiver_takes: u64,
    /// Tasks that ended without a body (an iterator's leaves, fib's
    /// `n < 2` calls).
    pub leaves: u64,
    /// Private halves claimed by a worker about to park.
    pub private_claims: u64,
    /// Searches that found nothing and went idle.
    pub failed_searches: u64,
    /// Parks (one per idle period: a lazy park whose timeout expires
    /// and parks again is one).
    pub parks: u64,
    /// Lazy parks (`Sources::lazy_park`: a timed park after an unfenced
    /// look at the private halves).
    pub lazy_parks: u64,
    /// Lazy parks whose timeout expired (then the fenced re-check).
    pub lazy_expired: u64,
    /// Heavy fences of the looks at the private halves before parking
    /// (`private::rules::look_fences`), each charged
    /// [`CostModel::heavy_fence_ns`](crate::sim::CostModel::heavy_fence_ns).
    pub heavy_fences: u64,
    /// Workers interrupted by those fences: per fence, every other worker
    /// running at that moment (`Sim::interrupt_running`), each delayed
    /// [`CostModel::fence_interrupt_ns`](crate::sim::CostModel::fence_interrupt_ns).
    pub fence_interrupts: u64,
    /// Search passes (rayon-like: `find_work` rounds).
    pub passes: u64,
    /// Workers that ran at least one job taken from a queue.
    pub workers_ran: u64,
    /// Each run of a group job: (group, worker).
    pub group_runs: Vec<(u32, u32)>,
    /// Each feed of an `Auto` group's tracker: (group, the tracker's
    /// counts by LLC after the feed, preference before, after).
    pub group_feeds: Vec<Feed>,
    /// Each indexed iterator's run, in order of start ([`IterStats`]).
    pub iters: Vec<IterStats>,
}

/// One run of an indexed iterator (`Body::Iter`): its first split's
/// pieces and where their work ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IterStats {
    /// The pieces (empty when the iterator was not cut: one LLC without
    /// replay, or too few items).
    pub pieces: Vec<PieceStats>,
    /// With replay: the replay record's comparison with the run before
    /// (`Replay::stats` after this run).
    pub replay: Option<crate::iter::ReplayStats>,
}

impl IterStats {
    /// Work of all pieces run in the piece's own LLC, and all work.
    pub fn in_llc(&self) -> (u64, u64) {
        self.pieces
            .iter()
            .fold((0, 0), |(a, b), p| (a + p.in_llc_ns, b + p.work_ns))
    }
}

/// One piece of a first split.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PieceStats {
    /// Its items.
    pub items: std::ops::Range<usize>,
    /// The LLC of its domain.
    pub llc: usize,
    /// The worker it was aimed at (with replay), else `None`.
    pub aimed_at: Option<usize>,
    /// The worker that started it.
    pub ran_on: usize,
    /// When it started (simulated ns).
    pub started_ns: u64,
    /// Work of its tasks (ns).
    pub work_ns: u64,
    /// Of which run by workers of `llc`.
    pub in_llc_ns: u64,
}

impl Counts {
    /// Bytes of task data read from another LLC's cache (`same-node`,
    /// `same-package`, `other-node` of [`Counts::bytes_by_tier`]).
    pub fn bytes_across_llc(&self) -> u64 {
        self.bytes_by_tier[3..6].iter().sum()
    }

    /// Bytes of task data read from DRAM (the own node's or another's).
    pub fn bytes_from_dram(&self) -> u64 {
        self.bytes_by_tier[6..8].iter().sum()
    }

    /// All steals.
    pub fn steals_total(&self) -> u64 {
        self.steals.iter().sum()
    }

    /// Steals from a victim in the thief's LLC.
    pub fn steals_within_llc(&self) -> u64 {
        [TierKind::Smt, TierKind::Cluster, TierKind::Llc]
            .iter()
            .map(|&k| self.steals[k as usize])
            .sum()
    }

    /// All wakeups.
    pub fn wakeups_total(&self) -> u64 {
        self.wakeups.iter().sum()
    }

    /// Wakeups of a worker in the waker's LLC.
    pub fn wakeups_within_llc(&self) -> u64 {
        self.wakeups[Distance::Cluster as usize] + self.wakeups[Distance::Llc as usize]
    }
}

/// One simulated run: a policy on a number of workers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The policy.
    pub policy: Policy,
    /// Workers.
    pub workers: usize,
    /// The seed of its random choices and perturbed costs ([`Repeat`](crate::sim::Repeat)).
    pub seed: u64,
    /// Everything counted.
    pub counts: Counts,
}

impl Run {
    pub(super) fn new(policy: Policy, workers: usize, counts: &Counts) -> Run {
        Run {
            policy,
            workers,
            seed: 0,
            counts: counts.clone(),
        }
    }

    /// Busy time over workers × makespan.
    pub fn utilisation(&self) -> f64 {
        let span = self.counts.makespan_ns.max(1) as f64 * self.workers as f64;
        self.counts.busy_ns as f64 / span
    }
}
