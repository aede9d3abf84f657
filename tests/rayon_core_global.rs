//! rayon-core's `init_zero_threads` and `double_init_fail`, the global
//! pool built on first use from a bad environment (issues 10 and 26), and
//! `build_global`'s wait for its workers (issue 27). The global pool exists
//! once per process: one test builds it here, the others run in child
//! processes.

use std::error::Error;
use std::ffi::OsString;
use std::process::Command;

use locus::{BuildError, ThreadPoolBuilder};

/// `init_zero_threads` then `double_init_fail`: zero threads is the
/// default, and a second `build_global` fails without building anything.
#[test]
fn init_zero_threads_then_double_init_fails() {
    if std::env::var_os(CHILD).is_some() {
        return; // a child runs only its own test
    }
    ThreadPoolBuilder::new()
        .num_threads(0)
        .build_global()
        .unwrap();
    assert!(locus::current_num_threads() >= 1);
    let err = ThreadPoolBuilder::new().build_global().unwrap_err();
    assert!(
        matches!(err, BuildError::GlobalAlreadyInitialized),
        "{err:?}"
    );
    assert!(err.source().is_none());
    // Word for word rayon's message (its `double_init_fail` compares it).
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
}

/// Set in the child processes of [`implicit_global_pool_child`].
const CHILD: &str = "LOCUS_GLOBAL_ENV_CHILD";

/// Runs [`implicit_global_pool_child`] with `env` and returns its stderr.
fn run_child(env: &[(&str, &str)]) -> String {
    let env: Vec<(&str, OsString)> = env.iter().map(|&(k, v)| (k, v.into())).collect();
    run_child_os("implicit", &env)
}

/// Runs the child scenario `scenario` (see [`implicit_global_pool_child`])
/// with `env`, values of any encoding, and returns its stderr.
fn run_child_os(scenario: &str, env: &[(&str, OsString)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "implicit_global_pool_child",
        "--nocapture",
        "--test-threads=1",
    ]);
    // The child sees only the variables given here.
    for (k, _) in std::env::vars_os() {
        if k.to_str().is_some_and(|k| {
            k.starts_with("LOCUS_") || k == "RAYON_NUM_THREADS" || k == "RAYON_RS_NUM_CPUS"
        }) {
            cmd.env_remove(k);
        }
    }
    cmd.env(CHILD, scenario)
        .envs(env.iter().map(|(k, v)| (k, v)));
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "child failed: {stderr}");
    stderr
}

/// In a child: scenario `implicit` uses the global pool without building
/// it and reports its size on stderr; `build_global_waits` builds it with
/// a spawn handler whose threads start late, and reports how many had
/// called `run` when `build_global` returned.
#[test]
fn implicit_global_pool_child() {
    match std::env::var(CHILD).as_deref() {
        Ok("implicit") => {
            assert_eq!(locus::join(|| 1, || 2), (1, 2));
            eprintln!("global pool size: {}", locus::current_num_threads());
        }
        Ok("build_global_waits") => {
            use std::sync::Arc;
            use std::sync::atomic::{AtomicUsize, Ordering};
            let entered = Arc::new(AtomicUsize::new(0));
            let e = Arc::clone(&entered);
            ThreadPoolBuilder::new()
                .num_threads(3)
                .spawn_handler(move |thread| {
                    let e = Arc::clone(&e);
                    std::thread::spawn(move || {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        e.fetch_add(1, Ordering::SeqCst);
                        thread.run();
                    });
                    Ok(())
                })
                .build_global()
                .unwrap();
            eprintln!("started at return: {}", entered.load(Ordering::SeqCst));
        }
        _ => {}
    }
}

fn size_line(stderr: &str) -> usize {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("global pool size: "))
        .expect(stderr);
    line["global pool size: ".len()..].trim().parse().unwrap()
}

#[test]
fn a_bad_variable_is_one_warning_and_the_default() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let stderr = run_child(&[
        ("LOCUS_PINNING", "socket"),
        ("LOCUS_CLUSTER", "yes"),
        ("LOCUS_TOPOLOGY", "core:3"),
    ]);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("locus: "))
        .collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    let pinning = warnings
        .iter()
        .find(|l| l.contains("LOCUS_PINNING"))
        .expect(&stderr);
    assert!(
        pinning.contains("socket") && pinning.contains("cluster, core, cpu, none"),
        "{pinning}"
    );
    let cluster = warnings
        .iter()
        .find(|l| l.contains("LOCUS_CLUSTER"))
        .expect(&stderr);
    assert!(cluster.contains("0, 1"), "{cluster}");
    // The valid variable still applies.
    assert_eq!(size_line(&stderr), 3);
}

