//! A deterministic discrete-event simulation of a pool, running locus's own
//! policy code on simulated time and simulated machines (feature `sim`).
//!
//! Our machines have a few cores and one L3: a virtual topology of 192
//! workers there never has more workers busy than real cores, so the
//! policy never meets the situations it exists for. Like LinSched, which
//! ran the Linux scheduler's real code in user space, this module runs the
//! pool's decisions themselves on machines we do not have
//! ([`crate::Topology::synthetic`] specs, sysfs snapshots, hwloc XML):
//! simulated workers, each with its deque, private `join` halves, idle
//! state and place in the [`Layout`]; simulated time; and a
//! [cost model](CostModel) for everything the pool pays for.
//!
//! # One policy, two mechanisms
//!
//! The simulator calls the functions the pool's workers call; only the
//! mechanism (threads, atomics racing, parking) is replaced by a single
//! thread advancing simulated time. Its queues are crossbeam's own deques
//! and injectors, its private halves the runtime's `PrivateStack`, its
//! idle state the runtime's `Sleep` and `IdleMasks`. Event by event:
//!
//! | event | the runtime code it runs |
//! |---|---|
//! | job start, end | `WorkerThread::execute`; the `join` frame is `join_frame::JoinFrame` itself, the state machine the pool's `join` steps (`pool::join::run_frame`): each step within an event (`b` recorded by `owner::push_private`, or published, then `a` run as a frame above, after which `Stage::Join` steps again, `owner::pop_private`, the steps of `owner::take_back`); scopes and a `join` whose `b` was taken wait as `wait_until` does (`owner::promote_all`, then the worker's run loop with the latch) |
//! | run loop | `run_loop::next`, the step of the worker's run loop that `WorkerThread::run` and the loom models' pool drive with `run_loop::run`: the latch, a local take (`owner::take_local`, then `owner::take_own_group`, with its injector turn), else the end of the `CROSSING` mark and a search; the main loop (no frame) and `Stage::Wait` (a latch) each take one step |
//! | push, local take | `owner::push` (the own deque, then `Sleep::notify`: the nearest-idle claim, `IdleMasks::claim_nearest`, itself), `owner::take_local` and `owner::take_own_group`, the operations the worker threads run, over the simulated worker as an `owner::Owner` |
//! | join half | `owner::push_private` and `owner::pop_private` (`PrivateStack::push_if_clear`, the capacity and the `wanted` hint in one test, else `owner::push_private_slow` and `PrivateStack::push`; `PrivateStack::pop`, `private::rules::must_publish`, the promotion rules `private::rules::promote_at_entry` and `private::rules::promote_at_exit`, asked while the `wanted` hint is set, `Popped::Wanted` at the pop; a half that does not fit is published by the frame, `JoinStep::Publish`) |
//! | promotion | `owner::promote` / `owner::promote_all` (`PrivateStack::promote_oldest` / `promote_all`, then the fenced notify) |
//! | steal attempt (hit, miss) | `pass::pass`: the source order, the tiers of `Layout::tiers_for` with the random start of `pass::tiers::tier_victims` and `pass::tiers::next_random` (same seeds, `pass::tiers::worker_seed`), the batch rule `pass::tiers::steal_batch`, the checks before crossing the LLC (own pack queue again, mates' private halves and unsplit pieces through `PassQueues::shows_private` (the simulator's `starting` is published by `owner::start_piece` at a fan-out and `owner::end_marks` at the next private push or the fan-out's end), LLCs with a searcher left to it, none taken while crossing mates cover the LLC's searchers (`pass::crossing_covers`; the simulator's `crossing` is counted as `LlcHints::crossing` is, by `owner::mark_crossing` at a far steal, `PassQueues::crossed`, and `owner::end_marks` at the thief's next private push or search)), and across the LLC the far walk `pass::far::steal_far` (the far choice `pass::far::far_pick` over the order of `pass::far::far_victims`, nearest crossing tier first, or the longest pick of every crossing tier in an LLC marked by a loop of spawns, `PassQueues::loop_seen`: the simulator's `loop_seen` per LLC, as `LlcHints::loop_seen`) (`PassQueues::victim_private`; every look at a victim's deque or private stack is a victim look, `Sim::victim_look` of the cache model: a line at the victim's distance while it runs; `PassQueues::victim_placed` reads the simulator's `placed`, its `LlcHints::placed`: counted from a piece's start in `fan_out` to its end, as `WorkerThread::run_placed` counts around `run_piece`) |
//! | private-half claim | `private::rules::look_before_parking`, fenced (`claim_before_parking`) or, in a lazy park's re-check, not (`Sources::find_work_lazily`); the fence charged when `private::rules::look_fences` says it runs: to the caller `heavy_fence_ns` and `fence_target_ns` per worker it interrupts, and to every other worker running at that moment (running frames or searching, not parked or waking) `fence_interrupt_ns`, its next event moved that much later (`Sim::interrupt_running`; the JSON's `fence_interrupts`) |
//! | forward | `Sleep::wake_in`, as `PassQueues::forward` of the worker |
//! | injection (a root) | `push::inject_to`, the pool's `Registry::inject` (no caller CPU: the injectors round robin, then `Sleep::notify`), over the simulated pool as its `shared::SharedQueues` |
//! | group push | `GroupPlan::destination`, then `registry::group_routing::push_to`, the pool's own push to that queue and its wakeup (`wake_for`: `notify_pack`, `Sleep::notify_in`), over the simulated pool as its `SharedQueues` |
//! | group run | the runs per LLC and, for `Auto`, `group::feeds_at` and `group::feed_tracker` (the `AffinityTracker`'s decay and 2x hysteresis) on simulated time |
//! | help rule | `registry::group_routing::may_help_in` (`groups::may_help_by`, the overload rule) |
//! | search, park | `search::Search` itself, the state machine the pool's threads and the loom models drive: each `Search::step` is an event (uncounted pass, `Sleep::start_searching`, counted passes with the pauses of `sync::Backoff` while `search::rules::may_spin` allows, `prepare_sleep`, re-check, `cancel_sleep` or park), its pauses charged as spins and yields |
//! | lazy park | `Sources::lazy_park` of the worker thread, `runtime::backoff::lazy_park`: every park, a latch waiter's too, is lazy while some other worker is not armed; the re-check is `Sources::find_work_lazily` (the look unfenced, no fence charged); the park (`Search::lazy`) is an event at its timeout, `backoff::LAZY_PARK` after the re-check, cancelled by a wakeup (`Search::woken`; a latch's set wakes its parked waiter, lazy or not, `Sim::latch_set`); when it expires the search's next step is `Search::expired` (a latch waiter's latch probed, then the fenced re-check), then the untimed park |
//! | claim and wake | a claim returned by `Sleep` schedules the woken worker after the wake latency; its next event is the search's step after the park (`Sleep::cancel_sleep`, then a far pass) |
//! | iterator start ([`Body::Iter`]) | `run_split::bridge` / `first_split_cold`: `run_split::split_depth`, then `hierarchy::first_split` itself on the simulated layout (one LLC, `run_split::first_split_applies`, or fewer than two pieces: the whole adaptive tree inline) |
//! | iterator fan-out | `run_split::run_group`'s step, `Ctx::fan_out`: one piece (run it), one group (a level below), or the groups of `run_split::Ctx::groups` per LLC, per cluster, per piece, aimed by `Ctx::aims`; then the frame of `run_aimed` itself, `aimed::AimedFrame`, stepped: the start mark, the remote groups pushed, the inline one run (a frame above, after which `Stage::Aimed` steps again), the wait for the count latch |
//! | aimed push | `aimed::push_aimed_to`, the pool's `Registry::push_aimed`, over the simulated pool as its `SharedQueues`: `Aim::Llc` into the LLC's pack queue with `group_routing::notify_pack`; `Aim::Worker` (replay) as two copies, the worker's targeted queue (`PassQueues::targeted`, first in each pass) and its LLC's pack queue, then the fence and the claim of the worker or the pack queue's wakeup; the second copy executed is a no-op (`AffineProxy`; the simulator counts a job's copies) |
//! | piece | `run_split::run_piece`: records the worker that started it, then the workload's tree of the piece; an iterator's piece (`iter:`, `iter-replay:`) splits by the runtime's own splitter, `LengthSplitter` (the budget rule of `iter::plumbing::splitter`: the piece's domain's workers, halved at each split, renewed when a half migrates) |
//! | replay | `run_split::replay_targets` (the record of the runtime's own `ReplayCore`, `replay_record::balance`) before the run, `ReplayCore::record` after it, one handle per simulation |
//!
//! Races: an event's look at the queues is atomic, so a steal never
//! reports contention; the one race modelled is a thief's with the
//! victim's owner for its last job, timed by the thief's clock (the
//! event's time plus its looks so far: module `race`). Not modelled:
//! other races; the lazy split budget of an iterator
//! started while every worker is busy (the simulator's iterators start
//! with demand); nested iterators and iterators
//! inside job groups (both split adaptively in the runtime); yields and
//! broadcasts; the real pool's own clock (`Auto` groups decay on simulated
//! time); the handoff of a blocked caller's wakeup to the worker searching
//! on its CPU (`runtime::handoff`: the simulator has no threads outside
//! the pool, and its roots finish without a wakeup); the idle governor
//! (`Sources::search_steps`: every search gets the full budget); the
//! heavy fence of a private-half claim (`PrivateStack::try_claim`: only
//! the look's fence is charged); the cost of a timed park over an untimed
//! one (the timer, charged to nobody).
//!
//! # Policies
//!
//! [`Policy::Hierarchical`] and [`Policy::Flat`] are the two
//! [`StealOrder`](crate::StealOrder)s; [`Policy::ClusterOff`] is
//! hierarchical with the run-time cluster switch off; [`Policy::RayonLike`]
//! is the comparison: rayon-core's own mechanisms, rule by rule, in the
//! module `rayon_like` (its docs' table names the rayon-core function each
//! rule models): the jobs-event counter and the sleepy and sleeping
//! states, a wakeup on every push to a non-empty deque, 32 rounds of
//! yields before sleepy and one more before sleeping, no spinner cap,
//! random victims from rayon's xorshift start, one job per steal, `join`'s
//! second half on the deque at once, one injector, no fence on a push, no
//! job groups and no first split of iterators. None of the table above
//! (locus's search, passes, idle masks, private halves, crossing marks)
//! applies to it.
//!
//! # Output
//!
//! A [`Run`] per policy and worker count (makespan, utilisation, steals
//! and wakeups by distance, data reads served from other LLCs, bytes of
//! task data by the tier they came from ([`BYTE_TIERS`]: the cache model
//! of `sim::cache`, with caches of the cost model's sizes, LRU eviction,
//! DRAM of first-touch NUMA homes, invalidation on writes), the time
//! transfers waited for shared bandwidth (`bw_wait_ns`: `sim::bandwidth`,
//! an LLC's link, a node's DRAM channels, a socket link), idle-mask words
//! touched); a [`Report`] prints them as a table or JSON. The example
//! `simulate` is the command line:
//!
//! ```text
//! cargo run --release --features sim --example simulate -- \
//!     --machine 'package:2 llc:12 core:8' --workload fib:28 --policy hierarchical,flat
//! ```
//!
//! Error bars: [`report_repeated`] (`--runs N [--seed S] [--perturb PCT]`)
//! repeats each simulation with other seeds for the policies' random
//! choices and every cost perturbed by up to a percentage ([`Repeat`]);
//! each column is then the median and range (min to max) of the repeats.
//!
//! Determinism: the same machine, workload, policy, worker count, cost
//! model and seed give the same report, byte for byte (no wall clock, no
//! hash-order dependence; seed 0 is the pool's own workers' seeds).

