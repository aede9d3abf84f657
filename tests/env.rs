//! Environment variables of the builder. One test function, because the
//! environment is process-wide and tests in one binary run in parallel.

use locus::{BuildError, ThreadPoolBuilder};

fn set(var: &str, value: Option<&str>) {
    // SAFETY: this binary has a single test, so no other thread reads or
    // writes the environment meanwhile (worker threads do not touch it).
    unsafe {
        match value {
            Some(v) => std::env::set_var(var, v),
            None => std::env::remove_var(var),
        }
    }
}

fn build_err() -> BuildError {
    ThreadPoolBuilder::new()
        .build()
        .expect_err("build must fail")
}

#[test]
fn env_vars() {
    for v in [
        "LOCUS_NUM_THREADS",
        "RAYON_NUM_THREADS",
        "RAYON_RS_NUM_CPUS",
        "LOCUS_PINNING",
        "LOCUS_TOPOLOGY",
        "LOCUS_CLUSTER",
    ] {
        set(v, None);
    }

    // Invalid values: a typed error naming the variable and what is accepted.
    let invalid = [
        ("LOCUS_NUM_THREADS", "four", "non-negative integer"),
        ("LOCUS_NUM_THREADS", "-1", "non-negative integer"),
        ("LOCUS_PINNING", "socket", "cluster, core, cpu, none"),
        ("LOCUS_CLUSTER", "yes", "0, 1"),
    ];
    for (var, value, accepted) in invalid {
        set(var, Some(value));
        match build_err() {
            BuildError::Env {
                var: v,
                value: val,
                accepted: acc,
            } => {
                assert_eq!((v, val.as_str()), (var, value));
                assert!(acc.contains(accepted), "{acc}");
            }
            e => panic!("unexpected error {e:?}"),
        }
        let msg = build_err().to_string();
        assert!(
            msg.contains(var) && msg.contains(value) && msg.contains(accepted),
            "{msg}"
        );
        set(var, None);
    }
    // A value that is not UTF-8 is as invalid as any other (issue 26).
    #[cfg(unix)]
    for var in [
        "LOCUS_NUM_THREADS",
        "LOCUS_PINNING",
        "LOCUS_TOPOLOGY",
        "LOCUS_CPUS",
    ] {
        use std::os::unix::ffi::OsStrExt;
        let raw = std::ffi::OsStr::from_bytes(b"4\xff");
        // SAFETY: as in `set`.
        unsafe { std::env::set_var(var, raw) };
        match build_err() {
            BuildError::Env { var: v, value, .. } => {
                assert_eq!((v, value.as_str()), (var, "4\u{fffd}"));
            }
            e => panic!("{var}: unexpected error {e:?}"),
        }
        set(var, None);
    }

    set("LOCUS_TOPOLOGY", Some("llc:2 gpu:3"));
    let e = build_err();
    assert!(matches!(e, BuildError::Topology(_)), "{e:?}");
    assert!(e.to_string().contains("LOCUS_TOPOLOGY"), "{e}");
    set("LOCUS_TOPOLOGY", None);

    // Valid values apply where the builder left the default.
    set("LOCUS_NUM_THREADS", Some("3"));
    let p = ThreadPoolBuilder::new().build().unwrap();
    assert_eq!(p.current_num_threads(), 3);
    let p = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(
        p.current_num_threads(),
        2,
        "the builder wins over the environment"
    );
    set("LOCUS_NUM_THREADS", None);

    set("LOCUS_TOPOLOGY", Some("llc:2 cluster:2 core:2"));
    set("LOCUS_CLUSTER", Some("0"));
    set("LOCUS_PINNING", Some("cpu"));
    let p = ThreadPoolBuilder::new().build().unwrap();
    assert_eq!(p.current_num_threads(), 8);
    let o = p.layout().options();
    assert!(o.virtual_topology && !o.cluster_aware);
    assert_eq!(o.pinning, locus::Pinning::Cpu);
    assert!(
        p.pin_report()
            .iter()
            .all(|s| *s == locus::PinStatus::NotRequested),
        "virtual: never pinned"
    );
    assert_eq!(p.install(|| locus::join(|| 1, || 2)), (1, 2));

    // RAYON_NUM_THREADS, when LOCUS_NUM_THREADS is unset, with rayon's
    // reading: 0 and garbage mean the default (garbage is no error).
    set("LOCUS_TOPOLOGY", Some("core:2"));
    set("RAYON_NUM_THREADS", Some("3"));
    assert_eq!(
        ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads(),
        3
    );
    set("LOCUS_NUM_THREADS", Some("4"));
    assert_eq!(
        ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads(),
        4,
        "LOCUS_NUM_THREADS wins over RAYON_NUM_THREADS"
    );
    set("LOCUS_NUM_THREADS", None);
    for ignored in ["0", "lots", "-2"] {
        set("RAYON_NUM_THREADS", Some(ignored));
        assert_eq!(
            ThreadPoolBuilder::new()
                .build()
                .unwrap()
                .current_num_threads(),
            2
        );
    }
    // rayon's old name, read as rayon reads it: after RAYON_NUM_THREADS,
    // also when that one is not a number; a bad value is no error.
    set("RAYON_RS_NUM_CPUS", Some("5"));
    for (rnt, want) in [(None, 5), (Some("x"), 5), (Some("3"), 3), (Some("0"), 2)] {
        set("RAYON_NUM_THREADS", rnt);
        let n = ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads();
        assert_eq!(n, want, "RAYON_NUM_THREADS={rnt:?}");
    }
    set("RAYON_NUM_THREADS", None);
    set("RAYON_RS_NUM_CPUS", Some("many"));
    assert_eq!(
        ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads(),
        2
    );
    set("RAYON_RS_NUM_CPUS", None);
    set("RAYON_NUM_THREADS", None);
    set("LOCUS_TOPOLOGY", None);

    // Empty values count as unset.
    for v in [
        "LOCUS_NUM_THREADS",
        "LOCUS_PINNING",
        "LOCUS_TOPOLOGY",
        "LOCUS_CLUSTER",
    ] {
        set(v, Some(""));
    }
    assert!(ThreadPoolBuilder::new().num_threads(1).build().is_ok());

    // The global pool: built once; a second build_global fails with a typed error.
    set("LOCUS_NUM_THREADS", Some("2"));
    ThreadPoolBuilder::new().build_global().unwrap();
    assert_eq!(locus::current_num_threads(), 2);
    let again = ThreadPoolBuilder::new().build_global().unwrap_err();
    assert!(matches!(again, BuildError::GlobalAlreadyInitialized));
    assert_eq!(
        again.to_string(),
        "The global thread pool has already been initialized."
    );
}
