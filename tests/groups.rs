//! Job groups on virtual pools (synthetic topologies, more workers than
//! cores, no pinning). No timing: every wait is on a condition that the
//! pool's progress guarantees, and assertions are on where jobs ran.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use locus::{
    Affinity, GroupError, GroupOptions, Placement, ThreadPool, ThreadPoolBuilder, Topology,
};

use common::deadline::within_deadline_or;
use common::work::virtual_pool;

fn llc_of(pool: &ThreadPool, w: usize) -> usize {
    pool.layout().workers()[w].llc
}

/// A gate that jobs wait on until the test opens it.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut g = self.open.lock().unwrap();
        while !*g {
            g = self.cv.wait(g).unwrap();
        }
    }
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }
}

/// Counts up; waiters block until it reaches a value.
#[derive(Default)]
struct Count {
    n: Mutex<usize>,
    cv: Condvar,
}

impl Count {
    fn add(&self) {
        *self.n.lock().unwrap() += 1;
        self.cv.notify_all();
    }
    fn wait_for(&self, k: usize) {
        let mut g = self.n.lock().unwrap();
        while *g < k {
            g = self.cv.wait(g).unwrap();
        }
    }
}

#[test]
fn bad_affinity_is_a_typed_error() {
    let p = virtual_pool("llc:2 core:2");
    let e = p
        .group(GroupOptions::new().affinity(Affinity::Llc(2)))
        .unwrap_err();
    assert_eq!(e, GroupError::NoSuchLlc { llc: 2, llcs: 2 });
    assert!(e.to_string().contains("2 LLC"));
    assert!(matches!(
        p.group(GroupOptions::new().affinity(Affinity::Near(4))),
        Err(GroupError::NoSuchWorker {
            worker: 4,
            workers: 4
        })
    ));
    assert!(matches!(
        p.group(GroupOptions::new().affinity(Affinity::Numa(1))),
        Err(GroupError::NoSuchNuma { numa: 1, nodes: 1 })
    ));
}

