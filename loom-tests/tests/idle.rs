//! loom models of `runtime::idle` (see its module docs for the invariants).
#![cfg(loom)]

use locus::__loom::{Distance, IdleMasks, IdleShape};
use locus_loom_tests::builder;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
use loom::thread;

/// (1) An owner's set_idle + clear_idle racing with a claimer: the idle
/// period ends exactly once, by the claim or by the owner's clear, never both
/// and never neither. Checked for a worker in the claimer's own LLC and in a
/// remote LLC (which goes through the summary).
#[test]
fn set_clear_versus_claim() {
    for (per_llc, target, dist) in [(2, 1, Distance::Llc), (1, 1, Distance::Remote)] {
        builder(3).check(move || {
            let m = Arc::new(IdleMasks::new(IdleShape::uniform(2, per_llc, 0)));
            let owner = {
                let m = m.clone();
                thread::spawn(move || {
                    m.set_idle(target);
                    m.clear_idle(target)
                })
            };
            let claimed = m.claim_nearest(Some(0), 0);
            let cleared = owner.join().unwrap();
            match claimed {
                Some(got) => {
                    assert_eq!(got, (target, dist));
                    assert!(!cleared, "claimed and cleared by its owner");
                }
                None => assert!(cleared, "neither claimed nor cleared"),
            }
            assert!(!m.is_idle(target));
            assert!(!m.any_idle(), "owner's clear_idle must release the summary");
        });
    }
}

/// (2) Two wakers claiming concurrently never claim the same worker, and
/// between them take every idle worker there is (one or two).
#[test]
fn concurrent_claimers_are_exclusive() {
    for idle in [&[2usize][..], &[2, 3][..]] {
        builder(3).check(move || {
            let m = Arc::new(IdleMasks::new(IdleShape::uniform(4, 2, 0)));
            for &w in idle {
                m.set_idle(w);
            }
            let other = {
                let m = m.clone();
                thread::spawn(move || m.claim_nearest(Some(1), 0))
            };
            let mine = m.claim_nearest(Some(0), 0);
            let theirs = other.join().unwrap();
            let mut got: Vec<usize> = [mine, theirs].iter().flatten().map(|&(w, _)| w).collect();
            got.sort();
            assert_eq!(got, idle, "claims {mine:?} and {theirs:?}");
            for &w in idle {
                assert!(!m.clear_idle(w), "worker {w} was claimed");
            }
        });
    }
}

/// (3) No false negative in the summary: once `set_idle(a)` has returned
/// (published by a flag), a claimer in another LLC that starts later finds
/// an idle worker there, while worker `b` of the same LLC (or, in the tree
/// shape, of the same level-1 field) churns (arms and disarms, moving the
/// same summary fields) and a local waker claims from `b`'s LLC.
///
/// Two shapes: a one-level summary (LLC 0: worker 0; LLC 1: workers 1, 2),
/// and a two-level tree of 66 one-worker LLCs (1-bit leaves, 64 per word):
/// `a` = 65 with `b` = 64 (same leaf word) or `b` = 63 (the other leaf
/// word; only the root is shared), and the claimer in LLC 0 walks from
/// the root.
#[test]
fn summary_has_no_false_negative() {
    let flat = IdleShape {
        llc_ranges: vec![0..1, 1..3],
        cluster_ranges: vec![],
        core_ranges: vec![],
        capacity: vec![1024; 3],
        llc_order: vec![vec![1..2], vec![0..1]],
    };
    let mut tree = IdleShape::uniform(66, 1, 0);
    // Keep the local claims' walks short.
    tree.llc_order[64] = vec![65..66];
    tree.llc_order[63] = vec![65..66];
    for (shape, a, b, llc_b) in [
        (flat, 1usize, 2usize, 1usize),
        (tree.clone(), 65, 64, 64),
        (tree, 65, 63, 63),
    ] {
        builder(3).check(move || {
            let m = Arc::new(IdleMasks::new(shape.clone()));
            let published = Arc::new(AtomicBool::new(false));
            let t1 = {
                let (m, p) = (m.clone(), published.clone());
                thread::spawn(move || {
                    m.set_idle(a);
                    p.store(true, SeqCst);
                })
            };
            let t2 = {
                let m = m.clone();
                thread::spawn(move || {
                    m.set_idle(b);
                    let cleared = m.clear_idle(b);
                    let local = m.claim_nearest(None, llc_b);
                    (cleared, local)
                })
            };
            if published.load(SeqCst) {
                assert!(m.any_idle(), "any_idle missed worker {a}");
                let got = m.claim_nearest(None, 0);
                // Worker `a` can only have been taken by t2's claim, which
                // may have run before ours; otherwise we must find someone.
                if got.is_none() {
                    let (_, local) = t2.join().unwrap();
                    assert_eq!(local.map(|x| x.0), Some(a), "summary false negative");
                    t1.join().unwrap();
                    return;
                }
                assert_eq!(got.unwrap().1, Distance::Remote);
            }
            t1.join().unwrap();
            t2.join().unwrap();
        });
    }
}
