//! The shared state of a pool: queues, sleep state, counters, threads.
//!
//! Invariants:
//! - worker `i` owns deque `i` (only it pushes and pops); `threads[i]`
//!   holds the stealer, the private `join` halves (only worker `i` pushes
//!   and pops, others claim: see `private`) and the targeted queue of
//!   worker `i`;
//! - `injectors[l]` receives jobs from outside the pool aimed at LLC `l`;
//! - `group_llc[l]` holds packed group jobs aimed at LLC `l`, and pieces
//!   of parallel iterators aimed at `l` (see `aimed`) (taken by `l`'s
//!   workers, by others only under the help rule); `group_cluster[c]`
//!   holds spread group jobs dealt to cluster `c` (taken by anyone, `c`'s
//!   workers first); every worker's find-work pass looks at all of them, so
//!   switching cluster awareness at run time strands no job;
//! - `groups` lists the group states not yet freed; a state is freed when
//!   its last holder goes (its handles, and the group jobs that may
//!   outlive their spawner: see `group_state`), so a job in `group_llc`,
//!   `group_cluster` or an injector that carries a group holds its state,
//!   and the group routing of a push (`push_group`) and the learned
//!   affinity it reads (`GroupState::preferred`, fed by `record`) always
//!   read a live state: the pusher holds it (a handle's call, a group
//!   job running), and so does the job it pushes;
//! - `detached` counts spawned jobs not yet finished;
//! - the registry outlives all its worker threads' use of it: each worker
//!   holds an `Arc`.
//!
//! Where things are: this file holds the state and the exit condition;
//! `runtime::start` builds it and starts its threads; `in_worker` the
//! [`Registry::in_worker`] family (how a caller gets its closure run on a
//! worker); `push` the push path (deque, injectors, targeted queues);
//! `group_routing` where group jobs go and whom they wake; `detached` the
//! `spawn` family and its count; `aimed` the pieces of parallel iterators
//! aimed at a domain or worker; `shared` the interface (`SharedQueues`)
//! over which the injection, the group push and the aimed push are written
//! once for the pool and the simulator; `lifecycle` the start gate, user
//! handles and build checks.
//!
//! # Lifetime: handles, termination, exit
//!
//! *User handles* are the [`crate::ThreadPool`] and every
//! [`crate::JobGroup`] (each clone counts); `user_handles` counts them, and
//! the global pool holds one for good. While one exists the pool runs. When
//! the last one is dropped, the pool *terminates* (`terminating` is set,
//! for good) and the drop returns at once, as rayon's does (see
//! [`Registry::drop_handle`]): the workers finish on their own. A worker
//! leaves its loop in two steps ([`Registry::may_exit`]):
//!
//! 1. once `terminating` is set, `detached` is zero and a whole pass found
//!    no job, it runs its exit handler, still a worker of the pool (its
//!    spawns, joins, scopes and broadcasts work as in any job), and
//!    decrements `exit_pending` (the workers whose handler has not
//!    returned);
//! 2. it goes on running jobs until `terminating`, `exit_pending == 0` and
//!    `detached == 0` hold and a pass found no job; then it exits.
//!
//! **No job is lost.** Call *rooted* a piece of code that runs in the pool
//! or pushes into it. Every rooted code is one of: (a) a detached job
//! (`spawn`), counted in `detached` from before its push until after its
//! last instruction, and everything it runs or waits for (its `join`
//! halves, scope jobs, broadcasts, installs) finishes before it does; (b) a
//! call through a user handle (`install`, `join`, `scope`, `broadcast`,
//! `spawn`, which counts as (a) from its first step), during which the
//! handle is alive; (c) a start or exit handler, during which
//! `exit_pending > 0` (a worker decrements it only after its own handler
//! returned; start handlers run before). There is no other way in: a
//! foreign thread gets at the pool only through a handle or through a
//! [`crate::Scope`] of a rooted job, which waits for what it spawns. Hence, once
//! `terminating` is set (no handle: no (b), for good) and then
//! `exit_pending == 0` (no (c), for good) and then `detached == 0` (no (a)
//! running, and nothing left to start one) are read in this order, the
//! pool holds no job and never gets one again: the condition of step 2 is
//! stable once true, so a worker that sees it (after the sleep protocol's
//! re-check, see `sleep`) strands nothing. The order matters: an exit
//! handler may spawn after `detached` was read as zero, but not after
//! `exit_pending` was. Step 1's condition is not stable (exit handlers may
//! push), which is why step 1 only leads to the handler and back into the
//! loop. The pushes the old single-step exit lost are all covered: a job
//! spawned by a detached job raises `detached` before the spawner's own
//! decrement; an `install` from outside holds its handle until its job has
//! run, so the pool is not terminating meanwhile; a spawn or broadcast
//! from an exit handler finds every worker still in its loop (no worker
//! passes step 2 before all handlers returned).
//!
//! A pool with neither a start nor an exit handler has no rooted code of
//! kind (c), so `exit_pending` says nothing there: step 2 only needs
//! `terminating` and then `detached == 0`, the condition of step 1, and a
//! worker leaves right after step 1 instead of waiting for the others'
//! (empty) handlers, so such a pool's threads are gone soon after the drop.
//!
//! Wakeups for these conditions: `terminate`, `exit_pending` reaching zero
//! and `detached` reaching zero while terminating each call
//! [`super::sleep::Sleep::wake_all`] after their SeqCst write. A worker
//! about to park re-reads the condition after its SeqCst fence; if it
//! missed the write, the write comes later in the SeqCst order and so does
//! the unpark, whose token makes the park return. `detached` reaching zero
//! and `terminate` race (each reads what the other wrote): both put a
//! SeqCst fence between their write and the rest, so either the decrement
//! reads `terminating` set and wakes everyone, or `terminate`'s wakeup
//! comes after the decrement and carries it to every woken worker. The
//! exit never relies on a worker that leaves waking another (see
//! "Termination is seen without the hand-off" in `sleep`).
//!
//! **Dropping never waits.** Dropping a handle is a decrement and, for the
//! last, the `terminating` store and a wakeup: it blocks on nothing, on
//! any thread. So a job that waits for something the dropping thread does
//! after the drop (a channel it feeds, a lock it releases) is not waited
//! for by that thread, and it runs: the workers stay in their loop while
//! it is counted in `detached` (step 1 needs `detached == 0`). The
//! registry outlives the drop too: every worker holds an `Arc` of it until
//! it exits, and the last one frees it (the threads' join handles with it:
//! threads nobody waited for are detached).
//!
//! **Waiting for the exit** is explicit
//! ([`crate::ThreadPool::shutdown_and_wait`],
//! [`Registry::drop_handle_and_wait`]) and happens only when the caller is
//! outside every pool and its handle was the last. On a worker of this
//! pool it would wait for itself; on a worker of another pool `A` the
//! terminating pool's jobs may be waiting for `A` (an `install` into `A`,
//! whose job may be the very one waiting), and no amount of helping in `A`
//! breaks that cycle; with other handles left the pool does not terminate,
//! and the caller may hold one of them. In all three cases the handle is
//! dropped and the call returns an error at once. Otherwise, once
//! `terminating` is set, the only rooted code left is of kinds (a) and
//! (c), which runs to its end unless it waits for the waiting caller (a
//! spawned job waiting for what the caller does after the call: the
//! method's docs say it waits for every spawned job).
//!
//! **Building fails cleanly.** A new worker pins itself, reports, and waits
//! at a start gate; the builder opens it (start handlers run, then the loop)
//! once every thread was spawned. The builder does not wait for the
//! threads to report: a worker that reaches the gate after it opened goes
//! straight through. If naming or spawning a thread fails, the builder
//! closes the gate for good instead: the threads already started return at
//! once, running no handler and no job (nothing could have been pushed:
//! nobody has a handle yet), and the builder waits for them to leave.
//!
//! **Threads.** Threads are started through the builder's spawn strategy
//! (`pool::thread_builder`): each is a [`ThreadBuilder`](super::thread_builder::ThreadBuilder) counted *live*
//! until its `run` returns or it is dropped unrun. Waiting for the workers
//! to exit means waiting for that count to reach zero, then joining the
//! threads the pool started itself (the default strategy keeps their
//! handles; threads of a custom spawn handler belong to the user). With
//! `use_current_thread`, worker 0 is the building thread, which runs no
//! loop and no handler: it takes part only while it waits in the pool
//! (or yields to it). Waiting for such a pool's exit waits for its other
//! workers only: worker 0 is a thread the pool does not own (a caller on
//! it is on a worker, and gets the error above).

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize};
use std::thread::JoinHandle;

