//! The simulated pool: workers, queues, jobs, simulated time, and the event
//! loop. Each worker is a small state machine that advances at its events;
//! between events nothing else runs, so one event's look at the queues is
//! atomic (the simulator does not model races; a steal never reports
//! contention).
//!
//! What each event calls of the runtime's code is in the table of the
//! [module docs](super).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use crossbeam_deque::{Injector, Stealer, Worker};

use crate::groups::{AffinityTracker, GroupPlan};
use crate::iter::plumbing::replay_record::ReplayCore;
use crate::iter::plumbing::run_split::Level;
use crate::layout::Layout;
use crate::runtime::group_state::{feed_tracker, feeds_at};
use crate::runtime::idle::{Distance, IdleMasks};
use crate::runtime::join_frame::JoinFrame;
use crate::runtime::owner::{self, Owner};
use crate::runtime::private::PrivateStack;
use crate::runtime::registry::group_routing::{busy_per_llc, push_to};
use crate::runtime::registry::idle_shape;
use crate::runtime::registry::push::inject_to;
use crate::runtime::registry::shared::SharedQueues;
use crate::runtime::registry::{Aim, AimedFrame};
use crate::runtime::search::Search;
use crate::runtime::sleep::Sleep;
use crate::runtime::{pass, search};

use super::Policy;
use super::cache::Caches;
use super::cost::{CostModel, Reach};
use super::rayon_like::RayonSleep;
use super::report::{Counts, Run};
use super::split_run::SplitRun;
use super::workload::{Node, Task, Workload};

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
    /// The task after its `join` ([`Body::JoinThen`]) was started.
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

/// A worker's state between events.
#[derive(Debug)]
pub(super) enum Mode {
    /// Running frames or its own deque.
    Run,
    /// Searching: its next event is the next step of this search.
    Search(Search),
    /// Parked (the search holds its idle token) until a wakeup.
    Parked(Search),
    /// Woken, running again after the wake latency: its next event is the
    /// search's step after the park.
    Waking(Search),
    /// A rayon-like worker's idle loop (its state in `Sim::rayon`).
    Rayon(super::rayon_like::Phase),
}

pub(super) struct SimWorker {
    pub(super) deque: Worker<JobId>,
    pub(super) frames: Vec<Frame>,
    pub(super) mode: Mode,
    pub(super) rng: u64,
    pub(super) llc: usize,
    pub(super) cluster: usize,
    /// A pending event is in the heap.
    pub(super) scheduled: bool,
    /// The fraction of a ns of cost not yet on the clock (`after_cost`).
    pub(super) carry: f64,
    /// The victim of the last job a pass took by a steal (`None`: the last
    /// job a pass took came from elsewhere), as the worker thread's
    /// `stolen_from`.
    pub(super) stolen_from: Option<usize>,
}

/// Per group: its plan and the runtime's learning state, on simulated time.
struct SimGroup {
    plan: GroupPlan,
    runs: Vec<u64>,
    ticks: u64,
    tracker: AffinityTracker,
    seen: Vec<u64>,
    last_decay_ns: u64,
    preferred: Option<usize>,
}

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
    pub(super) injectors: Vec<Injector<JobId>>,
    pub(super) group_llc: Vec<Injector<JobId>>,
    pub(super) group_cluster: Vec<Injector<JobId>>,
    pub(super) spread_used: bool,
    groups: Vec<SimGroup>,
    /// Per worker: its targeted queue (`Aim::Worker` copies).
    pub(super) targeted: Vec<std::collections::VecDeque<JobId>>,
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
}

/// One simulated worker per layout slot, each with its deque (whose
/// stealers are returned in the same order) and its seeded search rng.
fn new_workers(layout: &Layout, seed: u64) -> (Vec<SimWorker>, Vec<Stealer<JobId>>) {
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
                rng: seeded(pass::worker_seed(i), seed),
                llc: p.llc,
                cluster: p.cluster,
                scheduled: false,
                carry: 0.0,
                stolen_from: None,
            }
        })
        .collect();
    (workers, stealers)
}

