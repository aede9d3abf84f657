//! Wake order on layouts as the pool builds them: which idle worker a
//! claim picks on real shapes and snapshots (here and not in `tests/`:
//! the idle masks are crate-private).
use super::{Distance, IdleMasks};
use crate::runtime::registry::idle_shape;
use crate::test_support::{all_idle, snapshot};
use crate::{Layout, LayoutOptions, Topology};

#[test]
fn wake_prefers_a_fully_idle_core_over_a_busy_cores_sibling() {
    let t = Topology::synthetic("core:4 smt:2").unwrap();
    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    assert_eq!(l.core_ranges()[0], 0..2);
    let m = all_idle(&l);
    // Worker 0 runs (busy) and pushes: not its sibling 1, a whole idle core.
    assert!(m.clear_idle(0));
    let (w, _) = m.claim_nearest(Some(0), 0).unwrap();
    assert_eq!(w, 2, "the first fully idle core");
    // Cores 1 (2 claimed) and 0 (0 busy) are half busy: next cores 2, 3.
    assert_eq!(m.claim_nearest(Some(0), 0).unwrap().0, 4);
    assert_eq!(m.claim_nearest(Some(0), 0).unwrap().0, 6);
    // Only siblings of busy cores remain: they are still found.
    let mut rest: Vec<usize> = (0..4)
        .map(|_| m.claim_nearest(Some(0), 0).unwrap().0)
        .collect();
    rest.sort();
    assert_eq!(rest, [1, 3, 5, 7]);
    assert_eq!(m.claim_nearest(Some(0), 0), None);
}

#[test]
fn wake_across_llcs_prefers_whole_cores_there_too() {
    let t = Topology::synthetic("llc:2 core:2 smt:2").unwrap();
    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    let m = IdleMasks::new(idle_shape(&l));
    // LLC 0 all busy; in LLC 1 worker 4's sibling 5 is idle, core 6-7 idle.
    for w in [5, 6, 7] {
        m.set_idle(w);
    }
    assert_eq!(m.claim_nearest(Some(0), 0), Some((6, Distance::Remote)));
    assert_eq!(m.claim_nearest(Some(0), 0).unwrap().0, 5);
}

#[test]
fn wake_without_smt_is_unchanged() {
    let t = Topology::synthetic("llc:1 core:4").unwrap();
    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    let m = all_idle(&l);
    assert!(m.clear_idle(0));
    let got: Vec<usize> = (0..3)
        .map(|_| m.claim_nearest(Some(0), 0).unwrap().0)
        .collect();
    assert_eq!(got, [1, 2, 3]);
}

#[test]
#[ignore = "needs hwloc's test data (LOCUS_TEST_TOPOLOGIES, default ../shared/topologies): cargo test -- --ignored"]
fn raptor_lake_wakes_an_idle_e_core_before_a_busy_p_cores_sibling() {
    let (_tmp, t) = snapshot("20em64t-hybrid-1p6c2t+2ca4co1t");
    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    // Workers 0-11: six P-cores of 2 threads; 12-19: eight E-cores.
    assert_eq!(
        l.core_ranges()[..6],
        [0..2, 2..4, 4..6, 6..8, 8..10, 10..12]
    );
    let m = all_idle(&l);
    // P-core worker 0 is busy and pushes: the other P-cores first, one
    // thread each, then the E-cores, and only then the P-cores' siblings.
    assert!(m.clear_idle(0));
    let order: Vec<usize> = (0..19)
        .map(|_| m.claim_in_llc(Some(0), 0).unwrap().0)
        .collect();
    assert_eq!(order[..5], [2, 4, 6, 8, 10]);
    let mut e: Vec<usize> = order[5..13].to_vec();
    e.sort();
    assert_eq!(e, (12..20).collect::<Vec<_>>());
    let mut siblings: Vec<usize> = order[13..].to_vec();
    siblings.sort();
    assert_eq!(siblings, [1, 3, 5, 7, 9, 11]);
    // All busy but P-core 1's sibling 3 and E-core 12: the E-core.
    let m = IdleMasks::new(idle_shape(&l));
    m.set_idle(3);
    m.set_idle(12);
    assert_eq!(m.claim_in_llc(Some(0), 0).unwrap().0, 12);
    assert_eq!(m.claim_in_llc(Some(0), 0).unwrap().0, 3);
}
