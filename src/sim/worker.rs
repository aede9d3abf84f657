//! A simulated worker's loop: its frames (`join`, scopes, latches), its
//! own deque and group queues, and its searches, which are the runtime's
//! [`Search`] state machine stepped on simulated time over the
//! simulator's [`Sources`] (below). Its passes are [`pass::pass`] itself
//! (see `queues`).

use std::ops::ControlFlow::{self, Break, Continue};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_deque::Worker;

use crate::runtime::idle::Distance;
use crate::runtime::join_frame::{JoinFrame, JoinStep};
use crate::runtime::owner;
use crate::runtime::pass;
use crate::runtime::run_loop::{self, Next, RunLoop};
use crate::runtime::search::{Found, Reach, Search, Sources, Step};
use crate::runtime::sleep::Sleep;
use crate::sync::Pause;

use super::counts::BYTE_TIERS;
use super::engine::Sim;
use super::job::{Frame, JobId, Kind, Stage};
use super::policy::Policy;
use super::trace::{TracedLeaf, TracedSteal};
use super::worker_state::Mode;
use super::workload::{Body, Node};

impl Sim<'_> {
    /// Runs `w`'s frames until it needs time (its next event) or work
    /// from elsewhere (a search).
    pub(super) fn advance(&mut self, w: usize) {
        loop {
            let Some(&Frame { job, stage }) = self.workers[w].frames.last() else {
                if self.main_loop_step(w).is_break() {
                    return;
                }
                continue;
            };
            let flow = match stage {
                Stage::Start => self.start_frame(w, job),
                Stage::Body => self.run_body(w, job),
                Stage::AfterIter { split } => {
                    self.end_iter(w, split);
                    Continue(())
                }
                Stage::Aimed { frame } => {
                    self.aimed(w, job, frame);
                    Continue(())
                }
                Stage::Join { b, frame } => {
                    self.join_steps(w, job, b, frame);
                    Continue(())
                }
                Stage::Wait { latch, join } => self.wait_step(w, latch, join),
                Stage::Finish => self.finish_frame(w, job),
            };
            if flow.is_break() {
                return;
            }
        }
    }

    /// No frame: one step of the main loop (`WorkerThread::run` with no
    /// latch), which runs a job or breaks into a search.
    fn main_loop_step(&mut self, w: usize) -> ControlFlow<()> {
        match run_loop::next(&mut SimSources { sim: self, w }, None) {
            Next::Run(id) => {
                self.execute(w, id);
                Continue(())
            }
            Next::Search => {
                self.start_search(w);
                Break(())
            }
            Next::Done => unreachable!("the main loop has no latch"),
        }
    }

    /// `Stage::Start`: charges the job's own work to the event and waits
    /// for its end (the body runs at the next event).
    fn start_frame(&mut self, w: usize, job: JobId) -> ControlFlow<()> {
        let top = self.workers[w].frames.len() - 1;
        let own = self.task(job).work_ns;
        self.piece_work(w, job, own);
        // The workloads state work in the model's reference
        // ns; `work_scale` is this machine's speed (cost.rs).
        let (start, before, wait) = (
            self.now as f64 + self.acc,
            self.counts.bytes_by_tier,
            self.counts.bw_wait_ns,
        );
        let refill = self.refill(w, job);
        let work = own as f64 * self.cost.work_scale + refill;
        if self.trace.is_some() && matches!(self.task(job).body, Body::Leaf) {
            self.trace_leaf(w, job, (start, refill), (before, wait));
        }
        self.counts.busy_ns += work.round() as u64;
        self.acc += work;
        self.workers[w].frames[top].stage = Stage::Body;
        self.after_cost(w);
        Break(())
    }

    /// `Stage::Body`: a fan-out step, or the task's body (a leaf, a
    /// `join`, a scope or an iterator).
    fn run_body(&mut self, w: usize, job: JobId) -> ControlFlow<()> {
        if self.jobs[job as usize].fanout.is_some() {
            self.fan_out(w, job);
            return Continue(());
        }
        let top = self.workers[w].frames.len() - 1;
        let body = self.task(job).body.clone();
        match body {
            Body::Leaf => {
                self.counts.leaves += 1;
                self.workers[w].frames[top].stage = Stage::Finish;
            }
            Body::Join(_, b) | Body::JoinThen(_, b, _) => self.start_join(w, job, b),
            Body::Scope(kids) => self.start_scope(w, job, kids),
            Body::Spawn(node, g) => self.spawn_detached(w, node, g),
            Body::Iter(spec) => self.start_iter(w, spec),
        }
        Continue(())
    }

    /// A `join`'s start: `b` a new job, then the frame's steps, `b`
    /// private unless the policy is rayon-like (`join_context`: `b` on the
    /// deque at once).
    fn start_join(&mut self, w: usize, job: JobId, b: Node) {
        let group = self.jobs[job as usize].group;
        let piece = self.jobs[job as usize].piece;
        let jb = self.new_job(b, group, w as u32, None, Kind::Half);
        self.jobs[jb as usize].piece = piece;
        let frame = JoinFrame::new(self.policy != Policy::RayonLike);
        self.join_steps(w, job, jb, frame);
    }

    /// The steps of the `join` frame of `job` (the top frame), `b` its
    /// second half: the runtime's [`JoinFrame`], which the pool's `join`
    /// loops over. Stepped within the event until `a`, `b` or another job
    /// runs as a frame above (after which `Stage::Join` steps again), the
    /// frame waits for `b`'s latch, or it ends.
    fn join_steps(&mut self, w: usize, job: JobId, b: JobId, mut frame: JoinFrame) {
        let top = self.workers[w].frames.len() - 1;
        loop {
            let done = self.jobs[b as usize].done;
            match frame.step(&mut self.owner(w), b, || done, |&id| id == b) {
                JoinStep::Publish => self.push(w, b),
                JoinStep::RunA => {
                    let a = match self.task(job).body {
                        Body::Join(a, _) | Body::JoinThen(a, _, _) => a,
                        _ => unreachable!("a join frame's job has a join body"),
                    };
                    let group = self.jobs[job as usize].group;
                    let ja = self.new_job(a, group, w as u32, None, Kind::Inline);
                    self.jobs[ja as usize].piece = self.jobs[job as usize].piece;
                    self.workers[w].frames[top].stage = Stage::Join { b, frame };
                    self.workers[w].frames.push(Frame {
                        job: ja,
                        stage: Stage::Start,
                    });
                    return;
                }
                JoinStep::Gone => {}
                JoinStep::Run(id) => {
                    self.workers[w].frames[top].stage = Stage::Join { b, frame };
                    self.execute(w, id);
                    return;
                }
                JoinStep::Wait => {
                    // `wait_until`: publish every private half first.
                    self.promote_all(w);
                    self.jobs[b as usize].waiter = Some(w as u32);
                    self.workers[w].frames[top].stage = Stage::Wait {
                        latch: b,
                        join: Some(frame),
                    };
                    return;
                }
                JoinStep::RunB => {
                    self.run_b_inline(w, b);
                    return;
                }
                JoinStep::Done => {
                    self.free.push(b);
                    self.workers[w].frames[top].stage = Stage::Finish;
                    return;
                }
            }
        }
    }

    /// A scope's start: every task spawned (to its group's queues, else
    /// `w`'s deque), then the frame waits for them all.
    fn start_scope(&mut self, w: usize, job: JobId, kids: Vec<Node>) {
        let top = self.workers[w].frames.len() - 1;
        let group = self.jobs[job as usize].group;
        self.jobs[job as usize].pending = kids.len() as u32;
        for k in kids {
            let id = self.new_job(k, group, w as u32, Some(job), Kind::Spawned);
            match group {
                Some(g) => self.push_group(g, id, Some(w)),
                None => self.push(w, id),
            }
        }
        self.jobs[job as usize].waiter = Some(w as u32);
        self.workers[w].frames[top].stage = Stage::Wait {
            latch: job,
            join: None,
        };
    }

    /// [`Body::Spawn`]: the task goes to group `g`'s queues as a spawn from
    /// `w` (`Registry::push_group`; rayon-like: `w`'s deque), counted as a
    /// root (its end, not its spawner's, ends the run); the frame is done.
    fn spawn_detached(&mut self, w: usize, node: Node, g: u32) {
        let id = self.new_job(node, Some(g), w as u32, None, Kind::Root);
        self.roots_left += 1;
        self.push_group(g, id, Some(w));
        let top = self.workers[w].frames.len() - 1;
        self.workers[w].frames[top].stage = Stage::Finish;
    }

    /// `Stage::Wait`: one step of `WorkerThread::run(Some(latch))`: the
    /// latch is set (a `join` frame that waited for its `b` steps again),
    /// a job runs, or a search starts.
    fn wait_step(&mut self, w: usize, latch: JobId, join: Option<JoinFrame>) -> ControlFlow<()> {
        match run_loop::next(&mut SimSources { sim: self, w }, Some(&latch)) {
            Next::Done => {
                let top = self.workers[w].frames.len() - 1;
                self.workers[w].frames[top].stage = match join {
                    Some(frame) => Stage::Join { b: latch, frame },
                    None => Stage::Finish,
                };
            }
            Next::Run(id) => self.execute(w, id),
            Next::Search => {
                self.start_search(w);
                return Break(());
            }
        }
        Continue(())
    }

    /// `Stage::Finish`: a `join`'s follow-up starts inline, else the frame
    /// ends (its marks and placement released, the job finished); breaks
    /// when the last root finished.
    fn finish_frame(&mut self, w: usize, job: JobId) -> ControlFlow<()> {
        if let Body::JoinThen(_, _, then) = self.task(job).body
            && !self.jobs[job as usize].then_started
        {
            // Both halves returned: what follows the `join`,
            // inline in the frame, which finishes after it.
            self.jobs[job as usize].then_started = true;
            let group = self.jobs[job as usize].group;
            let id = self.new_job(then, group, w as u32, None, Kind::Inline);
            self.jobs[id as usize].piece = self.jobs[job as usize].piece;
            self.workers[w].frames.push(Frame {
                job: id,
                stage: Stage::Start,
            });
            return Continue(());
        }
        if self.jobs[job as usize].fanout.is_some() {
            owner::end_marks(&mut self.owner(w), owner::STARTING);
        }
        if self.jobs[job as usize].placed {
            self.placed[self.workers[w].llc] -= 1;
        }
        self.workers[w].frames.pop();
        self.finish(job);
        if self.roots_left == 0 {
            return Break(());
        }
        Continue(())
    }

    /// A `join`'s `b` taken back by its owner: run inline in the frame,
    /// which finishes after it.
    fn run_b_inline(&mut self, w: usize, b: JobId) {
        self.counts.jobs += 1;
        self.jobs[b as usize].kind = Kind::Inline;
        let top = self.workers[w].frames.len() - 1;
        self.workers[w].frames[top].stage = Stage::Finish;
        self.workers[w].frames.push(Frame {
            job: b,
            stage: Stage::Start,
        });
    }

    /// Enters the search: a new [`Search`], whose first step (its
    /// uncounted pass) runs now (the run loop's `before_search` ended the
    /// `CROSSING` mark).
    fn start_search(&mut self, w: usize) {
        if self.rayon.is_some() {
            return self.rayon_start_looking(w);
        }
        let llc = self.workers[w].llc;
        self.search(w, Search::new(w, llc));
    }

    /// One step of `w`'s [`Search`] (the runtime's state machine itself),
    /// with its passes, pauses and idle-mask words charged to the event;
    /// a park waits for a wakeup event.
    pub(super) fn search(&mut self, w: usize, mut search: Search) {
        let latch = self.waiting_on(w);
        let step = search.step(&mut SimSources { sim: self, w }, latch.as_ref());
        self.workers[w].mode = Mode::Run;
        match step {
            Step::Run(id) => {
                self.execute(w, id);
                self.after_cost(w);
            }
            Step::Done => self.after_cost(w),
            Step::Again => {
                self.workers[w].mode = Mode::Search(search);
                self.after_cost(w);
            }
            Step::Pause(p) => {
                self.acc += match p {
                    Pause::Spin(n) => self.cost.spin_ns * f64::from(n),
                    Pause::Yield => self.cost.yield_ns,
                };
                self.workers[w].mode = Mode::Search(search);
                self.after_cost(w);
            }
            Step::Park => {
                // Parked, its costs dropped: the next event is its wakeup,
                // or a lazy park's timeout (`Sleep::park_for`), which
                // starts when the re-check's costs end.
                if let Some((_, timeout)) = search.lazy() {
                    self.counts.lazy_parks += 1;
                    let timeout = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
                    self.schedule(w, self.now + self.acc.round() as u64 + timeout);
                }
                self.acc = 0.0;
                self.workers[w].mode = Mode::Parked(search);
            }
        }
    }

    /// One pass (`pass::pass`) of worker `w`, with its cost in `acc`.
    fn pass(&mut self, w: usize, reach: Reach) -> Found<JobId> {
        self.counts.passes += 1;
        let cluster_aware = self.policy.cluster_aware();
        let layout = Arc::clone(&self.layout);
        let tiers = layout.tiers_for(w, cluster_aware);
        let at = pass::Place {
            index: w,
            llc: self.workers[w].llc,
            cluster: self.workers[w].cluster,
            clusters: self.group_cluster.len(),
            tiers,
            llc_order: layout.llc_order_runs(self.workers[w].llc),
            near_cut: pass::near_cut(reach, pass::near_tiers(tiers)),
            llc_cut: pass::near_tiers(tiers),
        };
        let mut rng = self.workers[w].rng;
        let found = super::queues::run_pass(self, w, &mut rng, at);
        self.workers[w].rng = rng;
        found
    }

    /// Worker `w`'s own deque (for the pass's batch steals).
    pub(super) fn deque(&self, w: usize) -> &Worker<JobId> {
        &self.workers[w].deque
    }

    /// `pass::crossing_covers` for worker `w`'s LLC (`Sources::mate_crossing`).
    pub(super) fn crossing_covers(&self, w: usize) -> bool {
        let l = self.workers[w].llc;
        pass::crossing_covers(self.crossing[l], || self.sleep.searching_in(l))
    }

    /// `owner::mark_crossing` (`PassQueues::crossed`).
    pub(super) fn mark_crossing(&mut self, w: usize) {
        owner::mark_crossing(&mut self.owner(w));
    }

    /// `owner::end_marks` of the `CROSSING` mark (at a search's start).
    pub(super) fn end_crossing(&mut self, w: usize) {
        owner::end_marks(&mut self.owner(w), owner::CROSSING);
    }

    /// Counts a steal by `w` from `victim` (`claim`: of a private `join`
    /// half) and charges its transfer.
    pub(super) fn stole(&mut self, w: usize, victim: usize, claim: bool) {
        let kind = self.layout.relation(w, victim);
        self.counts.steals[kind as usize] += 1;
        self.acc +=
            self.cost.steal_ns + self.cost.line(self.reach(victim, w)) * self.cost.job_lines;
        if let Some(t) = &mut self.trace {
            t.steals.push(TracedSteal {
                at_ns: self.now as f64 + self.acc,
                thief: w,
                victim,
                relation: BYTE_TIERS[kind as usize],
                claim,
            });
        }
    }

    /// Records leaf `job`'s start on `w` (`start` and its `refill`), given
    /// the byte counters and bandwidth wait before the refill.
    fn trace_leaf(
        &mut self,
        w: usize,
        job: JobId,
        (start, refill): (f64, f64),
        (before, wait): ([u64; BYTE_TIERS.len()], u64),
    ) {
        let mut bytes_by_tier = self.counts.bytes_by_tier;
        for (b, was) in bytes_by_tier.iter_mut().zip(before) {
            *b -= was;
        }
        let leaf = TracedLeaf {
            start_ns: start,
            worker: w,
            llc: self.workers[w].llc,
            node: self.jobs[job as usize].node,
            work_ns: self.task(job).work_ns as f64 * self.cost.work_scale,
            refill_ns: refill,
            bw_wait_ns: self.counts.bw_wait_ns - wait,
            bytes_by_tier,
        };
        if let Some(t) = &mut self.trace {
            t.leaves.push(leaf);
        }
    }

    /// The LLC a worker belongs to.
    pub(super) fn llc_of(&self, w: usize) -> usize {
        self.workers[w].llc
    }
}

