//! The simulated pool and its event loop: `Sim`, its queues and simulated
//! time, the jobs' lives (created, executed, finished, freed) and the
//! wakeups. Each worker is a small state machine that advances at its
//! events (`worker`); between events nothing else runs, so one event's
//! look at the queues is atomic (a steal never reports contention), except
//! that a thief's steal from a victim's last job loses to an owner that
//! pops it before the thief's looks get there (`race`).
//!
//! What each event calls of the runtime's code is in the table of the
//! [module docs](super). The rest of `Sim`'s behaviour lives beside its
//! concept, each module an `impl Sim` over the state defined here: a
//! worker's loop (`worker`), its passes (`queues`), the runtime's views of
//! the queues (`views`), the first splits (`split`), the pricing of a
//! job's data (`refill`) and the rayon-like policy (`rayon_like`).
//!
//! Invariants: events are handled in time order (the heap orders them by
//! time, then by the order they were scheduled, so equal times keep a
//! deterministic order); each event's costs accumulate in `acc` and move
//! the clock once, at `after_cost` (the fraction of a ns carried to the
//! worker's next event); the one cost an event charges to other workers
//! is a heavy fence's interrupt, which moves the pending event of each
//! worker running (`interrupt_running`); a root's injection costs no
//! worker anything (`acc` reset); the run ends when every root
//! finished, else it stalled (a panic: an internal error).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use crossbeam_deque::{Injector, Stealer};

use crate::iter::plumbing::replay_record::ReplayCore;
use crate::layout::Layout;
use crate::runtime::idle::{Distance, IdleMasks};
use crate::runtime::owner;
use crate::runtime::private::PrivateStack;
use crate::runtime::registry::group_routing::{load_of, push_to};
use crate::runtime::registry::idle_shape;
use crate::runtime::registry::push::inject_to;
use crate::runtime::search::{self, Search};
use crate::runtime::sleep::Sleep;

use super::cache::Caches;
use super::cost::{CostModel, Reach};
use super::counts::{Counts, Run};
use super::group_state::{SimGroup, new_groups};
use super::job::{Frame, Job, JobId, Kind, Stage};
use super::policy::Policy;
use super::rayon_sleep::RayonSleep;
use super::split_run::SplitRun;
use super::trace::Trace;
use super::worker_state::{Mode, SimWorker, new_workers};
use super::workload::{Node, Task, Workload};

