//! The simulator's checks: determinism, the greedy bound, agreement with
//! the real pool, and the policy at scale (issue "Scale simulator").

use super::*;
use crate::groups::{Affinity, GroupOptions, Placement};
use crate::runtime::idle::IdleMasks;
use crate::runtime::registry::idle_shape;
use crate::topology::Topology;

fn machine(spec: &str) -> Topology {
    Topology::synthetic(spec).unwrap()
}

fn run(spec: &str, w: &dyn Workload, p: Policy, n: Option<usize>) -> Run {
    simulate(&machine(spec), w, p, n, &CostModel::default()).unwrap()
}

/// `w` on `spec` under `Hierarchical` and under `Flat`, every worker.
fn hierarchical_and_flat(spec: &str, w: &dyn Workload) -> (Run, Run) {
    (
        run(spec, w, Policy::Hierarchical, None),
        run(spec, w, Policy::Flat, None),
    )
}

fn in_llc(r: &Run) -> f64 {
    r.counts.steals_within_llc() as f64 / r.counts.steals_total().max(1) as f64
}

#[test]
fn fib_runs_every_job_once() {
    for p in Policy::ALL {
        let r = run("llc:2 cluster:2 core:2", &Fib { n: 12, ns: 2 }, p, None);
        // fib(12) has 465 calls: 232 joins, each one `b` run as a job.
        assert_eq!(r.counts.jobs, 1 + 232, "{p}: {:?}", r.counts);
        assert!(r.counts.makespan_ns > 0);
    }
}

#[test]
fn same_seed_same_report_byte_for_byte() {
    let t = machine("numa:2 llc:2 cluster:2 core:2");
    let w = RandomTree {
        len: 1 << 16,
        grain: 512,
        seed: 7,
    };
    let once = || {
        report(
            "m",
            &t,
            &w,
            &Policy::ALL,
            &[Some(5), None],
            &CostModel::default(),
        )
        .unwrap()
    };
    let (a, b) = (once(), once());
    assert_eq!(a.json(), b.json());
    assert_eq!(a.table(), b.table());
    assert!(
        a.runs.iter().all(|r| r.counts.steals_total() > 0),
        "{}",
        a.table()
    );
}

/// Makespan against the greedy bound T1/P + T∞ (Graham, Brent), plus the
/// overheads the model charges: per job (its pushes, pops, fences and a
/// steal with its transfer, spread over P workers), per level of the span
/// (a steal and a wakeup), and the start-up chain of wakeups (one per
/// worker). Also never below max(T1/P, T∞).
#[test]
fn fork_join_makespan_within_the_greedy_bound() {
    let c = CostModel::default();
    let per_job = c.push_ns
        + c.pop_ns
        + 2.0 * c.private_ns
        + 2.0 * c.fence_ns
        + c.steal_ns
        + c.job_lines * c.line_remote_ns
        + 64.0 * c.idle_word_ns;
    for seed in 1..=6 {
        let w = RandomTree {
            len: 1 << 17,
            grain: 1024,
            seed,
        };
        let root = &w.roots()[0].node;
        // Work in this machine's ns (`work_scale`), as the simulator charges it.
        let (t1, tinf) = work_span(&w, root);
        let (t1, tinf) = (t1 as f64 * c.work_scale, tinf as f64 * c.work_scale);
        for (spec, p) in [("llc:2 core:4", 8usize), ("numa:2 llc:2 core:4", 16)] {
            for policy in Policy::ALL {
                let r = run(spec, &w, policy, None);
                let k = &r.counts;
                let depth = 64.0; // 2^17 items, splits at most 9:1: depth < 64
                let refill = (1u64 << 17) as f64 * 8.0 / c.bw_remote * 2.0;
                let overhead = k.jobs as f64 * per_job / p as f64
                    + depth * (c.steal_ns + c.wake_ns + c.yield_ns * 4.0)
                    + p as f64 * c.wake_ns
                    + refill;
                let bound = t1 / p as f64 + tinf + overhead;
                let ms = k.makespan_ns as f64;
                assert!(
                    ms <= bound,
                    "{spec} {policy} seed {seed}: {ms} > {bound} (T1 {t1}, T∞ {tinf})"
                );
                assert!(
                    ms >= (t1 / p as f64).max(tinf),
                    "{spec} {policy}: {ms} below the lower bound"
                );
            }
        }
    }
}