use crossbeam_deque::{Injector, Stealer};
use crossbeam_utils::CachePadded;

use crate::layout::{Layout, Pinning};
use crate::sync::{AtomicBool, AtomicUsize, Ordering, fence};

use super::group_state::GroupList;
use super::handoff::{self, Handoff};
use super::idle::{IdleMasks, IdleShape};
use super::job::JobRef;
use super::jobmem::Depot;
use super::pin::PinStatus;
use super::private::PrivateStack;
use super::sleep::{Idle, Sleep};
use super::stats::{Counters, ExternalCounters, PoolStats};
use super::unwind;
use crate::runtime::fifo::JobFifo;

mod aimed;
mod detached;
pub(crate) mod group_routing;
mod in_worker;
mod lifecycle;
pub(crate) mod push;
pub(crate) mod shared;

#[cfg(feature = "sim")]
pub(crate) use aimed::push_aimed_to;
pub(crate) use aimed::{Aim, run_aimed};
#[cfg(feature = "sim")]
pub(crate) use aimed::{AimedFrame, AimedStep};

use lifecycle::StartGate;

/// Handler called with the worker index.
pub(crate) type IndexHandler = Arc<dyn Fn(usize) + Send + Sync>;
/// Handler for panics in detached jobs.
pub(crate) type PanicHandler = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// Per-worker shared state.
pub(crate) struct ThreadInfo {
    pub(crate) stealer: Stealer<JobRef>,
    /// The worker's private `join` halves (see `private`).
    pub(crate) private: PrivateStack<JobRef>,
    /// Jobs that only this worker may run (broadcast), and the preferred
    /// copies of jobs aimed at it (see `aimed`).
    targeted: crate::sync::Mutex<VecDeque<JobRef>>,
    has_targeted: AtomicBool,
    /// Set while the worker starts a piece of a parallel iterator's first
    /// split and has not split it yet (`WorkerThread::start_piece`): a
    /// hint for its LLC mates' passes ("Before crossing the LLC" in
    /// `pass`), read with plain loads, never a protocol word.
    pub(crate) starting: StdAtomicBool,
    /// Where the worker searches, and a caller's wakeup handed to it (see
    /// `handoff`).
    pub(crate) handoff: Handoff,
    /// Set by worker `i` once its exit handler returned (step 1 of the
    /// exit, see the module docs); only worker `i` reads and writes it.
    exit_handler_ran: StdAtomicBool,
    /// Jobs `spawn_fifo`ed by worker `i`, run through tickets on its deque
    /// (see `pool::fifo`); lives as long as the registry.
    pub(crate) fifo: JobFifo,
}

