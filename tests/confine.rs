//! Confinement (issue 10): running a pool on part of the machine.

use locus::{BuildError, CpuSet, Level, ThreadPoolBuilder, Topology, TopologyError};

mod common;
use common::work::{env_sets_count, virtual_pool};

fn set(s: &str) -> CpuSet {
    s.parse().unwrap()
}

/// Checks the invariants of a topology: dense ranges, parents, PU indexes.
fn check_invariants(t: &Topology) {
    let order = if t.package_inside_numa() {
        [
            Level::Numa,
            Level::Package,
            Level::Llc,
            Level::Cluster,
            Level::Core,
        ]
    } else {
        [
            Level::Package,
            Level::Numa,
            Level::Llc,
            Level::Cluster,
            Level::Core,
        ]
    };
    for (k, &l) in order.iter().enumerate() {
        let ds = t.domains(l);
        let mut next = 0;
        for (i, d) in ds.iter().enumerate() {
            assert_eq!(
                d.pus.start, next,
                "{l:?} {i} starts where the previous ends"
            );
            assert!(!d.pus.is_empty(), "{l:?} {i} has PUs");
            next = d.pus.end;
            let os: CpuSet = t.pus()[d.pus.clone()].iter().map(|p| p.os_index).collect();
            assert_eq!(os, d.cpuset, "{l:?} {i} cpuset is its range");
            if k > 0 {
                let parent = &t.domains(order[k - 1])[d.parent];
                assert!(
                    d.cpuset.is_subset(&parent.cpuset),
                    "{l:?} {i} nests in its parent"
                );
            }
            for p in &t.pus()[d.pus.clone()] {
                let idx = match l {
                    Level::Core => p.core,
                    Level::Cluster => p.cluster,
                    Level::Llc => p.llc,
                    Level::Numa => p.numa,
                    _ => p.package,
                };
                assert_eq!(idx, i, "PU {} points at its {l:?}", p.os_index);
            }
        }
        assert_eq!(next, t.pus().len());
    }
    assert!(!t.allowed().is_empty() && t.allowed().is_subset(&t.online()));
}

#[test]
fn restrict_drops_empty_domains_and_renumbers() {
    let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:2 smt:2").unwrap();
    check_invariants(&t);
    // CPUs 8-15 are NUMA 0's second LLC; 24-27 NUMA 1's second LLC's first cluster.
    let r = t.restrict(&set("8-15,24-27")).unwrap();
    check_invariants(&r);
    assert_eq!(r.pus().len(), 12);
    assert_eq!(r.numa_domains().len(), 2);
    assert_eq!(r.llcs().len(), 2);
    assert_eq!(r.clusters().len(), 3);
    assert_eq!(r.cores().len(), 6);
    assert_eq!(r.llcs()[1].cpuset, set("24-27"));
    assert_eq!(r.llcs()[1].parent, 1);
    assert_eq!(r.clusters()[2].parent, 1);
    assert_eq!(r.numa_domains()[1].os_index, Some(1));
    assert_eq!(r.allowed(), &set("8-15,24-27"));
    assert!(
        r.notes()
            .iter()
            .any(|n| n.contains("restricted to CPUs 8-15,24-27")),
        "{:?}",
        r.notes()
    );
    assert!(
        r.notes().iter().any(|n| n.contains("2 llc domain(s)")),
        "{:?}",
        r.notes()
    );
    // NUMA distances follow the domains.
    assert_eq!(r.numa_distance(0, 1), t.numa_distance(0, 1));
    // A layout on it works and covers it.
    let l = locus::Layout::new(&r, &locus::LayoutOptions::default()).unwrap();
    assert_eq!(l.workers().len(), 12);
    assert_eq!(l.llc_ranges().len(), 2);
}

#[test]
fn restrict_to_one_per_core_loses_smt() {
    let t = Topology::synthetic("core:4 smt:2").unwrap();
    let r = t.restrict(&t.one_per_core()).unwrap();
    check_invariants(&r);
    assert_eq!(r.smt_width(), 1);
    assert!(!r.levels_seen().smt);
    assert!(t.levels_seen().smt);
}

#[test]
fn restrict_rescales_capacities() {
    let t = Topology::synthetic("cluster:2 core:4 big:2").unwrap();
    assert_eq!(t.kinds().len(), 2);
    let little = t.restrict(&t.kind_cpus(1).unwrap()).unwrap();
    check_invariants(&little);
    assert!(little.pus().iter().all(|p| p.capacity == 1024));
    assert!(!little.levels_seen().capacity);
    assert_eq!(little.kinds().len(), 1);
}

#[test]
fn restrict_errors() {
    let t = Topology::synthetic("core:4").unwrap();
    for bad in [CpuSet::new(), set("8-9")] {
        let e = t.restrict(&bad).expect_err("must fail");
        assert!(matches!(e, TopologyError::Restrict { .. }), "{e:?}");
        assert!(e.to_string().contains("CPU"), "{e}");
    }
    // CPUs outside the topology are ignored, with a note.
    let r = t.restrict(&set("2-9")).unwrap();
    assert_eq!(r.online(), set("2-3"));
    assert!(
        r.notes().iter().any(|n| n.contains("4-9")),
        "{:?}",
        r.notes()
    );
}