/// The simulation of one pool running one workload.
pub(super) struct Sim<'a> {
    pub(super) layout: Arc<Layout>,
    pub(super) cost: &'a CostModel,
    pub(super) policy: Policy,
    pub(super) workload: &'a dyn Workload,
    pub(super) sleep: Sleep,
    pub(super) workers: Vec<SimWorker>,
    pub(super) stealers: Vec<Stealer<JobId>>,
    pub(super) private: Vec<PrivateStack<JobId>>,
    /// `ThreadInfo::starting`: set while a worker runs a fan-out and has
    /// not pushed a private half since (`WorkerThread::start_piece`).
    pub(super) starting: Vec<bool>,
    /// `LlcHints::placed`: per LLC, the pieces of first splits running.
    pub(super) placed: Vec<usize>,
    /// Per worker, its marks (`owner::STARTING`, `owner::CROSSING`) as
    /// the runtime's `owner` operations set them.
    pub(super) marks: Vec<u8>,
    /// `LlcHints::crossing`: per LLC, the workers with that mark.
    pub(super) crossing: Vec<usize>,
    /// `LlcHints::loop_seen`: per LLC, the mark of a loop of spawns.
    pub(super) loop_seen: Vec<bool>,
    pub(super) injectors: Vec<Injector<JobId>>,
    pub(super) group_llc: Vec<Injector<JobId>>,
    pub(super) group_cluster: Vec<Injector<JobId>>,
    pub(super) spread_used: bool,
    groups: Vec<SimGroup>,
    /// Per worker: its targeted queue (`Aim::Worker` copies).
    pub(super) targeted: Vec<std::collections::VecDeque<JobId>>,
    /// Per worker: its holds on the halves it dealt, newest last
    /// (`deal::Holds`).
    pub(super) dealt: Vec<Vec<JobId>>,
    /// The iterators' first splits, in order of start.
    pub(super) splits: Vec<SplitRun>,
    /// The workload's affinity replay handle (the runtime's own record).
    pub(super) replay: ReplayCore,
    pub(super) jobs: Vec<Job>,
    pub(super) free: Vec<JobId>,
    pub(super) tasks: HashMap<JobId, Task>,
    /// The cache model's caches and blocks (`cache`).
    pub(super) caches: Caches,
    pub(super) heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    pub(super) now: u64,
    pub(super) seq: u64,
    pub(super) round_robin: usize,
    pub(super) roots_left: usize,
    pub(super) max_spinners: isize,
    /// The rayon-like policy's sleep state (`None` for locus's policies).
    pub(super) rayon: Option<RayonSleep>,
    /// Per worker: it ran a job taken from a queue.
    ran: Vec<bool>,
    /// Cost of the current event so far (ns).
    pub(super) acc: f64,
    pub(super) counts: Counts,
    /// The run's record, when asked for (`Sim::run_traced`).
    pub(super) trace: Option<Trace>,
    /// Tests only: false skips the fences' interrupts altogether (the
    /// engine before they were priced), to compare reports with them
    /// priced at 0.
    #[cfg(test)]
    pub(super) deliver_interrupts: bool,
}

/// One private stack per worker; the rayon-like policy has none (its
/// `join` pushes `b` on the deque at once), so its stacks are disabled.
fn new_private_stacks(n: usize, policy: Policy) -> Vec<PrivateStack<JobId>> {
    (0..n)
        .map(|_| {
            if policy == Policy::RayonLike {
                PrivateStack::disabled()
            } else {
                PrivateStack::new()
            }
        })
        .collect()
}