/// Worker `w` of `sim` as the runtime's [`Search`] sees it: its passes,
/// its latch (the top frame's), and the simulator's accounting of what the
/// search does.
struct SimSources<'s, 'a> {
    sim: &'s mut Sim<'a>,
    w: usize,
}

/// Worker `w` of `sim` as the runtime's run loop ([`run_loop::next`]) sees
/// it.
impl RunLoop for SimSources<'_, '_> {
    /// The own deque, then the own LLC's pack queue and cluster's spread
    /// queue (`take_local().or_else(take_own_group)`).
    fn take_local(&mut self) -> Option<JobId> {
        let mut o = self.sim.owner(self.w);
        owner::take_local(&mut o).or_else(|| owner::take_own_group(&mut o))
    }

    /// `owner::end_marks` of the `CROSSING` mark (none is set under the
    /// rayon-like policy, whose passes never mark).
    fn before_search(&mut self) {
        self.sim.end_crossing(self.w);
    }
}

impl Sources for SimSources<'_, '_> {
    type Job = JobId;
    /// The job whose completion the top frame waits for (`Stage::Wait`).
    type Latch = JobId;

    fn sleep(&self) -> &Sleep {
        &self.sim.sleep
    }

    fn find_work(&mut self, reach: Reach) -> Found<JobId> {
        self.sim.pass(self.w, reach)
    }

