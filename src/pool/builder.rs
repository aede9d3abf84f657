//! [`ThreadPoolBuilder`]: configuration of a pool, from code and environment.
//!
//! Environment variables (`LOCUS_*`, and rayon's `RAYON_NUM_THREADS` and
//! `RAYON_RS_NUM_CPUS`, read as rayon reads them) apply wherever the
//! builder left the default; the table and the rules are in `env`. An
//! invalid `LOCUS_*` value makes `build` fail with [`BuildError::Env`] (or
//! [`BuildError::Topology`]) naming the variable and what is accepted. The
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
use std::borrow::Cow;
use std::fmt;
use std::io;
use std::sync::Arc;

use crate::Topology;
use crate::layout::{Layout, LayoutOptions, MAX_WORKERS, Pinning, StealOrder};
use crate::runtime::registry::Registry;
use crate::runtime::start::RegistryConfig;
use crate::runtime::worker::WorkerThread;
use crate::topology::{CpuSet, Source};

use super::env::{self, Lookup};
use super::thread_builder::{CustomSpawn, DefaultSpawn, ThreadSpawn};
use super::{BuildError, ThreadPool};
use crate::runtime::thread_builder::ThreadBuilder;

type NameFn = Box<dyn FnMut(usize) -> String>;
type IndexFn = Arc<dyn Fn(usize) + Send + Sync>;
type PanicFn = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// Builds a [`ThreadPool`] (or the global pool).
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

    /// Builds a pool whose threads are scoped threads
    /// ([`std::thread::scope`]), runs `with_pool` with it, drops it, and
    /// returns what `with_pool` returned once every thread has exited.
    /// Each thread starts in `wrapper`, which must call
    /// [`ThreadBuilder::run`]: so the workers may borrow from the caller's
    /// stack, e.g. to set scoped thread-locals around `run`.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let started = AtomicUsize::new(0); // borrowed by the workers
    /// let sum = locus::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             started.fetch_add(1, Ordering::Relaxed);
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| locus::join(|| 1, || 2)),
    ///     )
    ///     .unwrap();
    /// assert_eq!(sum, (1, 2));
    /// assert_eq!(started.into_inner(), 2);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, BuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        std::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut b = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        b = b.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        b = b.stack_size(size);
                    }
                    b.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            Ok(with_pool(&pool))
        })
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// Starts the workers through `spawn` instead of `std::thread::spawn`:
    /// it is called once per worker (in index order, on the building
    /// thread) with a [`ThreadBuilder`], and must start a thread that calls
    /// [`ThreadBuilder::run`] (as rayon's `spawn_handler`). An error it
    /// returns, or a panic in it, makes `build` fail with
    /// [`BuildError::Spawn`] after the workers already started have
    /// stopped. [`ThreadPool::shutdown_and_wait`] waits until every worker
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
    /// [`ThreadPool::pin_report`]). The thread runs no main loop and no
    /// start or exit handler: it runs pool jobs only while it waits inside
    /// the pool (in a `join`, `scope`, `broadcast`) or yields to it
    /// ([`crate::yield_now`]); jobs it spawns are stolen by the other
    /// workers. It stays worker 0 after the pool is dropped (as in rayon):
    /// free functions on it then still use that pool, whose other workers
    /// are gone, so its `spawn`s run only when it yields and a `broadcast`
    /// from it would never finish. [`ThreadPool::shutdown_and_wait`] on
    /// such a pool waits for the other workers only. `build` fails with
    /// [`BuildError::CurrentThreadInPool`] on a thread that is already a
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
    /// with [`BuildError::ThreadLimit`] rather than letting a thread abort
    /// the process. Past the other limits (`kernel.threads-max`,
    /// `ulimit -u` for non-root users, a cgroup's `pids.max`, memory) the
    /// OS refuses the thread and `build` fails with [`BuildError::Spawn`].
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
    /// [`BuildError::Cpus`] if the set is empty or is not. Sets to pass:
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
    /// have, makes `build` fail with [`BuildError::ThreadName`].
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
    /// the pool was dropped (see "Dropping" on [`ThreadPool`]) and its
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
    /// and their [`ThreadPool`] forms) or in a start or exit handler; such
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

    /// Resolves builder + environment into the registry's configuration
    /// and the spawn strategy.
    fn resolve(self, env: &Lookup<'_>) -> Result<(RegistryConfig, S), BuildError> {
        let num_threads = match self.settings.num_threads {
            Some(n) => Some(n),
            None => env::num_threads(env)?.map(|(n, _)| n),
        };
        let pinning = pinning(self.settings.pinning, env)?;
        let cluster_aware = cluster_aware(self.settings.cluster_aware, env)?;
        let topology = topology(self.settings.topology, env)?;
        let topology = confine(topology, self.settings.cpus, env)?;
        let opts = LayoutOptions {
            num_threads: worker_count(num_threads, &topology),
            pinning,
            steal_order: self.settings.steal_order.unwrap_or_default(),
            cluster_aware,
            virtual_topology: is_virtual(topology.source()),
        };
        // The detected machine is kept by reference, not copied.
        let layout = match topology {
            Cow::Borrowed(t) => Layout::new_static(t, &opts)?,
            Cow::Owned(ref t) => Layout::new(t, &opts)?,
        };
        let cfg = RegistryConfig {
            layout,
            thread_name: Some(
                self.settings
                    .thread_name
                    .unwrap_or_else(|| Box::new(|i| format!("locus-{i}"))),
            ),
            stack_size: self.settings.stack_size,
            start_handler: self.settings.start_handler,
            exit_handler: self.settings.exit_handler,
            panic_handler: self.settings.panic_handler,
            use_current_thread: self.settings.use_current_thread,
            breadth_first: self.settings.breadth_first,
        };
        Ok((cfg, self.spawn_handler))
    }
}

