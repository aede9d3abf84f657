//! rayon-core's `init_zero_threads` and `double_init_fail`, and the global
//! pool built on first use from a bad environment (issue 10). The global
//! pool exists once per process: one test builds it here, the others run
//! in child processes.

use std::error::Error;
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
}

/// Set in the child processes of [`implicit_global_pool_child`].
const CHILD: &str = "LOCUS_GLOBAL_ENV_CHILD";

/// Runs [`implicit_global_pool_child`] with `env` and returns its stderr.
fn run_child(env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "implicit_global_pool_child",
        "--nocapture",
        "--test-threads=1",
    ]);
    // The child sees only the variables given here.
    for (k, _) in std::env::vars_os() {
        if k.to_str()
            .is_some_and(|k| k.starts_with("LOCUS_") || k == "RAYON_NUM_THREADS")
        {
            cmd.env_remove(k);
        }
    }
    cmd.env(CHILD, "1").envs(env.iter().copied());
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "child failed: {stderr}");
    stderr
}

/// In a child: uses the global pool without building it, and reports its
/// size on stderr.
#[test]
fn implicit_global_pool_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    assert_eq!(locus::join(|| 1, || 2), (1, 2));
    eprintln!("global pool size: {}", locus::current_num_threads());
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
