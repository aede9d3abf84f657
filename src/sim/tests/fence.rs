//! The heavy fence's cost to the workers it interrupts: when a simulated
//! worker's look runs its fence (`private::rules::look_fences`, the
//! runtime's rule), every other worker running at that moment loses
//! `fence_interrupt_ns` (its pending event moves), a parked one nothing;
//! the caller pays `fence_target_ns` per worker interrupted. Priced at 0,
//! the interrupts change no report.

use crate::runtime::search::{Found, Search};
use crate::sim::engine::Sim;
use crate::sim::worker_state::Mode;
use crate::sim::{CostModel, Fib, Policy, Repeat, Report, Run, Workload};

use super::{machine, sim_running};

/// The worker that parks, and so fences, in these tests.
const W: usize = 1;

/// A time far beyond `W`'s search, for the other workers' pending events.
const LATER: u64 = 1_000_000_000;

/// Six workers: `W` about to search (its park is lazy, and its look runs
/// the fence when that expires), workers 0 and 2 running a job,
/// worker 3 searching, worker 4 parked and worker 5 parked with a pending
/// event (as a lazy park's timeout), each event far later than `W`'s
/// search.
fn six_workers<'a>(cost: &'a CostModel, fib: &'a Fib) -> Sim<'a> {
    let mut sim = sim_running("core:6", cost, fib);
    for v in [0, 2] {
        sim.schedule(v, LATER + v as u64);
    }
    let llc = sim.workers[3].llc;
    sim.workers[3].mode = Mode::Search(Search::new(3, llc));
    sim.schedule(3, LATER + 3);
    for v in [4, 5] {
        let idle = sim.sleep.born_idle(v);
        let llc = sim.workers[v].llc;
        sim.workers[v].mode = Mode::Parked(Search::born(v, llc, idle));
    }
    sim.schedule(5, LATER + 5);
    sim
}

/// Runs `W`'s search until it parks without a timeout (its lazy park
/// expired, and its fenced look is the last step).
fn park(sim: &mut Sim<'_>) {
    let llc = sim.workers[W].llc;
    sim.search(W, Search::new(W, llc));
    while !matches!(&sim.workers[W].mode, Mode::Parked(s) if s.lazy().is_none()) {
        assert!(sim.next_event(), "a search ends in a park");
        assert!(sim.now < LATER, "only W's events ran");
    }
}

#[test]
fn a_fence_delays_exactly_the_running_workers_and_no_parked_one() {
    let mut cost = CostModel::published();
    cost.fence_interrupt_ns = 1234.6;
    let fib = Fib { n: 3, ns: 1 };
    let mut sim = six_workers(&cost, &fib);
    park(&mut sim);
    assert!(matches!(&sim.workers[W].mode, Mode::Parked(s) if s.lazy().is_none()));
    assert_eq!(sim.counts.heavy_fences, 1, "one fenced look");
    // Workers 0, 2 (running) and 3 (searching) were on their CPUs: each
    // event moved by the whole ns of the cost, the fraction carried.
    assert_eq!(sim.counts.fence_interrupts, 3);
    for v in [0, 2, 3] {
        assert_eq!(sim.workers[v].next_at, LATER + v as u64 + 1234, "{v}");
        assert!((sim.workers[v].carry - 0.6).abs() < 1e-9, "{v}");
        assert!(sim.workers[v].scheduled);
    }
    // The parked ones: no event moved, none added.
    assert!(!sim.workers[4].scheduled);
    assert_eq!(sim.workers[5].next_at, LATER + 5);
    assert_eq!(sim.workers[5].carry, 0.0);
    // The moved events are the pending ones; the old ones are skipped.
    let mut order = Vec::new();
    while let Some(std::cmp::Reverse((t, seq, v))) = sim.heap.pop() {
        if seq == sim.workers[v as usize].pending_seq {
            order.push((t, v));
        }
    }
    order.sort_unstable();
    assert_eq!(
        order,
        [
            (LATER + 5, 5),
            (LATER + 1234, 0),
            (LATER + 1236, 2),
            (LATER + 1237, 3)
        ]
    );
}