/// The pinning set on the builder, else `LOCUS_PINNING`, else the default.
fn pinning(set: Option<Pinning>, env: &Lookup<'_>) -> Result<Pinning, BuildError> {
    if let Some(p) = set {
        return Ok(p);
    }
    const ACCEPTED: &str = "cluster, core, cpu, none";
    match env::locus_var(env, "LOCUS_PINNING", ACCEPTED)? {
        None => Ok(Pinning::default()),
        Some(v) => v.parse().map_err(|_| BuildError::Env {
            var: "LOCUS_PINNING",
            value: v.clone(),
            accepted: ACCEPTED,
        }),
    }
}

/// Cluster awareness set on the builder, else `LOCUS_CLUSTER`, else on.
fn cluster_aware(set: Option<bool>, env: &Lookup<'_>) -> Result<bool, BuildError> {
    if let Some(c) = set {
        return Ok(c);
    }
    match env::locus_var(env, "LOCUS_CLUSTER", "0, 1")?.as_deref() {
        None => Ok(true),
        Some(v) => match v.trim() {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(BuildError::Env {
                var: "LOCUS_CLUSTER",
                value: v.to_string(),
                accepted: "0, 1",
            }),
        },
    }
}

/// The topology set on the builder, else `LOCUS_TOPOLOGY`'s, else this
/// machine's.
fn topology(set: Option<Topology>, env: &Lookup<'_>) -> Result<Cow<'static, Topology>, BuildError> {
    if let Some(t) = set {
        return Ok(Cow::Owned(t));
    }
    Ok(
        match env::locus_var(env, "LOCUS_TOPOLOGY", TOPOLOGY_ACCEPTED)? {
            Some(spec) => Cow::Owned(Topology::synthetic(spec.trim())?),
            None => Topology::detect_for_pool(WorkerThread::on_worker_thread()),
        },
    )
}

/// The worker count to lay out: the one asked for, else the default under
/// a CPU quota (see `num_threads`), and at most `max_num_threads` workers
/// however they were asked for (rayon's soft limit). `None`: one per
/// allowed PU.
fn worker_count(asked: Option<usize>, topology: &Topology) -> Option<usize> {
    asked
        .or_else(|| {
            let cap = crate::topology::quota_workers(topology.cpu_quota()?);
            (cap < topology.allowed().len()).then_some(cap)
        })
        .or_else(|| (topology.allowed().len() > MAX_WORKERS).then_some(MAX_WORKERS))
        .map(|n| n.min(MAX_WORKERS))
}

/// Whether a topology from `source` is not the running machine (its
/// workers are then not pinned).
fn is_virtual(source: &Source) -> bool {
    match source {
        Source::Synthetic(_) => true,
        Source::Sysfs(root) => root != std::path::Path::new("/"),
        Source::Hwloc(xml) => xml.is_some(),
        Source::Flat(_) => false,
    }
}

/// What `LOCUS_TOPOLOGY` accepts.
const TOPOLOGY_ACCEPTED: &str = "a synthetic topology spec, e.g. llc:2 core:4";

/// Applies [`ThreadPoolBuilder::cpus`], else `LOCUS_CPUS` and
/// `LOCUS_SMT`, to the topology's allowed set.
fn confine(
    mut topology: Cow<'static, Topology>,
    cpus: Option<CpuSet>,
    env: &Lookup<'_>,
) -> Result<Cow<'static, Topology>, BuildError> {
    const CPUS_ACCEPTED: &str = "a cpulist of allowed CPUs, e.g. 0-7,16-23";
    const SMT_ACCEPTED: &str = "0 (one worker per core), 1";
    let (cpus, var) = match cpus {
        Some(s) => (Some(s), None),
        None => match env::locus_var(env, "LOCUS_CPUS", CPUS_ACCEPTED)? {
            None => (None, None),
            Some(v) => {
                let s = CpuSet::from_cpulist(v.trim()).map_err(|_| BuildError::Env {
                    var: "LOCUS_CPUS",
                    value: v.clone(),
                    accepted: CPUS_ACCEPTED,
                })?;
                (Some(s), Some("LOCUS_CPUS"))
            }
        },
    };
    let from_builder = cpus.is_some() && var.is_none();
    if let Some(set) = cpus {
        if set.is_empty() || !set.is_subset(topology.allowed()) {
            return Err(BuildError::Cpus {
                var,
                requested: set,
                allowed: topology.allowed().clone(),
            });
        }
        if set != *topology.allowed() {
            topology
                .to_mut()
                .confine(set, var.unwrap_or("ThreadPoolBuilder::cpus"));
        }
    }
    if from_builder {
        return Ok(topology);
    }
    match env::locus_var(env, "LOCUS_SMT", SMT_ACCEPTED)?.as_deref() {
        None => {}
        Some(v) => match v.trim() {
            "1" => {}
            "0" => {
                let one = topology.one_per_core();
                if one != *topology.allowed() {
                    topology.to_mut().confine(one, "LOCUS_SMT=0");
                }
            }
            _ => {
                return Err(BuildError::Env {
                    var: "LOCUS_SMT",
                    value: v.to_string(),
                    accepted: SMT_ACCEPTED,
                });
            }
        },
    }
    Ok(topology)
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds the pool. Returns once every worker thread was started (not
    /// necessarily running yet: [`ThreadPool::pin_report`] waits for that).
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        let registry = self.build_registry_with(&env::process_env)?;
        Ok(ThreadPool::from_registry(registry))
    }

    /// Builds the global pool, used by the free functions ([`crate::join`],
    /// ...) when called outside any pool, and returns once every worker
    /// thread has started (as rayon's does). Fails with
    /// [`BuildError::GlobalAlreadyInitialized`] if the global pool already
    /// exists: built by an earlier `build_global`, or on first use by a free
    /// function. A `build_global` that failed built nothing: a later one
    /// may try again.
    pub fn build_global(self) -> Result<(), BuildError> {
        super::global::init_global(self)
    }

    pub(crate) fn build_registry(self) -> Result<Arc<Registry>, BuildError> {
        self.build_registry_with(&env::process_env)
    }

    /// Resolves builder + environment into a layout and starts the workers.
    pub(crate) fn build_registry_with(self, env: &Lookup<'_>) -> Result<Arc<Registry>, BuildError> {
        let (cfg, mut spawn) = self.resolve(env)?;
        Registry::new(cfg, &mut |thread| spawn.spawn(thread))
    }
}

