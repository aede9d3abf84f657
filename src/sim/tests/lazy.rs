//! The lazy park in the simulated pool: the runtime's `Search` parks
//! lazily while some other worker is not armed (`backoff::lazy_park`),
//! waiting for a latch or not; a lazy park's re-check charges no heavy
//! fence, and its timeout is an event of the virtual clock, cancelled by
//! a wakeup (a latch's set wakes its waiter as before).

use crate::runtime::backoff::LAZY_PARK;
use crate::runtime::owner;
use crate::runtime::search::Search;
use crate::sim::engine::Sim;
use crate::sim::job::{Frame, Kind};
use crate::sim::worker_state::Mode;
use crate::sim::{Body, CostModel, Fib, Policy, Workload};

use super::sim_running;

/// The worker that parks in these tests; worker 0 runs (its idle bit
/// clear: not armed), so a lazy park is allowed.
const W: usize = 1;

/// Starts a search of `W` and handles its events until it parks; returns
/// the time of the event in which it parked.
fn search_until_parked(sim: &mut Sim<'_>) -> u64 {
    let llc = sim.workers[W].llc;
    sim.search(W, Search::new(W, llc));
    loop {
        let at = sim.workers[W].next_at;
        if matches!(sim.workers[W].mode, Mode::Parked(_)) {
            return sim.now;
        }
        assert!(sim.next_event(), "a search ends in a park");
        assert!(sim.now >= at);
    }
}

fn lazy(sim: &Sim<'_>) -> bool {
    matches!(&sim.workers[W].mode, Mode::Parked(s) if s.lazy().is_some())
}

/// A gap between the short calls of a loop, well within `LAZY_PARK`.
const SHORT_NS: u64 = 50_000;

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap()
}

#[test]
fn while_others_run_the_worker_parks_lazily_without_the_fence_until_the_timeout() {
    let cost = CostModel::published();
    let fib = Fib { n: 3, ns: 1 };
    let mut sim = sim_running("core:4", &cost, &fib);
    let parked = search_until_parked(&mut sim);
    assert!(lazy(&sim));
    assert_eq!(
        (
            sim.counts.parks,
            sim.counts.lazy_parks,
            sim.counts.heavy_fences
        ),
        (1, 1, 0),
        "one lazy park, its look unfenced"
    );
    // Its one event is the timeout, LAZY_PARK after the re-check's costs.
    let timeout = sim.workers[W].next_at;
    let late = timeout - parked - nanos(LAZY_PARK);
    assert!(late < 10_000, "the re-check cost {late} ns");
    // Nothing wakes it: the timeout expires on the virtual clock, the
    // search takes the fenced re-check and parks without a timeout.
    assert!(sim.next_event());
    assert_eq!(sim.now, timeout);
    assert!(matches!(&sim.workers[W].mode, Mode::Parked(s) if s.idle().is_some()));
    assert_eq!(
        (
            sim.counts.parks,
            sim.counts.lazy_expired,
            sim.counts.heavy_fences
        ),
        (1, 1, 1),
        "still one park; the fence at the expiry"
    );
    assert!(!sim.workers[W].scheduled, "an untimed park has no event");
    assert!(!sim.next_event());
}

#[test]
fn a_first_park_is_lazy_too_and_with_every_other_worker_armed_untimed() {
    let cost = CostModel::published();
    let fib = Fib { n: 3, ns: 1 };
    // No park before (as after a long one): still lazy while the others
    // run, so its look interrupts none of them.
    let mut sim = sim_running("core:4", &cost, &fib);
    search_until_parked(&mut sim);
    assert!(lazy(&sim));
    assert_eq!(
        (sim.counts.lazy_parks, sim.counts.heavy_fences),
        (1, 0),
        "a first park: lazy, unfenced"
    );
    // Every other worker idle: the fenced look skips its fence, and the
    // park is untimed.
    let mut sim = sim_running("core:4", &cost, &fib);
    for v in [0, 2, 3] {
        let _ = sim.sleep.born_idle(v);
    }
    search_until_parked(&mut sim);
    assert!(!lazy(&sim));
    assert_eq!((sim.counts.lazy_parks, sim.counts.heavy_fences), (0, 0));
}

