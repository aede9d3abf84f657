//! Where panics may go, and where they must not.
//!
//! Rule (DESIGN.md, "Reliability rules"): unwinding never passes a frame
//! that owns a stack job another thread may still write to (`join`'s `b`,
//! a scope's count, an `install` from another pool, a broadcast's jobs),
//! nor a worker's main loop (its deque may hold other threads' stack jobs,
//! and its thread-local current pointer would outlive it). Two tools keep
//! it:
//!
//! - every user closure runs inside `catch_unwind` (jobs, handlers), and a
//!   payload the pool drops instead of handing on (a scope's second panic,
//!   `join`'s `b` when `a` panicked too) goes through [`drop_payload`],
//!   because a payload's `Drop` may panic too;
//! - a panic with no caller to reach (a detached job's, a start or exit
//!   handler's) goes to the pool's panic handler; without one, or when the
//!   handler panics too, the process aborts ([`abort_unhandled`]), as
//!   rayon's does;
//! - the frames that must not be unwound through hold an
//!   [`AbortOnUnwind`] while another thread may still use their job: if a
//!   panic gets there anyway (a bug in the pool), the process aborts with a
//!   message rather than freeing memory a thread is writing to.
//!
//! Panics that reach their caller (a `join` half, a scope, an `install`)
//! are resumed only after the latch that ends the job's shared life is
//! observed, with the guard disarmed.

use std::any::Any;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};

/// Aborts the process when dropped while armed: on the stack of a frame
/// that must not be unwound through, from the point where another thread
/// may use its job until [`AbortOnUnwind::disarm`].
///
/// The normal path costs nothing: `disarm` forgets the guard, so only the
/// unwinding path (a landing pad) runs its `Drop`.
#[must_use = "a guard that is dropped at once protects nothing"]
pub(crate) struct AbortOnUnwind {
    /// What the frame is, for the message.
    what: &'static str,
}

impl AbortOnUnwind {
    /// Arms a guard for the frame described by `what` (e.g. "`join` while
    /// its second half may run on another worker").
    #[inline]
    pub(crate) fn new(what: &'static str) -> Self {
        AbortOnUnwind { what }
    }

    /// The frame no longer shares a job: unwinding it is sound again.
    #[inline]
    pub(crate) fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        abort(self.what);
    }
}

/// [`AbortOnUnwind`] for a `join` frame while its second half may run on
/// another worker: a type without data, so that arming it stores nothing
/// (`join` arms one per call, its landing pad alone reads the message).
#[must_use = "a guard that is dropped at once protects nothing"]
pub(crate) struct AbortOnUnwindJoin;

impl AbortOnUnwindJoin {
    /// The frame no longer shares its job: unwinding it is sound again.
    #[inline]
    pub(crate) fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for AbortOnUnwindJoin {
    fn drop(&mut self) {
        abort("`join` while its second half may run on another worker");
    }
}

/// Prints why and aborts the process.
#[cold]
#[inline(never)]
fn abort(what: &str) -> ! {
    say_and_abort(&format!(
        "locus: a panic unwound into {what}; another thread may still use a job in that \
         frame, so unwinding further would be unsound. Aborting the process. \
         (This is a bug in locus: please report it with the panic message above.)\n"
    ))
}

/// A panic with no caller (in `what`) could not be handled (`why`): prints
/// it and aborts the process, as rayon does. The panic hook has already
/// printed the panic itself.
#[cold]
#[inline(never)]
pub(crate) fn abort_unhandled(what: &str, why: &str) -> ! {
    say_and_abort(&format!(
        "locus: a panic in {what} was not handled: {why}. Aborting the process, as rayon does.\n"
    ))
}

/// Writes `msg` to stderr in one write, so that other threads' panic
/// messages (printed by the hook, piece by piece) cannot split it, then
/// aborts. Not `eprintln!`, which panics when stderr is closed.
fn say_and_abort(msg: &str) -> ! {
    let _ = std::io::stderr().write_all(msg.as_bytes());
    std::process::abort();
}

/// Drops a panic payload that nobody will receive. A payload's `Drop` may
/// itself panic; that second panic (already printed by the panic hook) is
/// caught here and its own payload leaked, so dropping never unwinds.
pub(crate) fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A payload whose `Drop` panics.
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("Bomb dropped");
        }
    }

    #[test]
    fn drop_payload_contains_a_panicking_drop() {
        let p = panic::catch_unwind(|| panic::panic_any(Bomb)).unwrap_err();
        drop_payload(p);
    }

    #[test]
    fn disarmed_guard_lets_panics_through() {
        let r = panic::catch_unwind(|| {
            let g = AbortOnUnwind::new("a test frame");
            g.disarm();
            panic!("after disarm");
        });
        assert!(r.is_err());
    }

    const VAR: &str = "LOCUS_ABORT_GUARD_CHILD";

    /// Child side of `armed_guard_aborts_with_a_message` (does nothing in
    /// an ordinary run).
    #[test]
    fn abort_guard_child() {
        if std::env::var_os(VAR).is_none() {
            return;
        }
        let _ = panic::catch_unwind(|| {
            let _g = AbortOnUnwind::new("a test frame that owns a job");
            panic!("escaping panic");
        });
        println!("not aborted");
    }

    #[test]
    fn armed_guard_aborts_with_a_message() {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "runtime::unwind::tests::abort_guard_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(VAR, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "child did not abort:\n{stdout}\n{stderr}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(out.status.signal(), Some(6), "SIGABRT expected: {stderr}");
        }
        assert!(!stdout.contains("not aborted"), "{stdout}");
        assert!(
            stderr.contains("locus: a panic unwound into a test frame that owns a job"),
            "{stderr}"
        );
    }
}