impl ThreadInfo {
    /// The state of a worker that steals from `stealer`'s deque, with
    /// private `join` halves or without (see `private`).
    pub(crate) fn new(stealer: Stealer<JobRef>, private_halves: bool) -> ThreadInfo {
        ThreadInfo {
            stealer,
            private: if private_halves {
                PrivateStack::new()
            } else {
                PrivateStack::disabled()
            },
            targeted: crate::sync::Mutex::new(VecDeque::new()),
            has_targeted: AtomicBool::new(false),
            starting: StdAtomicBool::new(false),
            handoff: Handoff::new(),
            exit_handler_ran: StdAtomicBool::new(false),
            fifo: JobFifo::new(),
        }
    }
}

/// What the workers of one LLC tell the search passes, as counts and a
/// mark (hints: a late one only makes one pass choose differently).
#[derive(Default)]
pub(crate) struct LlcHints {
    /// How many pieces of parallel iterators' first splits its workers run
    /// now (`WorkerThread::run_placed`): the far steal's choice of victim
    /// leaves them (`pass::queues::victim_size`).
    pub(crate) placed: StdAtomicUsize,
    /// How many of its workers run a job they took from another LLC's
    /// worker and have not split yet (`WorkerThread::mark_crossing`): rule
    /// 4 of "Before crossing the LLC" in `pass` and the spinner cap
    /// (`search::rules::may_spin`).
    pub(crate) crossing: StdAtomicUsize,
    /// Whether a loop of spawns feeds it (`PassQueues::loop_seen`): its
    /// searchers then make no near passes, its tiers inside the LLC look
    /// at the last victim first ("A loop of spawns inside the LLC" in
    /// `pass::tiers`), and its far walks steal from the longest deque of
    /// every crossing tier ("A loop of spawns across the LLC" in
    /// `pass::far`).
    pub(crate) loop_seen: StdAtomicBool,
}

