//! The race between a thief and a victim's owner for the victim's last
//! job, timed by the thief's clock.
//!
//! A search pass runs within one event of the thief, but its looks are
//! priced one by one (`Sim::victim_look`: a fenced load of the victim's
//! deque at the victim's distance, which crossbeam-deque's
//! `Stealer::len` cannot overlap), so the thief reaches victim `v` at the
//! event's time plus the cost its pass has charged so far: up to tens of
//! µs later on a pass over a socket's busy victims. The owner's pop of
//! its last job and the thief's steal race on the deque's `front` by
//! compare-exchange (`Worker::pop` and `Stealer::steal`), and whichever
//! gets there first takes the job. The engine handles the thief's pass at
//! its event's time, so without this rule the thief would win every such
//! race, also the ones its owner wins by microseconds.
//!
//! The rule ([`Sim::owner_pops_first`]): a steal from `v` finds nothing
//! when `v`'s deque holds exactly one job and `v`'s owner pops it at its
//! next event, which comes before the thief's clock. The owner pops at
//! that event when its running job is a leaf that ends there and the
//! frame below it takes from the deque next: the main loop and a wait
//! (`run_loop::next`'s local take), or a `join` frame whose `b` is not
//! on the private stack (`owner::take_back`, unless `b`'s latch is set).
//!
//! What it leaves out (the thief keeps winning there, as before): a
//! deque of two or more jobs (the owner pops the newest, the thief takes
//! the oldest, so both get one; the owner's second pop before the
//! thief's clock is not predicted), an owner whose next event runs
//! anything but the end of a leaf (it pushes before it pops), frames
//! below a leaf other than those above (an iterator piece's own frame, a
//! fan-out's), and the claim of a private half before parking
//! (`private::rules::claim_before_parking`, one fence, no walk). The
//! rule applies to every policy alike: locus's passes
//! (`SimPass::steal_from`) and rayon-like's walk (`rayon_steal`).
//!
//! docs/steal-timing.md has the measurements that led to it.

use super::engine::Sim;
use super::job::{JobId, Stage};
use super::worker_state::Mode;
use super::workload::Body;

