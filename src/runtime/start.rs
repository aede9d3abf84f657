//! Building a registry: the resolved configuration ([`RegistryConfig`]),
//! the deques and per-worker state, the thread-limit check (`maps`), and
//! starting each worker through the builder's spawn strategy as a
//! [`ThreadBuilder`] (or adopting the building thread as worker 0).
//!
//! It sits above `registry` and `thread_builder` (both of which it uses),
//! so that the registry, which a [`ThreadBuilder`] points to, does not
//! point back at the thread builder.
//!
//! Invariants (the argument is in `registry`'s module docs, "Building
//! fails cleanly" and "Threads"):
//! - every thread is started before the start gate opens, and none runs a
//!   handler or a job before that;
//! - on any error (thread limit, thread name, spawn refused or panicked),
//!   the gate is closed for good and every thread already started has
//!   left before the error is returned (or a `thread_name` panic resumed);
//! - each worker is born idle before its thread exists (see "Born idle" in
//!   `sleep`).

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crossbeam_deque::Worker;
use crossbeam_utils::CachePadded;

use crate::layout::Layout;
use crate::runtime::error::BuildError;

use super::job::JobRef;
use super::registry::{IndexHandler, PanicHandler, Registry, ThreadInfo};
use super::thread_builder::ThreadBuilder;
use super::worker::{self, WorkerThread};

mod maps;

/// Everything a registry needs, resolved by the builder.
pub(crate) struct RegistryConfig {
    pub(crate) layout: Layout,
    pub(crate) thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    pub(crate) stack_size: Option<usize>,
    pub(crate) start_handler: Option<IndexHandler>,
    pub(crate) exit_handler: Option<IndexHandler>,
    pub(crate) panic_handler: Option<PanicHandler>,
    /// Worker 0 is the building thread (see the module docs, "Threads").
    pub(crate) use_current_thread: bool,
    /// Workers pop their own deques oldest first, and `join` halves are
    /// public at once (rayon's `breadth_first`).
    pub(crate) breadth_first: bool,
}

/// How the registry starts a thread: the builder's spawn strategy.
pub(crate) type SpawnFn<'a> = dyn FnMut(ThreadBuilder) -> std::io::Result<()> + 'a;

impl Registry {
    /// Builds the registry and starts its workers; returns once every worker
    /// has started (and pinned itself). The caller owns the one user handle
    /// the registry starts with (see [`Registry::drop_handle`]).
    ///
    /// # Errors
    /// [`BuildError::ThreadLimit`] when the threads would not fit the
    /// process's memory mappings; [`BuildError::ThreadName`] when the
    /// `thread_name` closure gives a name with a NUL byte;
    /// [`BuildError::Spawn`] when the OS refuses a thread. In each case
    /// every thread already started is stopped and joined first.
    ///
    /// # Panics
    /// A panic of the `thread_name` closure is resumed here (as in rayon),
    /// once every thread already started has stopped and was joined.
    pub(crate) fn new(
        cfg: RegistryConfig,
        spawn: &mut SpawnFn<'_>,
    ) -> Result<Arc<Registry>, BuildError> {
        let RegistryConfig {
            layout,
            thread_name,
            stack_size,
            start_handler,
            exit_handler,
            panic_handler,
            use_current_thread: adopted,
            breadth_first,
        } = cfg;
        // Before any worker runs: the private `join` halves' fences, and
        // without them no private halves (see `private`).
        // `breadth_first` wants every `join` half on the deque (rayon's
        // order), so it keeps none private.
        let private_halves = crate::sync::init_asymmetric_fences() && !breadth_first;
        let n = layout.workers().len();
        if adopted && WorkerThread::on_worker_thread() {
            return Err(BuildError::CurrentThreadInPool);
        }
        // The threads this build starts (worker 0 may be the caller).
        let first = usize::from(adopted);
        maps::check_thread_limit(n - first)?;
        let deques: Vec<Worker<JobRef>> = (0..n)
            .map(|_| {
                if breadth_first {
                    Worker::new_fifo()
                } else {
                    Worker::new_lifo()
                }
            })
            .collect();
        let threads = deques
            .iter()
            .map(|d| CachePadded::new(ThreadInfo::new(d.stealer(), private_halves)))
            .collect();
        let registry = Arc::new(Registry::with_threads(
            layout,
            threads,
            n - first,
            start_handler,
            exit_handler,
            panic_handler,
        ));
        let mut deques = deques.into_iter();
        let own_deque = if adopted { deques.next() } else { None };
        let names = Names {
            thread_name,
            stack_size,
        };
        start_threads(&registry, (first..n).zip(deques), names, spawn)?;
        if let Some(deque) = own_deque {
            // Nothing can fail any more: the caller becomes worker 0.
            let pin = worker::adopt_current_thread(Arc::clone(&registry), 0, deque);
            registry.adopted_worker_ready(pin);
        }
        registry.open_start_gate();
        Ok(registry)
    }

