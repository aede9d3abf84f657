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
//! environment variable, or one that asks for a pool the machine cannot
//! start (a thread count, or a `LOCUS_TOPOLOGY` with more workers than the
//! process may have threads), is reported on stderr, once, and ignored
//! ([`build_implicit`]).

use parking_lot::Mutex;
use std::io::Write;
use std::sync::{Arc, OnceLock};

use crate::runtime::registry::Registry;
use crate::runtime::worker::WorkerThread;

use super::builder::ThreadPoolBuilder;
use super::env::{self, Lookup};
use super::thread_builder::ThreadSpawn;
use crate::runtime::error::BuildError;

static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();
static INIT: Mutex<()> = Mutex::new(());

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds the global pool, used by the free functions ([`crate::join`],
    /// ...) when called outside any pool, and returns once every worker
    /// thread has started (as rayon's does). Fails with
    /// [`BuildError::GlobalAlreadyInitialized`] if the global pool already
    /// exists: built by an earlier `build_global`, or on first use by a free
    /// function. A `build_global` that failed built nothing: a later one
    /// may try again.
    pub fn build_global(self) -> Result<(), BuildError> {
        init_global(self)
    }
}

pub(crate) fn init_global<S: ThreadSpawn>(builder: ThreadPoolBuilder<S>) -> Result<(), BuildError> {
    let _g = INIT.lock();
    if GLOBAL.get().is_some() {
        return Err(BuildError::GlobalAlreadyInitialized);
    }
    let r = builder.build_registry()?;
    // As rayon's `build_global`: the workers are up when it returns.
    r.wait_until_primed();
    GLOBAL
        .set(r)
        .unwrap_or_else(|_| unreachable!("checked under INIT"));
    Ok(())
}

/// Builds the global pool from a default builder and the environment `env`
/// without failing on the environment: a variable that makes the build
/// fail is reported with one line on stderr and ignored, and the build is
/// tried again. Such a variable is one with an invalid value, or, when the
/// threads cannot be started (too many for the process, or refused by the
/// OS), the variable that set the thread count, else `LOCUS_TOPOLOGY`
/// (a virtual topology has one worker per PU by default).
fn build_implicit(env: &Lookup<'_>) -> Result<Arc<Registry>, BuildError> {
    let mut ignored: Vec<&'static str> = Vec::new();
    loop {
        let lookup = |k: &str| if ignored.contains(&k) { None } else { env(k) };
        let err = match ThreadPoolBuilder::new().build_registry_with(&lookup) {
            Ok(r) => return Ok(r),
            Err(e) => e,
        };
        let culprit = culprit(&err, &lookup);
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

/// The environment variable to blame for `err`, a failed build with the
/// environment `env` (see [`build_implicit`]).
fn culprit(err: &BuildError, env: &Lookup<'_>) -> Option<&'static str> {
    match err {
        BuildError::Env { var, .. } => Some(*var),
        BuildError::Topology(_) => Some("LOCUS_TOPOLOGY"),
        BuildError::Cpus { var, .. } => *var,
        BuildError::Layout(_) | BuildError::ThreadLimit { .. } | BuildError::Spawn { .. } => {
            env::count_source(env).or_else(|| env("LOCUS_TOPOLOGY").map(|_| "LOCUS_TOPOLOGY"))
        }
        _ => None,
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
    match build_implicit(&env::process_env) {
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
        None => in_global(op),
    }
}

/// [`in_worker`] from a thread outside every pool. Out of line, so that
/// the thread-local read of `in_worker` is the only one in the caller:
/// inlined, this path's second read (in `Registry::in_worker`) made the
/// compiler keep the thread-local offset in a callee-saved register for
/// both, a push and a pop more on every `join` (`docs/join-cost.md`,
/// fifth round).
#[cold]
#[inline(never)]
fn in_global<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    global_registry().in_worker(op)
}

#[cfg(test)]
mod tests {
    use super::super::env::tests::env_of;
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
    fn too_many_threads_blames_the_count_then_the_topology() {
        let limit = BuildError::ThreadLimit {
            requested: 65536,
            fit: 16000,
            max_map_count: 65530,
        };
        let spawn = BuildError::Spawn {
            index: 9000,
            error: std::io::Error::other("refused"),
        };
        const BIG: (&str, &str) = ("LOCUS_TOPOLOGY", "numa:4 llc:16 core:1024");
        for err in [&limit, &spawn] {
            let blame = |pairs: &[(&str, &str)]| culprit(err, &env_of(pairs));
            assert_eq!(blame(&[BIG]), Some("LOCUS_TOPOLOGY"));
            assert_eq!(
                blame(&[BIG, ("RAYON_NUM_THREADS", "50000")]),
                Some("RAYON_NUM_THREADS"),
                "the count first: the topology may be fine with fewer workers"
            );
            assert_eq!(
                blame(&[("RAYON_NUM_THREADS", "x"), ("RAYON_RS_NUM_CPUS", "50000")]),
                Some("RAYON_RS_NUM_CPUS"),
                "the variable that gave the count, not an ignored one"
            );
            assert_eq!(
                blame(&[("LOCUS_NUM_THREADS", "50000")]),
                Some("LOCUS_NUM_THREADS")
            );
            assert_eq!(blame(&[]), None, "nothing to drop: the error stands");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_implicit_build_drops_a_variable_that_is_not_utf8() {
        let bad = super::super::env::tests::not_utf8("LOCUS_PINNING");
        let env = |k: &str| match k {
            "LOCUS_TOPOLOGY" => Some("core:2".into()),
            _ => bad(k),
        };
        let r = build_implicit(&env).expect("the rest builds");
        assert_eq!(r.num_threads(), 2);
        r.drop_handle();
    }
}
