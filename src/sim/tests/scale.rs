//! The policy at scale: steals stay in the thief's LLC, latch waiters keep
//! `fib` fast, and idle claims read words by LLC, not by worker (192
//! workers in 24 LLCs).

use super::*;
use crate::runtime::idle::IdleMasks;
use crate::runtime::registry::idle_shape;

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
/// `pass::far::far_victims`; `search::rules::may_spin`): a worker that takes a job
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
///   (`search::rules::may_spin`): 0.81 and 1.345 ms.
/// - Before the checks "Before crossing the LLC" of `pass` (own pack queue
///   again, mates' private halves first, LLCs with a searcher left to it):
///   0.800 and 0.961 ms; with them, 0.808 and 0.927 ms (flat 0.815).
/// - The far choice (`pass::far::far_pick`: the biggest of four victims
///   holding a job, by `pass::queues::victim_size`; rule 3 narrowed to single jobs
///   outside LLCs running iterator pieces): 0.856 and 0.876 ms; over 2^14
///   to 2^17 leaves 0.755, 0.765, 0.808, 0.814 before and 0.828, 0.868,
///   0.856, 0.896 after. What it fixed, traced: a far thief took the first
///   victim with a job, usually a worker near the end of a small piece
///   (its LLC mates had taken its bigger halves); half of the ~3,000 far
///   steals took one to four leaves, and the thief's LLC ran dry again at
///   once. With the far choice the far steals fell to ~1,200, their
///   working-set moves across LLCs from 906 to 109.
/// - One searcher per LLC past the spinner cap (`search::rules::may_spin`): this
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
///   (`private::rules::PROMOTED_AHEAD`, so a far batch steal takes two): 0.890,
///   0.913, 0.876, 0.933 over 2^14 to 2^17 leaves, but makespans 1.025 of
///   the far choice's (geomean), `fib` 5 to 13% slower, the Kunpeng's
///   fork-joins 8 to 10%; four ahead, 1.027;
/// - woken workers starting with near passes (as a search from an empty
///   deque does): 1.010 and less locality;
/// - the re-check skipping other LLCs' workers while an LLC mate searches:
///   makespans 1.135 (the worst 2.6 times), with near passes for woken
///   workers 1.243;
/// - near passes spinning past the spinner cap (`search::rules::may_spin`): this
///   test 0.894; makespans 0.992 (iterators 0.68 to 0.95, but `fib` and
///   the fork-joins up to 13% slower), the later iterator runs 97.4% in
///   their pieces' LLC; only while an LLC mate is busy (it will split):
///   0.893, the fork-joins over 2^14 to 2^17 leaves 0.891 to 0.905,
///   makespans 1.025 (`fib` up to 13% slower). Not kept: the simulator
///   does not model the contention of many spinners that the cap exists
///   for, so its makespans flatter any rule that spins more;
/// - the re-check leaving a far job whose size estimate (`pass::queues::victim_size`)
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

/// Latch waiters spin past the spinner cap (`search::rules::may_spin`): at 192
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

/// A small tree started in an idle pool of four LLCs of 20 (the shape of
/// the 2x Xeon 6230 model): the root's receivers deal on to LLCs whose
/// workers all sleep, and a searcher of another LLC takes such a half
/// before the worker its push woke arrives (`pass`, "A dealt half of a
/// sleeping LLC"). The flat order has no steal tier inside the LLC and
/// never looks.
#[test]
fn a_half_dealt_to_a_sleeping_llc_is_taken_by_another_llcs_searcher() {
    let fib = Fib { n: 14, ns: 10 };
    let h = run("llc:4 core:20", &fib, Policy::Hierarchical, None);
    assert!(h.counts.deals >= 3, "{:?}", h.counts);
    assert!(h.counts.asleep_takes >= 1, "{:?}", h.counts);
    let f = run("llc:4 core:20", &fib, Policy::Flat, None);
    assert_eq!(f.counts.asleep_takes, 0, "{:?}", f.counts);
}

/// The same small tree on the same shape, under the Xeon's costs (each
/// within 10% of the class's, three seeds): the root's receivers run
/// their halves alone while the mates their promotions claimed are on
/// their way, and a searcher of another LLC with an awake mate takes from
/// them instead of leaving them to those claims: in a near pass, while
/// the receiver is its LLC's only awake worker (`pass`, "The receiver
/// alone"), or in a full pass's far walk (`pass::far`, "Claims still on
/// their way"). The flat order has neither and never gets there.
#[test]
fn a_receiver_whose_mates_are_on_their_way_is_helped_by_another_llc() {
    let fib = Fib { n: 14, ns: 10 };
    let xeon = CostModel::published()
        .with(include_str!("../classes/xeon.cost"))
        .unwrap();
    let passes = |p| {
        (1..=3)
            .map(|seed| {
                let cost = xeon.perturbed(10.0, seed);
                let r = simulate(&machine("llc:4 core:20"), &fib, p, None, &cost).unwrap();
                (r.counts.receiver_takes, r.counts.claim_passes)
            })
            .fold((0, 0), |(t, c), (dt, dc)| (t + dt, c + dc))
    };
    let (takes, _) = passes(Policy::Hierarchical);
    assert!(takes >= 1);
    assert_eq!(passes(Policy::Flat), (0, 0));
}
