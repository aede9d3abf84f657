//! A simulated job and its frame: the arena entry of a task instance
//! (`Job`, indexed by `JobId`), who frees it (`Kind`), and where a
//! worker's frame for it is (`Stage`, `Frame`), the state the engine and
//! the worker's loop step.
//!
//! Invariants: a `JobId` names one live job from `Sim::new_job` until it
//! is pushed back on `Sim::free`; a `Half` job is freed by its owner once
//! the owner saw its latch (`done`), the other kinds when they finish
//! (`Sim::finish`), except that a job queued as two copies (`copies`, an
//! `Aim::Worker` push) is run by the first copy executed and freed by the
//! last.

use crate::iter::plumbing::run_split::Level;
use crate::runtime::join_frame::JoinFrame;
use crate::runtime::registry::{Aim, AimedFrame};

use super::workload::Node;

/// A job's index in the arena.
pub(super) type JobId = u32;

/// A job: a task instance and its latch.
#[derive(Debug, Clone)]
pub(super) struct Job {
    pub(super) node: Node,
    pub(super) group: Option<u32>,
    /// The worker that created it (where its data was last touched, unless
    /// the task names its data).
    pub(super) home: u32,
    /// Its latch is set (it finished).
    pub(super) done: bool,
    /// Spawned children not finished yet (scopes).
    pub(super) pending: u32,
    /// The scope that spawned it, if any.
    pub(super) scope: Option<JobId>,
    /// What kind of job it is (who frees it).
    pub(super) kind: Kind,
    /// The worker waiting for its latch (a `join`'s owner, a scope's).
    pub(super) waiter: Option<u32>,
    /// The piece of an iterator's first split it belongs to: (index into
    /// `Sim::splits`, piece).
    pub(super) piece: Option<(u32, u32)>,
    /// A group of pieces of a first split to run (`run_split::run_group`).
    pub(super) fanout: Option<Fanout>,
    /// Queued copies not executed yet (an `Aim::Worker` push queues two;
    /// the first executed runs the job, the last frees it).
    pub(super) copies: u8,
    /// A copy ran it.
    pub(super) taken: bool,
    /// The root of a piece of a first split, counted in its worker's LLC's
    /// `Sim::placed` while it runs (`WorkerThread::run_placed`).
    pub(super) placed: bool,
    /// It runs on another worker than its creator (`Start::migrated`).
    pub(super) migrated: bool,
    /// The task after its `join` ([`Body::JoinThen`](super::workload::Body::JoinThen)) was started.
    pub(super) then_started: bool,
}

/// Pieces `pieces` of first split `split`, grouped at `level`.
#[derive(Debug, Clone)]
pub(super) struct Fanout {
    pub(super) split: u32,
    pub(super) pieces: std::ops::Range<usize>,
    pub(super) level: Level,
    /// Once fanned out (`run_aimed`): its groups, and where each runs.
    pub(super) aimed: Option<(Vec<std::ops::Range<usize>>, Vec<Aim>)>,
}

/// Who frees a job, and what its end sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Injected from outside: its end counts towards the end of the run.
    Root,
    /// Runs inline in its creator's frame (a `join`'s `a`).
    Inline,
    /// A `join`'s `b`: may run elsewhere; its owner sees its latch.
    Half,
    /// Spawned in a scope: its end counts down the scope.
    Spawned,
}

/// Where a job's frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    /// About to do its own work.
    Start,
    /// Its own work is done: its body next.
    Body,
    /// A `join` frame ([`JoinFrame`]) with second half `b`: its next
    /// step, after `a`, `b` or another job (the frame above) returned.
    Join { b: JobId, frame: JoinFrame },
    /// Waiting for `latch` (a `join`'s `b`, whose frame `join` steps again
    /// once it is set, or the scope's children) by running other jobs
    /// (`wait_until`).
    Wait {
        latch: JobId,
        join: Option<JoinFrame>,
    },
    /// A fan-out's frame (`run_aimed`): its next step, after an inline
    /// group (the frame above) returned.
    Aimed { frame: AimedFrame },
    /// An iterator's pieces all returned: record the replay, then what
    /// follows the iterator.
    AfterIter { split: u32 },
    /// Body done: finish.
    Finish,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    pub(super) job: JobId,
    pub(super) stage: Stage,
}
