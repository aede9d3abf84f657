//! Job-group policy, deterministic, no threads: where a group job lands
//! ([`GroupPlan::destination`]), which worker its push wakes (the pool's own
//! idle masks, [`IdleMasks::claim_in_llc`], as `Sleep::notify_in` calls it),
//! how spread deals jobs, hysteresis of the learned preference, and the
//! overload and help rules; on synthetic topologies and on the real-machine snapshots
//! of a Raptor Lake laptop (P and E cores) and an NVIDIA DGX GB10 (two LLCs
//! of big and little Arm cores; these two are ignored unless run with
//! `--ignored`, as they read hwloc's test data). Unit tests: the policy
//! and the idle masks are crate-private.

use super::policy::{SpreadDealer, may_help, overloaded};
use super::{AffinityTracker, Destination, GroupPlan};
use crate::runtime::idle::{Distance, IdleMasks};
use crate::runtime::registry::idle_shape;
use crate::test_support::{all_idle, snapshot};
use crate::{Affinity, GroupError, GroupOptions, Layout, LayoutOptions, Placement, Topology};

fn layout(spec: &str) -> Layout {
    Layout::new(
        &Topology::synthetic(spec).unwrap(),
        &LayoutOptions::default(),
    )
    .unwrap()
}

fn plan(l: &Layout, a: Affinity, p: Placement) -> GroupPlan {
    GroupPlan::new(l, GroupOptions::new().affinity(a).placement(p)).unwrap()
}

/// No worker busy, LLCs of one worker (what the plan asks of `Numa` and
/// of a learned `Auto` LLC).
fn no_busy(_: usize) -> (usize, usize) {
    (0, 1)
}

/// Deals `n` jobs; counts per spread unit.
fn deal(p: &GroupPlan, aware: bool, n: usize) -> Vec<usize> {
    let units = p.spread_units(aware).to_vec();
    let mut count = vec![0; units.len()];
    for _ in 0..n {
        let d = p.destination(None, &no_busy, None, aware);
        let i = units
            .iter()
            .position(|u| match d {
                Destination::Cluster { cluster, .. } => u.cluster == Some(cluster),
                Destination::Llc { llc } => u.cluster.is_none() && u.llc == llc,
                _ => false,
            })
            .unwrap_or_else(|| panic!("{d:?} is no spread unit"));
        count[i] += 1;
    }
    count
}

#[test]
fn pack_lands_in_the_affinity_llc_and_wakes_there() {
    let l = layout("llc:2 cluster:2 core:2");
    // Llc(1) from outside: LLC 1's queue; the wakeup claims LLC 1's first
    // idle worker.
    let p = plan(&l, Affinity::Llc(1), Placement::Pack);
    let d = p.destination(None, &no_busy, None, true);
    assert_eq!(
        d,
        Destination::Pack {
            llc: 1,
            wake_from: None
        }
    );
    let m = all_idle(&l);
    assert_eq!(m.claim_in_llc(None, 1), Some((4, Distance::Llc)));
    // From worker 7 (LLC 1): its own deque, where the job's data is.
    assert_eq!(
        p.destination(None, &no_busy, Some(7), true),
        Destination::Ordinary
    );
    assert_eq!(m.claim_in_llc(Some(7), 1), Some((6, Distance::Cluster)));
    // From a worker of the other LLC: the queue, no cluster hint.
    assert_eq!(
        p.destination(None, &no_busy, Some(0), true),
        Destination::Pack {
            llc: 1,
            wake_from: None
        }
    );
    // LLC 1 all claimed: the pack wake finds nobody in it (never another LLC).
    while m.claim_in_llc(None, 1).is_some() {}
    assert_eq!(m.claim_in_llc(Some(7), 1), None);
    assert!(m.is_idle(0));

    // Near(5): LLC 1, wakeups start at worker 5's cluster (4..6); from
    // a worker of LLC 1 (not only worker 5), its own deque.
    let p = plan(&l, Affinity::Near(5), Placement::Pack);
    let d = p.destination(None, &no_busy, Some(0), true);
    assert_eq!(
        d,
        Destination::Pack {
            llc: 1,
            wake_from: Some(5)
        }
    );
    for w in [4, 5, 7] {
        assert_eq!(
            p.destination(None, &no_busy, Some(w), true),
            Destination::Ordinary
        );
    }
    let m = all_idle(&l);
    m.clear_idle(4);
    assert_eq!(m.claim_in_llc(Some(5), 1), Some((5, Distance::Cluster)));
    assert_eq!(m.claim_in_llc(Some(5), 1), Some((6, Distance::Llc)));

    // None: ordinary placement. Auto: ordinary until learned, then packed.
    let p = plan(&l, Affinity::None, Placement::Pack);
    assert_eq!(
        p.destination(None, &no_busy, Some(3), true),
        Destination::Ordinary
    );
    let p = plan(&l, Affinity::Auto, Placement::Pack);
    assert_eq!(
        p.destination(None, &no_busy, Some(3), true),
        Destination::Ordinary
    );
    // Learned LLC 0: from worker 3 (LLC 0) its own deque, from worker 4
    // (LLC 1) or from outside LLC 0's queue.
    assert_eq!(
        p.destination(Some(0), &no_busy, Some(3), true),
        Destination::Ordinary
    );
    for from in [Some(4), None] {
        assert_eq!(
            p.destination(Some(0), &no_busy, from, true),
            Destination::Pack {
                llc: 0,
                wake_from: None
            }
        );
    }
}