    /// Worker `index`'s name from the `thread_name` closure `f`. A name
    /// with a NUL byte stops the threads already started and is the error;
    /// a panic of `f` stops them and is resumed (rayon lets it out of
    /// `build`; the error `abort_start` hands back has nobody to go to).
    fn worker_name(
        &self,
        f: &mut Box<dyn FnMut(usize) -> String>,
        index: usize,
    ) -> Result<String, BuildError> {
        match thread_name(f, index) {
            Ok(Ok(name)) => Ok(name),
            Ok(Err(e)) => Err(self.abort_start(e)),
            Err(payload) => {
                let stopped = BuildError::ThreadName {
                    index,
                    reason: "the closure panicked".into(),
                };
                drop(self.abort_start(stopped));
                panic::resume_unwind(payload)
            }
        }
    }
}

/// How a build names its threads and sizes their stacks.
struct Names {
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
}

/// Starts a thread for each `(index, deque)` of `workers` through `spawn`.
/// On an error every thread already started is stopped and joined first.
fn start_threads(
    registry: &Arc<Registry>,
    workers: impl Iterator<Item = (usize, Worker<JobRef>)>,
    mut names: Names,
    spawn: &mut SpawnFn<'_>,
) -> Result<(), BuildError> {
    for (index, deque) in workers {
        let name = match names.thread_name.as_mut() {
            Some(f) => Some(registry.worker_name(f, index)?),
            None => None,
        };
        // Before the thread exists, and so before any push (see "Born
        // idle" in `sleep`): its first act will be to park.
        let idle = registry.sleep.born_idle(index);
        let thread = ThreadBuilder::new(registry, index, deque, idle, name, names.stack_size);
        if let Err(error) = call_spawn(spawn, thread) {
            return Err(registry.abort_start(BuildError::Spawn { index, error }));
        }
    }
    Ok(())
}

/// Calls the `thread_name` closure for worker `index`: `Err` with the
/// payload if it panicked, else the name, or [`BuildError::ThreadName`] if
/// std cannot give a thread that name (a NUL byte: `Builder::spawn` would
/// panic on it).
fn thread_name(
    f: &mut Box<dyn FnMut(usize) -> String>,
    index: usize,
) -> std::thread::Result<Result<String, BuildError>> {
    let name = panic::catch_unwind(AssertUnwindSafe(|| f(index)))?;
    if name.contains('\0') {
        return Ok(Err(BuildError::ThreadName {
            index,
            reason: format!(
                "the name {name:?} contains a NUL byte, which thread names cannot hold"
            ),
        }));
    }
    Ok(Ok(name))
}

/// Hands worker `thread` to the spawn strategy: a panic in a user's spawn
/// handler is an error like a refused spawn (the thread builder it held is
/// dropped while unwinding, so it counts as never run).
fn call_spawn(spawn: &mut SpawnFn<'_>, thread: ThreadBuilder) -> std::io::Result<()> {
    match panic::catch_unwind(AssertUnwindSafe(|| spawn(thread))) {
        Ok(r) => r,
        Err(payload) => {
            let msg = format!("the spawn handler panicked: {}", panic_message(&*payload));
            crate::runtime::unwind::drop_payload(payload);
            Err(std::io::Error::other(msg))
        }
    }
}

/// The text of a panic payload, when it is a string.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(a payload that is not a string)"
    }
}
