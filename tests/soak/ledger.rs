//! The soak's ledger: every job handed to a pool owns a [`Token`] that
//! counts it as run or as dropped unrun (count and a checksum of ids), and
//! every call (`install`, `scope`, `join` tree) checks that its caller
//! sees a panic exactly when one of its own jobs raised one.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use crate::watch::TAGS;

/// The payload of every panic the soak raises on purpose.
pub(crate) struct SoakPanic;

/// What a token stands for (only `JoinB` may be dropped unrun).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    JoinA,
    JoinB,
    ScopeBody,
    ScopeJob,
    Detached,
    Install,
}

/// Counts of jobs and panics, for the whole process.
pub(crate) struct Ledger {
    pub(crate) next_id: AtomicU64,
    pub(crate) created: AtomicU64,
    pub(crate) created_sum: AtomicU64,
    pub(crate) ran: AtomicU64,
    pub(crate) ran_sum: AtomicU64,
    pub(crate) dropped: AtomicU64,
    pub(crate) dropped_sum: AtomicU64,
    /// Tokens of kinds other than `JoinB` dropped unrun.
    pub(crate) bad_drops: AtomicU64,
    /// `join` first halves that unwound (bound for dropped second halves).
    pub(crate) a_panics: AtomicU64,
    /// Calls in which one of their jobs panicked, and calls whose caller
    /// caught the panic.
    pub(crate) calls_raised: AtomicU64,
    pub(crate) calls_caught: AtomicU64,
    /// Detached panics raised per pool tag, and those the handlers saw.
    pub(crate) detached_raised: [AtomicU64; TAGS],
    pub(crate) handled: AtomicU64,
    /// Operations completed (for the watchdog) and wrong results.
    pub(crate) ops: AtomicU64,
    pub(crate) violations: Mutex<Vec<String>>,
}

pub(crate) static LEDGER: Ledger = Ledger {
    next_id: AtomicU64::new(0),
    created: AtomicU64::new(0),
    created_sum: AtomicU64::new(0),
    ran: AtomicU64::new(0),
    ran_sum: AtomicU64::new(0),
    dropped: AtomicU64::new(0),
    dropped_sum: AtomicU64::new(0),
    bad_drops: AtomicU64::new(0),
    a_panics: AtomicU64::new(0),
    calls_raised: AtomicU64::new(0),
    calls_caught: AtomicU64::new(0),
    detached_raised: [const { AtomicU64::new(0) }; TAGS],
    handled: AtomicU64::new(0),
    ops: AtomicU64::new(0),
    violations: Mutex::new(Vec::new()),
};

pub(crate) fn violation(msg: String) {
    let mut v = LEDGER.violations.lock().unwrap_or_else(|e| e.into_inner());
    // Keep the report readable if something goes wrong in a loop.
    if v.len() < 50 {
        v.push(msg);
    }
}

/// splitmix64: ids to checksum terms, and the per-job panic decision.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// One job handed to the pool: run once or dropped.
pub(crate) struct Token {
    pub(crate) id: u64,
    pub(crate) kind: Kind,
    done: bool,
}

impl Token {
    pub(crate) fn new(kind: Kind) -> Token {
        let id = LEDGER.next_id.fetch_add(1, Relaxed);
        LEDGER.created.fetch_add(1, Relaxed);
        LEDGER.created_sum.fetch_add(mix(id), Relaxed);
        Token {
            id,
            kind,
            done: false,
        }
    }

    /// Whether this job is one of the 5% that panic (decided by its id, so
    /// the same on every run of the soak).
    pub(crate) fn panics(&self) -> bool {
        mix(self.id ^ 0x5eed) % 100 < 5
    }

    /// Counts the run; returns [`Token::panics`].
    pub(crate) fn run(mut self) -> bool {
        self.done = true;
        LEDGER.ran.fetch_add(1, Relaxed);
        LEDGER.ran_sum.fetch_add(mix(self.id), Relaxed);
        self.panics()
    }
}

impl Drop for Token {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        LEDGER.dropped.fetch_add(1, Relaxed);
        LEDGER.dropped_sum.fetch_add(mix(self.id), Relaxed);
        if self.kind != Kind::JoinB {
            LEDGER.bad_drops.fetch_add(1, Relaxed);
            violation(format!("a {:?} job was dropped without running", self.kind));
        }
    }
}

/// One call (`install`, `scope`, `join` tree) whose caller must see a
/// panic exactly when one of its own jobs panicked.
#[derive(Default)]
pub(crate) struct Call {
    raised: AtomicUsize,
}

impl Call {
    /// A job of this call panics (after counting it).
    pub(crate) fn panic(&self) -> ! {
        self.raised.fetch_add(1, Relaxed);
        panic::panic_any(SoakPanic)
    }
}

/// Runs `f` as one call: catches its panic and checks it against what its
/// jobs raised. Nested calls are checked by their own `call`.
pub(crate) fn call<R>(what: &str, f: impl FnOnce(&Call) -> R) -> Option<R> {
    let c = Call::default();
    let r = panic::catch_unwind(AssertUnwindSafe(|| f(&c)));
    let raised = c.raised.load(Relaxed) > 0;
    if raised {
        LEDGER.calls_raised.fetch_add(1, Relaxed);
    }
    match r {
        Ok(v) => {
            if raised {
                violation(format!(
                    "{what}: a job panicked but the caller saw no panic"
                ));
            }
            Some(v)
        }
        Err(e) if e.is::<SoakPanic>() => {
            if raised {
                LEDGER.calls_caught.fetch_add(1, Relaxed);
            } else {
                violation(format!(
                    "{what}: the caller got a panic none of its jobs raised"
                ));
            }
            None
        }
        Err(e) => {
            violation(format!("{what}: unexpected panic: {}", payload_text(&*e)));
            None
        }
    }
}

pub(crate) fn payload_text(e: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string payload)".to_string()
    }
}
