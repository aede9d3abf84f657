//! The simulator's own checks: determinism, the greedy bound, and the
//! policy at scale (see issue "Scale simulator").

use super::*;
use crate::topology::Topology;

fn machine(spec: &str) -> Topology {
    Topology::synthetic(spec).unwrap()
}

fn run(spec: &str, w: &dyn Workload, p: Policy, n: Option<usize>) -> Run {
    simulate(&machine(spec), w, p, n, &CostModel::default()).unwrap()
}

#[test]
fn fib_runs_every_job_once() {
    for p in Policy::ALL {
        let r = run("llc:2 cluster:2 core:2", &Fib { n: 12, ns: 2 }, p, None);
        // fib(12) has 465 calls: 232 joins, each one `b` run as a job.
        assert_eq!(r.counts.jobs, 1 + 232, "{p}: {:?}", r.counts);
        assert!(r.counts.makespan_ns > 0);
    }
}