impl Sim<'_> {
    /// Whether `v`'s owner pops the one job of its deque before the thief
    /// whose event this is gets to it: the thief's clock is the event's
    /// time plus the looks its walk has charged so far (module docs).
    pub(super) fn owner_pops_first(&self, v: usize) -> bool {
        let thief_at = self.now as f64 + self.acc;
        let victim = &self.workers[v];
        if !matches!(victim.mode, Mode::Run)
            || !victim.scheduled
            || victim.next_at as f64 >= thief_at
            || self.stealers[v].len() != 1
        {
            return false;
        }
        let [.., below, top] = victim.frames.as_slice() else {
            // One frame: the main loop's local take follows it.
            return victim
                .frames
                .last()
                .is_some_and(|&top| self.ends_leaf(top.job, top.stage));
        };
        if !self.ends_leaf(top.job, top.stage) {
            return false;
        }
        match below.stage {
            Stage::Wait { latch, .. } => !self.jobs[latch as usize].done,
            Stage::Join { b, frame } => {
                let private = frame.b_recorded() && self.private[v].private_count() > 0;
                !private && !self.jobs[b as usize].done
            }
            _ => false,
        }
    }

    /// Whether the frame of `job` at `stage` is a leaf whose body ends at
    /// its owner's next event (its task was made at its start).
    fn ends_leaf(&self, job: JobId, stage: Stage) -> bool {
        matches!(stage, Stage::Body)
            && self.jobs[job as usize].fanout.is_none()
            && self.tasks.get(&job).is_some_and(|t| t.body == Body::Leaf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::job::{Frame, Kind};
    use crate::sim::tests::hierarchical_layout as machine;
    use crate::sim::workload::{Node, Task};
    use crate::sim::{CostModel, Fib, Policy};

    /// Worker `V` of a two-LLC machine runs a leaf (its frame at its body,
    /// above `below` if given) whose end is its next event, at `END` ns,
    /// with `queued` jobs on its deque.
    const V: usize = 2;
    const END: u64 = 1_000;

    fn victim<'a>(cost: &'a CostModel, fib: &'a Fib, below: Option<Stage>, queued: u32) -> Sim<'a> {
        let mut sim = Sim::new(machine("llc:2 core:2"), cost, Policy::Hierarchical, fib, 0);
        let job =
            |sim: &mut Sim<'_>| sim.new_job(Node::default(), None, V as u32, None, Kind::Root);
        if let Some(stage) = below {
            let id = job(&mut sim);
            sim.workers[V].frames.push(Frame { job: id, stage });
        }
        let leaf = job(&mut sim);
        let task = Task {
            work_ns: END,
            footprint: 0,
            data: None,
            body: Body::Leaf,
        };
        sim.tasks.insert(leaf, task);
        sim.workers[V].frames.push(Frame {
            job: leaf,
            stage: Stage::Body,
        });
        for _ in 0..queued {
            let id = job(&mut sim);
            sim.deque(V).push(id);
        }
        sim.workers[V].mode = Mode::Run;
        sim.schedule(V, END);
        sim
    }

    /// Whether the owner pops first for a thief whose clock reads `at`
    /// (the event at 0, its looks so far `at`).
    fn first_at(sim: &mut Sim<'_>, at: f64) -> bool {
        sim.acc = at;
        sim.owner_pops_first(V)
    }

    #[test]
    fn the_owner_pops_its_last_job_when_it_gets_there_before_the_thief() {
        let (cost, fib) = (CostModel::published(), Fib { n: 3, ns: 1 });
        let mut sim = victim(&cost, &fib, None, 1);
        assert!(first_at(&mut sim, END as f64 + 1.0));
        // A thief that gets there first takes it.
        assert!(!first_at(&mut sim, END as f64 - 1.0));
    }

    #[test]
    fn a_thief_still_gets_the_oldest_of_two_jobs() {
        let (cost, fib) = (CostModel::published(), Fib { n: 3, ns: 1 });
        let mut sim = victim(&cost, &fib, None, 2);
        assert!(!first_at(&mut sim, END as f64 + 1.0));
    }

    #[test]
    fn the_frame_below_the_leaf_decides_whether_the_owner_pops() {
        let (cost, fib) = (CostModel::published(), Fib { n: 3, ns: 1 });
        let late = END as f64 + 1.0;
        // Waiting for a latch not set: the run loop's local take pops.
        let latch = 0;
        let wait = Stage::Wait { latch, join: None };
        let mut sim = victim(&cost, &fib, Some(wait), 1);
        assert_eq!(sim.workers[V].frames[0].job, latch);
        assert!(first_at(&mut sim, late));
        // Its latch set: the frame goes on without a pop.
        sim.jobs[latch as usize].done = true;
        assert!(!first_at(&mut sim, late));
        // An iterator's frame below: not predicted, the thief wins.
        let mut sim = victim(&cost, &fib, Some(Stage::AfterIter { split: 0 }), 1);
        assert!(!first_at(&mut sim, late));
    }

    #[test]
    fn an_owner_whose_next_event_starts_a_body_does_not_pop_first() {
        let (cost, fib) = (CostModel::published(), Fib { n: 3, ns: 1 });
        let mut sim = victim(&cost, &fib, None, 1);
        let top = sim.workers[V].frames[0].job;
        sim.tasks.get_mut(&top).expect("the leaf's task").body = Body::Scope(Vec::new());
        assert!(!first_at(&mut sim, END as f64 + 1.0));
        // A worker that searches holds no job to race for.
        let mut sim = victim(&cost, &fib, None, 1);
        sim.workers[V].mode = Mode::Rayon(crate::sim::rayon_sleep::Phase::Looking);
        assert!(!first_at(&mut sim, END as f64 + 1.0));
    }
}
