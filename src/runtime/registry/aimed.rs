//! Jobs aimed at a cache domain or at one worker, and a caller that waits
//! for them: the runtime side of the first split of parallel iterators
//! (`iter::plumbing::hierarchy`).
//!
//! [`run_aimed`] takes a list of closures, each with an [`Aim`]: the
//! [`Aim::Here`] ones run inline on the calling worker, the others are
//! pushed as stack jobs where they are aimed, and the caller waits for all
//! of them on a counting latch (helping meanwhile, like `scope`). Results
//! come back in list order, panics caught, so the caller resumes them only
//! after every job finished.
//!
//! Where an aimed job goes:
//! - [`Aim::Llc`]: into that LLC's *pack queue*, the queue packed job
//!   groups use: its own workers take it (right after their own deque),
//!   another LLC's workers only under the help rule
//!   ([`crate::groups::policy::may_help_by`]: that LLC overloaded, or saturated while
//!   the helper is idle). So a piece stays in its LLC while that LLC has a
//!   worker to run it, and never waits for ever on an LLC whose workers
//!   all block. The wakeup is the pack queue's ([`notify_pack`]),
//!   the cluster of `wake_from` first.
//! - [`Aim::Worker`]: worker `w` is preferred, its LLC is the fallback.
//!   One job, two *copies* (a heap proxy referenced twice, as oneTBB's
//!   affinity proxies): one in `w`'s targeted queue (only `w` looks
//!   there, first in each search), one in `w`'s LLC's pack queue. The
//!   first copy executed runs the job; the other finds it taken and only
//!   frees the proxy. `w` is woken if it is idle (claimed like any idle
//!   worker); if it is not, the pack queue's wakeup gets another worker of
//!   the LLC. Trade-off: a busy `w` loses its piece to a neighbour in its
//!   LLC (warm L3, cold L1/L2) instead of the job waiting for `w`; a
//!   targeted-only job would keep the piece for `w` but hang if `w`
//!   blocks, and nobody else could ever run it.
//!
//! Invariants: every pushed job is executed exactly once (a proxy copy
//! that loses executes nothing but its own release); the caller's frame,
//! which holds the stack jobs, is left only after the count latch is set
//! (no unwinding before: see `runtime::unwind`); the pushes follow the
//! pack queue's wake rules, so the proof of "Queues of one LLC" in `sleep`
//! covers them. Claiming `w` itself for an [`Aim::Worker`] push is a claim
//! restricted to one worker of the LLC, an instance of that proof's rule 2;
//! when it fails the general pack wakeup runs. A proxy copy left in a
//! queue when the job already ran is executed by a later search (workers
//! drain every queue they look at before exiting: their own targeted
//! queue, their LLC's pack queue), so its memory is freed before the pool
//! exits.

use crate::runtime::idle::Distance;
use crate::runtime::job::{Job, JobRef, JobResult, StackJob};
use crate::runtime::latch::{CountLatch, LatchRef};
use crate::runtime::unwind::AbortOnUnwind;
use crate::runtime::worker::WorkerThread;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};

use super::Registry;
use super::group_routing::notify_pack;
use super::shared::SharedQueues;
use crate::layout::Layout;
use crate::runtime::sleep::Sleep;

/// Where [`run_aimed`] runs a closure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Aim {
    /// Inline, on the calling worker.
    Here,
    /// Into LLC `llc`'s pack queue; the wakeup tries the cluster of
    /// `wake_from` first.
    Llc {
        /// Dense LLC index.
        llc: usize,
        /// A worker whose cluster is woken first.
        wake_from: Option<usize>,
    },
    /// Worker `w` first, else any worker of its LLC (module docs).
    Worker(usize),
}