/// `Auto` packs into its learned LLC while that LLC has an idle worker,
/// and places the job as an ordinary one (the spawner's deque, an
/// injector from outside) while every worker there is busy; a given LLC
/// is packed into however busy it is.
#[test]
fn auto_does_not_pack_into_a_saturated_llc() {
    let l = layout("llc:2 core:4");
    let auto = plan(&l, Affinity::Auto, Placement::Pack);
    let fixed = plan(&l, Affinity::Llc(0), Placement::Pack);
    let three_of_four = |l: usize| ([3, 0][l], 4);
    let all_four = |l: usize| ([4, 0][l], 4);
    let packed = Destination::Pack {
        llc: 0,
        wake_from: None,
    };
    for from in [Some(5), None] {
        assert_eq!(
            auto.destination(Some(0), &three_of_four, from, true),
            packed
        );
        assert_eq!(
            auto.destination(Some(0), &all_four, from, true),
            Destination::Ordinary
        );
        assert_eq!(fixed.destination(None, &all_four, from, true), packed);
    }
    // A saturated LLC 1 does not matter to a group that learned LLC 0.
    let other = |l: usize| ([0, 4][l], 4);
    assert_eq!(auto.destination(Some(0), &other, None, true), packed);
}

#[test]
fn numa_affinity_packs_into_its_least_busy_llc() {
    let l = layout("numa:2 llc:2 core:2");
    let p = plan(&l, Affinity::Numa(1), Placement::Pack);
    assert_eq!(p.llcs(), [2, 3]);
    let load = |l: usize| ([0, 0, 2, 1][l], 2);
    assert_eq!(
        p.destination(None, &load, None, true),
        Destination::Pack {
            llc: 3,
            wake_from: None
        }
    );
    // From a worker of the LLC it picks (6, LLC 3): that worker's deque;
    // from a worker of its other LLC (4, LLC 2): LLC 3's queue.
    assert_eq!(
        p.destination(None, &load, Some(6), true),
        Destination::Ordinary
    );
    assert_eq!(
        p.destination(None, &load, Some(4), true),
        Destination::Pack {
            llc: 3,
            wake_from: None
        }
    );
    let even = |l: usize| ([0, 0, 1, 1][l], 2);
    assert_eq!(
        p.destination(None, &even, None, true),
        Destination::Pack {
            llc: 2,
            wake_from: None
        }
    );
    assert!(matches!(
        GroupPlan::new(&l, GroupOptions::new().affinity(Affinity::Numa(2))),
        Err(GroupError::NoSuchNuma { numa: 2, nodes: 2 })
    ));
}

#[test]
fn spread_deals_round_robin_over_clusters_interleaving_llcs() {
    let l = layout("llc:2 cluster:2 core:2");
    let p = plan(&l, Affinity::None, Placement::Spread);
    let seq: Vec<Destination> = (0..4)
        .map(|_| p.destination(None, &no_busy, None, true))
        .collect();
    let c = |cluster, llc, wake_from| Destination::Cluster {
        cluster,
        llc,
        wake_from,
    };
    assert_eq!(seq, [c(0, 0, 0), c(2, 1, 4), c(1, 0, 2), c(3, 1, 6)]);
    // The push to cluster 2 wakes an idle worker of cluster 2.
    let m = all_idle(&l);
    assert_eq!(m.claim_in_llc(Some(4), 1), Some((4, Distance::Cluster)));
    // Cluster awareness off: dealt over LLCs, into their injectors.
    let seq: Vec<Destination> = (0..4)
        .map(|_| p.destination(None, &no_busy, None, false))
        .collect();
    let l_ = |llc| Destination::Llc { llc };
    assert_eq!(seq, [l_(0), l_(1), l_(0), l_(1)]);
    // Llc(1) + Spread: the clusters of LLC 1 only.
    let p = plan(&l, Affinity::Llc(1), Placement::Spread);
    assert_eq!(deal(&p, true, 10), [5, 5]);
    assert!(p.spread_units(true).iter().all(|u| u.llc == 1));
}