#[test]
fn group_api_runs_everything_and_counts_it() {
    let p = virtual_pool("llc:2 cluster:2 core:2");
    for placement in [Placement::Pack, Placement::Spread] {
        let g = p
            .group(
                GroupOptions::new()
                    .affinity(Affinity::Llc(1))
                    .placement(placement),
            )
            .unwrap();
        let g2 = g.clone();
        let done = Arc::new(Count::default());
        for _ in 0..10 {
            let d = done.clone();
            g.spawn(move || d.add());
        }
        done.wait_for(10);
        let (a, b) = g.join(|| 1, || 2);
        assert_eq!((a, b), (1, 2));
        let n = AtomicUsize::new(0);
        g.scope(|s| {
            for _ in 0..8 {
                s.spawn(|_| {
                    n.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(n.load(Ordering::Relaxed), 8);
        assert_eq!(
            std::thread::spawn(move || g2.install(|| 7)).join().unwrap(),
            7
        );
        // 10 spawns, the join body, the scope body and its 8 jobs, the
        // install: at least 21 runs (stolen join halves add to it).
        let st = g.stats();
        assert!(st.total() >= 21, "{st}");
        assert_eq!(st.preferred_llc, Some(1));
    }
    // Both groups were dropped: once their spawned jobs are done too, their
    // states are freed and their counts kept in the pool's totals.
    let stats = wait_for_live_groups(&p, 0);
    assert_eq!(stats.retired_groups.count, 2);
    assert!(stats.retired_groups.total() >= 42, "{stats}");
    assert!(stats.to_string().contains("freed groups: 2"), "{stats}");
}

/// Waits until `p` has exactly `n` live group states (bounded by the
/// deadline, which fails the test); returns the stats that showed it.
fn wait_for_live_groups(p: &ThreadPool, n: usize) -> locus::PoolStats {
    let deadline = std::time::Instant::now() + common::deadline::DEADLINE;
    loop {
        let s = p.stats();
        if s.groups.len() == n {
            return s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "expected {n} live groups:\n{s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Issue 26: groups created, used and dropped in a loop are freed, so the
/// number of live group states stays flat; every job they ran is still
/// counted, in the pool's totals of freed groups.
#[test]
fn groups_created_and_dropped_in_a_loop_are_freed() {
    const ROUNDS: usize = 2_000;
    let p = virtual_pool("llc:2 core:2");
    for round in 0..ROUNDS {
        let affinity = if round % 2 == 0 {
            Affinity::Auto
        } else {
            Affinity::Llc(1)
        };
        let g = p.group(GroupOptions::new().affinity(affinity)).unwrap();
        assert_eq!(g.install(|| round), round);
        let (tx, rx) = std::sync::mpsc::channel();
        g.spawn(move || tx.send(()).unwrap());
        rx.recv().unwrap();
        drop(g);
        // At most the states whose spawned job is still finishing (it sent
        // before its closure, which holds the state, was dropped): one per
        // worker at most, whatever the number of rounds.
        let live = p.stats().groups.len();
        assert!(
            live <= p.current_num_threads(),
            "round {round}: {live} live group states"
        );
    }
    let s = wait_for_live_groups(&p, 0);
    assert_eq!(s.retired_groups.count, ROUNDS as u64);
    // One install body and one spawn per group.
    assert_eq!(s.retired_groups.total(), 2 * ROUNDS as u64, "{s}");
    assert_eq!(s.retired_groups.jobs_per_llc.len(), 2);
}

/// A group job that outlives every handle of its group keeps the group's
/// state: a detached spawn, and a scope job spawned inside a group job of
/// a scope that outlives it. Each still runs and is counted for the group,
/// which is freed after them.
#[test]
fn group_jobs_outliving_their_handles_keep_the_state() {
    within_deadline_or("group jobs after the handle", String::new, || {
        let p = virtual_pool("llc:2 core:2");
        let opts = GroupOptions::new().affinity(Affinity::Llc(0));
        let gate = Arc::new(Gate::default());

        let g = p.group(opts).unwrap();
        let done = Arc::new(Count::default());
        let (gt, d) = (Arc::clone(&gate), Arc::clone(&done));
        g.spawn(move || {
            gt.wait();
            d.add();
        });
        drop(g);
        assert_eq!(p.stats().groups.len(), 1, "the queued spawn holds it");
        gate.open();
        done.wait_for(1);
        let s = wait_for_live_groups(&p, 0);
        assert_eq!((s.retired_groups.count, s.retired_groups.total()), (1, 1));

        let gate = Gate::default();
        p.scope(|s| {
            let g = p.group(opts).unwrap();
            // The scope job belongs to `g` (spawned in its job) and
            // outlives that job and `g` itself.
            g.install(|| s.spawn(|_| gate.wait()));
            drop(g);
            assert_eq!(p.stats().groups.len(), 1, "the scope job holds it");
            gate.open();
        });
        let s = wait_for_live_groups(&p, 0);
        // The install body and the scope job.
        assert_eq!((s.retired_groups.count, s.retired_groups.total()), (2, 3));
    });
}

#[test]
fn nested_jobs_belong_to_the_group() {
    let p = virtual_pool("llc:2 core:2");
    let g = p
        .group(GroupOptions::new().affinity(Affinity::Llc(0)))
        .unwrap();
    // A free `spawn` and a nested scope inside a group job count for it.
    let done = Arc::new(Count::default());
    let d = done.clone();
    g.install(move || {
        locus::scope(|s| {
            s.spawn(|_| {});
            s.spawn(|_| {});
        });
        locus::spawn(move || d.add());
    });
    done.wait_for(1);
    // Stats are updated before the job body runs: the install, two scope
    // spawns, the detached spawn.
    assert!(g.stats().total() >= 4, "{}", g.stats());
}

/// Llc(0) with both of LLC 0's workers blocked (by a broadcast that holds
/// them until released): LLC 0 is overloaded against an idle LLC 1, so the
/// group's next job is run by LLC 1 (it could not run anywhere else before
/// the release, so the test also shows that the neighbour is woken for it).
#[test]
fn overloaded_llc_gets_help_from_its_neighbour() {
    let p = Arc::new(virtual_pool("llc:2 core:2"));
    let g = p
        .group(GroupOptions::new().affinity(Affinity::Llc(0)))
        .unwrap();
    let gate = Arc::new(Gate::default());
    let blocked = Arc::new(Count::default());
    let holder = {
        let (p, gate, blocked) = (p.clone(), gate.clone(), blocked.clone());
        std::thread::spawn(move || {
            p.broadcast(|ctx| {
                if p.layout().workers()[ctx.index()].llc == 0 {
                    blocked.add();
                    gate.wait();
                }
            });
        })
    };
    blocked.wait_for(2);
    let ran = Arc::new(Mutex::new(None));
    let done = Arc::new(Count::default());
    let (r, d) = (ran.clone(), done.clone());
    g.spawn(move || {
        *r.lock().unwrap() = locus::current_thread_index();
        d.add();
    });
    done.wait_for(1);
    gate.open();
    holder.join().unwrap();
    let w = ran.lock().unwrap().expect("ran on a worker");
    assert_eq!(llc_of(&p, w), 1);
    assert_eq!(g.stats().jobs_per_llc, [0, 1]);
}

/// Two `Auto` groups on two LLCs: each runs all its jobs and learns an
/// LLC. No share of the jobs in that LLC is asserted: while every worker
/// of the learned LLC is busy (on a loaded machine, workers that spin
/// count as busy) an `Auto` group's jobs are placed as ordinary ones
/// (docs/pipeline-packing.md), and a scope's spawns from a worker of the
/// LLC are on that worker's deque, where idle workers of the other LLC may
/// steal them. The tracker's hysteresis is checked on simulated time
/// (`sim::tests::groups::auto_group_switches_llc_only_at_twice_the_count`),
/// where the load is known.
#[test]
fn auto_groups_learn_an_llc() {
    let p = virtual_pool("llc:2 core:4");
    let groups: Vec<_> = (0..2)
        .map(|_| {
            p.group(GroupOptions::new().affinity(Affinity::Auto))
                .unwrap()
        })
        .collect();
    for _ in 0..60 {
        for g in &groups {
            g.scope(|s| {
                for _ in 0..3 {
                    s.spawn(|_| {
                        std::hint::black_box((0..2000u64).sum::<u64>());
                    });
                }
            });
        }
    }
    for g in &groups {
        let st = g.stats();
        assert!(st.total() >= 240, "{st}");
        assert!(st.preferred_llc.is_some(), "{st}");
        eprintln!("{st}");
    }
}

/// Spread jobs on 8 clusters of 2: jobs that block until released are
/// spawned one at a time, each after the previous one started, until every
/// cluster runs one. A blocked job holds its worker, so with 16 workers at
/// most 16 jobs are ever needed (every worker then holds one), and every
/// spawned job can start: the loop ends whatever the scheduling. Spread
/// deals one job per cluster and wakes that cluster's worker, so usually
/// 8 suffice.
#[test]
fn spread_jobs_reach_all_eight_clusters() {
    let p = virtual_pool("cluster:8 core:2");
    let g = p
        .group(GroupOptions::new().placement(Placement::Spread))
        .unwrap();
    let gate = Arc::new(Gate::default());
    let started = Arc::new(Count::default());
    let workers = Arc::new(Mutex::new(Vec::new()));
    let mut spawned = 0;
    let clusters = loop {
        let (gate2, started2, workers2) = (gate.clone(), started.clone(), workers.clone());
        g.spawn(move || {
            workers2
                .lock()
                .unwrap()
                .push(locus::current_thread_index().unwrap());
            started2.add();
            gate2.wait();
        });
        spawned += 1;
        started.wait_for(spawned);
        let c: BTreeSet<usize> = workers
            .lock()
            .unwrap()
            .iter()
            .map(|&w| p.layout().workers()[w].cluster)
            .collect();
        if c.len() == 8 || spawned == 16 {
            break c;
        }
    };
    gate.open();
    assert_eq!(clusters.len(), 8, "clusters reached: {clusters:?}");
    eprintln!("spread: {spawned} jobs to reach all 8 clusters");
}

/// The live switch: jobs keep running across switches, nothing is lost
/// or run twice (every job increments its own slot once).
#[test]
fn cluster_switch_under_load_loses_nothing() {
    let p = virtual_pool("llc:2 cluster:2 core:2");
    let spread = p
        .group(GroupOptions::new().placement(Placement::Spread))
        .unwrap();
    let pack = p
        .group(GroupOptions::new().affinity(Affinity::Llc(1)))
        .unwrap();
    let slots: Vec<AtomicUsize> = (0..2000).map(|_| AtomicUsize::new(0)).collect();
    std::thread::scope(|ts| {
        ts.spawn(|| {
            for i in 0..200 {
                p.set_cluster_aware(i % 2 == 0);
                std::thread::yield_now();
            }
        });
        for (k, g) in [&spread, &pack].into_iter().enumerate() {
            let slots = &slots;
            ts.spawn(move || {
                g.scope(|s| {
                    for slot in &slots[k * 1000..(k + 1) * 1000] {
                        s.spawn(move |_| {
                            slot.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
            });
        }
    });
    assert!(slots.iter().all(|s| s.load(Ordering::Relaxed) == 1));
    p.set_cluster_aware(false);
    assert!(!p.cluster_aware());
}

/// The builder option sets the live switch's initial value, and the live
/// switch then selects the same steal tiers a pool built with the other
/// value has.
#[test]
fn builder_option_and_live_switch_agree() {
    let t = Topology::synthetic("llc:2 cluster:2 core:2").unwrap();
    // The two pools must have the same workers (a count of their own: the
    // environment may set a default one).
    let n = t.allowed().len();
    let off = ThreadPoolBuilder::new()
        .num_threads(n)
        .topology(t.clone())
        .cluster_aware(false)
        .build()
        .unwrap();
    assert!(!off.cluster_aware());
    assert!(!off.layout().options().cluster_aware);
    let on = ThreadPoolBuilder::new()
        .num_threads(n)
        .topology(t)
        .build()
        .unwrap();
    assert!(on.cluster_aware());
    on.set_cluster_aware(false);
    for w in 0..on.layout().len() {
        assert_eq!(
            on.layout().tiers_for(w, false),
            &off.layout().workers()[w].tiers[..]
        );
    }
    // Both still run work after switching back and forth.
    off.set_cluster_aware(true);
    assert_eq!(on.install(|| locus::join(|| 1, || 2)), (1, 2));
    assert_eq!(off.install(|| locus::join(|| 3, || 4)), (3, 4));
}

/// Runs `f` on its own thread; a hang fails the test with the pool's stats
/// table (where each worker's jobs went). On a hang the pool is leaked:
/// dropping it would wait for its blocked workers.
fn with_watchdog<R: Send + 'static>(
    pool: &Arc<ThreadPool>,
    what: &str,
    f: impl FnOnce() -> R + Send + 'static,
) -> R {
    within_deadline_or(
        what,
        || {
            std::mem::forget(Arc::clone(pool));
            pool.stats().to_string()
        },
        f,
    )
}

/// Issue 8, item 12: 16 jobs of a packed group on `llc:2 core:8` that all
/// wait on one `Barrier(16)` need every worker of the pool. The group's
/// LLC is saturated (its 8 workers block in the barrier, 8 jobs still
/// queued) while the other LLC's workers are idle: they must take the
/// rest, however busy their own LLC already is. Done with the jobs as
/// scope spawns and as detached spawns from outside, and (as the
/// reference) without a group.
#[test]
fn pack_group_blocking_on_a_barrier_uses_every_llc() {
    let p = Arc::new(virtual_pool("llc:2 core:8"));
    for llc in [0, 1] {
        let g = p
            .group(GroupOptions::new().affinity(Affinity::Llc(llc)))
            .unwrap();
        let b = Arc::new(std::sync::Barrier::new(16));
        let ran = with_watchdog(&p, "pack scope of 16 barrier jobs", {
            let (g, b) = (g.clone(), b.clone());
            move || {
                let ran = Mutex::new(Vec::new());
                g.scope(|s| {
                    for _ in 0..16 {
                        s.spawn(|_| {
                            b.wait();
                            ran.lock()
                                .unwrap()
                                .push(locus::current_thread_index().unwrap());
                        });
                    }
                });
                ran.into_inner().unwrap()
            }
        });
        // 16 jobs blocked at once: on 16 different workers.
        assert_eq!(ran.iter().collect::<BTreeSet<_>>().len(), 16, "{ran:?}");
        with_watchdog(&p, "16 detached pack spawns on a barrier", move || {
            let done = Arc::new(Count::default());
            for _ in 0..16 {
                let (b, d) = (b.clone(), done.clone());
                g.spawn(move || {
                    b.wait();
                    d.add();
                });
            }
            done.wait_for(16);
        });
    }
    let b = Arc::new(std::sync::Barrier::new(16));
    with_watchdog(&p, "16 barrier jobs without a group", {
        let p = p.clone();
        move || {
            p.scope(|s| {
                for _ in 0..16 {
                    s.spawn(|_| {
                        b.wait();
                    });
                }
            })
        }
    });
}

/// The other side of the help rule: under light load (at most half of
/// the group's LLC busy at once) a packed group keeps its jobs in its LLC.
/// Jobs land there and wake workers there; other LLCs take a packed job
/// only when that LLC is overloaded or saturated, which a load of half
/// the LLC only reaches in transients (workers woken and still awake
/// count as busy), so the bound is a clear majority, not all.
#[test]
fn pack_group_under_light_load_stays_in_its_llc() {
    let p = Arc::new(virtual_pool("llc:2 core:8"));
    let g = p
        .group(GroupOptions::new().affinity(Affinity::Llc(1)))
        .unwrap();
    with_watchdog(&p, "light pack load", move || {
        for _ in 0..200 {
            g.scope(|s| {
                for _ in 0..3 {
                    s.spawn(|_| {
                        std::hint::black_box((0..5000u64).sum::<u64>());
                    });
                }
            });
        }
        let st = g.stats();
        eprintln!("{st}");
        // The scope bodies and their jobs: 4 per round.
        assert!(st.total() >= 800, "{st}");
        assert!(st.jobs_per_llc[0] * 10 <= st.total(), "{st}");
    });
}

/// An injected job (a plain `spawn` from outside the pool, or one into an
/// `Auto` group that has learned no LLC yet, which is placed as a plain
/// one) is not overtaken by packed jobs pushed after it: the LLC's workers
/// take their pack queue without searching, and the injector only in a
/// search, so jobs spawned into a packed group later than the injected
/// ones ran first (CHANGELOG's "Known limitations" before this test;
/// `docs/injector-turn.md`). One worker, held busy while every job is
/// queued; order only, no timing.
#[test]
fn injected_jobs_are_not_overtaken_by_later_packed_jobs() {
    let p = virtual_pool("llc:1 core:1");
    let packed = p
        .group(GroupOptions::new().affinity(Affinity::Llc(0)))
        .unwrap();
    let auto = p
        .group(GroupOptions::new().affinity(Affinity::Auto))
        .unwrap();
    let gate = Arc::new(Gate::default());
    let started = Arc::new(Count::default());
    let done = Arc::new(Count::default());
    let order = Arc::new(Mutex::new(Vec::new()));
    {
        let (gate, started) = (gate.clone(), started.clone());
        p.spawn(move || {
            started.add();
            gate.wait();
        });
    }
    started.wait_for(1);
    let log = |name: &'static str| {
        let (order, done) = (order.clone(), done.clone());
        move || {
            order.lock().unwrap().push(name);
            done.add();
        }
    };
    for name in ["p1", "p2", "p3"] {
        packed.spawn(log(name));
    }
    auto.spawn(log("auto"));
    p.spawn(log("plain"));
    for name in ["p4", "p5", "p6"] {
        packed.spawn(log(name));
    }
    gate.open();
    let seen = order.clone();
    within_deadline_or(
        "every job ran",
        move || format!("ran: {:?}", seen.lock().unwrap()),
        move || done.wait_for(8),
    );
    let order = order.lock().unwrap().clone();
    let at = |name| order.iter().position(|&n| n == name).unwrap();
    // Queued in the order p1 p2 p3 auto plain p4 p5 p6.
    assert!(
        at("auto") < at("p4") && at("plain") < at("p4"),
        "injected jobs waited for packed jobs queued after them: {order:?}"
    );
}