/// Runs `tasks`: the [`Aim::Here`] ones inline on `wt`, in order, after
/// pushing the others where they are aimed; returns once all have run,
/// with their outcomes in list order (the closures get `migrated`: false
/// inline, true elsewhere). The frame's steps are [`AimedFrame`]'s, which
/// the simulator's fan-out steps too.
pub(crate) fn run_aimed<F, R>(wt: &WorkerThread, tasks: Vec<(Aim, F)>) -> Vec<JobResult<R>>
where
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    let registry = wt.registry();
    let (aims, jobs): (Vec<Aim>, Vec<_>) = tasks.into_iter().unzip();
    let mut frame = AimedFrame::new(&aims);
    let latch = CountLatch::with_count(registry, wt.index(), frame.remote());
    let jobs: Vec<_> = jobs
        .into_iter()
        .map(|f| StackJob::new(|m| starting(f, m), LatchRef(&latch)))
        .collect();
    // From the first push until the latch is set, workers use `jobs`: no
    // unwinding out of this frame (the inline closures' panics are caught).
    let guard = AbortOnUnwind::new("a parallel iterator while its pieces run on other workers");
    let mut here: Vec<JobResult<R>> = Vec::with_capacity(aims.len() - frame.remote());
    loop {
        match frame.step(&aims) {
            AimedStep::Start => wt.start_piece(),
            // SAFETY: `jobs` is neither moved nor dropped until the latch,
            // which every pushed job sets, is observed (`Wait`).
            AimedStep::Push(i) => registry.push_aimed(aims[i], unsafe { jobs[i].as_job_ref() }, wt),
            AimedStep::Run(i) => here.push(JobResult::call(|| jobs[i].run_inline(false))),
            AimedStep::Wait => wt.wait_until(&latch.core),
            AimedStep::Done => break,
        }
    }
    guard.disarm();
    let mut here = here.into_iter();
    aims.into_iter()
        .zip(jobs)
        .map(|(aim, job)| match aim {
            Aim::Here => here.next().expect("one outcome per inline task"),
            _ => job.into_job_result(),
        })
        .collect()
}

/// What a fan-out's frame ([`run_aimed`]) does next ([`AimedFrame::step`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AimedStep {
    /// Mark the worker as starting a piece (`owner::start_piece`): its own
    /// task starts after the pushes and wakeups, and its mates wait for it
    /// from now on. Only when some task runs inline.
    Start,
    /// Push task `i` where its aim says ([`push_aimed_to`]).
    Push(usize),
    /// Run task `i` inline (its aim is [`Aim::Here`]).
    Run(usize),
    /// Wait for the count latch of the pushed tasks
    /// (`WorkerThread::wait_until`: promote every private half, then run
    /// other jobs until it is set). Only when a task was pushed.
    Wait,
    /// Every task ran: the frame returns.
    Done,
}

/// The frame of [`run_aimed`] as a state machine over the tasks' aims,
/// one copy for the pool's threads (which loop over its steps on the
/// thread's stack) and the simulator (which takes a `Run` as a frame of
/// events and steps again when it returns): the start mark if a task runs
/// here, every remote task pushed in order, then the inline ones in
/// order, then the wait for the count latch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AimedFrame {
    /// The tasks that are pushed (the count latch's count).
    remote: usize,
    /// The phase: 0 start mark, 1 pushes, 2 inline runs, 3 wait, 4 done.
    phase: u8,
    /// The next task the phase looks at.
    next: usize,
}

impl AimedFrame {
    /// The frame of tasks aimed by `aims`.
    pub(crate) fn new(aims: &[Aim]) -> AimedFrame {
        AimedFrame {
            remote: aims.iter().filter(|&&a| a != Aim::Here).count(),
            phase: 0,
            next: 0,
        }
    }

    /// The tasks pushed to other workers: the count of the frame's latch.
    pub(crate) fn remote(&self) -> usize {
        self.remote
    }