/// The shared state of one pool.
pub(crate) struct Registry {
    pub(crate) layout: Layout,
    pub(crate) sleep: Sleep,
    pub(crate) threads: Box<[CachePadded<ThreadInfo>]>,
    pub(crate) injectors: Box<[CachePadded<Injector<JobRef>>]>,
    /// Recycled heap-job blocks per LLC (see `jobmem`).
    pub(crate) depots: Box<[CachePadded<Depot>]>,
    /// Per LLC, hints for the search passes (`LlcHints`), read with plain
    /// loads, never protocol words.
    pub(crate) llc_hints: Box<[CachePadded<LlcHints>]>,
    /// Packed group jobs per LLC.
    pub(crate) group_llc: Box<[CachePadded<Injector<JobRef>>]>,
    /// Spread group jobs per cluster.
    pub(crate) group_cluster: Box<[CachePadded<Injector<JobRef>>]>,
    /// Set (for good) before the first push into `group_cluster`; workers
    /// walk other clusters' queues only once it is set. A protocol word:
    /// the store precedes the pusher's `notify_in` fence, so a sleeper's
    /// re-check after its own fence sees the flag whenever it must see the
    /// job (the two-fence argument of `sleep`).
    spread_used: AtomicBool,
    /// The run-time cluster switch (a hint for orders, never for which
    /// queues are looked at).
    cluster_aware: StdAtomicBool,
    /// The live job groups and the freed ones' totals (`group_state`).
    groups: Arc<GroupList>,
    pub(crate) counters: Box<[CachePadded<Counters>]>,
    external: CachePadded<ExternalCounters>,
    terminating: AtomicBool,
    detached: AtomicUsize,
    /// Workers whose exit handler has not returned yet (module docs).
    exit_pending: AtomicUsize,
    /// Live user handles (module docs). Like an `Arc` count it only decides
    /// who terminates the pool; it is not read by any worker, so it is a
    /// plain std atomic.
    user_handles: StdAtomicUsize,
    round_robin: StdAtomicUsize,
    inject_by_cpu: bool,
    /// For each OS CPU, the worker whose PU it is (`usize::MAX`: none);
    /// empty unless `inject_by_cpu`, the pools that hand wakeups (see
    /// `handoff`).
    worker_by_cpu: Box<[usize]>,
    start_handler: Option<IndexHandler>,
    exit_handler: Option<IndexHandler>,
    panic_handler: Option<PanicHandler>,
    pins: parking_lot::Mutex<Vec<PinStatus>>,
    /// The start gate (module docs, "Building fails cleanly").
    start: StartGate,
    handles: parking_lot::Mutex<Vec<JoinHandle<()>>>,
    stopped: StdAtomicBool,
}

/// The idle shape of a layout: its LLCs, always its clusters (the
/// run-time switch turns their step off), cores, capacities, LLC order.
pub(crate) fn idle_shape(layout: &Layout) -> IdleShape {
    let llcs = layout.llc_ranges().len();
    IdleShape {
        llc_ranges: layout.llc_ranges().to_vec(),
        cluster_ranges: layout.cluster_ranges().to_vec(),
        core_ranges: layout.core_ranges().to_vec(),
        capacity: layout.workers().iter().map(|w| w.capacity).collect(),
        llc_order: (0..llcs)
            .map(|l| layout.llc_order_runs(l).to_vec())
            .collect(),
    }
}

