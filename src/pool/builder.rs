//! [`ThreadPoolBuilder`]: configuration of a pool, from code and environment.
//!
//! Environment variables apply wherever the builder left the default:
//!
//! | variable | accepted values | meaning |
//! |---|---|---|
//! | `LOCUS_NUM_THREADS` | a non-negative integer (`0` = default) | number of workers |
//! | `LOCUS_PINNING` | `cluster`, `core`, `cpu`, `none` | pinning granularity |
//! | `LOCUS_TOPOLOGY` | a synthetic spec, e.g. `llc:2 core:4` | run a virtual pool on this topology |
//! | `LOCUS_CLUSTER` | `0`, `1` | cluster awareness off/on |
//!
//! An empty variable counts as unset; any other invalid value makes `build`
//! fail with [`BuildError::Env`] (or [`BuildError::Topology`]) naming the
//! variable and what is accepted.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::Topology;
use crate::layout::{Layout, LayoutOptions, Pinning, StealOrder};
use crate::runtime::registry::{Registry, RegistryConfig};
use crate::topology::Source;

use super::{BuildError, ThreadPool};

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
#[derive(Default)]
#[must_use]
pub struct ThreadPoolBuilder {
    num_threads: Option<usize>,
    topology: Option<Topology>,
    pinning: Option<Pinning>,
    steal_order: Option<StealOrder>,
    cluster_aware: Option<bool>,
    thread_name: Option<NameFn>,
    stack_size: Option<usize>,
    start_handler: Option<IndexFn>,
    exit_handler: Option<IndexFn>,
    panic_handler: Option<PanicFn>,
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field(
                "topology",
                &self.topology.as_ref().map(|t| t.source().to_string()),
            )
            .field("pinning", &self.pinning)
            .field("steal_order", &self.steal_order)
            .field("cluster_aware", &self.cluster_aware)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl ThreadPoolBuilder {
    /// A builder with all defaults: detected topology, one worker per
    /// allowed PU, pinning per cluster, hierarchical steal order, cluster
    /// awareness on (each overridable by the environment).
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of workers; `0` means the default (one per allowed PU of the
    /// topology).
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
    /// In both cases no thread is left behind. [`crate::layout::MAX_WORKERS`]
    /// bounds every pool.
    pub fn num_threads(mut self, n: usize) -> Self {
        self.num_threads = (n != 0).then_some(n);
        self
    }

    /// The topology to lay the pool out on. A topology that is not the
    /// running machine's ([`Topology::synthetic`], a sysfs snapshot, an hwloc
    /// XML file) gives a *virtual* pool: no pinning, and any number of
    /// workers, whatever the machine's core count.
    pub fn topology(mut self, t: Topology) -> Self {
        self.topology = Some(t);
        self
    }

    /// How workers are pinned (default: [`Pinning::Cluster`]).
    pub fn pinning(mut self, p: Pinning) -> Self {
        self.pinning = Some(p);
        self
    }

    /// The steal order (default: [`StealOrder::Hierarchical`]).
    pub fn steal_order(mut self, o: StealOrder) -> Self {
        self.steal_order = Some(o);
        self
    }

    /// Whether clusters are a scheduling level (default: true).
    pub fn cluster_aware(mut self, on: bool) -> Self {
        self.cluster_aware = Some(on);
        self
    }

    /// Names worker threads (default: `locus-{index}`). Called on the
    /// building thread, once per worker. A panic in it, or a name with a
    /// NUL byte, makes `build` fail with [`BuildError::ThreadName`].
    pub fn thread_name<F: FnMut(usize) -> String + 'static>(mut self, f: F) -> Self {
        self.thread_name = Some(Box::new(f));
        self
    }

    /// Stack size of worker threads in bytes (default: Rust's default).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }

    /// Called on each worker thread (with its index) when it starts, after
    /// pinning, once every worker thread was started (a failed build runs
    /// no handler). A panic in it is caught and ignored.
    pub fn start_handler<F: Fn(usize) + Send + Sync + 'static>(mut self, f: F) -> Self {
        self.start_handler = Some(Arc::new(f));
        self
    }

