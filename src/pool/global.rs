//! The global pool, and finding "the current pool" for free functions.
//!
//! The global pool is built at most once: explicitly by
//! [`crate::ThreadPoolBuilder::build_global`], or lazily by the first free
//! function that needs it, from a default builder plus the environment. It
//! is never dropped: it keeps the user handle its registry starts with
//! (see `Registry::drop_handle`), so it never terminates and its workers
//! live until the process exits.
//!
//! Built lazily, it has no caller to return an error to: an invalid
//! environment variable is reported on stderr, once, and ignored
//! ([`build_implicit`]).

use parking_lot::Mutex;
use std::io::Write;
use std::sync::{Arc, OnceLock};

use crate::runtime::registry::Registry;
use crate::runtime::worker::WorkerThread;

use super::builder::env_lookup;
use super::thread_builder::ThreadSpawn;
use super::{BuildError, ThreadPoolBuilder};

static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();
static INIT: Mutex<()> = Mutex::new(());

pub(crate) fn init_global<S: ThreadSpawn>(builder: ThreadPoolBuilder<S>) -> Result<(), BuildError> {
    let _g = INIT.lock();
    if GLOBAL.get().is_some() {
        return Err(BuildError::GlobalAlreadyInitialized);
    }
    let r = builder.build_registry()?;
    GLOBAL
        .set(r)
        .unwrap_or_else(|_| unreachable!("checked under INIT"));
    Ok(())
}

/// The variables that set the thread count, which the implicit build drops
/// when the count they give cannot be built.
const COUNT_VARS: [&str; 2] = ["LOCUS_NUM_THREADS", "RAYON_NUM_THREADS"];

/// Builds the global pool from a default builder and the environment `env`
/// without failing on the environment: a variable that makes the build
/// fail (invalid, or a thread count that cannot be built) is reported with
/// one line on stderr and ignored, and the build is tried again.
fn build_implicit(env: &dyn Fn(&str) -> Option<String>) -> Result<Arc<Registry>, BuildError> {
    let mut ignored: Vec<&'static str> = Vec::new();
    loop {
        let lookup = |k: &str| if ignored.contains(&k) { None } else { env(k) };
        let err = match ThreadPoolBuilder::new().build_registry_with(&lookup) {
            Ok(r) => return Ok(r),
            Err(e) => e,
        };
        let culprit = match &err {
            BuildError::Env { var, .. } => Some(*var),
            BuildError::Topology(_) => Some("LOCUS_TOPOLOGY"),
            BuildError::Cpus { var, .. } => *var,
            BuildError::Layout(_) | BuildError::ThreadLimit { .. } | BuildError::Spawn { .. } => {
                COUNT_VARS.into_iter().find(|v| lookup(v).is_some())
            }
            _ => None,
        };
        let Some(var) = culprit.filter(|v| !ignored.contains(v)) else {
            return Err(err);
        };
        // Not `eprintln!`, which panics when stderr is closed.
        let _ = writeln!(
            std::io::stderr(),
            "locus: ignoring {var} for the global thread pool: {err}"
        );
        ignored.push(var);
    }
}

/// The global pool, built on first use.
///
/// # Panics
/// If the global pool must be built and threads cannot be started even
/// with the offending environment variables ignored (see
/// [`build_implicit`]). Call [`ThreadPoolBuilder::build_global`] first to
/// handle that error.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    if let Some(r) = GLOBAL.get() {
        return r;
    }
    let _g = INIT.lock();
    if let Some(r) = GLOBAL.get() {
        return r;
    }
    match build_implicit(&env_lookup) {
        Ok(r) => {
            let _ = GLOBAL.set(r);
            GLOBAL.get().expect("just set")
        }
        Err(e) => panic!("locus: cannot build the global thread pool: {e}"),
    }
}

/// The pool of the current worker, else the global pool.
pub(crate) fn current_registry() -> Arc<Registry> {
    WorkerThread::with_current(|wt| match wt {
        Some(wt) => Arc::clone(wt.registry()),
        None => Arc::clone(global_registry()),
    })
}

/// Runs `op` on a worker: directly on the current worker, else on the
/// global pool (blocking).
#[inline]
pub(crate) fn in_worker<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    // SAFETY: `wt` is used only in this frame. Not `with_current`: on this
    // path (every `join`) the closure cost a third more time on fib (see
    // `WorkerThread::current_in_frame`).
    match unsafe { WorkerThread::current_in_frame() } {
        Some(wt) => op(wt, false),
        None => global_registry().in_worker(op),
    }
}

#[cfg(test)]
mod tests {
    use super::super::builder::tests::env_of;
    use super::*;

    #[test]
    fn the_implicit_build_ignores_bad_variables() {
        // Every variable wrong at once: each is dropped in turn.
        let env = env_of(&[
            ("LOCUS_NUM_THREADS", "many"),
            ("LOCUS_PINNING", "socket"),
            ("LOCUS_CLUSTER", "yes"),
            ("LOCUS_TOPOLOGY", "llc:x"),
            ("LOCUS_CPUS", "x"),
            ("LOCUS_SMT", "x"),
        ]);
        let r = build_implicit(&env).expect("the defaults build");
        assert!(r.num_threads() >= 1);
        r.drop_handle();
        // A valid variable is kept.
        let r = build_implicit(&env_of(&[
            ("LOCUS_TOPOLOGY", "core:3"),
            ("LOCUS_PINNING", "x"),
        ]))
        .unwrap();
        assert_eq!(r.num_threads(), 3);
        r.drop_handle();
        // CPUs that are not allowed are ignored; a valid LOCUS_SMT is kept.
        let r = build_implicit(&env_of(&[
            ("LOCUS_TOPOLOGY", "core:3 smt:2"),
            ("LOCUS_CPUS", "4-99"),
            ("LOCUS_SMT", "0"),
        ]))
        .unwrap();
        assert_eq!(r.num_threads(), 3);
        r.drop_handle();
    }

    #[test]
    fn the_implicit_build_drops_a_count_it_cannot_build() {
        let env = env_of(&[
            ("LOCUS_TOPOLOGY", "core:2"),
            ("RAYON_NUM_THREADS", "100000000"),
        ]);
        let r = build_implicit(&env).expect("the default count builds");
        assert_eq!(r.num_threads(), 2);
        r.drop_handle();
    }
}