/// The state of each job group the workload names: its plan on this
/// machine and its per-LLC run counts and affinity tracker, all empty.
fn new_groups(layout: &Layout, workload: &dyn Workload) -> Vec<SimGroup> {
    workload
        .groups()
        .into_iter()
        .map(|o| {
            let nllc = layout.llc_ranges().len();
            let plan = GroupPlan::new(layout, o).expect("the workload's group fits the machine");
            SimGroup {
                preferred: plan.fixed_llc(),
                plan,
                runs: vec![0; nllc],
                ticks: 0,
                tracker: AffinityTracker::new(nllc),
                seen: vec![0; nllc],
                last_decay_ns: 0,
            }
        })
        .collect()
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
            max_spinners: search::max_spinners(n),
            rayon: (policy == Policy::RayonLike).then(|| RayonSleep::new(n, seed)),
            ran: vec![false; n],
            starting: vec![false; n],
            placed: vec![0; nllc],
            marks: vec![0; n],
            crossing: vec![0; nllc],
            private: new_private_stacks(n, policy),
            injectors: (0..nllc).map(|_| Injector::new()).collect(),
            group_llc: (0..nllc).map(|_| Injector::new()).collect(),
            group_cluster: (0..ncl).map(|_| Injector::new()).collect(),
            spread_used: false,
            targeted: (0..n).map(|_| std::collections::VecDeque::new()).collect(),
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
        }
    }

    /// Runs the workload to its end and reports.
    pub(super) fn run(mut self) -> Run {
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
            let next_event = self.heap.peek().map(|Reverse((t, _, _))| *t);
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
            } else if let Some(Reverse((t, _, w))) = self.heap.pop() {
                self.now = t;
                self.workers[w as usize].scheduled = false;
                self.counts.events += 1;
                self.step(w as usize);
            } else {
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

    pub(super) fn schedule(&mut self, w: usize, at: u64) {
        debug_assert!(!self.workers[w].scheduled);
        self.workers[w].scheduled = true;
        self.seq += 1;
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

    /// Wakes parked worker `w` (a claim, or its latch was set).
    pub(super) fn wake(&mut self, w: usize) {
        if let Mode::Parked(_) = self.workers[w].mode {
            let Mode::Parked(search) = std::mem::replace(&mut self.workers[w].mode, Mode::Run)
            else {
                unreachable!()
            };
            self.workers[w].mode = Mode::Waking(search);
            let at = self.now + (self.acc + self.cost.wake_ns).round() as u64;
            self.schedule(w, at);
        }
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
            &|| busy_per_llc(idle),
            from,
            self.policy.cluster_aware(),
        );
        push_to(&mut self.shared(from), dest, id);
    }

    fn push_from(&mut self, id: JobId, from: Option<usize>) {
        match from {
            Some(w) => self.push(w, id),
            None => self.inject_plain(id),
        }
    }

    /// The simulated pool as a push from worker `from` (none: from
    /// outside) sees its shared queues.
    pub(super) fn shared(&mut self, from: Option<usize>) -> SimShared<'_, 'a> {
        SimShared { sim: self, from }
    }

    /// Worker `w` as the runtime's operations on its own queues see it.
    pub(super) fn owner(&mut self, w: usize) -> SimOwner<'_, 'a> {
        SimOwner { sim: self, w }
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
            // A copy of an `Aim::Worker` job (`AffineProxy::execute`): the
            // first runs it, a later one only frees it.
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
        let now = self.now;
        let st = &mut self.groups[g as usize];
        st.runs[llc] += 1;
        self.counts.group_runs.push((g, w as u32));
        if st.plan.options().affinity != crate::groups::Affinity::Auto {
            return;
        }
        st.ticks += 1;
        if feeds_at(st.ticks) {
            let elapsed = std::time::Duration::from_nanos(now - st.last_decay_ns);
            let steps = feed_tracker(
                &mut st.tracker,
                &mut st.seen,
                st.runs.iter().copied(),
                elapsed,
            );
            st.last_decay_ns += crate::groups::DECAY_PERIOD.as_nanos() as u64 * steps as u64;
            if steps == 64 {
                st.last_decay_ns = now;
            }
            let before = st.preferred;
            st.preferred = st.tracker.preferred();
            self.counts
                .group_feeds
                .push((g, st.tracker.counts(), before, st.preferred));
        }
    }

    /// Finishes job `id` on `w`: sets its latch (waking its waiter if it
    /// parked on it), counts down its scope, frees it unless its owner
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
            Kind::Inline => self.free.push(id),
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
            Mode::Parked(_) => unreachable!("a parked worker has no event"),
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

/// Worker `w` of `sim` as the runtime's operations on a worker's own
/// queues ([`owner`]) see it: its deque, private stack and marks, with
/// their costs charged to the event and their counts kept.
pub(super) struct SimOwner<'s, 'a> {
    sim: &'s mut Sim<'a>,
    w: usize,
}

// SAFETY: the simulation is single-threaded: worker `w`'s owner operations
// run only on the simulator's thread, never concurrently with a claim of
// its private stack, which is its own (`Sim::private[w]`).
unsafe impl Owner for SimOwner<'_, '_> {
    type Job = JobId;

    fn deque(&self) -> &Worker<JobId> {
        &self.sim.workers[self.w].deque
    }

    fn private(&self) -> &PrivateStack<JobId> {
        &self.sim.private[self.w]
    }

    fn sleep(&self) -> &Sleep {
        &self.sim.sleep
    }

    fn idle_word(&self) -> &crate::sync::AtomicU64 {
        self.sim.sleep.idle().root_word()
    }

    fn marks(&self) -> u8 {
        self.sim.marks[self.w]
    }

    fn set_marks(&mut self, marks: u8) {
        self.sim.marks[self.w] = marks;
    }

    /// `ThreadInfo::starting`, read by the passes' `shows_private`.
    fn publish_starting(&mut self, on: bool) {
        self.sim.starting[self.w] = on;
    }

    /// `LlcHints::crossing`.
    fn count_crossing(&mut self, up: bool) {
        let c = &mut self.sim.crossing[self.sim.workers[self.w].llc];
        if up {
            *c += 1;
        } else {
            *c -= 1;
        }
    }

    /// `Sleep::notify` (rayon-like pushes never come here: `rayon_like`).
    fn notify(&mut self) {
        let llc = self.sim.workers[self.w].llc;
        self.sim.notify(Some(self.w), llc);
    }

    /// `Sleep::notify_queued`, with the own deque's length.
    fn notify_promoted(&mut self) {
        let (w, llc) = (self.w, self.sim.workers[self.w].llc);
        self.sim.acc += self.sim.cost.fence_ns;
        let hit = self.sim.counting(|s| {
            let queued = || s.workers[w].deque.len();
            s.sleep.notify_queued(w, llc, queued)
        });
        self.sim.woke(hit);
    }

    fn own_group_queues(&self) -> [&Injector<JobId>; 2] {
        let sw = &self.sim.workers[self.w];
        [
            &self.sim.group_llc[sw.llc],
            &self.sim.group_cluster[sw.cluster],
        ]
    }

    fn pushed(&mut self) {
        self.sim.acc += self.sim.cost.push_ns;
    }

    fn promoted(&mut self) {
        self.sim.counts.promotions += 1;
    }

    fn popped(&mut self, _: bool) {
        self.sim.acc += self.sim.cost.pop_ns;
    }

    fn pulled(&mut self) {
        self.sim.counts.injector_pulls += 1;
    }

    fn private_op(&mut self) {
        self.sim.acc += self.sim.cost.private_ns;
    }
}

/// The simulated pool as a push from `from` into its shared queues sees
/// it (`registry::shared::SharedQueues`): the pushes charge their costs in
/// the hooks.
pub(super) struct SimShared<'s, 'a> {
    sim: &'s mut Sim<'a>,
    from: Option<usize>,
}

impl SharedQueues for SimShared<'_, '_> {
    type Job = JobId;

    fn sleep(&self) -> &Sleep {
        &self.sim.sleep
    }

    fn layout(&self) -> &Layout {
        &self.sim.layout
    }

    fn pack(&self, llc: usize) -> &Injector<JobId> {
        &self.sim.group_llc[llc]
    }

    fn spread(&self, cluster: usize) -> &Injector<JobId> {
        &self.sim.group_cluster[cluster]
    }

    fn injector(&self, llc: usize) -> &Injector<JobId> {
        &self.sim.injectors[llc]
    }

    fn pusher(&self) -> Option<usize> {
        self.from
    }

    fn pusher_llc(&self) -> Option<usize> {
        self.from.map(|w| self.sim.workers[w].llc)
    }

    fn next_round_robin(&mut self) -> usize {
        self.sim.round_robin += 1;
        self.sim.round_robin - 1
    }

    fn push_ordinary(&mut self, job: JobId) {
        self.sim.push_from(job, self.from);
    }

    fn mark_spread_used(&mut self) {
        self.sim.spread_used = true;
    }

    /// The push and the wakeup's fence.
    fn routed(&mut self) {
        self.sim.acc += self.sim.cost.push_ns + self.sim.cost.fence_ns;
    }

    /// The notify's fence (the push is the injecting thread's, outside the
    /// pool).
    fn injected(&mut self) {
        self.sim.acc += self.sim.cost.fence_ns;
    }

    /// The job's count of copies; the copy is the job itself.
    fn two_copies(&mut self, job: JobId) -> JobId {
        self.sim.jobs[job as usize].copies = 2;
        job
    }

    /// The second push.
    fn queue_targeted(&mut self, w: usize, job: JobId) {
        self.sim.targeted[w].push_back(job);
        self.sim.acc += self.sim.cost.push_ns;
    }

    /// Charged with the push (`routed`).
    fn fence(&mut self) {}

    fn idle_op<R>(&mut self, op: impl FnOnce(&Sleep) -> R) -> R {
        self.sim.counting(|s| op(&s.sleep))
    }

    fn woke(&mut self, hit: (usize, Distance)) {
        self.sim.woke(Some(hit));
    }
}

/// A worker's random state for run seed `seed`: the pool's own
/// (`pass::worker_seed`) for seed 0, else mixed with the seed (never 0,
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
