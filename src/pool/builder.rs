//! [`ThreadPoolBuilder`]: configuration of a pool, from code and environment.
//!
//! Environment variables (`LOCUS_*`, and rayon's `RAYON_NUM_THREADS` and
//! `RAYON_RS_NUM_CPUS`, read as rayon reads them) apply wherever the
//! builder left the default; the table and the rules are in `env`. An
//! invalid `LOCUS_*` value makes `build` fail with [`BuildError::Env`](crate::BuildError::Env) (or
//! [`BuildError::Topology`](crate::BuildError::Topology)) naming the variable and what is accepted. The
//! global pool, when a free function builds it on first use, has nobody to
//! return that error to: it prints a warning instead and ignores the
//! variable.
//!
//! A thread count above [`crate::max_num_threads`] (from the builder or the
//! environment) is lowered to it, as rayon does.
//!
//! # Spawn strategies
//!
//! The builder is generic over how it starts threads, as rayon's is:
//! `ThreadPoolBuilder` (= `ThreadPoolBuilder<DefaultSpawn>`) starts
//! `std::thread`s and joins them when the pool is dropped;
//! [`ThreadPoolBuilder::spawn_handler`] gives a builder that hands each
//! worker as a [`ThreadBuilder`] to the user's closure instead.

use std::any::Any;
use std::fmt;
use std::io;
use std::sync::Arc;

use crate::Topology;
use crate::layout::{Pinning, StealOrder};
use crate::topology::CpuSet;

use super::thread_builder::{CustomSpawn, DefaultSpawn};
use crate::runtime::thread_builder::ThreadBuilder;

type NameFn = Box<dyn FnMut(usize) -> String>;
type IndexFn = Arc<dyn Fn(usize) + Send + Sync>;
type PanicFn = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// Builds a [`ThreadPool`](crate::ThreadPool) (or the global pool).
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("my-worker-{i}"))
///     .build()
///     .unwrap();
/// assert_eq!(pool.current_num_threads(), 2);
/// let (a, b) = pool.join(|| 1 + 1, || 2 + 2);
/// assert_eq!((a, b), (2, 4));
/// ```
///
/// A virtual pool on a synthetic topology (no pinning; more workers than
/// cores is fine):
///
/// ```
/// use locus::{ThreadPoolBuilder, Topology};
/// let t = Topology::synthetic("llc:2 cluster:2 core:2").unwrap();
/// let pool = ThreadPoolBuilder::new().topology(t).build().unwrap();
/// assert_eq!(pool.current_num_threads(), 8);
/// ```
#[must_use]
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    settings: Settings,
    spawn_handler: S,
}

/// Everything a builder holds but its spawn strategy (which changes the
/// builder's type: see [`ThreadPoolBuilder::spawn_handler`]).
#[derive(Default)]
struct Settings {
    num_threads: Option<usize>,
    topology: Option<Topology>,
    pinning: Option<Pinning>,
    steal_order: Option<StealOrder>,
    cluster_aware: Option<bool>,
    cpus: Option<CpuSet>,
    thread_name: Option<NameFn>,
    stack_size: Option<usize>,
    start_handler: Option<IndexFn>,
    exit_handler: Option<IndexFn>,
    panic_handler: Option<PanicFn>,
    use_current_thread: bool,
    breadth_first: bool,
}

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            settings: Settings::default(),
            spawn_handler: DefaultSpawn,
        }
    }
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.settings.num_threads)
            .field(
                "topology",
                &self
                    .settings
                    .topology
                    .as_ref()
                    .map(|t| t.source().to_string()),
            )
            .field("pinning", &self.settings.pinning)
            .field("steal_order", &self.settings.steal_order)
            .field("cluster_aware", &self.settings.cluster_aware)
            .field("cpus", &self.settings.cpus)
            .field("stack_size", &self.settings.stack_size)
            .field("use_current_thread", &self.settings.use_current_thread)
            .field("breadth_first", &self.settings.breadth_first)
            .finish_non_exhaustive()
    }
}

impl ThreadPoolBuilder {
    /// A builder with all defaults: detected topology, one worker per
    /// allowed PU (fewer under a cgroup CPU quota: see
    /// [`ThreadPoolBuilder::num_threads`]), pinning per cluster,
    /// hierarchical steal order, cluster awareness on (each overridable by
    /// the environment).
    pub fn new() -> Self {
        Self::default()
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// Starts the workers through `spawn` instead of `std::thread::spawn`:
    /// it is called once per worker (in index order, on the building
    /// thread) with a [`ThreadBuilder`], and must start a thread that calls
    /// [`ThreadBuilder::run`] (as rayon's `spawn_handler`). An error it
    /// returns, or a panic in it, makes `build` fail with
    /// [`BuildError::Spawn`](crate::BuildError::Spawn) after the workers already started have
    /// stopped. [`ThreadPool::shutdown_and_wait`](crate::ThreadPool::shutdown_and_wait) waits until every worker
    /// has left `run` (the threads themselves are the handler's: the pool
    /// does not join them). A `ThreadBuilder` dropped without `run` leaves a dead worker
    /// (work aimed at it, such as a `broadcast`, never finishes).
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        ThreadPoolBuilder {
            settings: self.settings,
            spawn_handler: CustomSpawn(spawn),
        }
    }

