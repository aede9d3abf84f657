//! A simulated worker's loop: its frames (`join`, scopes, latches), its
//! own deque and group queues, and the search state machine of
//! `search::search` (uncounted pass, counted passes with backoff, idle,
//! re-check, park). Its passes are [`pass::pass`] itself (see `queues`).

use std::sync::Arc;

use crossbeam_deque::Worker;

use crate::runtime::pass;
use crate::runtime::search::{self, Found, Reach, reach_of_pass};

use super::Policy;
use super::engine::{Frame, JobId, Kind, Mode, SPIN_LIMIT, Sim, Stage, YIELD_LIMIT};
use super::workload::Body;

impl Sim<'_> {
    /// Runs `w`'s frames until it needs time (its next event) or work
    /// from elsewhere (a search).
    pub(super) fn advance(&mut self, w: usize) {
        loop {
            let Some(&Frame { job, stage }) = self.workers[w].frames.last() else {
                // The main loop: the own deque, the own group queues, then a
                // search (`WorkerThread::run` with no latch).
                if let Some(id) = self.take_local(w) {
                    self.execute(w, id);
                    continue;
                }
                return self.start_search(w);
            };
            let top = self.workers[w].frames.len() - 1;
            match stage {
                Stage::Start => {
                    let own = self.task(job).work_ns;
                    self.piece_work(w, job, own);
                    let work = own as f64 + self.refill(w, job);
                    self.counts.busy_ns += work.round() as u64;
                    self.acc += work;
                    self.workers[w].frames[top].stage = Stage::Body;
                    return self.after_cost(w);
                }
                Stage::Body => {
                    if self.jobs[job as usize].fanout.is_some() {
                        self.fan_out(w, job);
                        continue;
                    }
                    let body = self.task(job).body.clone();
                    let group = self.jobs[job as usize].group;
                    match body {
                        Body::Leaf => self.workers[w].frames[top].stage = Stage::Finish,
                        Body::Join(a, b) => {
                            let piece = self.jobs[job as usize].piece;
                            let jb = self.new_job(b, group, w as u32, None, Kind::Half);
                            self.jobs[jb as usize].piece = piece;
                            if self.policy == Policy::RayonLike {
                                self.workers[w].overflow += 1;
                                self.push(w, jb);
                            } else {
                                self.push_private(w, jb);
                            }
                            let ja = self.new_job(a, group, w as u32, None, Kind::Inline);
                            self.jobs[ja as usize].piece = piece;
                            self.workers[w].frames[top].stage = Stage::AfterA { b: jb };
                            self.workers[w].frames.push(Frame {
                                job: ja,
                                stage: Stage::Start,
                            });
                        }
                        Body::Scope(kids) => {
                            self.jobs[job as usize].pending = kids.len() as u32;
                            for k in kids {
                                let id = self.new_job(k, group, w as u32, Some(job), Kind::Spawned);
                                match group {
                                    Some(g) => self.push_group(g, id, Some(w)),
                                    None => self.push(w, id),
                                }
                            }
                            self.jobs[job as usize].waiter = Some(w as u32);
                            self.workers[w].frames[top].stage = Stage::Wait { latch: job };
                        }
                        Body::Iter(spec) => self.start_iter(w, spec),
                    }
                }
                Stage::AfterIter { split } => self.end_iter(w, split),
                Stage::AfterA { b } => {
                    if self.pop_private(w) {
                        self.run_b_inline(w, b);
                    } else {
                        self.workers[w].frames[top].stage = Stage::TakeBack { b };
                    }
                }
                Stage::TakeBack { b } => {
                    if self.jobs[b as usize].done {
                        self.free.push(b);
                        self.workers[w].frames[top].stage = Stage::Finish;
                        continue;
                    }
                    match self.take_deque(w) {
                        Some(id) if id == b => {
                            self.run_b_inline(w, b);
                        }
                        Some(id) => self.execute(w, id),
                        None => {
                            // `wait_until`: publish every private half first.
                            self.promote_all(w);
                            self.jobs[b as usize].waiter = Some(w as u32);
                            self.workers[w].frames[top].stage = Stage::Wait { latch: b };
                        }
                    }
                }
                Stage::Wait { latch } => {
                    if self.wait_done(w) == Some(true) {
                        if latch != job {
                            self.free.push(latch);
                        }
                        self.workers[w].frames[top].stage = Stage::Finish;
                        continue;
                    }
                    // `WorkerThread::run(Some(latch))`.
                    if let Some(id) = self.take_local(w) {
                        self.execute(w, id);
                        continue;
                    }
                    return self.start_search(w);
                }
                Stage::Finish => {
                    if self.jobs[job as usize].fanout.is_some() {
                        self.starting[w] = false;
                    }
                    if self.jobs[job as usize].placed {
                        self.placed[self.workers[w].llc] -= 1;
                    }
                    self.workers[w].frames.pop();
                    self.finish(job);
                    if self.roots_left == 0 {
                        return;
                    }
                }
            }
        }
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

    /// `WorkerThread::take_local`.
    fn take_deque(&mut self, w: usize) -> Option<JobId> {
        let id = self.workers[w].deque.pop();
        self.acc += self.cost.pop_ns;
        id
    }

    /// The own deque, then the own LLC's pack queue and cluster's spread
    /// queue (`take_local().or_else(take_own_group)`).
    fn take_local(&mut self, w: usize) -> Option<JobId> {
        if let Some(id) = self.take_deque(w) {
            return Some(id);
        }
        let (llc, cl) = (self.workers[w].llc, self.workers[w].cluster);
        for q in [&self.group_llc[llc], &self.group_cluster[cl]] {
            if let Some(id) = q.steal().success() {
                self.counts.injector_pulls += 1;
                return Some(id);
            }
        }
        None
    }

    /// Enters the search (`search::search`): its first, uncounted pass now.
    fn start_search(&mut self, w: usize) {
        self.end_crossing(w);
        self.workers[w].mode = Mode::Search {
            counted: false,
            step: 0,
            woken: false,
        };
        self.search(w);
    }

    /// One step of the search loop of `search::search`.
    pub(super) fn search(&mut self, w: usize) {
        let Mode::Search {
            counted,
            step,
            woken,
        } = self.workers[w].mode
        else {
            unreachable!()
        };
        // The pass numbers of `search::search`: 0 uncounted, then one per
        // backoff step.
        let n = if counted { step + 1 } else { 0 };
        let found = self.pass(w, reach_of_pass(n, woken));
        if let Found::Job(id) = found {
            if counted {
                return self.found(w, Some(id));
            }
            self.workers[w].mode = Mode::Run;
            self.execute(w, id);
            return self.after_cost(w);
        }
        if !counted {
            self.sleep.start_searching(w);
            self.workers[w].mode = Mode::Search {
                counted: true,
                step: 0,
                woken,
            };
            return self.after_cost(w);
        }
        let finished = self.finished(w);
        if matches!(found, Found::Nothing) && finished {
            return self.found(w, None);
        }
        let completed = step > YIELD_LIMIT;
        if !completed
            && search::may_spin(
                self.wait_done(w).is_some(),
                || self.sleep.searching(),
                || self.sleep.alone_in(self.workers[w].llc),
                || self.crossing_covers(w),
                self.max_spinners,
            )
        {
            self.acc += if step <= SPIN_LIMIT {
                self.cost.spin_ns * (1u64 << step) as f64
            } else {
                self.cost.yield_ns
            };
            self.workers[w].mode = Mode::Search {
                counted,
                step: step + 1,
                woken,
            };
            return self.after_cost(w);
        }
        // Nothing after spinning: go idle, re-check, park.
        self.counts.failed_searches += 1;
        let idle = self.counting(|s| s.sleep.prepare_sleep(w));
        self.acc += self.cost.fence_ns;
        let recheck = self.pass(w, Reach::Far);
        match recheck {
            Found::Job(id) => {
                self.sleep.cancel_sleep(idle);
                self.found(w, Some(id))
            }
            _ if self.finished(w) => {
                self.sleep.cancel_sleep(idle);
                self.found(w, None)
            }
            Found::Retry => {
                self.sleep.cancel_sleep(idle);
                self.workers[w].mode = Mode::Search {
                    counted,
                    step: 0,
                    woken,
                };
                self.after_cost(w)
            }
            Found::Nothing => {
                self.counts.parks += 1;
                self.acc = 0.0;
                self.workers[w].mode = Mode::Parked(idle);
            }
        }
    }

    /// Whether `w`'s search is over without a job: its latch is set, or (no
    /// latch) every root finished.
    fn finished(&self, w: usize) -> bool {
        self.wait_done(w).unwrap_or(self.roots_left == 0)
    }

    /// Leaves the searching state (`stop_searching`, which may wake a
    /// helper), then runs `job` or goes back to its frames.
    pub(super) fn found(&mut self, w: usize, job: Option<JobId>) {
        let llc = self.workers[w].llc;
        let hit = self.counting(|s| s.sleep.stop_searching(w, llc));
        self.woke(hit);
        self.workers[w].mode = Mode::Run;
        if let Some(id) = job {
            self.execute(w, id);
        }
        self.after_cost(w);
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

    /// `WorkerThread::mark_crossing`.
    pub(super) fn mark_crossing(&mut self, w: usize) {
        if !self.crossing_mark[w] {
            self.crossing_mark[w] = true;
            self.crossing[self.workers[w].llc] += 1;
        }
    }

    /// `WorkerThread::end_marks` for the `CROSSING` mark.
    pub(super) fn end_crossing(&mut self, w: usize) {
        if self.crossing_mark[w] {
            self.crossing_mark[w] = false;
            self.crossing[self.workers[w].llc] -= 1;
        }
    }

    /// Counts a steal by `w` from `victim` and charges its transfer.
    pub(super) fn stole(&mut self, w: usize, victim: usize) {
        let kind = self.layout.relation(w, victim);
        self.counts.steals[kind as usize] += 1;
        self.acc +=
            self.cost.steal_ns + self.cost.line(self.reach(victim, w)) * self.cost.job_lines;
    }

    /// The LLC a worker belongs to.
    pub(super) fn llc_of(&self, w: usize) -> usize {
        self.workers[w].llc
    }
}
