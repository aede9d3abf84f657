//! rayon-core's integration tests (`tests/*.rs`): `scope_join`,
//! `scoped_threadpool`, `simple_panic`, `stack_overflow_crash`.
//! (`use_current_thread` is in `builder.rs`; `init_zero_threads` and
//! `double_init_fail` need a global pool of their own:
//! `tests/rayon_core_global.rs`.)

#[cfg(unix)]
use std::process::{Command, ExitStatus, Stdio};

use locus::ThreadPoolBuilder;

// ---- scope_join -------------------------------------------------------------

/// `join` written with a scope.
fn scope_join(f: impl FnOnce() + Send, g: impl FnOnce() + Send) {
    locus::scope(|s| {
        s.spawn(|_| g());
        f();
    });
}

fn quick_sort(v: &mut [i32]) {
    if v.len() <= 1 {
        return;
    }
    let mid = crate::partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    scope_join(|| quick_sort(lo), || quick_sort(hi));
}

#[test]
fn scope_join_sorts() {
    let mut v: Vec<i32> = (0..256).rev().collect();
    quick_sort(&mut v);
    assert!(v.windows(2).all(|w| w[0] <= w[1]));
}

// ---- scoped_threadpool ------------------------------------------------------

#[derive(PartialEq, Eq, Debug)]
struct Local(i32);

scoped_tls::scoped_thread_local!(static LOCAL: Local);

#[test]
fn missing_scoped_tls() {
    LOCAL.set(&Local(42), || {
        let pool = ThreadPoolBuilder::new().build().unwrap();
        // Set on this thread only, not on the workers.
        pool.install(|| assert!(!LOCAL.is_set()));
    });
}

#[test]
fn spawn_scoped_tls_threadpool() {
    LOCAL.set(&Local(42), || {
        LOCAL.with(|x| {
            std::thread::scope(|scope| {
                let pool = ThreadPoolBuilder::new()
                    .spawn_handler(move |thread| {
                        std::thread::Builder::new()
                            .spawn_scoped(scope, move || LOCAL.set(x, || thread.run()))
                            .map(|_| ())
                    })
                    .build()
                    .expect("pool built");
                // The workers see the value they were started with...
                pool.install(|| LOCAL.with(|y| assert_eq!(x, y)));
                // ...whatever this thread sets meanwhile.
                LOCAL.set(&Local(-1), || {
                    pool.install(|| LOCAL.with(|y| assert_eq!(x, y)))
                });
                // Dropped before the scope ends, which joins the threads.
            });
        });
    });
}

#[test]
fn build_scoped_tls_threadpool() {
    LOCAL.set(&Local(42), || {
        LOCAL.with(|x| {
            ThreadPoolBuilder::new()
                .build_scoped(
                    move |thread| LOCAL.set(x, || thread.run()),
                    |pool| {
                        pool.install(|| LOCAL.with(|y| assert_eq!(x, y)));
                        LOCAL.set(&Local(-1), || {
                            pool.install(|| LOCAL.with(|y| assert_eq!(x, y)))
                        });
                    },
                )
                .expect("pool built");
        });
    });
}

// ---- simple_panic -----------------------------------------------------------

#[test]
#[should_panic(expected = "should panic")]
fn simple_panic() {
    locus::join(|| {}, || panic!("should panic"));
}

// ---- stack_overflow_crash ---------------------------------------------------

/// Recurses `depth` times with a 1 MiB frame each.
fn overflow(depth: u32) {
    let mut buffer = [0u8; 1024 * 1024];
    std::hint::black_box(&mut buffer);
    if depth > 0 {
        overflow(depth - 1);
    }
}

/// Set in the child that [`run_child`] starts: the stack tests below do
/// their work only there (they return at once in a normal test run, also
/// under `--ignored`, which CI uses for the fixture tests).
const CHILD: &str = "LOCUS_STACK_OVERFLOW_CHILD";

/// Runs the test `name` of this binary in a child process.
#[cfg(unix)]
fn run_child(name: &str) -> ExitStatus {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name])
        .env(CHILD, "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
}

/// A stack overflow on a worker crashes the process (as any thread's
/// does), and a big enough `stack_size` avoids it.
#[cfg(unix)]
#[test]
fn stack_overflow_crash() {
    use std::os::unix::process::ExitStatusExt;
    let small = run_child("integration::run_with_small_stack");
    assert!(!small.success());
    assert_eq!(small.code(), None, "killed by a signal, not exited");
    assert!(
        matches!(small.signal(), Some(libc::SIGABRT | libc::SIGSEGV)),
        "{small:?}"
    );
    let large = run_child("integration::run_with_large_stack");
    assert_eq!(large.code(), Some(0), "{large:?}");
}

fn run_with_stack(mib: usize) {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let pool = ThreadPoolBuilder::new()
        .stack_size(mib * 1024 * 1024)
        .build()
        .unwrap();
    pool.install(|| {
        // No core dump for the crash on purpose.
        #[cfg(unix)]
        // SAFETY: a plain setrlimit call with a valid struct.
        unsafe {
            libc::setrlimit(
                libc::RLIMIT_CORE,
                &libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                },
            );
        }
        overflow(32);
    });
}

/// Child of `stack_overflow_crash` (a no-op elsewhere).
#[test]
fn run_with_small_stack() {
    run_with_stack(8);
}

/// Child of `stack_overflow_crash` (a no-op elsewhere).
#[test]
fn run_with_large_stack() {
    run_with_stack(48);
}
