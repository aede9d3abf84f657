//! A worker's run loop, one copy for the pool's threads, the loom models
//! and the simulator: until its latch is set (or, without a latch, until
//! the search lets it exit), the worker runs the jobs of its own deque and
//! of its own group queues, and when they are empty it searches
//! ([`search::search`]) and runs what the search found.
//!
//! [`next`] is one step of the loop (is the latch set? a local job? else
//! search), over a [`RunLoop`]; [`run`] drives it on a thread
//! (`WorkerThread::run`, the loom models' pool) with the shipped search.
//! The simulator takes each step as part of an event: a job it runs is a
//! frame of events, and its search is the [`search::Search`] machine
//! stepped one event at a time.
//!
//! Invariants: the latch is probed before each local take, so a worker
//! waiting for a latch returns as soon as it sees it set between jobs; the
//! [`RunLoop::before_search`] hook runs once before each search, after
//! the local queues were found empty.

use super::search::{self, Sources};

/// A worker as its run loop sees it: the search's sources, plus its own
/// queues.
pub trait RunLoop: Sources {
    /// A job of the own deque, else of the own LLC's pack queue or
    /// cluster's spread queue (`owner::take_local`, then
    /// `owner::take_own_group`).
    fn take_local(&mut self) -> Option<Self::Job>;

    /// The own queues are empty and a search starts: the worker's own
    /// bookkeeping (the pool publishes its counts and ends its `CROSSING`
    /// mark: no halves of a job taken across the LLC will come from here
    /// any more).
    #[inline(always)]
    fn before_search(&mut self) {}
}

/// What a worker's run loop does next ([`next`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Next<J> {
    /// The latch is set: return.
    Done,
    /// A job of the own queues: run it, then step again.
    Run(J),
    /// The own queues are empty: search (then run what it found and step
    /// again, or return if it found nothing: the latch was set or the
    /// pool exits).
    Search,
}

/// One step of the run loop of `r`, waiting for `latch` (`None`: the main
/// loop, which never is done by itself).
#[inline]
pub fn next<R: RunLoop>(r: &mut R, latch: Option<&R::Latch>) -> Next<R::Job> {
    if latch.is_some_and(|l| r.probe(l)) {
        return Next::Done;
    }
    match r.take_local() {
        Some(job) => Next::Run(job),
        None => {
            r.before_search();
            Next::Search
        }
    }
}

/// The run loop on a thread: steps [`next`] until it is done, running
/// jobs with `execute` and searching with [`search::search`] (worker
/// `index` of LLC `llc`).
#[inline]
pub fn run<R: RunLoop>(
    r: &mut R,
    index: usize,
    llc: usize,
    latch: Option<&R::Latch>,
    mut execute: impl FnMut(&mut R, R::Job),
) {
    loop {
        match next(r, latch) {
            Next::Done => return,
            Next::Run(job) => execute(r, job),
            Next::Search => match search::search(r, index, llc, latch) {
                Some(job) => execute(r, job),
                None => return,
            },
        }
    }
}