    /// The frame's next step (`aims` as given to [`AimedFrame::new`]).
    pub(crate) fn step(&mut self, aims: &[Aim]) -> AimedStep {
        loop {
            match self.phase {
                0 => {
                    self.phase = 1;
                    if self.remote < aims.len() {
                        return AimedStep::Start;
                    }
                }
                1 | 2 => {
                    let here = self.phase == 2;
                    let i = self.next;
                    if i == aims.len() {
                        self.phase += 1;
                        self.next = 0;
                        continue;
                    }
                    self.next += 1;
                    if (aims[i] == Aim::Here) == here {
                        return if here {
                            AimedStep::Run(i)
                        } else {
                            AimedStep::Push(i)
                        };
                    }
                }
                3 => {
                    self.phase = 4;
                    if self.remote > 0 {
                        return AimedStep::Wait;
                    }
                }
                _ => return AimedStep::Done,
            }
        }
    }
}

/// Runs task `f` of [`run_aimed`] on the current worker, marked as
/// starting its piece until its first `join` or its end
/// (`WorkerThread::start_piece`).
fn starting<F: FnOnce(bool) -> R, R>(f: F, migrated: bool) -> R {
    /// Ends the mark when `f` returns or unwinds.
    struct Started;
    impl Drop for Started {
        fn drop(&mut self) {
            WorkerThread::with_current(|wt| wt.map(WorkerThread::end_start));
        }
    }
    WorkerThread::with_current(|wt| wt.map(WorkerThread::start_piece));
    let _started = Started;
    f(migrated)
}

/// One job referenced by two queues (module docs, [`Aim::Worker`]).
struct AffineProxy {
    job: JobRef,
    /// Set by the copy that runs the job.
    taken: AtomicBool,
    /// Copies not yet executed; the last one frees the proxy.
    copies: AtomicUsize,
}

impl Job for AffineProxy {
    unsafe fn execute(this: *const Self) {
        // SAFETY: the proxy lives until its last copy ran (below); this is
        // one of its copies.
        let p = unsafe { &*this };
        // Only the first copy runs the job (exactly-once); AcqRel so the
        // losing copy's release below is ordered after the winner's claim.
        if !p.taken.swap(true, Ordering::AcqRel) {
            // SAFETY: the job is run once, by the copy that claimed it.
            unsafe { p.job.execute() };
        }
        if p.copies.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: the last copy: nobody else refers to the proxy. It was
            // made by `Box::into_raw` in `push_aimed`.
            drop(unsafe { Box::from_raw(this.cast_mut()) });
        }
    }
}

impl Registry {
    /// Pushes `job` from worker `from` where `aim` says and wakes a worker
    /// for it ([`push_aimed_to`]). `aim` must not be [`Aim::Here`].
    pub(crate) fn push_aimed(&self, aim: Aim, job: JobRef, from: &WorkerThread) {
        push_aimed_to(&mut (self, Some(from)), aim, job);
    }
}

/// `job` as two copies of one heap proxy (module docs, [`Aim::Worker`]).
pub(super) fn two_copies(job: JobRef) -> JobRef {
    let proxy = Box::into_raw(Box::new(AffineProxy {
        job,
        taken: AtomicBool::new(false),
        copies: AtomicUsize::new(2),
    }));
    // SAFETY: the proxy lives until both copies were executed
    // (`AffineProxy::execute`); the caller queues the copy twice.
    unsafe { JobRef::new(proxy.cast_const()) }
}

/// Pushes `job` from the pushing worker of `q` where `aim` says and wakes a
/// worker for it (module docs): the pool's [`Registry::push_aimed`] and the
/// simulator's fan-out both run it. `aim` must not be [`Aim::Here`], and
/// the pusher must be a worker of the pool.
#[inline]
pub(crate) fn push_aimed_to<Q: SharedQueues>(q: &mut Q, aim: Aim, job: Q::Job) {
    let from = q.pusher().expect("aimed jobs are pushed by a worker");
    q.routed();
    let woken = match aim {
        Aim::Here => unreachable!("inline tasks are not pushed"),
        Aim::Llc { llc, wake_from } => {
            q.pack(llc).push(job);
            let from_llc = q.pusher_llc();
            q.idle_op(|s| notify_pack(s, llc, wake_from, from_llc))
        }
        Aim::Worker(w) => {
            let ws = q.layout().workers();
            let (llc, from_llc) = (ws[w].llc, ws[from].llc);
            let d = distance(q.layout(), from, w);
            let copy = q.two_copies(job);
            q.queue_targeted(w, copy);
            q.pack(llc).push(copy);
            // The pusher's fence of the sleep protocol, then the wakeup
            // (module docs).
            q.fence();
            q.idle_op(|s| wake_aimed_worker(s, w, d, llc, from_llc))
        }
    };
    if let Some(hit) = woken {
        q.woke(hit);
    }
}

