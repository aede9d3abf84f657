//! Parallel iterators on simulated time: the first split's pieces start
//! and run in their LLC, back-to-back calls keep them there, replay sends
//! them back, and one LLC is not cut.

use super::*;

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
    let home = |p: &&super::counts::PieceStats| p.aimed_at.map_or(p.llc, |w| l.workers()[w].llc);
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
/// 3 of "Before crossing the LLC" and `victim_size` in `pass`), and every LLC
/// keeps one searcher past the spinner cap (`search::rules::may_spin`).
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
/// plain adaptive one (`range:`), job for job; with replay too, as the
/// runtime does (`run_split::first_split_applies`): 0 pieces in the
/// replay's stats.
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
    assert!(r.counts.iters[0].pieces.is_empty());
    assert_eq!(r.counts.iters[0].replay.map(|s| s.pieces), Some(0));
    assert!(r.counts.leaves >= 16, "{:?}", r.counts);
}
