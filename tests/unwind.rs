//! Panics that escape a job's `catch_unwind`, and groups that must not leak
//! into unrelated jobs (issue 8, items 2, 3 and 6).
//!
//! The unwinding scenarios run in a child process (this test binary run
//! again with `LOCUS_UNWIND_SCENARIO` naming the scenario), because before
//! the fix they hung, killed worker threads or aborted the process: the
//! parent turns a hang into a failure with a deadline and reports the
//! child's output. No timing assertions: deadlines only bound hangs.

use std::any::Any;
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use locus::{GroupOptions, ThreadPool, ThreadPoolBuilder, Topology};

mod common;
use common::work::virtual_pool;

/// The environment variable that selects a child scenario.
const SCENARIO_VAR: &str = "LOCUS_UNWIND_SCENARIO";
/// How long a child may run before the parent calls it hung: above
/// [`WAIT_DEADLINE`], which an aborting scenario sleeps through when its
/// abort does not come.
const CHILD_DEADLINE: Duration = Duration::from_secs(300);
/// How long a job waits for a condition that the pool's progress
/// guarantees before the test calls it a hang. Generous, as
/// `common::deadline::DEADLINE` is: ThreadSanitizer makes these tests about
/// 20 times slower, and a loaded 2-core machine stretches that again.
const WAIT_DEADLINE: Duration = Duration::from_secs(120);

/// A panic payload whose `Drop` panics: whoever drops it outside a
/// `catch_unwind` unwinds.
struct Bomb(usize);

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("Bomb({}) dropped", self.0);
    }
}

/// Panics with a [`Bomb`] payload.
fn throw_bomb(i: usize) -> ! {
    panic::panic_any(Bomb(i))
}

/// Checks that `p` is a `Bomb` and forgets it (dropping it would panic).
fn defuse(p: Box<dyn Any + Send>) -> usize {
    match p.downcast::<Bomb>() {
        Ok(b) => {
            let i = b.0;
            std::mem::forget(b);
            i
        }
        Err(other) => {
            let text = other
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| other.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "<not a string>".into());
            std::mem::forget(other);
            panic!("expected a Bomb payload, got: {text}")
        }
    }
}

/// Spins (yielding) until `flag` is set; false after [`WAIT_DEADLINE`].
fn wait_for(flag: &AtomicBool) -> bool {
    let deadline = Instant::now() + WAIT_DEADLINE;
    while !flag.load(Ordering::SeqCst) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

/// Waits (bounded) until the pool has counted `n` detached panics.
fn wait_for_detached_panics(pool: &ThreadPool, n: u64) {
    let deadline = Instant::now() + WAIT_DEADLINE;
    while pool.stats().total().detached_panics < n {
        assert!(
            Instant::now() < deadline,
            "detached panics not counted: {}",
            pool.stats()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The pool still has all its workers and serves work.
fn assert_pool_serves(pool: &ThreadPool) {
    let n = pool.current_num_threads();
    assert_eq!(pool.broadcast(|c| c.index()), (0..n).collect::<Vec<_>>());
    assert_eq!(pool.install(|| locus::join(|| 1, || 2)), (1, 2));
}

// ---------------------------------------------------------------------------
// Child scenarios.

/// Two scope jobs panic with payloads whose `Drop` panics: the scope ends
/// and resumes one of them; the other is dropped without unwinding into the
/// pool.
fn scope_two_bombs(threads: usize) {
    let pool = virtual_pool(&format!("core:{threads}"));
    let started = AtomicUsize::new(0);
    for _ in 0..20 {
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for i in 0..2 {
                    let started = &started;
                    s.spawn(move |_| {
                        started.fetch_add(1, Ordering::SeqCst);
                        throw_bomb(i)
                    });
                }
            })
        }));
        defuse(r.expect_err("the scope resumes a job's panic"));
    }
    assert_eq!(started.load(Ordering::SeqCst), 40);
    assert_pool_serves(&pool);
}

