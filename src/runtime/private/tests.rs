//! Tests of the private stack: its owner's push, pop and promotions, the
//! claims, the `wanted` hint.

use super::*;

#[test]
fn owner_push_pop_is_lifo_and_private() {
    let s = PrivateStack::<u32>::new();
    // The deque holds enough: no hint (a new stack's pops report it).
    s.settle(|| false);
    // SAFETY: this thread is the only user (the owner).
    unsafe {
        assert!(s.push(1));
        assert!(s.push(2));
        assert!(s.has_private());
        assert_eq!(s.pop(), Popped::Mine);
        assert_eq!(s.pop(), Popped::Mine);
    }
    assert!(s.depth() == 0 && !s.has_private());
}

#[test]
fn claims_take_the_oldest_and_the_owner_sees_them_gone() {
    let s = PrivateStack::<u32>::new();
    s.settle(|| false);
    // SAFETY: one thread plays owner and thief in turn.
    unsafe {
        for v in 0..3 {
            assert!(s.push(v));
        }
        assert_eq!(s.try_claim(), Claim::Taken(0));
        assert_eq!(s.promote_oldest(), Some(1));
        assert_eq!(s.pop(), Popped::Mine); // 2
        assert!(!s.has_private());
        assert_eq!(s.try_claim(), Claim::Empty);
        assert_eq!(s.pop(), Popped::Gone); // 1, promoted
        assert_eq!(s.pop(), Popped::Gone); // 0, claimed
        // Reset: depth 0 is private again.
        assert!(s.push(7));
        assert_eq!(s.try_claim(), Claim::Taken(7));
        assert_eq!(s.pop(), Popped::Gone);
    }
}

#[test]
fn the_wanted_hint_starts_set_and_clears_only_when_the_deque_is_long_enough() {
    let s = PrivateStack::<u32>::new();
    assert_eq!(s.wanted_by(), (true, true), "a new worker's deque is empty");
    s.settle(|| true);
    assert_eq!(s.wanted_by(), (true, true), "still short: kept");
    s.settle(|| false);
    assert_eq!(s.wanted_by(), (false, false));
    s.want();
    assert_eq!(s.wanted_by(), (true, true), "a steal or a pop sets it");
    s.want();
    assert_eq!(s.wanted_by(), (true, true));
}

/// The converse state of the module docs (`WANTED` set, `limit` at the
/// capacity: a thief's `want` whose W2 a `settle` overwrote): the pop
/// reports the hint, and the `want` of a refill that finds the deque short
/// (`owner::refill`) sets `limit` again, so the push takes its slow path
/// too.
#[test]
fn a_want_repairs_the_converse_state() {
    let s = PrivateStack::<u32>::new();
    s.settle(|| false);
    s.ends.bottom.fetch_or(WANTED, Ordering::SeqCst);
    assert_eq!(s.wanted_by(), (false, true));
    // SAFETY: single-threaded owner.
    unsafe {
        assert!(s.push_if_clear(0), "the push does not see it");
        assert_eq!(s.pop(), Popped::Wanted, "the pop does");
    }
    s.want();
    assert_eq!(s.wanted_by(), (true, true));
    // SAFETY: as above.
    assert!(!unsafe { s.push_if_clear(1) }, "now the push sees it too");
}

#[test]
fn the_pop_reports_the_hint_and_decides_on_the_index_alone() {
    let s = PrivateStack::<u32>::new();
    // SAFETY: one thread plays owner and thief in turn.
    unsafe {
        assert!(s.push(0) && s.push(1));
        assert_eq!(s.pop(), Popped::Wanted, "a new stack wants");
        s.settle(|| false);
        assert_eq!(s.pop(), Popped::Mine);
        assert!(s.push(2) && s.push(3));
        assert_eq!(s.try_claim(), Claim::Taken(2));
        s.want();
        assert_eq!(s.pop(), Popped::Wanted, "3 is private, the hint set");
        assert_eq!(s.pop(), Popped::Gone, "2 was claimed");
        assert_eq!(s.wanted_by(), (true, true), "the reset kept the hint");
        assert!(s.push(4));
        assert_eq!(s.promote_oldest(), Some(4));
        assert_eq!(s.wanted_by(), (true, true), "a promotion keeps it");
        assert_eq!(s.pop(), Popped::Gone);
        s.settle(|| false);
        assert!(s.push(5));
        assert_eq!(s.try_claim(), Claim::Taken(5));
        assert_eq!(s.wanted_by(), (false, false), "a claim leaves it clear");
        assert_eq!(s.pop(), Popped::Gone);
    }
}

#[test]
fn the_fast_push_refuses_while_wanted_or_full() {
    let s = PrivateStack::<usize>::new();
    // SAFETY: single-threaded owner.
    unsafe {
        assert!(!s.push_if_clear(0), "a new stack wants");
        assert!(s.push(0));
        s.settle(|| false);
        for v in 1..CAPACITY {
            assert!(s.push_if_clear(v));
        }
        assert!(!s.push_if_clear(CAPACITY) && !s.push(CAPACITY), "full");
        assert_eq!(s.pop(), Popped::Mine);
        s.want();
        assert!(!s.push_if_clear(CAPACITY), "wanted");
        assert!(s.push(CAPACITY));
    }
}

#[test]
fn a_disabled_stack_refuses_every_push() {
    let s = PrivateStack::<u32>::disabled();
    // SAFETY: single-threaded owner.
    assert!(!unsafe { s.push(1) });
    assert_eq!(s.try_claim(), Claim::Empty);
}

#[test]
fn promote_all_hands_over_oldest_first_and_fills_up() {
    let s = PrivateStack::<usize>::new();
    let mut got = Vec::new();
    // SAFETY: single-threaded owner.
    unsafe {
        for v in 0..CAPACITY {
            assert!(s.push(v));
        }
        assert!(!s.push(CAPACITY), "a full stack refuses");
        s.promote_all(|v| got.push(v));
        assert_eq!(s.promote_oldest(), None);
        for _ in 0..CAPACITY {
            assert_eq!(s.pop(), Popped::Gone);
        }
    }
    assert_eq!(got, (0..CAPACITY).collect::<Vec<_>>());
}