#[test]
fn sets_to_pass() {
    let t = Topology::synthetic("numa:2 llc:2 core:2 smt:2").unwrap();
    assert_eq!(t.numa_cpus(0), Some(set("0-7")));
    assert_eq!(t.numa_cpus(1), Some(set("8-15")));
    assert_eq!(t.numa_cpus(2), None);
    assert_eq!(t.llc_cpus(2), Some(set("8-11")));
    assert_eq!(t.llc_cpus(4), None);
    assert_eq!(t.kind_cpus(0), Some(t.online()));
    assert_eq!(t.kind_cpus(1), None);
    assert_eq!(t.one_per_core(), set("0,2,4,6,8,10,12,14"));
    // The sets are of allowed CPUs only.
    let r = t.restrict(&set("1-15")).unwrap();
    assert_eq!(r.one_per_core(), set("1-2,4,6,8,10,12,14"));
}

#[test]
fn builder_cpus_confines_the_workers() {
    let t = Topology::synthetic("numa:2 llc:2 core:2 smt:2").unwrap();
    let llc = t.llc_cpus(3).unwrap();
    let pool = ThreadPoolBuilder::new()
        .topology(t.clone())
        .cpus(llc.clone())
        .build()
        .unwrap();
    // The default count is the set's (unless the environment sets one).
    let n = pool.current_num_threads();
    if !env_sets_count() {
        assert_eq!(n, 4);
    }
    let l = pool.layout();
    assert!(l.workers().iter().all(|w| llc.contains(w.pu)));
    assert_eq!(l.llc_ranges().len(), 1);
    // The broadcast reaches every worker, and they run.
    assert_eq!(pool.broadcast(|c| c.index()), (0..n).collect::<Vec<_>>());
    // With more threads than CPUs, the extra workers stay inside.
    let pool = ThreadPoolBuilder::new()
        .topology(t.clone())
        .cpus(t.one_per_core())
        .num_threads(3)
        .build()
        .unwrap();
    let one = t.one_per_core();
    assert!(pool.layout().workers().iter().all(|w| one.contains(w.pu)));
}

#[test]
fn builder_cpus_errors_say_what_to_fix() {
    let t = Topology::synthetic("core:4").unwrap();
    let e = ThreadPoolBuilder::new()
        .topology(t.clone())
        .cpus(CpuSet::new())
        .build()
        .unwrap_err();
    assert!(matches!(e, BuildError::Cpus { var: None, .. }), "{e:?}");
    assert!(e.to_string().contains("empty"), "{e}");
    let e = ThreadPoolBuilder::new()
        .topology(t)
        .cpus(set("2-5"))
        .build()
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("4-5") && msg.contains("allowed CPUs (0-3)"),
        "{msg}"
    );
}

#[test]
fn builder_cpus_pins_inside_the_set_on_this_machine() {
    let machine = Topology::detect();
    let first = machine.allowed().min().unwrap();
    let one: CpuSet = [first].into_iter().collect();
    let pool = ThreadPoolBuilder::new().cpus(one.clone()).build().unwrap();
    if !env_sets_count() {
        assert_eq!(pool.current_num_threads(), 1);
    }
    let w = &pool.layout().workers()[0];
    assert_eq!(w.pu, first);
    assert!(w.cpus.is_subset(&one), "pinned to {} outside {one}", w.cpus);
    assert_eq!(pool.install(|| 1 + 1), 2);
}

#[test]
fn broadcast_per_runs_once_per_domain_inside_it() {
    let t = Topology::synthetic("numa:2 llc:2 cluster:2 core:2 smt:2").unwrap();
    // Leave out LLC 1 (CPUs 8-15): its domains get no worker.
    let cpus = set("0-7,16-31");
    // One worker per CPU of the set, whatever the environment says.
    let pool = ThreadPoolBuilder::new()
        .num_threads(cpus.len())
        .topology(t)
        .cpus(cpus)
        .build()
        .unwrap();
    let l = pool.layout();
    for (level, ranges) in [
        (Level::Core, l.core_ranges()),
        (Level::Cluster, l.cluster_ranges()),
        (Level::Llc, l.llc_ranges()),
        (Level::Numa, l.numa_ranges()),
        (Level::Package, l.package_ranges()),
    ] {
        let got = pool.broadcast_per(level, |ctx| {
            let me = locus::current_thread_index().expect("on a worker");
            (
                ctx.domain(),
                ctx.num_domains(),
                ctx.workers(),
                ctx.index(),
                me,
            )
        });
        assert_eq!(got.len(), ranges.len(), "{level:?}");
        for (d, (domain, n, workers, index, me)) in got.into_iter().enumerate() {
            assert_eq!((domain, n), (d, ranges.len()), "{level:?}");
            assert_eq!(workers, ranges[d], "{level:?}");
            assert_eq!(index, me, "{level:?}: ran on the worker it names");
            assert!(
                ranges[d].contains(&me),
                "{level:?} {d}: worker {me} outside {:?}",
                ranges[d]
            );
        }
    }
    assert_eq!(l.llc_ranges().len(), 3);
    let machine = pool.broadcast_per(Level::Machine, |ctx| ctx.workers());
    assert_eq!(machine.len(), 1);
    assert_eq!(machine[0], 0..pool.current_num_threads());
    // From inside the pool too (the caller is a worker of it).
    let nested = pool.install(|| pool.broadcast_per(Level::Numa, |ctx| ctx.domain()));
    assert_eq!(nested, [0, 1]);
}

#[test]
fn broadcast_per_resumes_the_first_panic() {
    let pool = virtual_pool("llc:3 core:2");
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.broadcast_per(Level::Llc, |ctx| {
            if ctx.domain() >= 1 {
                std::panic::panic_any(ctx.domain());
            }
        })
    }));
    let payload = r.expect_err("must panic");
    assert_eq!(payload.downcast_ref::<usize>(), Some(&1));
    // The pool still works.
    assert_eq!(pool.broadcast_per(Level::Llc, |ctx| ctx.index()), [0, 2, 4]);
}
