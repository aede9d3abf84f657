//! The state of one iterator run's first split on the simulated pool
//! ([`SplitRun`]): the data the engine keeps per split (`Sim::splits`),
//! apart from the steps that drive it (`split.rs`), so the engine does not
//! depend on those steps.

use crate::iter::plumbing::hierarchy::Piece;
use crate::iter::plumbing::replay_record::ReplayKey;

use super::counts::IterStats;
use super::workload::Node;

/// One iterator run's first split.
pub(super) struct SplitRun {
    pub(super) pieces: Vec<Piece>,
    /// Replay: each piece's target worker.
    pub(super) targets: Option<Vec<usize>>,
    /// The worker that started each piece.
    pub(super) ran: Vec<usize>,
    /// Replay: the record's key.
    pub(super) key: Option<ReplayKey>,
    /// The tag of piece nodes ([`IterSpec::piece`](super::workload::IterSpec::piece)).
    pub(super) tag: u64,
    /// What follows the iterator.
    pub(super) then: Option<Node>,
    pub(super) stats: IterStats,
}

impl SplitRun {
    /// The workers of piece `i`'s domain: its adaptive tree's budget
    /// (`run_split::run_piece`).
    pub(super) fn piece_workers(&self, layout: &crate::Layout, i: usize) -> usize {
        self.pieces
            .get(i)
            .map_or(1, |p| p.domain.workers(layout).len())
    }
}
