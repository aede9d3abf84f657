//! The cache model applied to a job (`sim::cache` states the rules): the
//! refill of a job's working set when it starts on a worker (its own
//! data, or the anonymous working set its creator left, then each
//! [`Touch`] the workload names), and the price of a thief's look at a
//! victim's queues. The only place a victim look is priced.
//!
//! Invariants: a job's refill starts at the event's time so far and
//! prices its transfers one after the other (the shared links see each
//! transfer when it starts); every byte moved is counted in exactly one
//! tier of `Counts::bytes_by_tier`.

use super::bandwidth::From;
use super::cache::OWN;
use super::cost::Reach;
use super::engine::Sim;
use super::job::JobId;
use super::worker_state::Mode;
use super::workload::Touch;

impl Sim<'_> {
    /// The refill of `id`'s working set on `w`: its footprint (its own
    /// data, read and written, or the anonymous working set its creator
    /// left), then each of its [`Touch`]es, priced by the cache model,
    /// one after the other from the event's time so far (the shared
    /// links see each transfer when it starts).
    pub(super) fn refill(&mut self, w: usize, id: JobId) -> f64 {
        let (footprint, data) = {
            let t = self.task(id);
            (t.footprint, t.data)
        };
        let start = self.now as f64 + self.acc;
        self.caches.links.at_event(self.now as f64);
        let mut ns = match data {
            Some(d) => self.touch(
                (w, start),
                Touch {
                    id: d,
                    bytes: footprint,
                    write: true,
                },
            ),
            None => match self.jobs[id as usize].home {
                u32::MAX => 0.0,
                from => self.anonymous(from as usize, (w, start), footprint),
            },
        };
        let node = self.jobs[id as usize].node;
        for touch in self.workload.touches(&node) {
            ns += self.touch((w, start + ns), touch);
        }
        ns
    }

    /// Moving an anonymous working set of `bytes` from its creator `from`
    /// to `w`, starting at time `at`.
    fn anonymous(&mut self, from: usize, (w, at): (usize, f64), bytes: u64) -> f64 {
        if bytes == 0 {
            return 0.0;
        }
        let reach = self.reach(from, w);
        let tier = match reach {
            Reach::Same => OWN,
            Reach::At(k, _) => k as usize,
        };
        self.counts.bytes_by_tier[tier] += bytes;
        let mut ns = self.cost.transfer(reach, bytes);
        if matches!(tier, 3..=5) {
            self.counts.llc_moves += 1;
            let alone = self.cost.refill(reach, bytes);
            ns += self.caches.links.charge(
                &self.layout,
                w,
                From::Cache(from),
                (at, bytes, alone),
                &mut self.counts,
            );
        }
        ns
    }

    /// Worker `w` reads or writes named data at time `at`.
    fn touch(&mut self, (w, at): (usize, f64), t: Touch) -> f64 {
        self.caches.access(
            &self.layout,
            self.cost,
            (w, at),
            (t.id, t.bytes, t.write),
            &mut self.counts,
        )
    }

    /// What thief `w`'s look at victim `v`'s deque or private stack costs
    /// (see the module docs): `probe_ns`, plus a line transfer at the
    /// victim's distance when the victim is running (its owner writes
    /// those lines as it pushes and pops).
    pub(super) fn victim_look(&self, w: usize, v: usize) -> f64 {
        let busy = v != w && matches!(self.workers[v].mode, Mode::Run);
        let line = if busy {
            self.cost.line(self.reach(v, w))
        } else {
            0.0
        };
        self.cost.probe_ns + line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::tests::hierarchical_layout as machine;
    use crate::sim::{CostModel, Fib, Policy};

    #[test]
    fn a_victim_look_costs_a_line_at_its_distance_while_it_runs() {
        let l = machine("numa:2 llc:2 cluster:2 core:2");
        let cost = CostModel::published();
        let fib = Fib { n: 3, ns: 1 };
        let mut sim = Sim::new(l, &cost, Policy::Hierarchical, &fib, 0);
        // A new simulation's workers are all running.
        let looks: Vec<f64> = [1, 2, 4, 8].map(|v| sim.victim_look(0, v)).to_vec();
        assert!(looks.windows(2).all(|p| p[0] < p[1]), "{looks:?}");
        assert_eq!(looks[0], cost.probe_ns + cost.line_cluster_ns);
        // A parked victim's lines did not change: the look alone.
        let idle = sim.sleep.born_idle(8);
        let llc = sim.workers[8].llc;
        sim.workers[8].mode = Mode::Parked(crate::runtime::search::Search::born(8, llc, idle));
        assert_eq!(sim.victim_look(0, 8), cost.probe_ns);
    }
}