    /// Called on each worker thread (with its index) before it exits: once
    /// the pool was dropped (see "Dropping" on [`ThreadPool`]) and its
    /// queued and spawned work has run. The thread is still a worker of the
    /// pool while the handler runs: it may [`crate::spawn`], `join`,
    /// `scope` or [`crate::broadcast`] (every worker takes part), and the
    /// workers exit only once every exit handler has returned and that
    /// work has run too. A panic in it is caught and ignored.
    pub fn exit_handler<F: Fn(usize) + Send + Sync + 'static>(mut self, f: F) -> Self {
        self.exit_handler = Some(Arc::new(f));
        self
    }

    /// Receives the payload of a panic in a detached job
    /// ([`crate::spawn`], [`ThreadPool::spawn`]); such panics have no
    /// caller to reach. Without a handler the payload is dropped after the
    /// standard panic hook has printed it, the pool keeps working, and the
    /// panic is counted in [`crate::WorkerStats::detached_panics`]. (rayon
    /// aborts the process instead; locus prefers to keep serving.) Panics
    /// in `join`, `scope` and `install` work are not affected: they reach
    /// their caller.
    pub fn panic_handler<F: Fn(Box<dyn Any + Send>) + Send + Sync + 'static>(
        mut self,
        f: F,
    ) -> Self {
        self.panic_handler = Some(Arc::new(f));
        self
    }

    /// Builds the pool.
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        let registry = self.build_registry_with(&env_lookup)?;
        Ok(ThreadPool::from_registry(registry))
    }

    /// Builds the global pool, used by the free functions ([`crate::join`],
    /// ...) when called outside any pool. Fails if it already exists.
    pub fn build_global(self) -> Result<(), BuildError> {
        super::global::init_global(self)
    }

    pub(crate) fn build_registry(self) -> Result<Arc<Registry>, BuildError> {
        self.build_registry_with(&env_lookup)
    }

    /// Resolves builder + environment into a layout and starts the workers.
    pub(crate) fn build_registry_with(
        self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Arc<Registry>, BuildError> {
        let cfg = self.resolve(env)?;
        Registry::new(cfg)
    }

    fn resolve(self, env: &dyn Fn(&str) -> Option<String>) -> Result<RegistryConfig, BuildError> {
        let num_threads = match self.num_threads {
            Some(n) => Some(n),
            None => match env("LOCUS_NUM_THREADS") {
                None => None,
                Some(v) => {
                    let n: usize = v.trim().parse().map_err(|_| BuildError::Env {
                        var: "LOCUS_NUM_THREADS",
                        value: v.clone(),
                        accepted: "a non-negative integer (0 = one worker per allowed CPU)",
                    })?;
                    (n != 0).then_some(n)
                }
            },
        };
        let pinning = match self.pinning {
            Some(p) => p,
            None => match env("LOCUS_PINNING") {
                None => Pinning::default(),
                Some(v) => v.parse().map_err(|_| BuildError::Env {
                    var: "LOCUS_PINNING",
                    value: v.clone(),
                    accepted: "cluster, core, cpu, none",
                })?,
            },
        };
        let cluster_aware = match self.cluster_aware {
            Some(c) => c,
            None => match env("LOCUS_CLUSTER").as_deref().map(str::trim) {
                None => true,
                Some("1") => true,
                Some("0") => false,
                Some(v) => {
                    return Err(BuildError::Env {
                        var: "LOCUS_CLUSTER",
                        value: v.to_string(),
                        accepted: "0, 1",
                    });
                }
            },
        };
        let topology = match self.topology {
            Some(t) => t,
            None => match env("LOCUS_TOPOLOGY") {
                Some(spec) => Topology::synthetic(spec.trim())?,
                None => Topology::detect(),
            },
        };
        let virtual_topology = match topology.source() {
            Source::Synthetic(_) => true,
            Source::Sysfs(root) => root != std::path::Path::new("/"),
            Source::Hwloc(xml) => xml.is_some(),
            Source::Flat(_) => false,
        };
        let opts = LayoutOptions {
            num_threads,
            pinning,
            steal_order: self.steal_order.unwrap_or_default(),
            cluster_aware,
            virtual_topology,
        };
        let layout = Layout::new(&topology, &opts)?;
        Ok(RegistryConfig {
            layout,
            thread_name: Some(
                self.thread_name
                    .unwrap_or_else(|| Box::new(|i| format!("locus-{i}"))),
            ),
            stack_size: self.stack_size,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            panic_handler: self.panic_handler,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn env_errors_name_the_variable() {
        let cases: [(&[(&str, &str)], &str); 4] = [
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
            .unwrap();
        assert_eq!(cfg.layout.workers().len(), 3);
        assert!(cfg.layout.options().virtual_topology);
    }

    #[test]
    fn env_topology_gives_virtual_pool() {
        let cfg = ThreadPoolBuilder::new()
            .resolve(&env_of(&[
                ("LOCUS_TOPOLOGY", "llc:2 core:3"),
                ("LOCUS_CLUSTER", "0"),
            ]))
            .unwrap();
        assert_eq!(cfg.layout.workers().len(), 6);
        assert!(cfg.layout.options().virtual_topology);
        assert!(!cfg.layout.options().cluster_aware);
    }
}
