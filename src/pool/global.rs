//! The global pool, and finding "the current pool" for free functions.
//!
//! The global pool is built at most once: explicitly by
//! [`crate::ThreadPoolBuilder::build_global`], or lazily by the first free
//! function that needs it, from a default builder plus the environment. It
//! is never dropped: it keeps the user handle its registry starts with
//! (see `Registry::drop_handle`), so it never terminates and its workers
//! live until the process exits.

use std::sync::{Arc, Mutex, OnceLock};

use crate::runtime::registry::Registry;
use crate::runtime::worker::WorkerThread;

use super::{BuildError, ThreadPoolBuilder};

static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();
static INIT: Mutex<()> = Mutex::new(());

pub(crate) fn init_global(builder: ThreadPoolBuilder) -> Result<(), BuildError> {
    let _g = INIT.lock().unwrap_or_else(|e| e.into_inner());
    if GLOBAL.get().is_some() {
        return Err(BuildError::GlobalAlreadyInitialized);
    }
    let r = builder.build_registry()?;
    GLOBAL
        .set(r)
        .unwrap_or_else(|_| unreachable!("checked under INIT"));
    Ok(())
}

/// The global pool, built on first use.
///
/// # Panics
/// If the global pool must be built and the environment holds an invalid
/// `LOCUS_*` value (or threads cannot be started). Call
/// [`ThreadPoolBuilder::build_global`] first to handle that error.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    if let Some(r) = GLOBAL.get() {
        return r;
    }
    let _g = INIT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = GLOBAL.get() {
        return r;
    }
    match ThreadPoolBuilder::new().build_registry() {
        Ok(r) => {
            let _ = GLOBAL.set(r);
            GLOBAL.get().expect("just set")
        }
        Err(e) => panic!("locus: cannot build the global thread pool: {e}"),
    }
}

/// The pool of the current worker, else the global pool.
pub(crate) fn current_registry() -> Arc<Registry> {
    let wt = WorkerThread::current();
    // SAFETY: a non-null current pointer is this thread's live WorkerThread.
    match unsafe { wt.as_ref() } {
        Some(wt) => Arc::clone(wt.registry()),
        None => Arc::clone(global_registry()),
    }
}

/// Runs `op` on a worker: directly on the current worker, else on the
/// global pool (blocking).
#[inline]
pub(crate) fn in_worker<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    let wt = WorkerThread::current();
    // SAFETY: a non-null current pointer is this thread's live WorkerThread.
    match unsafe { wt.as_ref() } {
        Some(wt) => op(wt, false),
        None => global_registry().in_worker(op),
    }
}