fn scope_two_bombs_one_thread() {
    scope_two_bombs(1)
}

fn scope_two_bombs_two_threads() {
    scope_two_bombs(2)
}

/// The scope body and a job both panic with bombs.
fn scope_body_and_job_bombs() {
    let pool = virtual_pool("core:2");
    for _ in 0..20 {
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                s.spawn(|_| throw_bomb(1));
                throw_bomb(0)
            })
        }));
        defuse(r.expect_err("the scope resumes a panic"));
    }
    assert_pool_serves(&pool);
}

/// Both halves of a `join` panic with bombs, `b` on another worker: `a`'s
/// panic reaches the caller; `b`'s is dropped without unwinding.
fn join_both_bombs() {
    let pool = virtual_pool("core:2");
    for _ in 0..20 {
        let b_started = AtomicBool::new(false);
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                locus::join(
                    || {
                        assert!(wait_for(&b_started), "b was never stolen");
                        throw_bomb(0)
                    },
                    || {
                        b_started.store(true, Ordering::SeqCst);
                        throw_bomb(1)
                    },
                )
            })
        }));
        assert_eq!(defuse(r.expect_err("join resumes a's panic")), 0);
    }
    assert_pool_serves(&pool);
}

/// A detached job panics and the pool has no panic handler: the process
/// aborts, as rayon's does (the parent checks how it ended).
fn detached_panic_without_handler() {
    let pool = virtual_pool("core:2");
    pool.spawn(|| panic!("a spawned job panics with no handler"));
    // Not reached when the pool aborts as it must.
    std::thread::sleep(WAIT_DEADLINE);
    drop(pool);
}

/// A panic handler that panics (with a bomb): the process aborts, as
/// rayon's does.
fn panic_handler_throws_bomb() {
    let pool = ThreadPoolBuilder::new()
        .topology(Topology::synthetic("core:2").unwrap())
        .panic_handler(|_| throw_bomb(7))
        .build()
        .unwrap();
    pool.spawn(|| panic!("detached"));
    std::thread::sleep(WAIT_DEADLINE);
    drop(pool);
}

/// A start handler that panics and no panic handler: the process aborts,
/// as rayon's does.
fn start_handler_panics_without_handler() {
    let pool = ThreadPoolBuilder::new()
        .topology(Topology::synthetic("core:2").unwrap())
        .start_handler(|i| panic!("start handler {i} panics with no handler"))
        .build()
        .unwrap();
    pool.pin_report();
    std::thread::sleep(WAIT_DEADLINE);
    drop(pool);
}

/// A builder whose panic handler takes start and exit handlers' bombs
/// (forgotten: dropping one would panic in the handler, which aborts).
/// One worker per PU, set (the environment may set a default count).
fn defusing(spec: &str) -> ThreadPoolBuilder {
    let t = Topology::synthetic(spec).unwrap();
    ThreadPoolBuilder::new()
        .num_threads(t.allowed().len())
        .topology(t)
        .panic_handler(|p| {
            defuse(p);
        })
}

/// A start handler that panics with a bomb, with a panic handler: every
/// worker still runs.
fn start_handler_throws_bomb() {
    let pool = defusing("core:2")
        .start_handler(|i| throw_bomb(i))
        .build()
        .unwrap();
    assert_pool_serves(&pool);
    pool.shutdown_and_wait().unwrap();
}

/// What `current_thread_index` said in each worker's thread-local
/// destructors, which run after the worker's main loop.
static SEEN_AT_THREAD_EXIT: Mutex<Vec<Option<usize>>> = Mutex::new(Vec::new());

struct RecordAtExit;

impl Drop for RecordAtExit {
    fn drop(&mut self) {
        SEEN_AT_THREAD_EXIT
            .lock()
            .unwrap()
            .push(locus::current_thread_index());
    }
}