mod bandwidth;
mod cache;
mod cost;
mod cost_file;
mod counts;
mod engine;
mod error;
mod group_state;
mod job;
mod kernels;
mod machine;
mod policy;
mod queues;
mod race;
mod rayon_like;
mod rayon_sleep;
mod refill;
mod report;
mod spec;
mod split;
mod split_run;
mod spread;
mod trace;
mod views;
mod worker;
mod worker_state;
mod workload;

#[cfg(test)]
mod tests;

use crate::layout::{Layout, LayoutOptions};
use crate::topology::Topology;

pub use cost::{CostModel, Reach, heavy_fence};
pub use cost_file::CostError;
pub use counts::{BYTE_TIERS, Counts, Feed, IterStats, PieceStats, Run};
pub use error::SimError;
pub use kernels::{Matmul, Mergesort, Pipeline, Reduce, Stencil, Triad};
pub use machine::{MachineError, load as load_machine};
pub use policy::Policy;
pub use report::Report;
pub use spec::parse as parse_workload;
pub use spread::{Repeat, Spread};
pub use trace::{Trace, TracedLeaf, TracedSteal};
pub use workload::{
    Body, Fib, Iter, IterRange, IterSpec, Node, RandomTree, Root, SpawnStorm, Start, Stream, Task,
    Touch, Workload, WorkloadError, work_span,
};