#[cfg(test)]
mod tests {
    use super::super::env::tests::env_of;
    use super::*;

    #[test]
    fn env_errors_name_the_variable() {
        let cases: [(&[(&str, &str)], &str); 7] = [
            (&[("LOCUS_CPUS", "0-x")], "LOCUS_CPUS"),
            (
                &[("LOCUS_TOPOLOGY", "core:4"), ("LOCUS_CPUS", "2-9")],
                "LOCUS_CPUS",
            ),
            (&[("LOCUS_SMT", "off")], "LOCUS_SMT"),
            (&[("LOCUS_NUM_THREADS", "many")], "LOCUS_NUM_THREADS"),
            (&[("LOCUS_PINNING", "socket")], "LOCUS_PINNING"),
            (&[("LOCUS_CLUSTER", "yes")], "LOCUS_CLUSTER"),
            (&[("LOCUS_TOPOLOGY", "llc:x")], "LOCUS_TOPOLOGY"),
        ];
        for (pairs, var) in cases {
            let e = ThreadPoolBuilder::new()
                .resolve(&env_of(pairs))
                .err()
                .expect("must fail");
            let msg = e.to_string();
            assert!(msg.contains(var), "{msg}");
        }
    }

    #[test]
    fn pinning_env_lists_the_parsed_names() {
        let e = ThreadPoolBuilder::new()
            .resolve(&env_of(&[("LOCUS_PINNING", "socket")]))
            .err()
            .expect("must fail");
        match e {
            BuildError::Env { accepted, .. } => assert_eq!(accepted, Pinning::NAMES.join(", ")),
            e => panic!("unexpected error {e:?}"),
        }
    }