#[test]
fn one_llc_hierarchical_and_flat_same_locality() {
    let w = Fib { n: 18, ns: 10 };
    let (h, f) = hierarchical_and_flat("llc:1 core:8", &w);
    for r in [&h, &f] {
        assert!(r.counts.steals_total() > 0);
        assert_eq!(in_llc(r), 1.0, "{:?}", r.counts);
        assert_eq!(r.counts.wakeups_within_llc(), r.counts.wakeups_total());
        assert_eq!(r.counts.llc_moves, 0);
    }
}

/// The real pool and the simulated one, 2 workers each, the same `join`
/// and spawn workloads of sleeping leaves: steal and wakeup counts within
/// bands that say why they are that wide (no floor: every band fails when
/// the simulator makes no steal or twice the real wakeups).
///
/// - Join tree (32 leaves of 500 µs): the second worker must steal the
///   other half at least once in both. A real leaf sleeps 500 µs plus the
///   timer's slack and a wakeup (tens of µs, varying), so one worker
///   finishes first and steals down the other's remaining tree: each
///   steal takes the oldest half of what the victim has left, so at most
///   one per level (5 levels) in each direction; the simulated leaves take
///   exactly 500 µs, so the halves end together. Band: simulated >= 1 and
///   real in simulated..=simulated + 10.
/// - 60 spawns: the spawning worker pushes all 60 while the other steals
///   one at a time; which worker's sleep ends first decides each next
///   job, so about half are stolen. Band: within a factor of 2.
/// - Wakeups, both: the root's wakeup of a worker and that worker's wakeup
///   of the other, then both stay busy until the end. Band: equal, give
///   or take one (a worker that parked for a moment between two leaves).
#[test]
fn simulated_two_workers_agree_with_the_real_pool() {
    // A fork-join tree whose 32 leaves sleep 500 µs: as fib, but the
    // leaves take long enough that the OS's scheduling of the two threads
    // on a loaded machine does not decide who steals.
    fn tree(n: u64) -> u64 {
        if n == 1 {
            std::thread::sleep(std::time::Duration::from_micros(500));
            return 1;
        }
        let (a, b) = crate::join(|| tree(n / 2), || tree(n / 2));
        a + b
    }
    let real = |f: &(dyn Fn() + Sync)| {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(f);
        let s = pool.stats();
        let steals: u64 = s
            .workers
            .iter()
            .map(|w| w.steals.iter().sum::<u64>() + w.claimed)
            .sum();
        let wakeups: u64 = s
            .workers
            .iter()
            .map(|w| w.wakeups.iter().sum::<u64>())
            .sum::<u64>()
            + s.external_wakeups.iter().sum::<u64>();
        (steals, wakeups)
    };
    let band = |what: &str, real: u64, sim: u64, lo: u64, hi: u64| {
        assert!(
            (lo..=hi).contains(&real),
            "{what}: real {real} outside {lo}..={hi} (simulated {sim}; the bands' reasons are above)"
        );
    };
    type Case = (&'static str, Box<dyn Workload>, Box<dyn Fn() + Sync>);
    let cases: [Case; 2] = [
        (
            "join tree",
            Box::new(IterRange {
                len: 32,
                grain: 1,
                ns: 500_000,
            }),
            Box::new(|| assert_eq!(tree(32), 32)),
        ),
        (
            "60 spawns",
            Box::new(SpawnStorm {
                jobs: 60,
                ns: 100_000,
            }),
            Box::new(|| {
                crate::scope(|s| {
                    for _ in 0..60 {
                        s.spawn(|_| {
                            // Sleeping, not spinning: both workers get a CPU
                            // at once on a loaded machine, so who runs which
                            // job depends on the pool, not the OS.
                            std::thread::sleep(std::time::Duration::from_micros(500))
                        });
                    }
                })
            }),
        ),
    ];
    for (name, w, f) in cases {
        // The median of three real runs (the machine is shared).
        let mut runs: Vec<(u64, u64)> = (0..3).map(|_| real(&*f)).collect();
        runs.sort_by_key(|r| r.0);
        let rs = runs[1].0;
        runs.sort_by_key(|r| r.1);
        let rw = runs[1].1;
        let s = run("llc:1 core:2", &*w, Policy::Hierarchical, None);
        eprintln!(
            "{name}: real steals {rs} wakeups {rw}; simulated {} {}",
            s.counts.steals_total(),
            s.counts.wakeups_total()
        );
        let (ss, sw) = (s.counts.steals_total(), s.counts.wakeups_total());
        assert!(ss >= 1, "{name}: the simulated second worker never stole");
        let (lo, hi) = if name == "join tree" {
            (ss, ss + 10)
        } else {
            (ss.div_ceil(2), 2 * ss)
        };
        band(&format!("{name} steals"), rs, ss, lo, hi);
        band(
            &format!("{name} wakeups"),
            rw,
            sw,
            sw.saturating_sub(1),
            sw + 1,
        );
    }
}

/// 192 workers in 24 LLCs, balanced fork-join (a binary tree of 2^16 leaves
/// of 2 µs): most steals stay in the thief's LLC under `Hierarchical`;
/// under `Flat` about as many as chance gives (7 of 191 victims: 1/27);
/// and hierarchical stealing costs little time against flat.
///
/// Measured: 0.919 of 8,649 steals in the LLC, makespan 0.855 ms against
/// `Flat`'s 0.790 (1.08x) and 0.04: the 90%. Over the simulate
/// example's `range:N:1:NS` trees of 2^15 to 2^17 leaves of 1.5 to 3 us,
/// 0.913 to 0.933; 2^18 and 2^20 leaves of 2 us 0.939 and 0.945 (2.970
/// and 11.42 ms against `Flat`'s 2.856 and 11.09). What reached it
/// (session 16; `pass`, rule 4 of "Before crossing the LLC" and
/// `pass::far_victims`; `search::may_spin`): a worker that takes a job
/// from another LLC marks itself *crossing* until its first `join` or
/// next search, and while it does its LLC mates neither cross in ordinary
/// passes nor park after their first passes: they spin for its halves.
/// That cut the herd below (an LLC that ran dry crossed once per worker);
/// with it, the far choice compares 8 victims spread over the tier's LLCs
/// instead of 4 mostly of one LLC. Before: 0.850 of 9,042 steals, 0.851
/// ms; over the same trees 0.803 to 0.859.
///
/// History before that (the simulate example on `range:67108864`, the
/// same tree with leaves of 2,048 ns, unless said otherwise):
/// - Before latch waiters could spin past the spinner cap
///   (`search::may_spin`): 0.81 and 1.345 ms.
/// - Before the checks "Before crossing the LLC" of `pass` (own pack queue
///   again, mates' private halves first, LLCs with a searcher left to it):
///   0.800 and 0.961 ms; with them, 0.808 and 0.927 ms (flat 0.815).
/// - The far choice (`pass::steal_tier_far`: the biggest of four victims
///   holding a job, by `pass::far_size`; rule 3 narrowed to single jobs
///   outside LLCs running iterator pieces): 0.856 and 0.876 ms; over 2^14
///   to 2^17 leaves 0.755, 0.765, 0.808, 0.814 before and 0.828, 0.868,
///   0.856, 0.896 after. What it fixed, traced: a far thief took the first
///   victim with a job, usually a worker near the end of a small piece
///   (its LLC mates had taken its bigger halves); half of the ~3,000 far
///   steals took one to four leaves, and the thief's LLC ran dry again at
///   once. With the far choice the far steals fell to ~1,200, their
///   working-set moves across LLCs from 906 to 109.
/// - One searcher per LLC past the spinner cap (`search::may_spin`): this
///   test 0.877 again (0.806 ms); over 2^14 to 2^17 leaves 0.842, 0.880,
///   0.844, 0.897 (it is for iterators: their later runs' work in their
///   pieces' LLC went from 0.85-0.93 to 0.997-1.000).
/// - Rule 3 back to leaving every worker of an LLC with a searcher (the
///   numbers above had it narrowed to single jobs): on the tour's virtual
///   pool, 32 workers on 2 CPUs, the narrowed rule had cut the share of
///   steals inside the thief's LLC from 37% to 22% (means of 40 runs; 35%
///   with the rule back). Here: 0.850, 0.851 ms; over 2^14 to 2^17 leaves
///   0.800, 0.821, 0.816, 0.859.
/// - Comparing every victim of the far tier, each look free, reached 0.901
///   (0.805 ms); charged a cache-line transfer per look, 0.72 and 0.944 ms.
///
/// Tried and not kept, before the far choice (each with its numbers):
/// - a per-LLC spinner cap (0.76); letting near passes spin past the cap
///   (0.826, makespan 6% worse, `fib:28` 15% worse); 10 to 60 near passes
///   (0.80 to 0.83 over three tree sizes); without near passes 0.707 and
///   0.852 ms;
/// - batches everywhere or nowhere, promoting at `join` entry only for
///   searchers of the own LLC (within 2 points); robbing the LLC mate that
///   made the fewest of its halves public (0.821, 0.948 ms);
/// - a far steal from the victim with the longest deque (0.828; the third
///   iterator run of `iter:4194304:3` 0.934 to 0.804: deques hold about
///   two jobs in any recursion, so the length says little);
/// - the re-check leaving LLCs with a searcher to it (0.844, `fib:28`
///   0.173 to 0.193 ms); the re-check taking nothing from other LLCs while
///   an LLC mate searches (0.748, 1.047 ms: the skippers park and are
///   woken again, 794 wakeups against 192); spinner caps of threads / 4 and
///   / 2 (0.828 and 0.829, slower, worse iterator locality).
///
/// Tried and not kept, after the far choice (the simulate example over
/// three machines and 14 workloads):
/// - promoting three `join` halves ahead instead of two
///   (`private::PROMOTED_AHEAD`, so a far batch steal takes two): 0.890,
///   0.913, 0.876, 0.933 over 2^14 to 2^17 leaves, but makespans 1.025 of
///   the far choice's (geomean), `fib` 5 to 13% slower, the Kunpeng's
///   fork-joins 8 to 10%; four ahead, 1.027;
/// - woken workers starting with near passes (as a search from an empty
///   deque does): 1.010 and less locality;
/// - the re-check skipping other LLCs' workers while an LLC mate searches:
///   makespans 1.135 (the worst 2.6 times), with near passes for woken
///   workers 1.243;
/// - near passes spinning past the spinner cap (`search::may_spin`): this
///   test 0.894; makespans 0.992 (iterators 0.68 to 0.95, but `fib` and
///   the fork-joins up to 13% slower), the later iterator runs 97.4% in
///   their pieces' LLC; only while an LLC mate is busy (it will split):
///   0.893, the fork-joins over 2^14 to 2^17 leaves 0.891 to 0.905,
///   makespans 1.025 (`fib` up to 13% slower). Not kept: the simulator
///   does not model the contention of many spinners that the cap exists
///   for, so its makespans flatter any rule that spins more;
/// - the re-check leaving a far job whose size estimate (`pass::far_size`)
///   is at most 2 to a searching LLC mate (its owner runs it soon, so only
///   parallelism is at stake): this test 0.897, the fork-joins over 2^14
///   to 2^17 leaves 0.878 to 0.893, makespans 0.997, 2.3 points more
///   steals in the LLC; at most 1 or 3: 0.887 and 0.881. Not kept: it
///   makes the sleep proof's re-check skip jobs it saw, for two points.
///
/// Where the rest comes from (traced, `range:67108864`, with rule 3
/// narrowed): of the 1,184 far
/// steals, 53% are made in the re-check before parking (which must look
/// everywhere), 78% by workers of an LLC where four or more workers
/// search, 45% in the last fifth of the run; 40% take one to four leaves.
///
/// Bigger trees do not reach 90% either (the code as it is): 2^18 leaves
/// (`range:268435456`) 0.875, 3.010 ms against `Flat`'s 2.923; 2^20
/// leaves 0.869, 11.73 ms against 11.37. Traced on 2^20 leaves: of 3,540
/// far steals, 1,599 came within 200 ns of the previous far steal of the
/// same LLC (several workers of an LLC that ran dry cross at once), 60%
/// in the last fifth of the run, 10% in re-checks.
///
/// Tried and not kept, against that herd (session 15):
/// - the far thief showing as "starting" (rule 2 of "Before crossing the
///   LLC") until its first private push or the end of the stolen job, so
///   that its mates wait for its halves: 0.799 and 0.918 ms on this
///   tree's `range:67108864`, 0.804 and 3.275 ms on 2^18 leaves; the mates
///   held back reach the spinner cap, and their re-checks (which look
///   everywhere) crossed 2,094 times instead of 540;
/// - the same mark, and mates of a marked thief spinning past the spinner
///   cap: 0.880 and 0.909 of steals in the LLC, but the steals grew 1.8
///   and 2.4 times and the crossings with them (about 1,620 and 2,450
///   against 1,400 and 1,380), makespans 0.921 and 3.183 ms: the share
///   rose only because steals inside the LLC multiplied;
/// - the opposite direction, a busy worker whose LLC has no searcher
///   promoting its half into the injector of an LLC whose workers all
///   search or sleep: 0.881 and 0.916 of steals in the LLC (0.900 and
///   3.081 ms), but only because crossings became injector pulls instead
///   of steals: working sets moved across LLCs 513 and 730 times instead
///   of 218 and 103.
#[test]
fn hierarchical_steals_stay_in_the_llc_at_192_workers() {
    let w = IterRange {
        len: 1 << 16,
        grain: 1,
        ns: 2_000,
    };
    let (h, f) = hierarchical_and_flat("package:2 llc:12 core:8", &w);
    assert_eq!(h.workers, 192);
    let (ih, fl) = (in_llc(&h), in_llc(&f));
    eprintln!(
        "hierarchical: {ih:.3} of {} steals in the LLC, {} ns; flat: {fl:.3} of {}, {} ns",
        h.counts.steals_total(),
        h.counts.makespan_ns,
        f.counts.steals_total(),
        f.counts.makespan_ns
    );
    assert!(
        ih >= 0.90,
        "hierarchical: {ih:.3} of {} steals in the LLC",
        h.counts.steals_total()
    );
    assert!(
        fl <= 0.1,
        "flat: {fl:.3} of {} steals in the LLC",
        f.counts.steals_total()
    );
    assert!(ih >= 5.0 * fl, "hierarchical {ih:.3}, flat {fl:.3}");
    let (mh, mf) = (h.counts.makespan_ns, f.counts.makespan_ns);
    assert!(
        mh as f64 <= 1.2 * mf as f64,
        "hierarchical {mh} ns against flat {mf} ns"
    );
}

/// Latch waiters spin past the spinner cap (`search::may_spin`): at 192
/// workers nearly every worker waits on a `join` latch near the end of a
/// fork-join, and parked waiters unwound the join tree one wakeup latency
/// per nested steal. `fib:24`, measured: `Hierarchical` 0.103 ms (0.111
/// since the crossing rule of `pass`), `Flat` 0.118 ms; with the cap on
/// latch waiters too, 0.237 and 0.219 ms. Since passes skip idle workers
/// while most are idle (`pass`, "Idle workers"), `Flat`'s one tier of all
/// 191 others gains most: 0.110 and 0.108 ms, so the two orders are
/// compared within 5%.
#[test]
fn latch_waiters_keep_fib_fast_at_192_workers() {
    let w = Fib { n: 24, ns: 10 };
    let (h, f) = hierarchical_and_flat("package:2 llc:12 core:8", &w);
    let (mh, mf) = (h.counts.makespan_ns, f.counts.makespan_ns);
    assert!(
        mh as f64 <= 1.05 * mf as f64,
        "hierarchical {mh} ns, flat {mf} ns"
    );
    assert!(mh <= 150_000, "hierarchical {mh} ns");
}

/// The nearest-idle claim, counted in the `IdleMasks` code itself: worst
/// case (the only idle worker in the farthest LLC), the words it touches
/// do not grow with the workers per LLC, and grow with the number of LLCs
/// at most by the depth of the summary tree (a few words), far below a
/// scan of every worker's flag, which reads one per worker.
#[test]
fn idle_claims_read_words_by_llc_not_by_worker() {
    let words = |spec: &str| {
        let layout = layout(&machine(spec), Policy::Hierarchical, None).unwrap();
        let masks = IdleMasks::new(idle_shape(&layout));
        let last = layout.len() - 1;
        masks.set_idle(last);
        let before = crate::sync::counted::words_touched();
        let hit = masks.claim_nearest(Some(0), 0);
        let n = crate::sync::counted::words_touched() - before;
        assert_eq!(hit.map(|h| h.0), Some(last), "{spec}");
        (n, layout.len())
    };
    let (w8, n8) = words("package:2 llc:12 core:8");
    let (w32, n32) = words("package:2 llc:12 core:32");
    let (w_more, _) = words("package:2 llc:48 core:8");
    assert_eq!((n8, n32), (192, 768));
    // 4x the workers, same LLCs: the same words.
    // (The summary packs one count per LLC, as wide as the largest LLC's
    // worker count needs: 4x the workers may add a summary word.)
    assert!(w32 <= w8 + 1, "8 per LLC: {w8} words, 32 per LLC: {w32}");
    // 4x the LLCs: at most a level of the summary tree more (its walk
    // skips empty subtrees), far fewer than workers.
    assert!(w_more <= w8 + 2, "{w_more} words for 96 LLCs, {w8} for 24");
    assert!(w_more < 768 / 16, "{w_more} words for 768 workers");
    // The simulator counts the same code: 192 workers, 24 LLCs.
    let h = run(
        "package:2 llc:12 core:8",
        &Fib { n: 16, ns: 10 },
        Policy::Hierarchical,
        None,
    );
    // Per idle-mask operation, not per wakeup: most notifies run while
    // others search and wake nobody, yet `wake_local`'s look for an LLC
    // where nobody searches reads about two words per LLC (47 here, from
    // the notify after a promotion, once the ramp-up's fan-out keeps more
    // workers searching). The property is the mean operation's reach: by
    // LLC (24 here), far below a word per worker (192).
    assert!(
        h.counts.wakeups_total() > 0,
        "no wakeup in a fib on 192 workers"
    );
    let per_op = h.counts.claim_words as f64 / h.counts.claim_calls.max(1) as f64;
    assert!(per_op < 48.0, "{per_op:.1} words per idle-mask operation");
}

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

/// The worst piece's share of its work run in its own LLC.
fn worst_piece_in_llc(it: &IterStats) -> f64 {
    it.pieces
        .iter()
        .map(|p| p.in_llc_ns as f64 / p.work_ns.max(1) as f64)
        .fold(1.0, f64::min)
}

fn iter_workload(len: u64, runs: u64, replay: bool) -> Iter {
    Iter {
        len,
        ns: 2,
        runs,
        replay,
    }
}

/// Checks that `it`'s pieces are `first_split`'s for `depth` on `l`, that
/// every item's work was counted once, and that each piece was started in
/// its LLC (replay: by its target).
fn check_split(
    l: &crate::Layout,
    it: &IterStats,
    items: u64,
    depth: crate::iter::plumbing::hierarchy::SplitDepth,
) {
    let want = crate::iter::plumbing::hierarchy::first_split(l, items as usize, 1, depth);
    let got: Vec<_> = it.pieces.iter().map(|p| (p.items.clone(), p.llc)).collect();
    let want: Vec<_> = want
        .iter()
        .map(|p| (p.range.clone(), p.domain.llc(l).unwrap()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(it.in_llc().1, items * 2, "every item's work counted once");
    // A piece's home: its LLC, or with replay the LLC of the worker it is
    // sent back to (where it ran last time, which may be another LLC).
    let home = |p: &&super::report::PieceStats| p.aimed_at.map_or(p.llc, |w| l.workers()[w].llc);
    let outside: Vec<_> = it
        .pieces
        .iter()
        .filter(|p| l.workers()[p.ran_on].llc != home(p))
        .collect();
    // The help rule of pack queues lets an idle worker of another LLC take
    // a piece whose LLC is saturated (every worker busy), as it does for a
    // pack group's jobs; a few pieces of a run may start there.
    assert!(
        outside.len() * 20 <= it.pieces.len(),
        "{} of {} pieces started outside their LLC: {outside:?}",
        outside.len(),
        it.pieces.len()
    );
}

/// `iter:` runs the runtime's first split: on `llc:4 core:2` (no cluster
/// level) one piece per LLC, cut by `first_split`, each started in its
/// LLC by the pack-queue aim and at least 80% of each piece's work run
/// there (measured: at least 96%).
#[test]
fn iter_pieces_run_in_their_llc() {
    let spec = "llc:4 core:2";
    let items = 1 << 20;
    let r = run(
        spec,
        &iter_workload(items, 2, false),
        Policy::Hierarchical,
        None,
    );
    let l = layout(&machine(spec), Policy::Hierarchical, None).unwrap();
    assert_eq!(r.counts.iters.len(), 2);
    for it in &r.counts.iters {
        check_split(
            &l,
            it,
            items,
            crate::iter::plumbing::hierarchy::SplitDepth::Cluster,
        );
        assert_eq!(it.pieces.len(), 4);
        let worst = worst_piece_in_llc(it);
        assert!(
            worst >= 0.8,
            "worst piece: {worst:.3} of its work in its LLC: {it:?}"
        );
        assert_eq!(it.replay, None);
    }
}

/// On 24 LLCs the split and the aim hold (a piece per LLC, each started
/// there), and nearly all of each piece's work runs in its LLC: the
/// adaptive halves inside a piece are published with `Sleep::notify`,
/// whose local wake gets an idle worker of the piece's LLC up even while
/// workers of other LLCs search, and those searchers look only inside
/// their own LLC for their first passes (near passes). Measured 0.999
/// overall, worst piece 0.992; before the local wake 0.52 and 0.25, with a
/// makespan three times as long.
#[test]
fn iter_pieces_on_24_llcs_start_in_their_llc() {
    let spec = "package:2 llc:12 core:8";
    let items = 1 << 22;
    let l = layout(&machine(spec), Policy::Hierarchical, None).unwrap();
    let r = run(
        spec,
        &iter_workload(items, 1, false),
        Policy::Hierarchical,
        None,
    );
    let it = &r.counts.iters[0];
    check_split(
        &l,
        it,
        items,
        crate::iter::plumbing::hierarchy::SplitDepth::Cluster,
    );
    assert_eq!(it.pieces.len(), 24);
    let (a, b) = it.in_llc();
    let share = a as f64 / b as f64;
    assert!(
        share >= 0.95,
        "share of the work in its piece's LLC: {share:.3}"
    );
    let worst = worst_piece_in_llc(it);
    assert!(worst >= 0.9, "worst piece: {worst:.3} in its LLC");
}

/// Iterator calls issued back to back on 24 LLCs (`iter:N:3`, five
/// lengths from 2^21 to 2^23 items): each run keeps its pieces' work in
/// their LLC, although the previous run's workers are still searching when
/// the next run's pieces are queued. A worker of another LLC leaves a
/// piece to its LLC's searchers (`group_routing::helps`), does not rob
/// that LLC's workers while one of them searches, takes the first victim
/// in its random order from an LLC running a piece, not the biggest (rule
/// 3 of "Before crossing the LLC" and `far_size` in `pass`), and every LLC
/// keeps one searcher past the spinner cap (`search::may_spin`).
///
/// Measured, the second and third runs over the five lengths: 0.997 to
/// 1.000 (worst piece 0.977). Before the spinner allowance, 0.846 to 0.930 (mean 0.877); with
/// the first victim of every far tier also, 0.764 to 0.934 (mean 0.866).
/// Five lengths, because one run's share moved by several points with any
/// change of timing then. Before the checks before crossing the LLC,
/// `iter:4194304:3` kept 1.000, 0.906 and 0.788; with the plain help rule
/// (searchers counted as busy) its third run kept 0.624 (worst piece
/// 0.004).
#[test]
fn iter_calls_back_to_back_keep_their_pieces_in_their_llc() {
    let spec = "package:2 llc:12 core:8";
    let mut shares = Vec::new();
    for items in [1 << 21, 3_000_000, 1 << 22, 6_000_000, 1 << 23] {
        let r = run(
            spec,
            &iter_workload(items, 3, false),
            Policy::Hierarchical,
            None,
        );
        assert_eq!(r.counts.iters.len(), 3);
        for (k, it) in r.counts.iters.iter().enumerate() {
            let (a, b) = it.in_llc();
            let share = a as f64 / b as f64;
            assert!(
                share >= 0.95,
                "{items} items, run {k}: {share:.3} of the work in its piece's LLC"
            );
            if k > 0 {
                shares.push(share);
            }
        }
    }
    let mean = shares.iter().sum::<f64>() / shares.len() as f64;
    assert!(
        mean >= 0.98,
        "mean share of the later runs' work in their piece's LLC: {mean:.3} ({shares:.3?})"
    );
}

/// With replay, the run after the first sends each piece back where it
/// ran: from the second run on, at least 80% of the pieces (one per
/// worker) start in the same LLC as in the run before, by the runtime's
/// own `Replay` record (`ReplayCore`), and each piece is aimed at the
/// worker `replay_targets` chose.
#[test]
fn iter_replay_sends_pieces_back() {
    for (spec, items) in [
        ("llc:4 core:2", 1 << 20),
        ("package:2 llc:12 core:8", 1 << 22),
    ] {
        let l = layout(&machine(spec), Policy::Hierarchical, None).unwrap();
        let r = run(
            spec,
            &iter_workload(items, 3, true),
            Policy::Hierarchical,
            None,
        );
        assert_eq!(r.counts.iters.len(), 3, "{spec}");
        for (k, it) in r.counts.iters.iter().enumerate() {
            check_split(
                &l,
                it,
                items,
                crate::iter::plumbing::hierarchy::SplitDepth::Worker,
            );
            assert_eq!(it.pieces.len(), l.len(), "{spec}: one piece per worker");
            let st = it.replay.expect("a replayed run records");
            assert_eq!(st.pieces, l.len());
            if k > 0 {
                assert!(st.same_llc * 5 >= st.pieces * 4, "{spec}, run {k}: {st}");
            }
        }
    }
}

/// On one LLC the first split is a no-op: the iterator's tree is the
/// plain adaptive one (`range:`), job for job; with replay it is still
/// cut per worker, as the runtime does.
#[test]
fn iter_on_one_llc_is_not_cut() {
    let spec = "core:8";
    let items = 1 << 18;
    let r = run(
        spec,
        &iter_workload(items, 1, false),
        Policy::Hierarchical,
        None,
    );
    assert_eq!(r.counts.iters.len(), 1);
    assert!(r.counts.iters[0].pieces.is_empty());
    // The root runs the whole adaptive tree inline: a budget of 8 workers
    // halves 4 times (16 leaves), and each stolen half renews it.
    assert!(r.counts.leaves >= 16, "{:?}", r.counts);
    let r = run(
        spec,
        &iter_workload(items, 1, true),
        Policy::Hierarchical,
        None,
    );
    assert_eq!(r.counts.iters[0].pieces.len(), 8);
}

/// `range:ITEMS[:GRAIN:NS]` names the balanced fork-join of the tests, and
/// its name in reports says which one it is.
#[test]
fn range_workloads_take_a_grain_and_a_leaf_time() {
    let w = parse_workload("range:65536:1:2000").unwrap();
    assert_eq!(w.name(), "range:65536:1:2000");
    let (t1, _) = work_span(&*w, &w.roots()[0].node);
    let direct = IterRange {
        len: 1 << 16,
        grain: 1,
        ns: 2_000,
    };
    assert_eq!(work_span(&direct, &direct.roots()[0].node).0, t1);
    assert_eq!(parse_workload("range:4096").unwrap().name(), "range:4096");
    for bad in ["range:4096:1", "range:4096:x:2", "range:4096:1:2:3"] {
        assert!(parse_workload(bad).is_err(), "{bad}");
    }
}

#[test]
fn repeated_reports_show_median_and_range_per_column() {
    let t = machine("llc:2 core:4");
    let w = Fib { n: 14, ns: 10 };
    let repeat = Repeat {
        runs: 3,
        seed: 1,
        perturb_pct: 10.0,
    };
    let pols = [Policy::Hierarchical, Policy::RayonLike];
    let r = report_repeated("m", &t, &w, &pols, &[None], &CostModel::default(), repeat).unwrap();
    assert_eq!(r.runs.len(), 6);
    assert_eq!(
        r.runs.iter().map(|x| x.seed).collect::<Vec<_>>(),
        [1, 2, 3, 1, 2, 3]
    );
    // Perturbed costs and other seeds change the runs.
    assert_ne!(r.runs[0].counts, r.runs[1].counts);
    let table = r.table();
    assert!(table.contains("median [min-max] of 3 runs"), "{table}");
    let rayon_row = table.lines().find(|l| l.starts_with("rayon-like")).unwrap();
    // The rayon-like row's ratio to itself is 1 in every run.
    assert!(rayon_row.contains("1.00 [1.00-1.00]"), "{table}");
    let json = r.json();
    assert!(json.contains("\"summary\": ["), "{json}");
    assert!(json.contains("\"makespan_ms\": {\"median\": "), "{json}");
    assert!(json.contains("\"seeds\": [1, 2, 3]"), "{json}");
    // One run, seed 0: the plain single-run report.
    let once = report("m", &t, &w, &pols, &[None], &CostModel::default()).unwrap();
    assert!(!once.table().contains('['), "{}", once.table());
}

/// Sweeps over named blocks: each root a scope of `blocks` tasks, task `i`
/// writing block `i` of `bytes` (a data workload without editing the
/// workload list).
struct Sweeps {
    sweeps: u64,
    blocks: u64,
    bytes: u64,
}

impl Workload for Sweeps {
    fn name(&self) -> String {
        "sweeps".into()
    }
    fn roots(&self) -> Vec<Root> {
        (0..self.sweeps)
            .map(|s| Root {
                at_ns: s * 1_000_000,
                node: Node::new(0, s, 0),
                group: None,
            })
            .collect()
    }
    fn task(&self, node: &Node) -> Task {
        let body = if node.a == 0 {
            Body::Scope((0..self.blocks).map(|i| Node::new(1, i, 0)).collect())
        } else {
            Body::Leaf
        };
        Task {
            work_ns: 1000,
            footprint: 0,
            data: None,
            body,
        }
    }
    fn touches(&self, node: &Node) -> Vec<Touch> {
        if node.a == 0 {
            return Vec::new();
        }
        vec![Touch {
            id: node.b,
            bytes: self.bytes,
            write: true,
        }]
    }
}

#[test]
fn data_bytes_by_tier_add_up_and_reach_the_json() {
    let w = Sweeps {
        sweeps: 3,
        blocks: 64,
        bytes: 64 * 1024,
    };
    let t = machine("numa:2 llc:2 cluster:2 core:2");
    let r = report("m", &t, &w, &Policy::ALL, &[None], &CostModel::default()).unwrap();
    for run in &r.runs {
        let k = &run.counts;
        assert_eq!(
            k.bytes_by_tier.iter().sum::<u64>(),
            3 * 64 * 64 * 1024,
            "{}: {:?}",
            run.policy,
            k.bytes_by_tier
        );
        // The first sweep's first touches come from DRAM.
        assert!(
            k.bytes_from_dram() >= 64 * 64 * 1024,
            "{:?}",
            k.bytes_by_tier
        );
    }
    let json = r.json();
    assert!(
        json.contains("\"bytes_by_tier\": {\"same-core\": "),
        "{json}"
    );
    assert!(json.contains("\"dram-local\": "));
}