/// The layout a pool of `workers` workers (`None`: one per PU) running
/// `policy` would have on `topology` (virtual: nothing is pinned).
///
/// # Errors
/// When the layout cannot be built (e.g. too many workers).
pub fn layout(
    topology: &Topology,
    policy: Policy,
    workers: Option<usize>,
) -> Result<Layout, SimError> {
    let opts = LayoutOptions {
        num_threads: workers,
        steal_order: policy.steal_order(),
        virtual_topology: true,
        ..LayoutOptions::default()
    };
    Layout::new(topology, &opts).map_err(|e| {
        let n = workers.map_or_else(
            || "one worker per PU".to_string(),
            |n| format!("{n} workers"),
        );
        SimError(format!("cannot lay out {n}: {e}"))
    })
}

/// Simulates `workload` on a pool of `workers` workers (`None`: one per PU)
/// of `topology` running `policy`, with costs `cost`.
///
/// # Errors
/// When the layout cannot be built, or a group of the workload names an
/// LLC, node or worker the layout does not have.
pub fn simulate(
    topology: &Topology,
    workload: &dyn Workload,
    policy: Policy,
    workers: Option<usize>,
    cost: &CostModel,
) -> Result<Run, SimError> {
    simulate_seeded(topology, workload, policy, workers, cost, 0)
}

