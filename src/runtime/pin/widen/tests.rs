//! The widening decision on synthetic samples (no timing).

use super::*;

const MS: u64 = 1_000_000;

fn at(run_ms: u64, wait_ms: u64) -> Option<Sample> {
    Some(Sample {
        run_ns: run_ms * MS,
        wait_ns: wait_ms * MS,
    })
}

#[test]
fn parses_schedstat_lines() {
    assert_eq!(
        parse("3059614 4988577 3\n"),
        Some(Sample {
            run_ns: 3_059_614,
            wait_ns: 4_988_577
        })
    );
    assert_eq!(parse("0 0 0"), at(0, 0));
}

#[test]
fn malformed_lines_are_none() {
    for line in [
        "",
        "\n",
        "1 2",
        "1 2 3 4",
        "1 -2 3",
        "1 x 3",
        "18446744073709551616 0 0",
        "1.5 2 3",
    ] {
        assert_eq!(parse(line), None, "{line:?}");
    }
}

#[test]
fn off_never_acts_or_reads() {
    let mut w = Widener::new(false);
    for t in [0, WINDOW_NS, 100 * WINDOW_NS] {
        assert!(!w.due(t));
        assert_eq!(w.step(t, at(0, t)), Action::Keep);
    }
    assert_eq!(w.widened(), 0);
}

/// A quiet machine: waits well under the share, in any window.
#[test]
fn quiet_samples_never_widen() {
    let mut w = Widener::new(true);
    let mut wait = 0;
    for i in 0..10_000u64 {
        let t = i * WINDOW_NS;
        // A wait just under the share, every window.
        wait += WINDOW_NS / WAIT_SHARE_DIV - 1;
        assert!(w.due(t));
        assert_eq!(
            w.step(
                t,
                Some(Sample {
                    run_ns: t / 2,
                    wait_ns: wait
                })
            ),
            Action::Keep
        );
    }
    assert_eq!(w.widened(), 0);
}

#[test]
fn a_first_sample_only_sets_the_baseline() {
    let mut w = Widener::new(true);
    // A thread that waited a long time before: the baseline, not a window.
    assert_eq!(w.step(5 * MS, at(1, 1_000)), Action::Keep);
    assert!(!w.due(5 * MS + WINDOW_NS - 1));
    assert!(w.due(5 * MS + WINDOW_NS));
}

#[test]
fn short_windows_wait_for_their_length() {
    let mut w = Widener::new(true);
    w.step(0, at(0, 0));
    // Asked early (due says no, but a step must not act on it either).
    assert_eq!(w.step(WINDOW_NS - 1, at(0, 4)), Action::Keep);
    // The baseline stayed at 0: the full window counts the wait.
    assert_eq!(w.step(WINDOW_NS, at(0, 4)), Action::Widen);
}

#[test]
fn a_waiting_worker_widens_holds_and_returns() {
    let mut w = Widener::new(true);
    w.step(0, at(0, 0));
    // A quarter of a 8 ms window waiting: widen.
    assert_eq!(w.step(8 * MS, at(2, 2)), Action::Widen);
    assert!(w.is_wide());
    assert_eq!(w.widened(), 1);
    let until = 8 * MS + MIN_HOLD_NS;
    assert!(!w.due(until - 1));
    assert_eq!(w.step(until - 1, at(3, 50)), Action::Keep);
    assert!(w.due(until));
    assert_eq!(w.step(until, at(4, 60)), Action::Narrow);
    assert!(!w.is_wide());
    // The wide period's waits are not counted: a quiet window after the
    // return keeps the pin.
    assert_eq!(w.step(until + 10 * MS, at(5, 60)), Action::Keep);
}

#[test]
fn lasting_load_doubles_the_hold_up_to_the_cap() {
    let mut w = Widener::new(true);
    let mut t = 0;
    let mut wait = 0;
    w.step(t, at(0, 0));
    let mut holds = vec![];
    for _ in 0..12 {
        // One window pinned and waiting half of it: widen.
        t += WINDOW_NS;
        wait += WINDOW_NS / 2;
        assert_eq!(
            w.step(
                t,
                Some(Sample {
                    run_ns: 0,
                    wait_ns: wait
                })
            ),
            Action::Widen
        );
        let start = t;
        // Step until the hold is over.
        while !w.due(t) {
            t += MS;
        }
        assert_eq!(
            w.step(
                t,
                Some(Sample {
                    run_ns: 0,
                    wait_ns: wait
                })
            ),
            Action::Narrow
        );
        holds.push(t - start);
    }
    let mut want = MIN_HOLD_NS;
    for (i, &h) in holds.iter().enumerate() {
        assert!(h >= want && h < want + MS, "hold {i}: {h} against {want}");
        want = (want * 2).min(MAX_HOLD_NS);
    }
    assert_eq!(*holds.last().unwrap() / MS, MAX_HOLD_NS / MS);
    assert_eq!(w.widened(), 12);
}

#[test]
fn load_after_a_quiet_hold_starts_short_again() {
    let mut w = Widener::new(true);
    w.step(0, at(0, 0));
    assert_eq!(w.step(WINDOW_NS, at(0, 4)), Action::Widen);
    let back = WINDOW_NS + MIN_HOLD_NS;
    assert_eq!(w.step(back, at(0, 4)), Action::Narrow);
    // At once again: the hold doubles.
    assert_eq!(w.step(back + WINDOW_NS, at(0, 8)), Action::Widen);
    let back = back + WINDOW_NS + 2 * MIN_HOLD_NS;
    assert!(w.due(back) && !w.due(back - 1));
    assert_eq!(w.step(back, at(0, 8)), Action::Narrow);
    // Quiet for longer than the last hold, then load: the first hold.
    let mut t = back;
    for _ in 0..(3 * MIN_HOLD_NS / WINDOW_NS) {
        t += WINDOW_NS;
        assert_eq!(w.step(t, at(0, 8)), Action::Keep);
    }
    t += WINDOW_NS;
    assert_eq!(w.step(t, at(0, 12)), Action::Widen);
    assert!(w.due(t + MIN_HOLD_NS) && !w.due(t + MIN_HOLD_NS - 1));
}

#[test]
fn a_missing_sample_switches_off_for_good() {
    let mut w = Widener::new(true);
    assert_eq!(w.step(0, None), Action::Keep);
    assert!(!w.due(WINDOW_NS));
    assert_eq!(w.step(WINDOW_NS, at(0, 4)), Action::Keep);
    // A widened worker that loses its samples returns to its pin.
    let mut w = Widener::new(true);
    w.step(0, at(0, 0));
    assert_eq!(w.step(WINDOW_NS, at(0, 4)), Action::Widen);
    assert_eq!(w.step(WINDOW_NS + MS, None), Action::Narrow);
    assert!(!w.is_wide() && !w.due(u64::MAX));
}

#[test]
fn a_failed_affinity_switches_off() {
    let mut w = Widener::new(true);
    w.step(0, at(0, 0));
    assert_eq!(w.step(WINDOW_NS, at(0, 4)), Action::Widen);
    w.fail();
    assert!(!w.due(u64::MAX));
    assert_eq!(w.step(u64::MAX, at(0, 1_000)), Action::Keep);
}

#[test]
fn counters_that_go_back_do_not_widen() {
    // A sample below the baseline (a counter reset) counts as no wait.
    let mut w = Widener::new(true);
    w.step(0, at(10, 10));
    assert_eq!(w.step(WINDOW_NS, at(0, 0)), Action::Keep);
}