#[test]
fn a_job_pushed_during_a_lazy_park_wakes_the_worker_before_its_timeout() {
    let cost = CostModel::published();
    let fib = Fib { n: 3, ns: 1 };
    let mut sim = sim_running("core:4", &cost, &fib);
    search_until_parked(&mut sim);
    assert!(lazy(&sim));
    let timeout = sim.workers[W].next_at;
    // Worker 0 pushes a job a little later (`owner::push` and its
    // notify, which claims the only idle worker).
    sim.now += 50_000;
    let root = fib.roots().remove(0).node;
    let id = sim.new_job(root, None, 0, None, Kind::Root);
    sim.push(0, id);
    sim.acc = 0.0;
    assert!(matches!(sim.workers[W].mode, Mode::Waking(_)));
    // Woken: its timeout is cancelled, and its next step (after the
    // wake latency) steals the job.
    assert!(sim.next_event());
    assert!(sim.now < timeout);
    assert_eq!(
        sim.workers[W].frames.last().map(|f: &Frame| f.job),
        Some(id),
        "the woken worker runs the job"
    );
    assert_eq!(sim.counts.lazy_expired, 0);
    // The cancelled timeout is skipped: the next events are the job's.
    while sim.next_event() {
        assert_eq!(sim.counts.lazy_expired, 0);
        if sim.roots_left == 0 {
            break;
        }
    }
}

#[test]
fn a_lazy_park_still_claims_a_private_half_it_sees() {
    let cost = CostModel::published();
    let fib = Fib { n: 3, ns: 1 };
    let mut sim = sim_running("core:4", &cost, &fib);
    // Worker 0 holds a private `join` half (it runs: its halves are
    // private until a thief claims one).
    let root = fib.roots().remove(0).node;
    let id = sim.new_job(root, None, 0, None, Kind::Half);
    assert!(owner::push_private(&mut sim.owner(0), id));
    assert_eq!(sim.private[0].private_count(), 1);
    let llc = sim.workers[W].llc;
    sim.search(W, Search::new(W, llc));
    while !sim.workers[W].frames.iter().any(|f| f.job == id) {
        assert!(
            !matches!(sim.workers[W].mode, Mode::Parked(_)),
            "parked with a half to take"
        );
        assert!(sim.next_event());
    }
    // The half was taken by the lazy re-check's unfenced look.
    assert_eq!(sim.counts.private_claims, 1);
    assert_eq!((sim.counts.lazy_parks, sim.counts.heavy_fences), (0, 0));
}

/// One long task from time 0, beside short `join`s injected every
/// `gap_ns` (the short calls of a loop while another worker runs).
struct Calls {
    gap_ns: u64,
    calls: u64,
}

impl Workload for Calls {
    fn name(&self) -> String {
        "calls".into()
    }

    fn roots(&self) -> Vec<crate::sim::Root> {
        let root = |at_ns, a| crate::sim::Root {
            at_ns,
            node: crate::sim::Node::new(a, 0, 0),
            group: None,
        };
        let calls = (1..=self.calls).map(|i| root(i * self.gap_ns, 1));
        std::iter::once(root(0, 0)).chain(calls).collect()
    }

    fn task(&self, node: &crate::sim::Node) -> crate::sim::Task {
        let (work_ns, body) = match node.a {
            0 => (self.gap_ns * (self.calls + 2), Body::Leaf),
            1 => (
                0,
                Body::Join(
                    crate::sim::Node::new(2, 0, 0),
                    crate::sim::Node::new(2, 0, 0),
                ),
            ),
            _ => (5_000, Body::Leaf),
        };
        crate::sim::Task {
            work_ns,
            footprint: 0,
            data: None,
            body,
        }
    }
}

#[test]
fn short_gaps_between_calls_make_lazy_parks_woken_in_time_and_long_ones_expire() {
    let t = crate::topology::Topology::synthetic("core:4").unwrap();
    let cost = CostModel::published();
    let run = |gap_ns| {
        let w = Calls { gap_ns, calls: 30 };
        crate::sim::simulate(&t, &w, Policy::Hierarchical, None, &cost)
            .unwrap()
            .counts
    };
    let short = run(SHORT_NS);
    // Every call and its stolen or taken-back half ran: no wakeup lost.
    assert_eq!(short.jobs, 1 + 30 + 30);
    assert!(short.lazy_parks > 0, "{short:?}");
    // The lazy parks' looks skipped the fence.
    assert!(
        short.heavy_fences + short.lazy_parks <= short.parks + short.lazy_expired,
        "{short:?}"
    );
    let long = run(4 * nanos(LAZY_PARK));
    assert_eq!(long.jobs, 1 + 30 + 30);
    // Long gaps while worker 0 runs its long task: every park is lazy and
    // expires, and takes the deferred fence then (at most one per park).
    assert!(long.lazy_parks > 0, "{long:?}");
    assert!(long.lazy_expired > 0, "{long:?}");
    assert!(
        long.heavy_fences <= long.parks + long.lazy_expired,
        "{long:?}"
    );
}

