use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

use super::*;

#[test]
fn nothing_is_handed_to_a_worker_that_does_not_search() {
    let h = Handoff::new();
    let latch = LockLatch::new();
    // SAFETY: `latch` outlives the call; nobody waits on it here.
    assert!(!unsafe { h.hand(&latch, 0) });
    assert!(!latch.is_set());
    assert!(!h.serve());
    // Once it searched and stopped, still nothing.
    h.open(Some(0));
    assert!(!h.close());
    // SAFETY: as above.
    assert!(!unsafe { h.hand(&latch, 0) });
    assert!(!latch.is_set());
}

#[test]
fn a_searcher_on_another_cpu_or_an_unknown_one_gets_nothing() {
    let h = Handoff::new();
    let latch = LockLatch::new();
    h.open(Some(1));
    // SAFETY: `latch` outlives the call; nobody waits on it here.
    assert!(!unsafe { h.hand(&latch, 0) });
    let unknown = Handoff::new();
    unknown.open(None);
    // SAFETY: as above.
    assert!(!unsafe { unknown.hand(&latch, 0) });
    assert!(!latch.is_set());
}

#[test]
fn a_request_nobody_takes_is_withdrawn() {
    let h = Handoff::new();
    let latch = LockLatch::new();
    h.open(Some(0));
    // Nobody serves: the finisher waits its spins and takes it back, so it
    // must set the latch itself, and nothing is left for a later serve.
    // SAFETY: `latch` outlives the call; nobody waits on it here.
    assert!(!unsafe { h.hand(&latch, 0) });
    assert!(!latch.is_set());
    assert!(!h.serve());
    assert!(!h.close());
}

#[test]
fn close_serves_a_pending_request() {
    let h = Arc::new(Handoff::new());
    let latch = Arc::new(LockLatch::new());
    h.open(Some(0));
    let finisher = {
        let (h, latch) = (Arc::clone(&h), Arc::clone(&latch));
        // SAFETY: `latch` lives in the Arc until both threads are done.
        std::thread::spawn(move || unsafe { h.hand(&*latch, 0) })
    };
    // Close as soon as the request is there (or the finisher gave up).
    let served = loop {
        if !h.req.load(Ordering::SeqCst).is_null() {
            break h.close();
        }
        if finisher.is_finished() {
            break false;
        }
        std::hint::spin_loop();
    };
    let handed = finisher.join().unwrap();
    assert_eq!(served, handed, "served by close exactly when handed over");
    if !handed {
        latch.set_now();
    }
    latch.wait_and_reset();
    assert!(!latch.is_set(), "set once");
}

/// A searcher serving in a loop and a finisher handing a wakeup to it per
/// round, each round's caller waiting on one reused latch: whichever side
/// wakes the caller, it is woken exactly once per round (a second set
/// would leave a token behind for the next round).
#[test]
fn every_round_wakes_the_caller_exactly_once() {
    const ROUNDS: usize = 2_000;
    let h = Arc::new(Handoff::new());
    let latch = Arc::new(LockLatch::new());
    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    h.open(Some(7));
    let searcher = {
        let (h, stop, served) = (Arc::clone(&h), Arc::clone(&stop), Arc::clone(&served));
        std::thread::spawn(move || {
            while !stop.load(SeqCst) {
                if h.serve() {
                    served.fetch_add(1, SeqCst);
                }
                std::hint::spin_loop();
            }
            if h.close() {
                served.fetch_add(1, SeqCst);
            }
        })
    };
    let woken = Arc::new(AtomicUsize::new(0));
    let finisher = {
        let (h, latch, woken) = (Arc::clone(&h), Arc::clone(&latch), Arc::clone(&woken));
        std::thread::spawn(move || {
            let mut direct = 0;
            for round in 0..ROUNDS {
                // SAFETY: the caller below waits on `latch` each round.
                if !unsafe { h.hand(&*latch, 7) } {
                    latch.set_now();
                    direct += 1;
                }
                // The next round's job "finishes" only after this round's
                // caller woke, as a caller's next call starts after it woke.
                while woken.load(SeqCst) == round {
                    std::thread::yield_now();
                }
            }
            direct
        })
    };
    for _ in 0..ROUNDS {
        latch.wait_and_reset();
        woken.fetch_add(1, SeqCst);
    }
    let direct = finisher.join().unwrap();
    stop.store(true, SeqCst);
    searcher.join().unwrap();
    assert!(!latch.is_set(), "no set left over");
    let served = served.load(SeqCst);
    eprintln!("{served} rounds handed over, {direct} woken directly");
    assert_eq!(served + direct, ROUNDS);
}

#[test]
fn the_map_names_the_worker_of_each_cpu() {
    use crate::layout::LayoutOptions;
    use crate::topology::Topology;
    let t = Topology::synthetic("llc:2 core:2").unwrap();
    let l = Layout::new(&t, &LayoutOptions::default()).unwrap();
    let by = workers_by_cpu(&l);
    for w in l.workers() {
        assert_eq!(by[w.pu], w.index);
    }
    assert_eq!(by.iter().filter(|&&w| w != usize::MAX).count(), l.len());
}