impl<'a> Sim<'a> {
    pub(super) fn new(
        layout: Layout,
        cost: &'a CostModel,
        policy: Policy,
        workload: &'a dyn Workload,
        seed: u64,
    ) -> Sim<'a> {
        let n = layout.len();
        let sleep = Sleep::new(IdleMasks::new(idle_shape(&layout)), n);
        sleep.idle().set_cluster_aware(policy.cluster_aware());
        let (workers, stealers) = new_workers(&layout, seed);
        let groups = new_groups(&layout, workload);
        let nllc = layout.llc_ranges().len();
        let ncl = layout.cluster_ranges().len();
        let caches = Caches::new(&layout, cost);
        Sim {
            layout: Arc::new(layout),
            max_spinners: search::rules::max_spinners(n),
            rayon: (policy == Policy::RayonLike).then(|| RayonSleep::new(n, seed)),
            ran: vec![false; n],
            starting: vec![false; n],
            placed: vec![0; nllc],
            marks: vec![0; n],
            crossing: vec![0; nllc],
            loop_seen: vec![false; nllc],
            private: new_private_stacks(n, policy),
            injectors: (0..nllc).map(|_| Injector::new()).collect(),
            group_llc: (0..nllc).map(|_| Injector::new()).collect(),
            group_cluster: (0..ncl).map(|_| Injector::new()).collect(),
            spread_used: false,
            targeted: (0..n).map(|_| std::collections::VecDeque::new()).collect(),
            dealt: vec![Vec::new(); n],
            splits: Vec::new(),
            replay: ReplayCore::default(),
            cost,
            policy,
            workload,
            sleep,
            workers,
            stealers,
            groups,
            jobs: Vec::new(),
            free: Vec::new(),
            tasks: HashMap::new(),
            caches,
            heap: BinaryHeap::new(),
            now: 0,
            seq: 0,
            round_robin: 0,
            roots_left: 0,
            acc: 0.0,
            counts: Counts::default(),
            trace: None,
            #[cfg(test)]
            deliver_interrupts: true,
        }
    }

    /// Runs the workload to its end and reports.
    pub(super) fn run(mut self) -> Run {
        self.run_all()
    }

    /// [`Sim::run`], recording every leaf's start and every steal.
    pub(super) fn run_traced(mut self) -> (Run, Trace) {
        self.trace = Some(Trace::default());
        let run = self.run_all();
        (run, self.trace.take().expect("set above"))
    }

    fn run_all(&mut self) -> Run {
        let n = self.workers.len();
        // Every worker starts idle and parked, as a new pool's do ("Born
        // idle" in `runtime::sleep`).
        for w in 0..n {
            if self.rayon.is_some() {
                self.rayon_born(w);
                continue;
            }
            let idle = self.sleep.born_idle(w);
            let llc = self.workers[w].llc;
            self.workers[w].mode = Mode::Parked(Search::born(w, llc, idle));
        }
        let mut roots = self.workload.roots();
        roots.sort_by_key(|r| r.at_ns);
        self.roots_left = roots.len();
        let mut roots = roots.into_iter().peekable();
        loop {
            let next_event = self.next_pending().map(|Reverse((t, _, _))| t);
            let next_root = roots.peek().map(|r| r.at_ns);
            let root_first = match (next_event, next_root) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(e), Some(t)) => t <= e,
            };
            if root_first {
                let r = roots.next().expect("peeked");
                self.now = self.now.max(r.at_ns);
                let id = self.new_job(
                    r.node,
                    r.group.map(|g| g as u32),
                    u32::MAX,
                    None,
                    Kind::Root,
                );
                self.inject(id);
                // The injecting thread's costs are not a worker's.
                self.acc = 0.0;
            } else if !self.next_event() {
                break;
            }
            if self.roots_left == 0 && roots.peek().is_none() {
                break;
            }
        }
        assert_eq!(
            self.roots_left, 0,
            "internal error: the simulation stalled with roots unfinished"
        );
        self.counts.makespan_ns = self.now;
        self.counts.workers_ran = self.ran.iter().filter(|&&r| r).count() as u64;
        self.counts.iters = self.splits.iter().map(|s| s.stats.clone()).collect();
        Run::new(self.policy, n, &self.counts)
    }

    /// Handles the next event in time order; false if none is left. An
    /// event that is not its worker's pending one is a lazy park's
    /// timeout that a wakeup cancelled: skipped.
    pub(super) fn next_event(&mut self) -> bool {
        let Some(Reverse((t, _, w))) = self.next_pending() else {
            return false;
        };
        self.heap.pop();
        let w = w as usize;
        self.now = t;
        self.workers[w].scheduled = false;
        self.counts.events += 1;
        self.step(w);
        true
    }

    /// The next event that is its worker's pending one, the cancelled
    /// timeouts before it dropped.
    fn next_pending(&mut self) -> Option<Reverse<(u64, u64, u32)>> {
        while let Some(&Reverse((t, seq, w))) = self.heap.peek() {
            if seq == self.workers[w as usize].pending_seq {
                return Some(Reverse((t, seq, w)));
            }
            self.heap.pop();
        }
        None
    }

    pub(super) fn schedule(&mut self, w: usize, at: u64) {
        debug_assert!(!self.workers[w].scheduled);
        self.workers[w].scheduled = true;
        self.workers[w].next_at = at;
        self.seq += 1;
        self.workers[w].pending_seq = self.seq;
        self.heap.push(Reverse((at, self.seq, w as u32)));
    }

    /// Schedules `w`'s next step after the cost accumulated by this event.
    /// The clock counts whole ns; the fraction left over is carried to
    /// `w`'s next event, so that events of a few ns (a private push, a
    /// call of fib's work: 1 to 3 ns on the calibration machine) add up
    /// to their true sum instead of each being rounded.
    pub(super) fn after_cost(&mut self, w: usize) {
        let t = self.acc + self.workers[w].carry;
        let dt = t.floor();
        self.workers[w].carry = t - dt;
        self.acc = 0.0;
        self.schedule(w, self.now + dt as u64);
    }

    pub(super) fn new_job(
        &mut self,
        node: Node,
        group: Option<u32>,
        home: u32,
        scope: Option<JobId>,
        kind: Kind,
    ) -> JobId {
        let job = Job {
            node,
            group,
            home,
            done: false,
            pending: 0,
            scope,
            kind,
            waiter: None,
            piece: None,
            fanout: None,
            copies: 0,
            taken: false,
            placed: false,
            migrated: false,
            then_started: false,
        };
        match self.free.pop() {
            Some(id) => {
                self.jobs[id as usize] = job;
                id
            }
            None => {
                self.jobs.push(job);
                (self.jobs.len() - 1) as JobId
            }
        }
    }

    pub(super) fn reach(&self, a: usize, b: usize) -> Reach {
        if a == b {
            return Reach::Same;
        }
        let (x, y) = (&self.layout.workers()[a], &self.layout.workers()[b]);
        Reach::At(
            self.layout.relation(a, b),
            self.layout.topology().numa_distance(x.numa, y.numa),
        )
    }

    /// Records that worker `w` was woken (claimed) with distance `d`, by a
    /// worker (`by`) or from outside: its wakeup event after the latency.
    pub(super) fn woke(&mut self, hit: Option<(usize, Distance)>) {
        let Some((w, d)) = hit else { return };
        self.counts.wakeups[d as usize] += 1;
        self.wake(w);
    }

    /// Wakes parked worker `w` (a claim, or its latch was set). A lazy
    /// park's `park_for` returns true: its timeout is cancelled.
    pub(super) fn wake(&mut self, w: usize) {
        if let Mode::Parked(_) = self.workers[w].mode {
            let Mode::Parked(mut search) = std::mem::replace(&mut self.workers[w].mode, Mode::Run)
            else {
                unreachable!()
            };
            if search.lazy().is_some() {
                search.woken();
            }
            self.workers[w].scheduled = false;
            self.workers[w].mode = Mode::Waking(search);
            let at = self.now + (self.acc + self.cost.wake_ns).round() as u64;
            self.schedule(w, at);
        }
    }

    /// Worker `by` took a heavy fence (`membarrier`): the kernel
    /// interrupts every other CPU running a thread of the process, so each
    /// other worker whose thread is on its CPU (running frames, or
    /// searching: spinning, yielding, re-checking, armed or not) loses
    /// `fence_interrupt_ns`, and its pending event moves that much later.
    /// A parked worker (a futex wait, lazy or not) and one still waking
    /// (not yet running after its wakeup) are not on a CPU and lose
    /// nothing. Returns the workers interrupted.
    ///
    /// The delay is added as `after_cost` adds costs: the whole ns move
    /// the event, the fraction is carried to the worker's next event, so a
    /// cost of 0 moves no event and keeps the order of events as it was.
    /// When to fence is the runtime's rule (`private::rules::look_fences`);
    /// this only prices it.
    pub(super) fn interrupt_running(&mut self, by: usize) -> u64 {
        #[cfg(test)]
        if !self.deliver_interrupts {
            return 0;
        }
        let cost = self.cost.fence_interrupt_ns;
        let mut hit = 0;
        for v in 0..self.workers.len() {
            let w = &mut self.workers[v];
            if v == by || !w.scheduled || !matches!(w.mode, Mode::Run | Mode::Search(_)) {
                continue;
            }
            hit += 1;
            let t = cost + w.carry;
            let dt = t.floor();
            w.carry = t - dt;
            if dt > 0.0 {
                let at = w.next_at + dt as u64;
                w.scheduled = false;
                self.schedule(v, at);
            }
        }
        self.counts.fence_interrupts += hit;
        hit
    }

    /// Runs an idle-mask operation, counting the words it touched.
    pub(super) fn counting<R>(&mut self, f: impl FnOnce(&Self) -> R) -> R {
        let before = crate::sync::counted::words_touched();
        let r = f(self);
        let words = crate::sync::counted::words_touched() - before;
        self.counts.claim_words += words;
        self.counts.claim_calls += 1;
        self.acc += words as f64 * self.cost.idle_word_ns;
        r
    }

    /// The fenced notify after `from` made a job visible (`Sleep::notify`).
    pub(super) fn notify(&mut self, from: Option<usize>, llc: usize) {
        self.acc += self.cost.fence_ns;
        let hit = self.counting(|s| s.sleep.notify(from, llc));
        self.woke(hit);
    }

    /// A job from outside: the next LLC's injector, round robin
    /// (`Registry::inject`), or where its group's plan says.
    fn inject(&mut self, id: JobId) {
        match self.jobs[id as usize].group {
            Some(g) => self.push_group(g, id, None),
            None => self.inject_plain(id),
        }
    }

    /// `Registry::inject` (`push::inject_to`, with no caller CPU: the next
    /// LLC's injector, round robin, then the fenced notify); rayon-like has
    /// one injector.
    fn inject_plain(&mut self, id: JobId) {
        if self.rayon.is_some() {
            return self.rayon_inject(id);
        }
        inject_to(&mut self.shared(None), id, None);
    }

    /// `Registry::push_group`: the plan's destination, then `push_to` (its
    /// queue, its wakeup).
    pub(super) fn push_group(&mut self, g: u32, id: JobId, from: Option<usize>) {
        if self.rayon.is_some() {
            // Rayon has no job groups: a spawn is `inject_or_push`.
            return self.push_from(id, from);
        }
        let st = &self.groups[g as usize];
        let idle = self.sleep.idle();
        let dest = st.plan.destination(
            st.preferred,
            &|l| load_of(idle, l),
            from,
            self.policy.cluster_aware(),
        );
        push_to(&mut self.shared(from), dest, id);
    }

    pub(super) fn push_from(&mut self, id: JobId, from: Option<usize>) {
        match from {
            Some(w) => self.push(w, id),
            None => self.inject_plain(id),
        }
    }

    /// `owner::push`: the own deque, then the fenced notify.
    pub(super) fn push(&mut self, w: usize, id: JobId) {
        if self.rayon.is_some() {
            return self.rayon_push(w, id);
        }
        owner::push(&mut self.owner(w), id);
    }

    /// `owner::promote_all`.
    pub(super) fn promote_all(&mut self, w: usize) {
        owner::promote_all(&mut self.owner(w));
    }

    pub(super) fn task(&mut self, id: JobId) -> &Task {
        let node = self.jobs[id as usize].node;
        let fanout = self.jobs[id as usize].fanout.is_some();
        let wl = self.workload;
        let workers = self.workers.len();
        let start = super::workload::Start {
            migrated: self.jobs[id as usize].migrated,
            workers,
            budget: match self.jobs[id as usize].piece {
                Some((s, i)) => self.splits[s as usize].piece_workers(&self.layout, i as usize),
                None => workers,
            },
        };
        self.tasks.entry(id).or_insert_with(|| {
            if fanout {
                // A fan-out's own work is its pushes, charged as they go.
                Task {
                    work_ns: 0,
                    footprint: 0,
                    data: None,
                    body: super::workload::Body::Leaf,
                }
            } else {
                wl.task_in(&node, start)
            }
        })
    }

    /// Starts running job `id` on `w` (taken from a queue): counts it, and
    /// for a group job records its LLC (`GroupState::record`).
    pub(super) fn execute(&mut self, w: usize, id: JobId) {
        let j = &mut self.jobs[id as usize];
        if j.copies > 0 {
            // A copy of an `Aim::Worker` job (`AffineProxy::execute`) or
            // of a dealt half (`Dealt`): the first claim runs it, a later
            // copy only frees it.
            j.copies -= 1;
            if j.taken {
                if j.copies == 0 && j.done {
                    self.free.push(id);
                }
                return;
            }
            j.taken = true;
        }
        self.counts.jobs += 1;
        self.ran[w] = true;
        let j = &mut self.jobs[id as usize];
        j.migrated = j.home != u32::MAX && j.home as usize != w;
        self.record_group_run(w, id);
        self.workers[w].frames.push(Frame {
            job: id,
            stage: Stage::Start,
        });
    }

    fn record_group_run(&mut self, w: usize, id: JobId) {
        let Some(g) = self.jobs[id as usize].group else {
            return;
        };
        let llc = self.workers[w].llc;
        self.groups[g as usize].record_run(g, (w, llc), self.now, &mut self.counts);
    }
    /// still has to see the latch.
    pub(super) fn finish(&mut self, id: JobId) {
        self.tasks.remove(&id);
        let job = &mut self.jobs[id as usize];
        job.done = true;
        match job.kind {
            Kind::Root => {
                self.roots_left -= 1;
                self.free.push(id);
            }
            // A dealt half its owner took back: the copy still queued
            // frees it when it is executed.
            Kind::Inline => {
                if job.copies == 0 {
                    self.free.push(id);
                }
            }
            // Its owner frees it once it saw the latch.
            Kind::Half => self.latch_set(id),
            Kind::Spawned => {
                let s = job.scope.expect("a spawned job has a scope");
                // A copy still queued frees it when it is executed.
                if job.copies == 0 {
                    self.free.push(id);
                }
                let sj = &mut self.jobs[s as usize];
                sj.pending -= 1;
                if sj.pending == 0 {
                    self.latch_set(s);
                }
            }
        }
    }

    /// A latch was set: wake its waiter if it parked waiting for it.
    fn latch_set(&mut self, latch: JobId) {
        let Some(w) = self.jobs[latch as usize].waiter else {
            return;
        };
        let w = w as usize;
        if self.rayon.is_some() {
            return self.rayon_latch_set(w, latch);
        }
        if matches!(self.workers[w].mode, Mode::Parked(_)) && self.waiting_on(w) == Some(latch) {
            self.wake(w);
        }
    }

    /// One event of worker `w`.
    pub(super) fn step(&mut self, w: usize) {
        match std::mem::replace(&mut self.workers[w].mode, Mode::Run) {
            Mode::Run => self.advance(w),
            Mode::Search(search) | Mode::Waking(search) => self.search(w, search),
            Mode::Parked(search) => {
                // Only a lazy park has an event: its timeout expired, and
                // the search's next step is the fenced re-check.
                assert!(search.lazy().is_some(), "a parked worker has no event");
                self.counts.lazy_expired += 1;
                self.search(w, search);
            }
            Mode::Rayon(phase) => self.rayon_step(w, phase),
        }
    }

    /// The latch the top frame of `w` waits for, if it waits.
    pub(super) fn waiting_on(&self, w: usize) -> Option<JobId> {
        match self.workers[w].frames.last() {
            Some(Frame {
                stage: Stage::Wait { latch, .. },
                ..
            }) => Some(*latch),
            _ => None,
        }
    }

    /// For a worker whose top frame waits for a latch: whether it is set
    /// (a scope's: all its children finished; a `join`'s: `b` finished).
    pub(super) fn wait_done(&self, w: usize) -> Option<bool> {
        let f = self.workers[w].frames.last()?;
        let Stage::Wait { latch, .. } = f.stage else {
            return None;
        };
        let j = &self.jobs[latch as usize];
        Some(if latch == f.job {
            j.pending == 0
        } else {
            j.done
        })
    }
}