    /// Every root finished.
    fn may_exit(&self) -> bool {
        self.sim.roots_left == 0
    }

    fn probe(&self, _: &JobId) -> bool {
        self.sim.wait_done(self.w) == Some(true)
    }

    /// The waiter was registered with its latch when the frame began to
    /// wait (`Job::waiter`); setting the latch wakes it if it parked.
    fn try_sleep(&self, latch: &JobId) -> bool {
        !self.probe(latch)
    }

    fn wake_up(&self, latch: &JobId) -> bool {
        self.probe(latch)
    }

    fn max_spinners(&self) -> isize {
        self.sim.max_spinners
    }

    fn mate_crossing(&self) -> bool {
        self.sim.crossing_covers(self.w)
    }

    /// As the pool's (the pass charges its own load of the summary).
    fn mostly_idle(&self) -> bool {
        let idle = self.sim.sleep.idle();
        2 * idle.armed_total() >= idle.num_workers()
    }

    fn idle_op<R>(&mut self, op: impl FnOnce(&Sleep) -> R) -> R {
        self.sim.counting(|s| op(&s.sleep))
    }

    fn woke(&mut self, hit: (usize, Distance)) {
        self.sim.woke(Some(hit));
    }

    /// As the worker thread's: a look at the own deque, then one at the
    /// victim's (a victim look of the cache model, `Sim::victim_look`).
    fn more_behind(&mut self) -> bool {
        self.sim.acc += self.sim.cost.probe_ns;
        let v = self.sim.workers[self.w].stolen_from.take();
        if !self.sim.workers[self.w].deque.is_empty() {
            return true;
        }
        let Some(v) = v else { return false };
        self.sim.acc += self.sim.victim_look(self.w, v);
        !self.sim.stealers[v].is_empty()
    }

