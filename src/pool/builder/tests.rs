//! The builder's resolution of settings and environment.

use super::super::env::tests::env_of;
use super::*;
use crate::layout::MAX_WORKERS;
use crate::runtime::error::BuildError;

#[test]
fn env_errors_name_the_variable() {
    let cases: [(&[(&str, &str)], &str); 7] = [
        (&[("LOCUS_CPUS", "0-x")], "LOCUS_CPUS"),
        (
            &[("LOCUS_TOPOLOGY", "core:4"), ("LOCUS_CPUS", "2-9")],
            "LOCUS_CPUS",
        ),
        (&[("LOCUS_SMT", "off")], "LOCUS_SMT"),
        (&[("LOCUS_NUM_THREADS", "many")], "LOCUS_NUM_THREADS"),
        (&[("LOCUS_PINNING", "socket")], "LOCUS_PINNING"),
        (&[("LOCUS_CLUSTER", "yes")], "LOCUS_CLUSTER"),
        (&[("LOCUS_TOPOLOGY", "llc:x")], "LOCUS_TOPOLOGY"),
    ];
    for (pairs, var) in cases {
        let e = ThreadPoolBuilder::new()
            .resolve(&env_of(pairs))
            .err()
            .expect("must fail");
        let msg = e.to_string();
        assert!(msg.contains(var), "{msg}");
    }
}

#[test]
fn pinning_env_lists_the_parsed_names() {
    let e = ThreadPoolBuilder::new()
        .resolve(&env_of(&[("LOCUS_PINNING", "socket")]))
        .err()
        .expect("must fail");
    match e {
        BuildError::Env { accepted, .. } => assert_eq!(accepted, Pinning::NAMES.join(", ")),
        e => panic!("unexpected error {e:?}"),
    }
}

#[test]
fn builder_wins_over_env() {
    let cfg = ThreadPoolBuilder::new()
        .num_threads(3)
        .topology(Topology::synthetic("core:4").unwrap())
        .resolve(&env_of(&[
            ("LOCUS_NUM_THREADS", "bad"),
            ("LOCUS_TOPOLOGY", "bad"),
        ]))
        .unwrap()
        .0;
    assert_eq!(cfg.layout.workers().len(), 3);
    assert!(cfg.layout.options().virtual_topology);
}

#[test]
fn counts_above_the_maximum_are_capped() {
    let resolved = |b: ThreadPoolBuilder, pairs: &[(&str, &str)]| {
        b.resolve(&env_of(pairs)).unwrap().0.layout.workers().len()
    };
    let core2 = || ThreadPoolBuilder::new().topology(Topology::synthetic("core:2").unwrap());
    assert_eq!(
        resolved(core2().num_threads(MAX_WORKERS + 1), &[]),
        MAX_WORKERS
    );
    assert_eq!(resolved(core2().num_threads(usize::MAX), &[]), MAX_WORKERS);
    assert_eq!(
        resolved(core2(), &[("LOCUS_NUM_THREADS", "1000000")]),
        MAX_WORKERS
    );
    assert_eq!(
        resolved(core2(), &[("RAYON_NUM_THREADS", "1000000")]),
        MAX_WORKERS
    );
    assert_eq!(crate::max_num_threads(), MAX_WORKERS);
}

#[test]
fn breadth_first_sets_fifo_deques_without_private_halves() {
    #[allow(deprecated)]
    let cfg = ThreadPoolBuilder::new()
        .topology(Topology::synthetic("core:2").unwrap())
        .breadth_first()
        .resolve(&env_of(&[]))
        .unwrap()
        .0;
    assert!(cfg.breadth_first);
    let cfg = ThreadPoolBuilder::new()
        .topology(Topology::synthetic("core:2").unwrap())
        .resolve(&env_of(&[]))
        .unwrap()
        .0;
    assert!(!cfg.breadth_first);
}

#[test]
fn env_topology_gives_virtual_pool() {
    let cfg = ThreadPoolBuilder::new()
        .resolve(&env_of(&[
            ("LOCUS_TOPOLOGY", "llc:2 core:3"),
            ("LOCUS_CLUSTER", "0"),
        ]))
        .unwrap()
        .0;
    assert_eq!(cfg.layout.workers().len(), 6);
    assert!(cfg.layout.options().virtual_topology);
    assert!(!cfg.layout.options().cluster_aware);
}

#[test]
fn env_cpus_and_smt_confine_the_workers() {
    let workers = |pairs: &'static [(&'static str, &'static str)]| -> Vec<usize> {
        let cfg = ThreadPoolBuilder::new().resolve(&env_of(pairs)).unwrap().0;
        cfg.layout.workers().iter().map(|w| w.pu).collect()
    };
    const T: (&str, &str) = ("LOCUS_TOPOLOGY", "numa:2 core:4 smt:2");
    assert_eq!(workers(&[T, ("LOCUS_CPUS", " 0-3,12 ")]), [0, 1, 2, 3, 12]);
    assert_eq!(
        workers(&[T, ("LOCUS_SMT", "0")]),
        [0, 2, 4, 6, 8, 10, 12, 14]
    );
    assert_eq!(workers(&[T, ("LOCUS_SMT", "1")]).len(), 16);
    assert_eq!(
        workers(&[T, ("LOCUS_CPUS", "0-4"), ("LOCUS_SMT", "0")]),
        [0, 2, 4]
    );
    // The builder's set wins over both variables.
    let cfg = ThreadPoolBuilder::new()
        .cpus("5-6".parse().unwrap())
        .resolve(&env_of(&[T, ("LOCUS_CPUS", "bad"), ("LOCUS_SMT", "bad")]))
        .unwrap()
        .0;
    let pus: Vec<usize> = cfg.layout.workers().iter().map(|w| w.pu).collect();
    assert_eq!(pus, [5, 6]);
}

#[test]
fn env_cpus_outside_the_allowed_set_names_the_variable() {
    let e = ThreadPoolBuilder::new()
        .resolve(&env_of(&[
            ("LOCUS_TOPOLOGY", "core:4"),
            ("LOCUS_CPUS", "3-5"),
        ]))
        .err()
        .expect("must fail");
    assert!(
        matches!(
            e,
            BuildError::Cpus {
                var: Some("LOCUS_CPUS"),
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.starts_with("LOCUS_CPUS") && msg.contains("4-5"),
        "{msg}"
    );
}
