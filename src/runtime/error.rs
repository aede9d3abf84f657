//! The registry's errors, defined here below the registry that returns
//! them and re-exported by `pool` as `locus::BuildError` and
//! `locus::ShutdownError`: [`BuildError`] (why a pool could not be built)
//! and [`ShutdownError`] (why `shutdown_and_wait` did not wait).

use std::fmt;
use std::io;

use crate::TopologyError;
use crate::layout::LayoutError;

/// Why [`crate::ThreadPoolBuilder::build`] or
/// [`crate::ThreadPoolBuilder::build_global`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// An environment variable holds a value that is not accepted.
    Env {
        /// The variable, e.g. `LOCUS_NUM_THREADS`.
        var: &'static str,
        /// Its value.
        value: String,
        /// What is accepted.
        accepted: &'static str,
    },
    /// The synthetic topology in `LOCUS_TOPOLOGY` does not parse.
    Topology(TopologyError),
    /// The CPUs given to [`crate::ThreadPoolBuilder::cpus`] (or in
    /// `LOCUS_CPUS`) are empty or not all allowed.
    Cpus {
        /// `Some("LOCUS_CPUS")` when the set came from the environment.
        var: Option<&'static str>,
        /// The set asked for.
        requested: crate::CpuSet,
        /// The CPUs the topology allows.
        allowed: crate::CpuSet,
    },
    /// The layout could not be computed (e.g. zero threads).
    Layout(LayoutError),
    /// A worker thread could not be started: the OS refused it (on Linux:
    /// `kernel.threads-max`, `ulimit -u`, the cgroup's `pids.max`, no
    /// memory for its stack, or a `stack_size` it cannot map; see
    /// [`crate::ThreadPoolBuilder::num_threads`] for what a worker costs).
    /// The message's advice follows the OS's reason. The threads already
    /// started were stopped and joined.
    Spawn {
        /// The worker index.
        index: usize,
        /// The error from the OS.
        error: io::Error,
    },
    /// The workers would not fit in the memory mappings the process may
    /// still create (Linux `vm.max_map_count`; each thread needs 4): past
    /// that limit a new thread aborts the process instead of failing, so
    /// the build checks first and starts no thread.
    ThreadLimit {
        /// The number of workers asked for.
        requested: usize,
        /// How many more threads fit now.
        fit: usize,
        /// The value of `vm.max_map_count`.
        max_map_count: usize,
    },
    /// The [`crate::ThreadPoolBuilder::thread_name`] closure gave a name
    /// with a NUL byte, which a thread cannot have. The threads already
    /// started were stopped and joined. (A panic in the closure is not an
    /// error: it unwinds out of `build`, as in rayon.)
    ThreadName {
        /// The worker index it was called with.
        index: usize,
        /// What went wrong.
        reason: String,
    },
    /// `build_global` was called after the global pool already existed
    /// (built explicitly, or implicitly by a free function such as `join`).
    /// To configure the global pool, call `build_global` before anything
    /// that uses it. Its message is rayon's.
    GlobalAlreadyInitialized,
    /// [`crate::ThreadPoolBuilder::use_current_thread`] on a thread that
    /// is already a worker of a pool: build the pool from a thread outside
    /// every pool. Its message is rayon's.
    CurrentThreadInPool,
}

/// rayon-core's name for [`BuildError`].
pub type ThreadPoolBuildError = BuildError;

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Env {
                var,
                value,
                accepted,
            } => {
                write!(
                    f,
                    "environment variable {var}={value:?} is invalid; accepted: {accepted}"
                )
            }
            BuildError::Topology(e) => write!(f, "LOCUS_TOPOLOGY: {e}"),
            BuildError::Cpus {
                var,
                requested,
                allowed,
            } => {
                let what = var.unwrap_or("cpus");
                if requested.is_empty() {
                    write!(
                        f,
                        "{what}: the CPU set is empty; give at least one of the allowed CPUs ({allowed})"
                    )
                } else {
                    write!(
                        f,
                        "{what}: CPUs {} of \"{requested}\" are not allowed to this pool; give a \
                         subset of the allowed CPUs ({allowed})",
                        requested.difference(allowed)
                    )
                }
            }
            BuildError::Layout(e) => write!(f, "cannot lay out the pool: {e}"),
            BuildError::Spawn { index, error } => {
                write!(
                    f,
                    "cannot start worker thread {index}: {error} ({})",
                    spawn_advice(error.kind())
                )
            }
            BuildError::ThreadLimit {
                requested,
                fit,
                max_map_count,
            } => write!(
                f,
                "cannot start {requested} worker threads: each needs 4 memory mappings and \
                 this process may map only enough for {fit} more (vm.max_map_count = \
                 {max_map_count}); ask for at most {fit} threads, or raise vm.max_map_count"
            ),
            BuildError::ThreadName { index, reason } => write!(
                f,
                "thread_name for worker {index}: {reason}; give a closure that returns \
                 a name without NUL bytes"
            ),
            // These two say word for word what rayon-core's errors say:
            // programs (and rayon's own tests) compare the text.
            BuildError::CurrentThreadInPool => {
                f.write_str("The current thread is already part of another thread pool.")
            }
            BuildError::GlobalAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
        }
    }
}

/// What to change when the OS refuses a worker thread, by its reason:
/// `EINVAL`, a `stack_size` beyond the address space; `ENOMEM`, no memory
/// for the stacks; anything else (glibc's `EAGAIN` is both a limit on
/// threads and a stack it could not map), either.
fn spawn_advice(kind: io::ErrorKind) -> &'static str {
    match kind {
        io::ErrorKind::InvalidInput => {
            "the OS cannot give a thread that stack: ask for a smaller stack_size"
        }
        io::ErrorKind::OutOfMemory => {
            "not enough memory for the threads' stacks: ask for a smaller stack_size or fewer threads"
        }
        _ => {
            "ask for fewer threads or a smaller stack_size, or raise the OS limit on \
             threads: ulimit -u, kernel.threads-max, pids.max"
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Topology(e) => Some(e),
            BuildError::Layout(e) => Some(e),
            BuildError::Spawn { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<LayoutError> for BuildError {
    fn from(e: LayoutError) -> Self {
        BuildError::Layout(e)
    }
}

impl From<TopologyError> for BuildError {
    fn from(e: TopologyError) -> Self {
        BuildError::Topology(e)
    }
}

/// Why [`crate::ThreadPool::shutdown_and_wait`] returned without waiting. The
/// pool's handle was dropped all the same (as by `drop`), and the workers
/// exit on their own once the pool shut down and ran everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShutdownError {
    /// Job groups of the pool ([`crate::JobGroup`], clones included) still
    /// exist: they keep the pool running, and it shuts down when the last
    /// of them is dropped. Drop them before calling `shutdown_and_wait`.
    GroupsAlive,
    /// Called on a worker thread of a locus pool: on one of this pool it
    /// would wait for itself, and on one of another pool it could wait
    /// for a job of this pool that waits for that pool (an `install` into
    /// it). Call it from a thread outside every pool.
    OnWorker,
}

impl fmt::Display for ShutdownError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShutdownError::GroupsAlive => f.write_str(
                "job groups of the pool still exist and keep it running: drop every JobGroup \
                 before ThreadPool::shutdown_and_wait to wait for the workers",
            ),
            ShutdownError::OnWorker => f.write_str(
                "ThreadPool::shutdown_and_wait was called on a worker thread, where waiting \
                 could deadlock: call it from a thread outside every pool",
            ),
        }
    }
}

impl std::error::Error for ShutdownError {}