#[test]
fn spread_on_eight_clusters_deals_one_each_per_round() {
    let l = layout("cluster:8 core:2");
    let p = plan(&l, Affinity::None, Placement::Spread);
    assert_eq!(deal(&p, true, 8), [1; 8]);
    assert_eq!(deal(&p, true, 80), [10; 8]);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn raptor_lake_spread_weights_clusters_by_capacity_and_wakes_p_cores_first() {
    let (_tmp, t) = snapshot("20em64t-hybrid-1p6c2t+2ca4co1t");
    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    let p = plan(&l, Affinity::None, Placement::Spread);
    let units = p.spread_units(true).to_vec();
    assert_eq!(units.len(), 8);
    let weights: Vec<u64> = units.iter().map(|u| u.weight).collect();
    // Six P-cores (2 threads of capacity 1024 each), two E-clusters of 4
    // cores of capacity 754: the E-cluster's share is 4 * 754, not 4 P-cores'.
    assert_eq!(weights, [2048, 2048, 2048, 2048, 2048, 2048, 3016, 3016]);
    let total: u64 = weights.iter().sum();
    let n = total as usize / 8; // a whole number of dealer periods
    let got = deal(&p, true, n);
    for (g, w) in got.iter().zip(&weights) {
        assert_eq!(*g as u64, w / 8, "{got:?}");
    }
    // Smooth: in any 20 consecutive deals no P-core gets more than 3.
    let mut d = SpreadDealer::new(&weights);
    let seq: Vec<usize> = (0..2000).map(|_| d.next_unit()).collect();
    for win in seq.windows(20) {
        for u in 0..6 {
            assert!(win.iter().filter(|&&x| x == u).count() <= 3);
        }
    }
    // One LLC: a pack wakeup takes a fully idle P-core first (one thread
    // per core), then a fully idle E-core, and the idle sibling of a busy
    // P-core only when no core is fully idle (runtime::idle, "Fully idle
    // cores first").
    let pk = plan(&l, Affinity::Llc(0), Placement::Pack);
    assert_eq!(
        pk.destination(None, &no_busy, None, true),
        Destination::Pack {
            llc: 0,
            wake_from: None
        }
    );
    let m = all_idle(&l);
    for p in 0..6 {
        assert_eq!(m.claim_in_llc(None, 0).unwrap().0, 2 * p, "P-core {p}");
    }
    let (w, _) = m.claim_in_llc(None, 0).unwrap();
    assert!((12..20).contains(&w), "worker {w} is no E-core");
    // From an E-core worker (15), its own E-cluster first.
    let m = all_idle(&l);
    assert_eq!(m.claim_in_llc(Some(15), 0), Some((12, Distance::Cluster)));
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn gb10_spread_over_two_llcs_and_big_cores_first() {
    let (_tmp, t) = snapshot("nvidia-dgx-gb10");
    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    assert_eq!(l.llc_ranges(), [0..10, 10..20]);
    let p = plan(&l, Affinity::None, Placement::Spread);
    let weights: Vec<u64> = p.spread_units(true).iter().map(|u| u.weight).collect();
    let caps: Vec<u64> = l.workers().iter().map(|w| u64::from(w.capacity)).collect();
    assert_eq!(
        weights,
        [
            caps[..10].iter().sum::<u64>(),
            caps[10..].iter().sum::<u64>()
        ]
    );
    // Over whole periods each LLC gets exactly its capacity share.
    let n = 10_000;
    let got = deal(&p, true, n);
    let total: u64 = weights.iter().sum();
    for (g, w) in got.iter().zip(&weights) {
        let expect = (n as u64 * w) as f64 / total as f64;
        assert!((*g as f64 - expect).abs() <= 1.0, "{got:?} vs {weights:?}");
    }
    // Packing into LLC 1 wakes its big cores (capacity 1017/1024) before
    // its little ones (731).
    let m = all_idle(&l);
    let big: Vec<usize> = (10..20).filter(|&w| caps[w] >= 1000).collect();
    let mut woken: Vec<usize> = (0..big.len())
        .map(|_| m.claim_in_llc(None, 1).unwrap().0)
        .collect();
    woken.sort();
    assert_eq!(woken, big);
    let (w, _) = m.claim_in_llc(None, 1).unwrap();
    assert!(caps[w] < 1000);
}

#[test]
fn hysteresis_on_two_llcs() {
    // Run `periods` decay periods with `a` jobs in LLC 0 and `b` in LLC 1.
    fn run(t: &mut AffinityTracker, a: u64, b: u64, periods: usize) {
        for _ in 0..periods {
            t.record_n(0, a);
            t.record_n(1, b);
            t.decay(1);
        }
    }
    let mut t = AffinityTracker::new(2);
    run(&mut t, 6, 4, 30);
    assert_eq!(t.preferred(), Some(0));
    // 60/40 (or even 40/60) does not flip: 60 is not more than 2 x 40.
    run(&mut t, 4, 6, 30);
    assert_eq!(t.preferred(), Some(0));
    assert_eq!(t.changes(), 0);
    // 20/80 does.
    run(&mut t, 2, 8, 30);
    assert_eq!(t.preferred(), Some(1));
    assert_eq!(t.changes(), 1);
    // And 80/20 back again.
    run(&mut t, 8, 2, 30);
    assert_eq!(t.preferred(), Some(0));
    assert_eq!(t.changes(), 2);
    // Silence: the preference fades away.
    t.decay(20);
    assert_eq!(t.preferred(), None);
}

#[test]
fn overload_lets_an_idle_neighbour_help() {
    let l = layout("llc:2 core:4");
    let size = vec![4, 4];
    // Preferred LLC fully busy, neighbour idle: help.
    assert!(overloaded(&[4, 0], &size, 0));
    // Both LLCs equally busy: no help.
    assert!(!overloaded(&[4, 4], &size, 0));
    // 3 vs 3 and 3 vs 2 (within 20% of 4, i.e. 0.8 workers): no help only
    // when equal; 1 worker more is above the margin on LLCs of 4.
    assert!(!overloaded(&[3, 3], &size, 0));
    assert!(overloaded(&[3, 2], &size, 0));
    // GB10-sized LLCs of 10: a margin of 2 workers.
    assert!(!overloaded(&[10, 8], &[10, 10], 0));
    assert!(overloaded(&[10, 7], &[10, 10], 0));
    // The pool's busy estimate: size minus idle (armed) workers.
    let m = IdleMasks::new(idle_shape(&l));
    for w in 4..8 {
        m.set_idle(w);
    }
    let busy: Vec<usize> = (0..2).map(|x| m.llc_len(x) - m.idle_count(x)).collect();
    assert_eq!(busy, [4, 0]);
    assert!(overloaded(&busy, &size, 0));
}

/// Issue 8, item 12, as the pool's idle masks see it: 16 jobs of a group
/// packed into LLC 0 of `llc:2 core:8` wait on one barrier. LLC 0's 8
/// workers block, 7 workers of LLC 1 helped and block too, and the last
/// worker, 15, looks for work. Busy counts 8 against 7 are within the
/// overload margin (20% of 8: more than 1.6 workers of difference), so
/// the overload rule alone leaves the 16th job queued for ever; the
/// saturation rule lets worker 15 take it once it has found nothing else
/// (its idle bit set, in the re-check before it parks).
#[test]
fn saturated_llc_lets_idle_workers_of_other_llcs_help() {
    let l = layout("llc:2 core:8");
    let m = IdleMasks::new(idle_shape(&l));
    let size = [8, 8];
    let busy =
        |m: &IdleMasks| -> Vec<usize> { (0..2).map(|x| m.llc_len(x) - m.idle_count(x)).collect() };
    // Worker 15 searching between jobs: everyone busy, no help.
    assert_eq!(busy(&m), [8, 8]);
    assert!(!overloaded(&busy(&m), &size, 0));
    assert!(!may_help(&busy(&m), &size, 0, m.is_idle(15)));
    // Worker 15 idle, re-checking: not overloaded, but saturated: help.
    m.set_idle(15);
    assert_eq!(busy(&m), [8, 7]);
    assert!(!overloaded(&busy(&m), &size, 0));
    assert!(may_help(&busy(&m), &size, 0, m.is_idle(15)));
    // Once a worker of LLC 0 is idle again, that one is woken instead.
    m.set_idle(3);
    assert!(!may_help(&busy(&m), &size, 0, m.is_idle(15)));
}

#[test]
fn cluster_switch_matches_a_pool_built_without_clusters() {
    let t = Topology::synthetic("llc:2 cluster:2 core:2 smt:2").unwrap();
    let on = Layout::new(&t, &LayoutOptions::default()).unwrap();
    let off = Layout::new(
        &t,
        &LayoutOptions {
            cluster_aware: false,
            ..Default::default()
        },
    )
    .unwrap();
    for w in 0..on.len() {
        assert_eq!(on.tiers_for(w, false), &off.workers()[w].tiers[..]);
        assert_eq!(off.tiers_for(w, true), &on.workers()[w].tiers[..]);
    }
    // Wake order: with the switch off, the cluster step is skipped exactly
    // as for a pool built without clusters.
    let m = all_idle(&on);
    m.set_cluster_aware(false);
    assert_eq!(m.claim_in_llc(Some(13), 1), Some((8, Distance::Llc)));
    m.set_cluster_aware(true);
    assert_eq!(m.claim_in_llc(Some(13), 1), Some((12, Distance::Cluster)));
}