/// The wakeup of an [`Aim::Worker`] push of a worker of LLC `from_llc`,
/// once both copies are queued and the pusher's fence is done: a claim of
/// `w` itself (at distance `d` from the pusher) if it is idle, else the
/// wakeup of `w`'s LLC `llc`'s pack queue, `w`'s cluster first (module
/// docs).
fn wake_aimed_worker(
    sleep: &Sleep,
    w: usize,
    d: Distance,
    llc: usize,
    from_llc: usize,
) -> Option<(usize, Distance)> {
    sleep
        .wake_if_idle(w, d)
        .or_else(|| notify_pack(sleep, llc, Some(w), Some(from_llc)))
}

/// How far worker `b` is from worker `a`, as wakeups are counted.
fn distance(layout: &Layout, a: usize, b: usize) -> Distance {
    let w = layout.workers();
    if w[a].cluster == w[b].cluster {
        Distance::Cluster
    } else if w[a].llc == w[b].llc {
        Distance::Llc
    } else {
        Distance::Remote
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::Ordering as StdOrdering;

    /// Worker `wt`'s `starting` hint, as its LLC mates read it.
    fn starting(wt: &WorkerThread) -> bool {
        wt.registry().threads[wt.index()]
            .starting
            .load(StdOrdering::Relaxed)
    }

    /// The frame's steps: the start mark only with an inline task, every
    /// push before any inline run (in list order), the wait only with a
    /// pushed task.
    #[test]
    fn the_frame_pushes_then_runs_inline_then_waits() {
        let steps = |aims: &[Aim]| {
            let mut f = AimedFrame::new(aims);
            let mut out = Vec::new();
            loop {
                let s = f.step(aims);
                out.push(s);
                if s == AimedStep::Done {
                    return (f.remote(), out);
                }
            }
        };
        let llc = Aim::Llc {
            llc: 1,
            wake_from: None,
        };
        use AimedStep::*;
        assert_eq!(
            steps(&[llc, Aim::Here, Aim::Worker(3)]),
            (2, vec![Start, Push(0), Push(2), Run(1), Wait, Done])
        );
        assert_eq!(
            steps(&[llc, Aim::Worker(3)]),
            (2, vec![Push(0), Push(1), Wait, Done])
        );
        assert_eq!(
            steps(&[Aim::Here, Aim::Here]),
            (0, vec![Start, Run(0), Run(1), Done])
        );
        assert_eq!(steps(&[]), (0, vec![Done]));
    }

    /// The hint of rule 2 of "Before crossing the LLC" (`pass`): set while
    /// an aimed task runs, until its first `join`, and cleared when the
    /// task returns without one.
    #[test]
    fn an_aimed_task_marks_its_worker_until_its_first_join() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (split, unsplit, after) = pool.install(|| {
            WorkerThread::with_current(|wt| {
                let wt = wt.expect("install runs on a worker");
                let mark = || WorkerThread::with_current(|w| starting(w.unwrap()));
                let split = |_: bool| {
                    let before = mark();
                    crate::join(|| (), || ());
                    (before, mark())
                };
                let unsplit = |_: bool| (mark(), mark());
                let mut r = run_aimed(wt, vec![(Aim::Here, split)]);
                let split = r.pop().unwrap().into_return_value();
                let mut r = run_aimed(wt, vec![(Aim::Here, unsplit)]);
                let unsplit = r.pop().unwrap().into_return_value();
                (split, unsplit, starting(wt))
            })
        });
        assert_eq!(split, (true, false), "set until the first join");
        assert_eq!(unsplit, (true, true), "set while a task has not split");
        assert!(!after, "cleared when the task returned");
    }
}
