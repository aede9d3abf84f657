//! Turning a hang into a test failure.

use std::panic;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// How long a test body may run before it counts as hung. Generous on
/// purpose: the slowest body (a `find_last` over a nested octillion in a
/// debug build) needs 10 to 20 s of CPU, as much as rayon needs for the
/// same search, and a test must still pass when a loaded 2-core machine
/// gives it a small share of a core. A real hang never finishes, so a long
/// deadline only delays its report.
pub const DEADLINE: Duration = Duration::from_secs(300);

/// Runs `f` on its own thread and returns its result; panics if it has not
/// finished within [`DEADLINE`] (the thread is left behind), and resumes
/// its panic if it panicked.
pub fn within_deadline<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    within_deadline_or(what, String::new, f)
}

/// [`within_deadline`], and on a hang `on_hang` runs first (to leak what
/// must not be dropped while the thread is stuck, say) and its text ends
/// the panic message (a pool's stats table, say).
pub fn within_deadline_or<T: Send + 'static>(
    what: &str,
    on_hang: impl FnOnce() -> String,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    let h = thread::spawn(move || {
        let r = f();
        let _ = tx.send(());
        r
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(()) => h.join().unwrap(),
        Err(RecvTimeoutError::Disconnected) => match h.join() {
            Ok(r) => r,
            Err(p) => panic::resume_unwind(p),
        },
        Err(RecvTimeoutError::Timeout) => {
            let more = on_hang();
            panic!("{what}: still running after {DEADLINE:?} (hung)\n{more}")
        }
    }
}