    /// Makes the building thread worker 0 of the pool, as rayon's
    /// `use_current_thread`: `build` starts only the other workers, and
    /// pins the calling thread to worker 0's CPUs (see
    /// [`ThreadPool::pin_report`](crate::ThreadPool::pin_report)). The thread runs no main loop and no
    /// start or exit handler: it runs pool jobs only while it waits inside
    /// the pool (in a `join`, `scope`, `broadcast`) or yields to it
    /// ([`crate::yield_now`]); jobs it spawns are stolen by the other
    /// workers. It stays worker 0 after the pool is dropped (as in rayon):
    /// free functions on it then still use that pool, whose other workers
    /// are gone, so its `spawn`s run only when it yields and a `broadcast`
    /// from it would never finish. [`ThreadPool::shutdown_and_wait`](crate::ThreadPool::shutdown_and_wait) on
    /// such a pool waits for the other workers only. `build` fails with
    /// [`BuildError::CurrentThreadInPool`](crate::BuildError::CurrentThreadInPool) on a thread that is already a
    /// worker.
    ///
    /// ```
    /// let pool = locus::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .use_current_thread()
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(locus::current_thread_index(), Some(0));
    /// assert_eq!(pool.join(|| 1, || 2), (1, 2));
    /// ```
    pub fn use_current_thread(mut self) -> Self {
        self.settings.use_current_thread = true;
        self
    }