#[test]
fn rayon_num_threads_sizes_the_global_pool() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let stderr = run_child(&[("RAYON_NUM_THREADS", "3"), ("LOCUS_TOPOLOGY", "core:2")]);
    assert_eq!(size_line(&stderr), 3);
    assert!(!stderr.contains("locus: "), "{stderr}");
    // LOCUS_NUM_THREADS wins.
    let stderr = run_child(&[
        ("RAYON_NUM_THREADS", "3"),
        ("LOCUS_NUM_THREADS", "5"),
        ("LOCUS_TOPOLOGY", "core:2"),
    ]);
    assert_eq!(size_line(&stderr), 5);
    // Garbage in RAYON_NUM_THREADS is ignored silently, as rayon does.
    let stderr = run_child(&[("RAYON_NUM_THREADS", "lots"), ("LOCUS_TOPOLOGY", "core:2")]);
    assert_eq!(size_line(&stderr), 2);
    assert!(!stderr.contains("locus: "), "{stderr}");
}

/// rayon's `build_global` returns once every worker thread has started
/// (`wait_until_primed`); so does locus's, also when the threads start
/// late.
#[test]
fn build_global_returns_once_the_workers_started() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let stderr = run_child_os("build_global_waits", &[]);
    assert!(stderr.contains("started at return: 3"), "{stderr}");
}

/// Issue 26: a `LOCUS_TOPOLOGY` with more workers than the process can
/// start is one warning naming it, then the default pool, not a panic in
/// every `join`. Its 65,536 workers need more memory mappings than a
/// default `vm.max_map_count` allows; on a machine that allows them the
/// case cannot be made without starting them, and the test says so.
#[cfg(target_os = "linux")]
#[test]
fn a_topology_too_big_for_the_machine_is_one_warning_and_the_default() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let map_count: usize = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(usize::MAX);
    if map_count / 4 >= 65536 {
        eprintln!("vm.max_map_count = {map_count} fits 65536 threads: case not made here");
        return;
    }
    let stderr = run_child(&[("LOCUS_TOPOLOGY", "numa:4 llc:16 core:1024")]);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("locus: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("LOCUS_TOPOLOGY") && warnings[0].contains("65536"),
        "{}",
        warnings[0]
    );
    // The default is a child's without the variables (this process's
    // environment may set a count of its own).
    let default = size_line(&run_child(&[]));
    assert_eq!(size_line(&stderr), default);
}

/// Issue 26: a `LOCUS_*` value that is not UTF-8 is invalid like any other
/// (one warning naming the variable, then the default); a `RAYON_*` one is
/// ignored silently, as rayon ignores it.
#[cfg(unix)]
#[test]
fn values_that_are_not_utf8() {
    use std::os::unix::ffi::OsStringExt;
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let bad = || OsString::from_vec(b"core:\xff".to_vec());
    let stderr = run_child_os(
        "implicit",
        &[
            ("LOCUS_TOPOLOGY", "core:3".into()),
            ("LOCUS_PINNING", bad()),
        ],
    );
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("locus: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("LOCUS_PINNING"), "{}", warnings[0]);
    assert_eq!(size_line(&stderr), 3, "the valid variable still applies");
    let stderr = run_child_os(
        "implicit",
        &[
            ("LOCUS_TOPOLOGY", "core:3".into()),
            ("RAYON_NUM_THREADS", bad()),
        ],
    );
    assert!(!stderr.contains("locus: "), "{stderr}");
    assert_eq!(size_line(&stderr), 3);
}

/// rayon's deprecated `RAYON_RS_NUM_CPUS` sizes the global pool when
/// `RAYON_NUM_THREADS` does not (unset or not a number), as in rayon.
#[test]
fn rayon_rs_num_cpus_sizes_the_global_pool() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let core2 = ("LOCUS_TOPOLOGY", "core:2");
    let stderr = run_child(&[core2, ("RAYON_RS_NUM_CPUS", "3")]);
    assert_eq!(size_line(&stderr), 3);
    let stderr = run_child(&[
        core2,
        ("RAYON_NUM_THREADS", "x"),
        ("RAYON_RS_NUM_CPUS", "3"),
    ]);
    assert_eq!(size_line(&stderr), 3);
    assert!(!stderr.contains("locus: "), "{stderr}");
    // RAYON_NUM_THREADS wins, and its 0 means the default (rayon's reading).
    let stderr = run_child(&[
        core2,
        ("RAYON_NUM_THREADS", "4"),
        ("RAYON_RS_NUM_CPUS", "3"),
    ]);
    assert_eq!(size_line(&stderr), 4);
    let stderr = run_child(&[
        core2,
        ("RAYON_NUM_THREADS", "0"),
        ("RAYON_RS_NUM_CPUS", "3"),
    ]);
    assert_eq!(size_line(&stderr), 2);
}