impl Registry {
    /// The shared state of a pool of `threads` on `layout`, before any of
    /// its threads starts; `exit_pending` is the number of threads the
    /// build starts.
    pub(crate) fn with_threads(
        layout: Layout,
        threads: Box<[CachePadded<ThreadInfo>]>,
        exit_pending: usize,
        start_handler: Option<IndexHandler>,
        exit_handler: Option<IndexHandler>,
        panic_handler: Option<PanicHandler>,
    ) -> Registry {
        let n = threads.len();
        let llcs = layout.llc_ranges().len();
        let opts = layout.options();
        let inject_by_cpu = opts.pinning != Pinning::None && !opts.virtual_topology;
        let masks = IdleMasks::new(idle_shape(&layout));
        masks.set_cluster_aware(opts.cluster_aware);
        let clusters = layout.cluster_ranges().len();
        Registry {
            sleep: Sleep::new(masks, n),
            group_llc: padded(llcs, Injector::new),
            group_cluster: padded(clusters, Injector::new),
            cluster_aware: StdAtomicBool::new(opts.cluster_aware),
            spread_used: AtomicBool::new(false),
            groups: GroupList::new(llcs),
            threads,
            injectors: padded(llcs, Injector::new),
            depots: layout
                .llc_ranges()
                .iter()
                .map(|r| CachePadded::new(Depot::new(r.len())))
                .collect(),
            llc_hints: padded(llcs, LlcHints::default),
            counters: padded(n, Counters::default),
            external: CachePadded::new(ExternalCounters::default()),
            terminating: AtomicBool::new(false),
            detached: AtomicUsize::new(0),
            exit_pending: AtomicUsize::new(exit_pending),
            user_handles: StdAtomicUsize::new(1),
            round_robin: StdAtomicUsize::new(0),
            inject_by_cpu,
            worker_by_cpu: if inject_by_cpu {
                handoff::workers_by_cpu(&layout)
            } else {
                Box::default()
            },
            start_handler,
            exit_handler,
            panic_handler,
            pins: parking_lot::Mutex::new(vec![PinStatus::Pending; n]),
            start: StartGate::default(),
            handles: parking_lot::Mutex::new(Vec::with_capacity(n)),
            stopped: StdAtomicBool::new(false),
            layout,
        }
    }

    /// Waits until every worker thread has started (it reported at the
    /// start gate, or never will run): rayon's `wait_until_primed`, for
    /// `build_global`.
    pub(crate) fn wait_until_primed(&self) {
        self.wait_until_settled();
    }

    /// Whether some worker could take more work now: one searches or is
    /// idle. Two loads, either may be stale (claims in flight, see
    /// `sleep`); a hint for how finely to split work, never part of the
    /// sleep protocol.
    #[inline]
    pub(crate) fn has_demand(&self) -> bool {
        self.sleep.searching() > 0 || self.sleep.idle().any_idle()
    }

    /// Number of workers.
    #[inline]
    pub(crate) fn num_threads(&self) -> usize {
        self.threads.len()
    }

    /// Identity for "is this my pool" checks.
    #[inline]
    pub(crate) fn id(&self) -> *const Registry {
        self
    }

