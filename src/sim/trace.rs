//! An opt-in record of one simulated run, leaf task by leaf task and
//! steal by steal ([`simulate_traced`](super::simulate_traced), the
//! `--trace FILE` of the `simulate` example): when each leaf started, on
//! which worker and LLC, its work, its refill and where the refill's
//! bytes came from; and who stole from whom, and when. It is what a
//! question like "why does this worker end last?" needs
//! (docs/locality-bound.md, sessions 37 to 39, which traced `matmul`
//! this way).
//!
//! Invariants: recording changes nothing in the run (a traced run's
//! [`Run`](super::Run) equals the untraced one's); a leaf's bytes by tier
//! are the counters' increase during its refill, so over the leaves they
//! add up to the run's counters for a workload whose data is touched
//! only by its leaves; there is one steal record per counted steal, in
//! the order they were counted.

use std::fmt::Write as _;

use super::counts::BYTE_TIERS;
use super::workload::Node;

/// A leaf task's start (its refill is priced then; its end is `start_ns +
/// work_ns + refill_ns`, later still if a fence's interrupt lands on it).
#[derive(Debug, Clone, PartialEq)]
pub struct TracedLeaf {
    /// Simulated time of its start (ns).
    pub start_ns: f64,
    /// The worker that ran it.
    pub worker: usize,
    /// That worker's LLC (dense index).
    pub llc: usize,
    /// The task's key (its workload's words: `matmul`'s row and column of
    /// C's blocks in the low 32 bits of `a` and `b`).
    pub node: Node,
    /// Its own work (ns, at the machine's speed).
    pub work_ns: f64,
    /// Its refill (ns): moving its data, waits for shared bandwidth
    /// included.
    pub refill_ns: f64,
    /// Of the refill, the wait for shared bandwidth (ns).
    pub bw_wait_ns: u64,
    /// The bytes its refill touched, by tier, as
    /// [`BYTE_TIERS`].
    pub bytes_by_tier: [u64; BYTE_TIERS.len()],
}

/// A steal, or a claim of a private `join` half.
#[derive(Debug, Clone, PartialEq)]
pub struct TracedSteal {
    /// Simulated time, the steal's own costs up to it included (ns).
    pub at_ns: f64,
    /// The thief.
    pub thief: usize,
    /// The victim.
    pub victim: usize,
    /// The victim's relation to the thief, a name of
    /// [`BYTE_TIERS`] (`same-cluster`, ...).
    pub relation: &'static str,
    /// Whether it took a private half (a claim before parking).
    pub claim: bool,
}

/// One run's record ([`simulate_traced`](super::simulate_traced)).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Every leaf task, in the order of the events that started them (a
    /// start's time includes its event's costs before it, so the times
    /// are not sorted).
    pub leaves: Vec<TracedLeaf>,
    /// Every steal and claim, in the same order.
    pub steals: Vec<TracedSteal>,
}

impl Trace {
    /// Tab-separated lines, each starting with `prefix` (say the policy
    /// and seed): `leaf`, start, worker, LLC, the node's three words,
    /// work, refill, bandwidth wait, then the bytes of each tier of
    /// [`BYTE_TIERS`]; `steal`, time, thief, victim,
    /// relation, `claim` or `deque`. Times in ns, rounded.
    pub fn tsv(&self, prefix: &str) -> String {
        let mut out = String::new();
        for l in &self.leaves {
            let _ = write!(
                out,
                "{prefix}leaf\t{:.0}\t{}\t{}\t{}\t{}\t{}\t{:.0}\t{:.0}\t{}",
                l.start_ns,
                l.worker,
                l.llc,
                l.node.a,
                l.node.b,
                l.node.c,
                l.work_ns,
                l.refill_ns,
                l.bw_wait_ns
            );
            for b in l.bytes_by_tier {
                let _ = write!(out, "\t{b}");
            }
            out.push('\n');
        }
        for s in &self.steals {
            let kind = if s.claim { "claim" } else { "deque" };
            let _ = writeln!(
                out,
                "{prefix}steal\t{:.0}\t{}\t{}\t{}\t{kind}",
                s.at_ns, s.thief, s.victim, s.relation
            );
        }
        out
    }

    /// The header line of [`Trace::tsv`]'s leaf lines (after the prefix's
    /// columns).
    pub fn leaf_header() -> String {
        let mut h =
            String::from("leaf\tstart_ns\tworker\tllc\ta\tb\tc\twork_ns\trefill_ns\tbw_wait_ns");
        for t in BYTE_TIERS {
            h.push('\t');
            h.push_str(t);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::{CostModel, Matmul, Policy, simulate_seeded, simulate_traced};
    use crate::topology::Topology;

    #[test]
    fn a_traced_run_is_the_run_and_its_leaves_add_up_to_its_counters() {
        let t = Topology::synthetic("llc:2 cluster:2 core:2").unwrap();
        let mut cost = CostModel::published();
        // L3s of four panels: blocks are read again from DRAM and the
        // other LLC, so several tiers have bytes.
        cost.llc_bytes = (4 * 64 * 512 * 8) as f64;
        let w = Matmul::new(512, Matmul::BLOCK);
        for policy in [Policy::Hierarchical, Policy::Flat, Policy::RayonLike] {
            let plain = simulate_seeded(&t, &w, policy, None, &cost, 3).unwrap();
            let (run, trace) = simulate_traced(&t, &w, policy, None, &cost, 3).unwrap();
            assert_eq!(run, plain, "{policy}: recording changed the run");
            let k = &run.counts;
            assert_eq!(trace.leaves.len() as u64, k.leaves, "{policy}");
            // `matmul` touches data only in its leaves.
            let mut bytes = [0; crate::sim::BYTE_TIERS.len()];
            for l in &trace.leaves {
                for (s, b) in bytes.iter_mut().zip(l.bytes_by_tier) {
                    *s += b;
                }
            }
            assert_eq!(bytes, k.bytes_by_tier, "{policy}");
            let waits: u64 = trace.leaves.iter().map(|l| l.bw_wait_ns).sum();
            assert_eq!(waits, k.bw_wait_ns, "{policy}");
            // Each of the 8 x 8 blocks once, ended by the makespan.
            let mut blocks: Vec<(u64, u64)> = trace
                .leaves
                .iter()
                .map(|l| (l.node.a & 0xFFFF_FFFF, l.node.b & 0xFFFF_FFFF))
                .collect();
            blocks.sort_unstable();
            blocks.dedup();
            assert_eq!(blocks.len(), 64, "{policy}");
            for l in &trace.leaves {
                assert!(l.start_ns + l.work_ns + l.refill_ns <= k.makespan_ns as f64 + 1.0);
                assert!(l.refill_ns >= l.bw_wait_ns as f64 - 1.0);
            }
            assert_eq!(trace.steals.len() as u64, k.steals_total(), "{policy}");
            let claims = trace.steals.iter().filter(|s| s.claim).count() as u64;
            assert_eq!(claims, k.private_claims, "{policy}");
            let text = trace.tsv("p\t");
            assert_eq!(
                text.lines().count(),
                trace.leaves.len() + trace.steals.len()
            );
            let first = text.lines().next().unwrap();
            assert_eq!(
                first.split('\t').count(),
                super::Trace::leaf_header().split('\t').count() + 1,
                "{first}"
            );
        }
    }
}