std::thread_local! {
    static AT_EXIT: RecordAtExit = const { RecordAtExit };
}

/// An exit handler that panics with a bomb, with a panic handler: the
/// workers exit cleanly, and no worker's current pointer outlives its main
/// loop (thread-local destructors see no current worker).
fn exit_handler_throws_bomb() {
    let pool = defusing("core:2")
        .start_handler(|_| AT_EXIT.with(|_| {}))
        .exit_handler(|i| throw_bomb(i))
        .build()
        .unwrap();
    assert_pool_serves(&pool);
    pool.shutdown_and_wait().unwrap();
    assert_eq!(*SEEN_AT_THREAD_EXIT.lock().unwrap(), [None, None]);
}

const SCENARIOS: &[(&str, fn())] = &[
    ("scope_two_bombs_one_thread", scope_two_bombs_one_thread),
    ("scope_two_bombs_two_threads", scope_two_bombs_two_threads),
    ("scope_body_and_job_bombs", scope_body_and_job_bombs),
    ("join_both_bombs", join_both_bombs),
    (
        "detached_panic_without_handler",
        detached_panic_without_handler,
    ),
    ("panic_handler_throws_bomb", panic_handler_throws_bomb),
    (
        "start_handler_panics_without_handler",
        start_handler_panics_without_handler,
    ),
    ("start_handler_throws_bomb", start_handler_throws_bomb),
    ("exit_handler_throws_bomb", exit_handler_throws_bomb),
];

/// Printed by the child when its scenario returned.
const DONE: &str = "locus-unwind-scenario-done";

/// The child's entry point: runs the scenario named by [`SCENARIO_VAR`].
/// In an ordinary test run (variable unset) there is nothing to do here;
/// the parent tests below run every scenario.
#[test]
fn child_entry() {
    let Ok(name) = std::env::var(SCENARIO_VAR) else {
        return;
    };
    let (_, run) = SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("unknown scenario {name}"));
    run();
    println!("{DONE}");
}

/// How a child ended.
struct ChildOutcome {
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs scenario `name` in a child process; fails the test if it does not
/// end within [`CHILD_DEADLINE`].
fn run_child(name: &str) -> ChildOutcome {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(SCENARIO_VAR, name)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + CHILD_DEADLINE;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "scenario {name} hung (killed after {CHILD_DEADLINE:?});\nstdout:\n{}\nstderr:\n{}",
                out.join().unwrap(),
                err.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    ChildOutcome {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// Runs scenario `name` and requires it to finish normally.
fn scenario_finishes(name: &str) {
    let o = run_child(name);
    assert!(
        o.status.success() && o.stdout.contains(DONE),
        "scenario {name} did not finish: {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        o.stdout,
        o.stderr
    );
}

#[test]
fn scope_with_two_panics_whose_payload_drop_panics_ends_on_one_thread() {
    scenario_finishes("scope_two_bombs_one_thread");
}

#[test]
fn scope_with_two_panics_whose_payload_drop_panics_ends_on_two_threads() {
    scenario_finishes("scope_two_bombs_two_threads");
}

#[test]
fn scope_body_and_job_panic_with_payload_drop_panics() {
    scenario_finishes("scope_body_and_job_bombs");
}

#[test]
fn join_ignores_b_panic_whose_payload_drop_panics() {
    scenario_finishes("join_both_bombs");
}

/// `a` panics while another worker runs `b`: `join` resumes `a`'s panic
/// only after `b` has finished (the unwinding must not leave the frame
/// that holds `b` while `b` runs), and `b`'s value is dropped. `b` waits
/// until `a` is unwinding, so the order is forced, not timed.
#[test]
fn a_panic_waits_for_the_stolen_b_before_it_leaves_join() {
    /// Sets its flag when dropped: in `a`, while `a`'s panic unwinds.
    struct SetOnDrop<'a>(&'a AtomicBool);
    impl Drop for SetOnDrop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let pool = virtual_pool("core:2");
    for _ in 0..20 {
        let (b_started, a_unwinding, b_done) = <(AtomicBool, AtomicBool, AtomicBool)>::default();
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                locus::join(
                    || {
                        let _unwinding = SetOnDrop(&a_unwinding);
                        assert!(wait_for(&b_started), "b was never stolen");
                        panic!("a panics")
                    },
                    || {
                        b_started.store(true, Ordering::SeqCst);
                        assert!(wait_for(&a_unwinding), "a never unwound");
                        b_done.store(true, Ordering::SeqCst);
                        vec![1, 2, 3]
                    },
                )
            })
        }));
        let payload = r.expect_err("join resumes a's panic");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"a panics"));
        assert!(
            b_done.load(Ordering::SeqCst),
            "join returned before b finished"
        );
    }
    assert_pool_serves(&pool);
}