/// [`simulate`] with the policies' random choices drawn from `seed` (0:
/// the pool's own seeds; see [`Repeat`]).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_seeded(
    topology: &Topology,
    workload: &dyn Workload,
    policy: Policy,
    workers: Option<usize>,
    cost: &CostModel,
    seed: u64,
) -> Result<Run, SimError> {
    let mut run = new_sim(topology, workload, policy, workers, cost, seed)?.run();
    run.seed = seed;
    Ok(run)
}

/// The engine of [`simulate_seeded`] and [`simulate_traced`], before it
/// runs.
fn new_sim<'a>(
    topology: &Topology,
    workload: &'a dyn Workload,
    policy: Policy,
    workers: Option<usize>,
    cost: &'a CostModel,
    seed: u64,
) -> Result<engine::Sim<'a>, SimError> {
    let layout = layout(topology, policy, workers)?;
    for g in workload.groups() {
        crate::groups::GroupPlan::new(&layout, g)
            .map_err(|e| SimError(format!("workload group: {e}")))?;
    }
    Ok(engine::Sim::new(layout, cost, policy, workload, seed))
}

/// [`simulate_seeded`], with a [`Trace`] of the run: every leaf task's
/// start, place, work and refill, and every steal.
///
/// # Errors
/// As [`simulate`].
pub fn simulate_traced(
    topology: &Topology,
    workload: &dyn Workload,
    policy: Policy,
    workers: Option<usize>,
    cost: &CostModel,
    seed: u64,
) -> Result<(Run, Trace), SimError> {
    let (mut run, trace) = new_sim(topology, workload, policy, workers, cost, seed)?.run_traced();
    run.seed = seed;
    Ok((run, trace))
}

/// [`simulate`] for each policy and worker count, as a [`Report`].
///
/// # Errors
/// As [`simulate`].
pub fn report(
    machine: &str,
    topology: &Topology,
    workload: &dyn Workload,
    policies: &[Policy],
    workers: &[Option<usize>],
    cost: &CostModel,
) -> Result<Report, SimError> {
    report_repeated(
        machine,
        topology,
        workload,
        policies,
        workers,
        cost,
        Repeat::ONCE,
    )
}

/// [`report`](fn@report) with each policy and worker count simulated `repeat.runs`
/// times, with the seeds and perturbed costs of [`Repeat`]; the report's
/// table and JSON show each column's median and range.
///
/// # Errors
/// As [`simulate`].
pub fn report_repeated(
    machine: &str,
    topology: &Topology,
    workload: &dyn Workload,
    policies: &[Policy],
    workers: &[Option<usize>],
    cost: &CostModel,
    repeat: Repeat,
) -> Result<Report, SimError> {
    let mut runs = Vec::new();
    let costs = repeat.costs(cost);
    for &n in workers {
        for &p in policies {
            for (seed, c) in &costs {
                runs.push(simulate_seeded(topology, workload, p, n, c, *seed)?);
            }
        }
    }
    report_of_runs(machine, topology, workload, runs, repeat)
}

/// The report of `runs` of `workload` on `topology`: its shape is that of
/// the hierarchical layout of every PU.
pub(crate) fn report_of_runs(
    machine: &str,
    topology: &Topology,
    workload: &dyn Workload,
    runs: Vec<Run>,
    repeat: Repeat,
) -> Result<Report, SimError> {
    let l = layout(topology, Policy::Hierarchical, None)?;
    Ok(Report {
        machine: machine.to_string(),
        shape: (
            l.len(),
            l.llc_ranges().len(),
            l.numa_ranges().len(),
            l.cluster_ranges().len(),
        ),
        workload: workload.name(),
        runs,
        repeat,
    })
}