    /// Makes each worker run the jobs of its own deque oldest first (FIFO)
    /// instead of newest first, as rayon's `breadth_first` does (deprecated
    /// there too): a worker that looks for work in its own queue, after a
    /// job or while it waits in a `join` or `scope`, takes the job pushed
    /// *first*, so a tree of spawned jobs runs level by level rather than
    /// branch by branch. Thieves take the oldest jobs either way. The
    /// second half of every `join` goes on the deque at once, as in rayon
    /// (locus otherwise keeps it private, see [`crate::join`]), so that
    /// `join` halves follow the same order. An execution hint, as in
    /// rayon; [`crate::scope_fifo`] and [`crate::spawn_fifo`] give FIFO
    /// order for the jobs they spawn in any pool.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use std::sync::Mutex;
    /// let pool = locus::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .breadth_first()
    ///     .build()
    ///     .unwrap();
    /// let order = Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     for i in 0..3 {
    ///         let order = &order;
    ///         s.spawn(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// // One worker, which spawned all three: oldest first.
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2]);
    /// ```
    #[deprecated(
        note = "an execution hint kept for rayon compatibility: use `scope_fifo` \
                         and `spawn_fifo` for FIFO order"
    )]
    pub fn breadth_first(mut self) -> Self {
        self.settings.breadth_first = true;
        self
    }

    /// Number of workers; `0` means the default: one per allowed PU of the
    /// topology, or, when the process's cgroup limits its CPU bandwidth
    /// ([`Topology::cpu_quota`]) to fewer CPUs, one per CPU of bandwidth
    /// (rounded up), spread over the machine like any smaller count. Where
    /// the builder leaves it at the default, `LOCUS_NUM_THREADS`, then
    /// rayon's `RAYON_NUM_THREADS` and `RAYON_RS_NUM_CPUS`, may set it (see
    /// the README's "Environment").
    ///
    /// A count above [`crate::max_num_threads`] is lowered to it, as rayon
    /// does: the pool then has at most that many workers. More workers than
    /// allowed CPUs are not pinned one per CPU (see
    /// [`crate::layout`], "Pinning more workers than CPUs").
    ///
    /// # How many workers a machine can take
    ///
    /// Each worker is an OS thread. On Linux one costs a kernel task, a
    /// stack ([`ThreadPoolBuilder::stack_size`], 2 MiB of address space by
    /// default, backed by memory only as it is used) and 4 memory mappings
    /// (the stack, its guard page, and the signal stack std gives every
    /// thread, with its guard). The mappings are the first limit a process
    /// meets: `vm.max_map_count` is 65530 by default, so about 16,000
    /// threads per process (fewer by what it maps already; raise it with
    /// `sysctl vm.max_map_count=...`). `build` checks that budget and fails
    /// with [`BuildError::ThreadLimit`](crate::BuildError::ThreadLimit) rather than letting a thread abort
    /// the process. Past the other limits (`kernel.threads-max`,
    /// `ulimit -u` for non-root users, a cgroup's `pids.max`, memory) the
    /// OS refuses the thread and `build` fails with [`BuildError::Spawn`](crate::BuildError::Spawn).
    /// In both cases no thread is left behind.
    pub fn num_threads(mut self, n: usize) -> Self {
        self.settings.num_threads = (n != 0).then_some(n);
        self
    }

    /// The topology to lay the pool out on. A topology that is not the
    /// running machine's ([`Topology::synthetic`], a sysfs snapshot, an hwloc
    /// XML file) gives a *virtual* pool: no pinning, and any number of
    /// workers, whatever the machine's core count.
    pub fn topology(mut self, t: Topology) -> Self {
        self.settings.topology = Some(t);
        self
    }

    /// How workers are pinned (default: [`Pinning::Cluster`]).
    pub fn pinning(mut self, p: Pinning) -> Self {
        self.settings.pinning = Some(p);
        self
    }

    /// The steal order (default: [`StealOrder::Hierarchical`]).
    pub fn steal_order(mut self, o: StealOrder) -> Self {
        self.settings.steal_order = Some(o);
        self
    }

    /// Whether clusters are a scheduling level (default: true).
    pub fn cluster_aware(mut self, on: bool) -> Self {
        self.settings.cluster_aware = Some(on);
        self
    }

    /// Runs the workers only on these CPUs (OS indexes), a subset of the
    /// topology's [`Topology::allowed`] CPUs; `build` fails with
    /// [`BuildError::Cpus`](crate::BuildError::Cpus) if the set is empty or is not. Sets to pass:
    /// [`Topology::numa_cpus`], [`Topology::llc_cpus`],
    /// [`Topology::kind_cpus`], [`Topology::one_per_core`], or any
    /// [`CpuSet`]. Without [`num_threads`](ThreadPoolBuilder::num_threads)
    /// the pool has one worker per CPU of the set. Overrides `LOCUS_CPUS`
    /// and `LOCUS_SMT`.
    ///
    /// The set confines the topology's allowed CPUs, the set the layout
    /// already places and pins workers in: so the steal tiers, LLC orders
    /// and pin sets are computed as for a process whose affinity mask is
    /// that set, and domains without a CPU of the set simply get no
    /// worker. (For a topology that no longer shows the rest of the
    /// machine, see [`Topology::restrict`].)
    ///
    /// ```
    /// use locus::{ThreadPoolBuilder, Topology};
    /// let t = Topology::synthetic("numa:2 core:4 smt:2").unwrap();
    /// let node1 = t.numa_cpus(1).unwrap();
    /// let pool = ThreadPoolBuilder::new().topology(t).cpus(node1).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 8);
    /// ```
    pub fn cpus(mut self, cpus: CpuSet) -> Self {
        self.settings.cpus = Some(cpus);
        self
    }

    /// Names worker threads (default: `locus-{index}`). Called on the
    /// building thread, once per worker thread it starts, in index order.
    /// A panic in it unwinds out of `build` (or `build_global`), as in
    /// rayon, once the threads already started have stopped (they run no
    /// handler and no job). A name with a NUL byte, which no thread can
    /// have, makes `build` fail with [`BuildError::ThreadName`](crate::BuildError::ThreadName).
    pub fn thread_name<F: FnMut(usize) -> String + 'static>(mut self, f: F) -> Self {
        self.settings.thread_name = Some(Box::new(f));
        self
    }

    /// Stack size of worker threads in bytes (default: Rust's default).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.settings.stack_size = Some(bytes);
        self
    }

    /// Called on each worker thread (with its index) when it starts, after
    /// pinning, once every worker thread was started (a failed build runs
    /// no handler). A panic in it goes to the
    /// [`panic_handler`](ThreadPoolBuilder::panic_handler) and the worker
    /// starts; without one the process aborts, as in rayon.
    pub fn start_handler<F: Fn(usize) + Send + Sync + 'static>(mut self, f: F) -> Self {
        self.settings.start_handler = Some(Arc::new(f));
        self
    }

    /// Called on each worker thread (with its index) before it exits: once
    /// the pool was dropped (see "Dropping" on [`ThreadPool`](crate::ThreadPool)) and its
    /// queued and spawned work has run. The thread is still a worker of the
    /// pool while the handler runs: it may [`crate::spawn`], `join`,
    /// `scope` or [`crate::broadcast`] (every worker takes part), and the
    /// workers exit only once every exit handler has returned and that
    /// work has run too. A panic in it is handled as in
    /// [`start_handler`](ThreadPoolBuilder::start_handler).
    pub fn exit_handler<F: Fn(usize) + Send + Sync + 'static>(mut self, f: F) -> Self {
        self.settings.exit_handler = Some(Arc::new(f));
        self
    }

    /// Receives the payload of a panic in a detached job
    /// ([`crate::spawn`], [`crate::spawn_fifo`], [`crate::spawn_broadcast`]
    /// and their [`ThreadPool`](crate::ThreadPool) forms) or in a start or exit handler; such
    /// panics have no caller to reach. With a handler the pool keeps
    /// working, and a detached job's panic is counted in
    /// [`crate::WorkerStats::detached_panics`]. Without one, or when the
    /// handler itself panics, the process aborts after the standard panic
    /// hook printed the panic, as in rayon. Panics
    /// in `join`, `scope` and `install` work are not affected: they reach
    /// their caller.
    pub fn panic_handler<F: Fn(Box<dyn Any + Send>) + Send + Sync + 'static>(
        mut self,
        f: F,
    ) -> Self {
        self.settings.panic_handler = Some(Arc::new(f));
        self
    }
}

mod resolve;
#[cfg(test)]
mod tests;