/// Runs scenario `name` and requires it to abort (SIGABRT on Unix) with
/// each of `messages` on its stderr.
fn scenario_aborts(name: &str, messages: &[&str]) {
    let o = run_child(name);
    let report = format!(
        "scenario {name}: {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status, o.stdout, o.stderr
    );
    assert!(!o.status.success() && !o.stdout.contains(DONE), "{report}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(o.status.signal(), Some(libc::SIGABRT), "{report}");
    }
    for m in messages {
        assert!(o.stderr.contains(m), "no {m:?} on stderr: {report}");
    }
}

#[test]
fn a_spawned_job_panicking_without_a_panic_handler_aborts_the_process() {
    scenario_aborts(
        "detached_panic_without_handler",
        &[
            // Printed by the panic hook, then by locus before aborting.
            "a spawned job panics with no handler",
            "locus: a panic in a spawned job was not handled",
        ],
    );
}

#[test]
fn a_panicking_panic_handler_aborts_the_process() {
    scenario_aborts(
        "panic_handler_throws_bomb",
        &["the pool's panic handler panicked too"],
    );
}

#[test]
fn a_panicking_start_handler_without_a_panic_handler_aborts_the_process() {
    scenario_aborts(
        "start_handler_panics_without_handler",
        &[
            "panics with no handler",
            "locus: a panic in a start or exit handler was not handled",
        ],
    );
}

#[test]
fn panicking_start_handler_goes_to_the_panic_handler() {
    scenario_finishes("start_handler_throws_bomb");
}

#[test]
fn panicking_exit_handler_goes_to_the_panic_handler_and_current_is_reset() {
    scenario_finishes("exit_handler_throws_bomb");
}

// ---------------------------------------------------------------------------
// Detached panics are counted (item 6).

