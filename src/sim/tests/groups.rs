//! Job groups on simulated time: pack groups stay in their LLC, `Auto`
//! groups learn theirs, spread groups reach every cluster, and few jobs
//! run on the big cores first.

use super::*;
use crate::groups::{Affinity, GroupOptions, Placement};

/// Jobs of one group, spawned by roots from outside.
struct GroupJobs {
    group: GroupOptions,
    /// (time, jobs, ns each) per root; 0 jobs: the root is a leaf itself.
    bursts: Vec<(u64, u64, u64)>,
}

impl Workload for GroupJobs {
    fn name(&self) -> String {
        "group-jobs".into()
    }
    fn roots(&self) -> Vec<Root> {
        (0..self.bursts.len() as u64)
            .map(|i| Root {
                at_ns: self.bursts[i as usize].0,
                node: Node::new(0, i, 0),
                group: Some(0),
            })
            .collect()
    }
    fn groups(&self) -> Vec<GroupOptions> {
        vec![self.group]
    }
    fn task(&self, node: &Node) -> Task {
        let (_, jobs, ns) = self.bursts[node.b as usize];
        if node.a == 0 && jobs == 0 {
            return Task {
                work_ns: ns,
                footprint: 0,
                data: None,
                body: Body::Leaf,
            };
        }
        if node.a == 0 {
            let kids = (0..jobs).map(|k| Node::new(1, node.b, k)).collect();
            return Task {
                work_ns: 100,
                footprint: 0,
                data: None,
                body: Body::Scope(kids),
            };
        }
        Task {
            work_ns: ns,
            footprint: 4096,
            data: Some(node.c),
            body: Body::Leaf,
        }
    }
}

fn llcs_of_runs(spec: &str, r: &Run) -> Vec<usize> {
    let l = layout(&machine(spec), r.policy, Some(r.workers)).unwrap();
    r.counts
        .group_runs
        .iter()
        .map(|&(_, w)| l.workers()[w as usize].llc)
        .collect()
}

#[test]
fn pack_group_stays_in_its_llc_unless_overloaded() {
    let spec = "llc:4 core:4";
    let pack = GroupOptions {
        affinity: Affinity::Llc(2),
        placement: Placement::Pack,
    };
    // A root every 50 µs spawning 3 jobs of 10 µs: LLC 2 keeps up.
    let light = GroupJobs {
        group: pack,
        bursts: (0..20).map(|i| (i * 50_000, 3, 10_000)).collect(),
    };
    let r = run(spec, &light, Policy::Hierarchical, None);
    let llcs = llcs_of_runs(spec, &r);
    assert_eq!(llcs.len(), 20 * 4);
    assert!(llcs.iter().all(|&l| l == 2), "{llcs:?}");
    // One root spawning 64 jobs of 50 µs: LLC 2 is overloaded, others help.
    let heavy = GroupJobs {
        group: pack,
        bursts: vec![(0, 64, 50_000)],
    };
    let r = run(spec, &heavy, Policy::Hierarchical, None);
    let llcs = llcs_of_runs(spec, &r);
    let outside = llcs.iter().filter(|&&l| l != 2).count();
    assert!(
        outside > 0 && llcs.iter().filter(|&&l| l == 2).count() >= 16,
        "{llcs:?}"
    );
    // Helping is what bounds the makespan: 65 jobs over 16 workers.
    assert!(
        r.counts.makespan_ns < 16 * 50_000 / 4 * 5,
        "{}",
        r.counts.makespan_ns
    );
}

/// An `Auto` group learns its LLC from where its jobs ran, then bursts
/// overload that LLC and the other LLC's workers help: at every feed of the
/// tracker (on simulated time, with its decay), a switch happens only when
/// another LLC ran more than twice the preferred one's jobs. Here the
/// helpers run about a third of the jobs, so the group keeps its LLC.
#[test]
fn auto_group_switches_llc_only_at_twice_the_count() {
    let spec = "llc:2 core:4";
    let auto = GroupOptions {
        affinity: Affinity::Auto,
        placement: Placement::Pack,
    };
    let bursts = (0..12).map(|i| (i * 400_000, 24, 20_000)).collect();
    let r = run(
        spec,
        &GroupJobs {
            group: auto,
            bursts,
        },
        Policy::Hierarchical,
        Some(5),
    );
    let feeds = &r.counts.group_feeds;
    assert!(feeds.len() > 10, "{feeds:?}");
    for (_, counts, before, after) in feeds {
        let Some(p) = *before else { continue };
        let best = (0..counts.len())
            .max_by_key(|&l| (counts[l], std::cmp::Reverse(l)))
            .unwrap();
        // The counts are rounded down to jobs; the rule is on the exact
        // ones, so allow one job of rounding.
        if *after != Some(p) {
            assert!(
                counts[best] + 1 >= 2 * counts[p],
                "switched at {counts:?} from {p}"
            );
        } else if best != p {
            assert!(
                counts[best] <= 2 * counts[p] + 1,
                "stayed at {counts:?} on {p}"
            );
        }
    }
    let (_, last, _, pref) = feeds.last().unwrap();
    let p = pref.expect("a preference after 300 jobs");
    let helped: u64 = last
        .iter()
        .enumerate()
        .filter(|&(l, _)| l != p)
        .map(|(_, &c)| c)
        .sum();
    assert!(helped * 4 >= last[p], "the other LLC helped: {last:?}");
}

#[test]
fn spread_jobs_reach_every_cluster() {
    let spec = "llc:2 cluster:2 core:2";
    let w = Stream {
        chunks: 16,
        bytes: 64 << 10,
        sweeps: 2,
        gap_ns: 0,
        placement: Placement::Spread,
        affinity: Affinity::None,
    };
    let r = run(spec, &w, Policy::Hierarchical, None);
    let l = layout(&machine(spec), Policy::Hierarchical, None).unwrap();
    let mut per_cluster = vec![0; l.cluster_ranges().len()];
    for &(_, w) in &r.counts.group_runs {
        per_cluster[l.workers()[w as usize].cluster] += 1;
    }
    assert_eq!(per_cluster.len(), 4);
    assert!(per_cluster.iter().all(|&n| n > 0), "{per_cluster:?}");
}

/// Fewer jobs than workers on a big/little machine: the big cores run them.
#[test]
fn few_jobs_run_on_big_cores_first() {
    // One cluster: capacity decides inside a domain (across clusters the
    // nearer cluster comes first, whatever its cores).
    let spec = "cluster:1 core:4 big:2";
    let t = machine(spec);
    let l = layout(&t, Policy::Hierarchical, None).unwrap();
    let bigs = l.workers().iter().filter(|w| w.capacity == 1024).count();
    assert_eq!(bigs, 2);
    // Two jobs from outside, in a group without affinity (placed as
    // ordinary jobs, but counted where they run).
    let group = GroupOptions {
        affinity: Affinity::None,
        placement: Placement::Pack,
    };
    let w = GroupJobs {
        group,
        bursts: vec![(0, 0, 100_000), (0, 0, 100_000)],
    };
    let r = simulate(&t, &w, Policy::Hierarchical, None, &CostModel::default()).unwrap();
    let caps: Vec<u32> = r
        .counts
        .group_runs
        .iter()
        .map(|&(_, w)| l.workers()[w as usize].capacity)
        .collect();
    assert_eq!(caps, [1024, 1024]);
}
