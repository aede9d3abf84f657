//! [`ThreadBuilder`]: one worker thread to start, handed to a spawn handler
//! ([`crate::ThreadPoolBuilder::spawn_handler`]). The registry creates it
//! and its worker runs in [`ThreadBuilder::run`], so it lives here, below
//! `pool`; the spawn strategies that consume it (`pool::thread_builder`)
//! and the public name `locus::ThreadBuilder` are `pool`'s.
//!
//! Invariants:
//! - every `ThreadBuilder` the registry creates is counted as a *live*
//!   thread of the pool until [`ThreadBuilder::run`] returns, or until the
//!   builder is dropped without having run (a spawn handler that failed, or
//!   one that threw the builder away); a failed build and
//!   `ThreadPool::shutdown_and_wait` wait for that count to reach zero, so
//!   they never wait for a thread that cannot come;
//! - a builder dropped without having run counts as a worker whose exit
//!   handler returned, so the other workers can still finish their two-step
//!   exit (see `runtime::registry`, "Lifetime");
//! - a builder holds its worker's *born idle* token (see
//!   `runtime::sleep`, "Born idle"): `run` parks the worker with it, and a
//!   builder dropped without having run retires it, so that a wakeup meant
//!   for a worker that never comes goes to another one.

use std::fmt;
use std::sync::Arc;

use crossbeam_deque::Worker;

use crate::runtime::job::JobRef;
use crate::runtime::registry::Registry;
use crate::runtime::sleep::Idle;
use crate::runtime::worker;

/// One worker thread of a pool being built, handed to the spawn handler of
/// [`crate::ThreadPoolBuilder::spawn_handler`] (and to the wrapper of
/// [`crate::ThreadPoolBuilder::build_scoped`]). The handler starts a thread
/// that calls [`ThreadBuilder::run`]; the worker lives in that call.
///
/// ```
/// let pool = locus::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .spawn_handler(|thread| {
///         let mut b = std::thread::Builder::new();
///         if let Some(name) = thread.name() {
///             b = b.name(name.to_owned());
///         }
///         if let Some(size) = thread.stack_size() {
///             b = b.stack_size(size);
///         }
///         b.spawn(|| thread.run())?;
///         Ok(())
///     })
///     .build()
///     .unwrap();
/// assert_eq!(pool.install(|| locus::join(|| 1, || 2)), (1, 2));
/// ```
pub struct ThreadBuilder {
    name: Option<String>,
    stack_size: Option<usize>,
    registry: Arc<Registry>,
    index: usize,
    /// The worker's deque and born-idle token; `None` once `run` took
    /// them.
    start: Option<(Worker<JobRef>, Idle)>,
}

impl ThreadBuilder {
    /// A builder for worker `index`, born idle with `idle`, counted as a
    /// live thread of `registry`.
    pub(crate) fn new(
        registry: &Arc<Registry>,
        index: usize,
        deque: Worker<JobRef>,
        idle: Idle,
        name: Option<String>,
        stack_size: Option<usize>,
    ) -> Self {
        registry.thread_created();
        ThreadBuilder {
            name,
            stack_size,
            registry: Arc::clone(registry),
            index,
            start: Some((deque, idle)),
        }
    }

    /// The index of this worker in the pool, in `0..num_threads`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The thread name from [`crate::ThreadPoolBuilder::thread_name`]
    /// (`locus-{index}` by default).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size from [`crate::ThreadPoolBuilder::stack_size`], if set.
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// The pool this worker belongs to (the default spawn strategy keeps
    /// the thread's join handle there).
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Runs the worker on the calling thread: pins it to the worker's CPUs
    /// (see [`crate::ThreadPool::pin_report`]), waits until the build has
    /// started every thread, runs the start handler, then runs jobs until
    /// the pool is dropped (see "Dropping" on [`crate::ThreadPool`]) and
    /// its exit handler has run. If the build failed meanwhile, it returns
    /// at once, running nothing. Afterwards the thread is no longer a
    /// worker ([`crate::current_thread_index`] is `None` again).
    pub fn run(mut self) {
        let (deque, idle) = self.start.take().expect("a ThreadBuilder runs once");
        worker::main_loop(Arc::clone(&self.registry), self.index, deque, idle);
        // `self` drops here: the thread is no longer live.
    }
}

impl Drop for ThreadBuilder {
    fn drop(&mut self) {
        if let Some((_, idle)) = self.start.take() {
            // Never ran: it will never run a job nor its exit handler, and
            // a wakeup it was claimed for must go to another worker.
            self.registry.retire_idle(idle);
            self.registry.thread_never_ran(self.index);
        }
        self.registry.thread_left();
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}