    #[test]
    fn builder_wins_over_env() {
        let cfg = ThreadPoolBuilder::new()
            .num_threads(3)
            .topology(Topology::synthetic("core:4").unwrap())
            .resolve(&env_of(&[
                ("LOCUS_NUM_THREADS", "bad"),
                ("LOCUS_TOPOLOGY", "bad"),
            ]))
            .unwrap()
            .0;
        assert_eq!(cfg.layout.workers().len(), 3);
        assert!(cfg.layout.options().virtual_topology);
    }

    #[test]
    fn counts_above_the_maximum_are_capped() {
        let resolved = |b: ThreadPoolBuilder, pairs: &[(&str, &str)]| {
            b.resolve(&env_of(pairs)).unwrap().0.layout.workers().len()
        };
        let core2 = || ThreadPoolBuilder::new().topology(Topology::synthetic("core:2").unwrap());
        assert_eq!(
            resolved(core2().num_threads(MAX_WORKERS + 1), &[]),
            MAX_WORKERS
        );
        assert_eq!(resolved(core2().num_threads(usize::MAX), &[]), MAX_WORKERS);
        assert_eq!(
            resolved(core2(), &[("LOCUS_NUM_THREADS", "1000000")]),
            MAX_WORKERS
        );
        assert_eq!(
            resolved(core2(), &[("RAYON_NUM_THREADS", "1000000")]),
            MAX_WORKERS
        );
        assert_eq!(crate::max_num_threads(), MAX_WORKERS);
    }

    #[test]
    fn breadth_first_sets_fifo_deques_without_private_halves() {
        #[allow(deprecated)]
        let cfg = ThreadPoolBuilder::new()
            .topology(Topology::synthetic("core:2").unwrap())
            .breadth_first()
            .resolve(&env_of(&[]))
            .unwrap()
            .0;
        assert!(cfg.breadth_first);
        let cfg = ThreadPoolBuilder::new()
            .topology(Topology::synthetic("core:2").unwrap())
            .resolve(&env_of(&[]))
            .unwrap()
            .0;
        assert!(!cfg.breadth_first);
    }

    #[test]
    fn env_topology_gives_virtual_pool() {
        let cfg = ThreadPoolBuilder::new()
            .resolve(&env_of(&[
                ("LOCUS_TOPOLOGY", "llc:2 core:3"),
                ("LOCUS_CLUSTER", "0"),
            ]))
            .unwrap()
            .0;
        assert_eq!(cfg.layout.workers().len(), 6);
        assert!(cfg.layout.options().virtual_topology);
        assert!(!cfg.layout.options().cluster_aware);
    }

    #[test]
    fn env_cpus_and_smt_confine_the_workers() {
        let workers = |pairs: &'static [(&'static str, &'static str)]| -> Vec<usize> {
            let cfg = ThreadPoolBuilder::new().resolve(&env_of(pairs)).unwrap().0;
            cfg.layout.workers().iter().map(|w| w.pu).collect()
        };
        const T: (&str, &str) = ("LOCUS_TOPOLOGY", "numa:2 core:4 smt:2");
        assert_eq!(workers(&[T, ("LOCUS_CPUS", " 0-3,12 ")]), [0, 1, 2, 3, 12]);
        assert_eq!(
            workers(&[T, ("LOCUS_SMT", "0")]),
            [0, 2, 4, 6, 8, 10, 12, 14]
        );
        assert_eq!(workers(&[T, ("LOCUS_SMT", "1")]).len(), 16);
        assert_eq!(
            workers(&[T, ("LOCUS_CPUS", "0-4"), ("LOCUS_SMT", "0")]),
            [0, 2, 4]
        );
        // The builder's set wins over both variables.
        let cfg = ThreadPoolBuilder::new()
            .cpus("5-6".parse().unwrap())
            .resolve(&env_of(&[T, ("LOCUS_CPUS", "bad"), ("LOCUS_SMT", "bad")]))
            .unwrap()
            .0;
        let pus: Vec<usize> = cfg.layout.workers().iter().map(|w| w.pu).collect();
        assert_eq!(pus, [5, 6]);
    }

    #[test]
    fn env_cpus_outside_the_allowed_set_names_the_variable() {
        let e = ThreadPoolBuilder::new()
            .resolve(&env_of(&[
                ("LOCUS_TOPOLOGY", "core:4"),
                ("LOCUS_CPUS", "3-5"),
            ]))
            .err()
            .expect("must fail");
        assert!(
            matches!(
                e,
                BuildError::Cpus {
                    var: Some("LOCUS_CPUS"),
                    ..
                }
            ),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.starts_with("LOCUS_CPUS") && msg.contains("4-5"),
            "{msg}"
        );
    }
}