#[test]
fn the_caller_pays_its_fence_and_its_wait_for_each_interrupted_worker() {
    // The fenced look alone, as `W`'s re-check runs it (the park that
    // follows drops the event's costs, so the look is priced here).
    let charge = |interrupt: f64, target: f64| {
        let mut cost = CostModel::published();
        cost.fence_interrupt_ns = interrupt;
        cost.fence_target_ns = target;
        let fib = Fib { n: 3, ns: 1 };
        let mut sim = six_workers(&cost, &fib);
        let _ = sim.sleep.born_idle(W);
        sim.acc = 0.0;
        let found = crate::sim::queues::look_before_parking(&mut sim, W);
        assert!(matches!(found, Found::Nothing));
        (
            sim.acc,
            sim.counts.heavy_fences,
            sim.counts.fence_interrupts,
        )
    };
    let fence = CostModel::published().heavy_fence_ns;
    assert_eq!(charge(0.0, 0.0), (fence, 1, 3));
    let (with, fences, hit) = charge(1000.0, 150.0);
    assert_eq!((fences, hit), (1, 3));
    assert!((with - fence - 3.0 * 150.0).abs() < 1e-9, "{with}");
}

/// `w` on `spec`, each policy, seeds 0 to 2 with the costs perturbed as
/// `simulate --runs 3` does, interrupts delivered or not.
fn report_of(spec: &str, w: &dyn Workload, cost: &CostModel, deliver: bool) -> Report {
    let t = machine(spec);
    let repeat = Repeat {
        runs: 3,
        seed: 0,
        perturb_pct: 10.0,
    };
    let mut runs: Vec<Run> = Vec::new();
    for p in [Policy::Hierarchical, Policy::Flat, Policy::RayonLike] {
        for (seed, c) in &repeat.costs(cost) {
            let l = crate::sim::layout(&t, p, None).unwrap();
            let mut sim = Sim::new(l, c, p, w, *seed);
            sim.deliver_interrupts = deliver;
            let mut run = sim.run();
            run.seed = *seed;
            runs.push(run);
        }
    }
    crate::sim::report_of_runs(spec, &t, w, runs, repeat).unwrap()
}

#[test]
fn interrupts_priced_at_zero_reproduce_the_report_byte_for_byte() {
    let mut cost = CostModel::published();
    cost.fence_interrupt_ns = 0.0;
    cost.fence_target_ns = 0.0;
    // Twelve items of three lazy-park timeouts each on eight workers: in
    // the second wave four workers wait longer than the timeout while four
    // run, so the fenced looks of the expired parks interrupt them. (A
    // small `matmul` takes no fence since its latch waiters park lazily
    // too.)
    let item_ns = 3 * crate::runtime::backoff::LAZY_PARK.as_nanos();
    let w = crate::sim::parse_workload(&format!("range:12:1:{item_ns}")).unwrap();
    let spec = "llc:2 core:4";
    let priced = report_of(spec, &*w, &cost, true);
    let before = report_of(spec, &*w, &cost, false);
    let fences: u64 = priced.runs.iter().map(|r| r.counts.heavy_fences).sum();
    let hits: u64 = priced.runs.iter().map(|r| r.counts.fence_interrupts).sum();
    assert!(fences > 0 && hits > 0, "{}", priced.table());
    assert!(before.runs.iter().all(|r| r.counts.fence_interrupts == 0));
    // The same JSON, but for the counter.
    let strip = |r: &Report| {
        let mut r = r.clone();
        for run in &mut r.runs {
            run.counts.fence_interrupts = 0;
        }
        r.json()
    };
    assert_eq!(strip(&priced), before.json());
    assert_ne!(priced.json(), before.json(), "the counter is reported");
    // Priced, the interrupts move the locus runs (rayon-like takes no fence).
    cost.fence_interrupt_ns = 1000.0;
    cost.fence_target_ns = 150.0;
    let dear = report_of(spec, &*w, &cost, true);
    for (a, b) in dear.runs.iter().zip(&before.runs) {
        if a.policy == Policy::RayonLike {
            assert_eq!(a.counts, b.counts);
        }
    }
    assert_ne!(dear.json(), before.json());
}