#[test]
fn detached_panics_are_counted_and_shown_in_the_stats_table() {
    let pool = ThreadPoolBuilder::new()
        .topology(Topology::synthetic("core:1").unwrap())
        .panic_handler(drop)
        .build()
        .unwrap();
    for _ in 0..3 {
        pool.spawn(|| panic!("detached, to the panic handler"));
    }
    wait_for_detached_panics(&pool, 3);
    assert_eq!(pool.install(|| 5), 5, "the pool keeps serving");
    let table = pool.stats().to_string();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    let col = header
        .iter()
        .position(|h| *h == "panics")
        .unwrap_or_else(|| panic!("no panics column:\n{table}"));
    let total: Vec<&str> = lines
        .find(|l| l.trim_start().starts_with("total"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(total.len(), header.len(), "{table}");
    assert_eq!(total[col], "3", "{table}");
}

// ---------------------------------------------------------------------------
// Groups do not leak into unrelated jobs (item 3).

/// What the unrelated job that a worker waiting in a group job runs is.
#[derive(Clone, Copy, Debug)]
enum Unrelated {
    /// A plain `spawn` from a thread outside the pool.
    Spawn,
    /// An `install` from a thread outside the pool.
    Install,
    /// The stolen second half of a plain `join` on another worker.
    StolenJoinHalf,
}

/// A group scope on worker X holds a job Y that blocks on worker Y until
/// `child` ran. X waits in the scope and runs the unrelated job (X is the
/// only worker free for it), which spawns `child`: `child` must be a plain
/// job, so the group counts the scope body and Y only.
fn group_does_not_leak(kind: Unrelated) {
    // Spawn and Install: two workers (X and Y). StolenJoinHalf: a third,
    // busy in the join's first half while X steals the second.
    let threads = match kind {
        Unrelated::StolenJoinHalf => 3,
        _ => 2,
    };
    let pool = virtual_pool(&format!("core:{threads}"));
    let g = pool.group(GroupOptions::new()).unwrap();
    let y_started = AtomicBool::new(false);
    let a_started = AtomicBool::new(false);
    let b_ran = AtomicBool::new(false);
    let child_ran = std::sync::Arc::new(AtomicBool::new(false));
    let child = {
        let c = child_ran.clone();
        move || c.store(true, Ordering::SeqCst)
    };
    std::thread::scope(|ts| {
        let unrelated = ts.spawn(|| {
            assert!(wait_for(&y_started), "Y never started");
            match kind {
                Unrelated::Spawn => pool.spawn(move || locus::spawn(child)),
                Unrelated::Install => pool.install(move || locus::spawn(child)),
                Unrelated::StolenJoinHalf => pool.install(|| {
                    locus::join(
                        || {
                            a_started.store(true, Ordering::SeqCst);
                            assert!(wait_for(&b_ran), "b was never stolen");
                        },
                        || {
                            locus::spawn(child);
                            b_ran.store(true, Ordering::SeqCst);
                        },
                    );
                }),
            }
        });
        g.scope(|s| {
            s.spawn(|_| {
                y_started.store(true, Ordering::SeqCst);
                assert!(wait_for(&child_ran), "the unrelated job's child never ran");
            });
            // Stay busy until Y runs on another worker (and, for the join,
            // until the third worker is in `a`), so that only this worker
            // is free for the unrelated job once it waits in the scope.
            assert!(wait_for(&y_started), "Y was never stolen");
            if let Unrelated::StolenJoinHalf = kind {
                assert!(wait_for(&a_started), "the join never started");
            }
        });
        unrelated.join().unwrap();
    });
    let st = g.stats();
    assert_eq!(
        st.total(),
        2,
        "{kind:?}: the group counts its scope body and Y only: {st}"
    );
}

#[test]
fn group_does_not_leak_into_a_plain_spawn() {
    group_does_not_leak(Unrelated::Spawn);
}

#[test]
fn group_does_not_leak_into_an_install() {
    group_does_not_leak(Unrelated::Install);
}

#[test]
fn group_does_not_leak_into_a_stolen_join_half() {
    group_does_not_leak(Unrelated::StolenJoinHalf);
}

/// The same with a plain scope job spawned inside the group scope through
/// `outside_group`, on a single worker: deterministic, the worker runs it
/// while it waits in the group's scope.
#[test]
fn group_does_not_leak_into_a_plain_scope_job_on_one_worker() {
    let pool = virtual_pool("core:1");
    let g = pool.group(GroupOptions::new()).unwrap();
    let ran = AtomicUsize::new(0);
    g.scope(|s| {
        locus::outside_group(|| {
            s.spawn(|s| {
                // Spawned from a plain job: plain too.
                s.spawn(|_| {
                    ran.fetch_add(1, Ordering::SeqCst);
                });
                locus::scope(|s2| {
                    s2.spawn(|_| {
                        ran.fetch_add(1, Ordering::SeqCst);
                    });
                });
            })
        });
    });
    assert_eq!(ran.load(Ordering::SeqCst), 2);
    let st = g.stats();
    assert_eq!(st.total(), 1, "only the scope body is the group's: {st}");
}