/// One `join` whose `a` takes 20 us and whose `b` takes `b_ns`: on two
/// workers the other one (woken by the promotion of `b`) steals `b`, and
/// the owner, done with `a`, waits for `b`'s latch while the thief runs.
struct Stolen {
    b_ns: u64,
}

impl Workload for Stolen {
    fn name(&self) -> String {
        "stolen".into()
    }

    fn roots(&self) -> Vec<crate::sim::Root> {
        vec![crate::sim::Root {
            at_ns: 0,
            node: crate::sim::Node::new(0, 0, 0),
            group: None,
        }]
    }

    fn task(&self, node: &crate::sim::Node) -> crate::sim::Task {
        let (work_ns, body) = match node.a {
            0 => (
                0,
                Body::Join(
                    crate::sim::Node::new(1, 0, 0),
                    crate::sim::Node::new(2, 0, 0),
                ),
            ),
            1 => (20_000, Body::Leaf),
            _ => (self.b_ns, Body::Leaf),
        };
        crate::sim::Task {
            work_ns,
            footprint: 0,
            data: None,
            body,
        }
    }
}

/// [`Stolen`] on two workers, hierarchical.
fn stolen(b_ns: u64) -> crate::sim::Counts {
    let t = crate::topology::Topology::synthetic("core:2").unwrap();
    let cost = CostModel::published();
    crate::sim::simulate(&t, &Stolen { b_ns }, Policy::Hierarchical, None, &cost)
        .unwrap()
        .counts
}

#[test]
fn a_latch_waiter_parks_lazily_and_its_latch_wakes_it_before_the_timeout() {
    let b_ns = 100_000;
    let c = stolen(b_ns);
    assert_eq!(c.jobs, 2, "{c:?}");
    // The owner's wait for `b` parked lazily, its look unfenced, and the
    // thief's set of the latch woke it: no timeout expired, no fence.
    assert_eq!((c.parks, c.lazy_parks), (1, 1), "{c:?}");
    assert_eq!((c.lazy_expired, c.heavy_fences), (0, 0), "{c:?}");
    // Woken by the set, not at the timeout: the run ends soon after `b`.
    assert!(c.makespan_ns < 20_000 + nanos(LAZY_PARK), "{c:?}");
}

#[test]
fn a_latch_waiter_whose_lazy_park_expires_looks_fenced_then_its_latch_wakes_it() {
    let b_ns = 4 * nanos(LAZY_PARK);
    let c = stolen(b_ns);
    assert_eq!(c.jobs, 2, "{c:?}");
    // The wait outlived the timeout: the fenced re-check (its fence
    // interrupts the thief), the untimed park, and the latch's wakeup.
    assert_eq!((c.parks, c.lazy_parks, c.lazy_expired), (1, 1, 1), "{c:?}");
    assert_eq!((c.heavy_fences, c.fence_interrupts), (1, 1), "{c:?}");
    assert!(c.makespan_ns < b_ns + 50_000, "{c:?}");
}

#[test]
fn a_latch_waiter_whose_thief_runs_a_data_kernels_block_is_not_interrupted() {
    // A thief's half of 0.5 ms (a block of the 2048 matrix product and its
    // refill) and of 1.5 ms (a few of them): the waiter's lazy park
    // outlives it, so its latch wakes it and no expiry's fence interrupts
    // the thief (`backoff::LAZY_PARK`).
    for b_ns in [500_000, 1_500_000] {
        let c = stolen(b_ns);
        assert_eq!(c.jobs, 2, "{c:?}");
        assert_eq!((c.parks, c.lazy_parks), (1, 1), "{c:?}");
        assert_eq!(
            (c.lazy_expired, c.heavy_fences, c.fence_interrupts),
            (0, 0, 0),
            "{b_ns} ns: {c:?}"
        );
    }
}