    /// Whether the cluster level is used (the live switch).
    #[inline]
    pub(crate) fn cluster_aware(&self) -> bool {
        self.cluster_aware
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Switches cluster awareness: steal tiers (read by each worker at its
    /// next pass), the wake order and spread dealing. Queues are not
    /// touched: every worker keeps looking at every queue, so no job is
    /// lost or run twice.
    pub(crate) fn set_cluster_aware(&self, on: bool) {
        self.cluster_aware
            .store(on, std::sync::atomic::Ordering::Relaxed);
        self.sleep.idle().set_cluster_aware(on);
    }

    /// Called by each worker once it has pinned itself: reports at the
    /// start gate and waits for the builder's decision. If the build went
    /// on, runs the start handler and returns true; if it failed, returns
    /// false and the worker must return without running anything.
    pub(crate) fn worker_started(&self, index: usize, pin: PinStatus) -> bool {
        self.pins.lock()[index] = pin;
        if !self.pass_start_gate() {
            return false;
        }
        if let Some(h) = &self.start_handler {
            self.call_handler(|| h(index));
        }
        true
    }

    /// A worker born idle whose thread will never run gives its idle state
    /// up ([`Sleep::retire`]), counting the wakeup it may hand on.
    pub(crate) fn retire_idle(&self, idle: Idle) {
        if let Some((_, d)) = self.sleep.retire(idle) {
            self.external.wakeup(d);
        }
    }

    /// Called by each worker after step 1 of the exit (module docs): runs
    /// its exit handler, with the worker still in the pool.
    pub(crate) fn worker_exiting(&self, index: usize) {
        if let Some(h) = &self.exit_handler {
            self.call_handler(|| h(index));
        }
        self.exit_handler_returned(index);
    }

    /// Runs a start or exit handler: its panic goes to
    /// [`Registry::handle_panic`]. Never unwinds.
    fn call_handler(&self, f: impl FnOnce()) {
        if let Err(p) = panic::catch_unwind(AssertUnwindSafe(f)) {
            self.handle_panic(p, "a start or exit handler");
        }
    }

    /// A panic that has no caller to reach (a detached job's, a start or
    /// exit handler's, from `what`), as rayon handles it: given to the
    /// panic handler; without one, or when the handler itself panics, the
    /// process aborts, after the panic hook printed the panic and a line
    /// saying why. Returns only when the handler returned.
    pub(crate) fn handle_panic(&self, payload: Box<dyn Any + Send>, what: &str) {
        match &self.panic_handler {
            Some(h) => {
                if let Err(again) = panic::catch_unwind(AssertUnwindSafe(|| h(payload))) {
                    // Not dropped: its `Drop` may panic, and we abort anyway.
                    std::mem::forget(again);
                    unwind::abort_unhandled(what, "the pool's panic handler panicked too");
                }
            }
            None => unwind::abort_unhandled(
                what,
                "the pool has no panic handler (set one with ThreadPoolBuilder::panic_handler \
                 to keep the process running)",
            ),
        }
    }

    /// The pin outcome of every worker, once every worker thread has
    /// started (or will never start).
    pub(crate) fn pin_report(&self) -> Vec<PinStatus> {
        self.wait_until_settled();
        self.pins.lock().clone()
    }

    /// Snapshot of the counters.
    pub(crate) fn stats(&self) -> PoolStats {
        let mut s = PoolStats::collect(
            self.counters.iter().map(|c| &**c),
            &self.external,
            self.sleep.searching(),
        );
        (s.groups, s.retired_groups) = self.groups.stats();
        s
    }

    /// Whether worker `index`, idle after a pass that found nothing, may
    /// leave its loop: step 1 (before its exit handler) once terminating
    /// with no detached job; step 2 (after it) once, in this order,
    /// terminating, every exit handler returned, and no detached job. The
    /// order is what makes step 2 final (module docs). Without handlers,
    /// step 2 does not wait for `exit_pending` (module docs). SeqCst: pairs
    /// with the writes in `terminate`, `exit_handler_returned` and
    /// `detached_done`.
    pub(crate) fn may_exit(&self, index: usize) -> bool {
        if !self.terminating.load(Ordering::SeqCst) {
            return false;
        }
        let has_handlers = self.start_handler.is_some() || self.exit_handler.is_some();
        if has_handlers
            && self.threads[index]
                .exit_handler_ran
                .load(std::sync::atomic::Ordering::Relaxed)
            && self.exit_pending.load(Ordering::SeqCst) != 0
        {
            return false;
        }
        self.detached.load(Ordering::SeqCst) == 0
    }

    /// Starts shutdown: workers finish all queued work, run their exit
    /// handlers, finish what those queued, and exit. The fence pairs with
    /// the one of `detached_done` (module docs).
    fn terminate(&self) {
        self.terminating.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        self.sleep.wake_all();
    }

    /// Waits until every worker thread left its loop, then joins the
    /// threads the pool started itself (never call from a worker of this
    /// pool).
    fn join_threads(&self) {
        if self.stopped.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return;
        }
        self.wait_until_no_thread_live();
        let handles = std::mem::take(&mut *self.handles.lock());
        for h in handles {
            let _ = h.join();
        }
    }

    /// Keeps the handle of a thread the pool started (default spawn
    /// strategy), to join it on drop.
    pub(crate) fn keep_handle(&self, h: JoinHandle<()>) {
        self.handles.lock().push(h);
    }
}

/// `count` cache-padded values made by `make`.
fn padded<T>(count: usize, mut make: impl FnMut() -> T) -> Box<[CachePadded<T>]> {
    (0..count).map(|_| CachePadded::new(make())).collect()
}