    /// As the worker thread's: the own deque, every injector, pack and
    /// spread queue (a probe each), then the deques of the awake workers
    /// (a victim look each), stopping at the first job seen.
    fn sees_work(&mut self) -> bool {
        let sim = &mut *self.sim;
        sim.acc += sim.cost.probe_ns;
        if !sim.workers[self.w].deque.is_empty() {
            return true;
        }
        for q in sim
            .injectors
            .iter()
            .chain(sim.group_llc.iter())
            .chain(sim.group_cluster.iter())
        {
            sim.acc += sim.cost.probe_ns;
            if !q.is_empty() {
                return true;
            }
        }
        let awake: Vec<usize> = sim
            .sleep
            .idle()
            .awake_in(0..sim.stealers.len())
            .filter(|&v| v != self.w)
            .collect();
        for v in awake {
            sim.acc += sim.victim_look(self.w, v);
            if !sim.stealers[v].is_empty() {
                return true;
            }
        }
        false
    }

    /// Counts it and charges the fence of `Sleep::prepare_sleep`.
    fn failed_search(&mut self) {
        self.sim.counts.failed_searches += 1;
        self.sim.acc += self.sim.cost.fence_ns;
    }

    /// Counts it.
    fn parked(&mut self, _waits: bool) {
        self.sim.counts.parks += 1;
    }

    /// As the worker thread's: `backoff::LAZY_PARK` (on simulated time)
    /// while some other worker is not armed (`backoff::lazy_park`).
    fn lazy_park(&mut self) -> Option<Duration> {
        crate::runtime::backoff::lazy_park(self.sim.sleep.idle())
    }

    /// As the worker thread's: the far pass with the look at the private
    /// halves unfenced (`lazy_look`, read by `SimPass::find_private`).
    fn find_work_lazily(&mut self) -> Found<JobId> {
        self.sim.workers[self.w].lazy_look = true;
        let found = self.sim.pass(self.w, Reach::Far);
        self.sim.workers[self.w].lazy_look = false;
        found
    }
}
