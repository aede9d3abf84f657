//! The frame of a `join` as a state machine, one copy for the pool's
//! threads and the simulator: `b` recorded (private, else on the deque),
//! `a` run, `b` taken back and run here, or, when it was published, taken
//! back from the deque or waited for while other jobs run.
//!
//! The pool's `join` (`pool::join`) takes the steps on the thread's stack
//! and runs `a` and `b` inline; the step is `#[inline(always)]` and the
//! frame's state is a constant at each step of the fast path, so the
//! compiler flattens them into the straight-line code of a `join`
//! (`docs/one-copy.md`, `docs/join-cost.md`). The simulator steps
//! it within its events: at [`JoinStep::RunA`] it pushes `a` as a frame of
//! events above the `join`'s and steps again when that frame returns.
//!
//! Invariants (what a driver may rely on): [`JoinStep::RunA`] is answered
//! exactly once, after the one [`JoinStep::Publish`] if there is one and
//! before every other step; the frame ends at [`JoinStep::RunB`] (`b` is
//! the caller's and has not run) or [`JoinStep::Done`] (`b`'s latch was
//! set), each answered once and last.

use super::owner::{self, Owner, TakeBack};

/// What a `join` frame's driver does next ([`JoinFrame::step`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum JoinStep<J> {
    /// `b` did not go on the private stack (it is full, or the policy
    /// publishes at once, as rayon does): push it on the own deque, then
    /// step again.
    Publish,
    /// Run `a` inline, then step again.
    RunA,
    /// `b` left the private stack while `a` ran (promoted or claimed), or
    /// was published: the take-back steps follow (the pool takes them out
    /// of line). Step again.
    Gone,
    /// Another job was on the own deque (pushed by `a` and left behind):
    /// run it, then step again.
    Run(J),
    /// Wait until `b`'s latch is set (`WorkerThread::wait_until`: promote
    /// every private half, then run other jobs), then step again.
    Wait,
    /// `b` is the caller's and has not run: run it inline. The frame ends.
    RunB,
    /// `b`'s latch is set (another worker ran it): take its result. The
    /// frame ends.
    Done,
}

/// Where a [`JoinFrame`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Record `b` privately.
    Private,
    /// Publish `b` at once.
    Public,
    /// `b` published: run `a`.
    PublishedA,
    /// `b` published, `a` ran.
    Published,
    /// `b` private, `a` ran: take it back.
    AfterA,
    /// `b` gone from the private stack: the steps of [`owner::take_back`].
    TakeBack,
    /// The driver waited for `b`'s latch.
    Waited,
    /// [`JoinStep::RunB`] or [`JoinStep::Done`] was answered.
    Over,
}

/// A `join`'s frame (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JoinFrame {
    state: State,
}

impl JoinFrame {
    /// A frame that records `b` on the private stack (`private`), as the
    /// pool's `join` does, or publishes it on the deque at once, as
    /// rayon's does (the simulator's rayon-like policy).
    #[inline(always)]
    pub(crate) fn new(private: bool) -> JoinFrame {
        JoinFrame {
            state: if private {
                State::Private
            } else {
                State::Public
            },
        }
    }

    /// Whether `b` was recorded on the private stack and `a` runs: the
    /// next step pops `b` from there if it is still private (the
    /// simulator's race of a thief with the owner, `sim::race`).
    #[cfg(feature = "sim")]
    pub(crate) fn b_recorded(&self) -> bool {
        self.state == State::AfterA
    }

    /// The frame's next step, applying the owner's operations it names
    /// ([`owner::push_private`], [`owner::pop_private`],
    /// [`owner::take_back`]) to `o`. `b` is the frame's second half,
    /// `latch_set` probes its latch, `is_b` recognises it.
    #[inline(always)]
    pub(crate) fn step<O: Owner>(
        &mut self,
        o: &mut O,
        b: O::Job,
        latch_set: impl FnOnce() -> bool,
        is_b: impl FnOnce(&O::Job) -> bool,
    ) -> JoinStep<O::Job> {
        match self.state {
            State::Private => {
                if !owner::push_private(o, b) {
                    o.out_of_line(refused);
                    self.state = State::PublishedA;
                    return JoinStep::Publish;
                }
                self.state = State::AfterA;
                JoinStep::RunA
            }
            State::Public => {
                self.state = State::PublishedA;
                JoinStep::Publish
            }
            State::PublishedA => {
                self.state = State::Published;
                JoinStep::RunA
            }
            State::Published => {
                self.state = State::TakeBack;
                JoinStep::Gone
            }
            State::AfterA => {
                // SAFETY: `o` is the worker that owns its private stack (the
                // `Owner` contract).
                debug_assert!(
                    unsafe { o.private().newest() }.is_some_and(|j| is_b(&j)),
                    "private halves out of order"
                );
                if owner::pop_private(o) {
                    self.state = State::Over;
                    return JoinStep::RunB;
                }
                self.state = State::TakeBack;
                JoinStep::Gone
            }
            State::TakeBack => match owner::take_back(o, b, latch_set, is_b) {
                TakeBack::Done => {
                    self.state = State::Over;
                    JoinStep::Done
                }
                TakeBack::Inline => {
                    self.state = State::Over;
                    JoinStep::RunB
                }
                TakeBack::Run(job) => JoinStep::Run(job),
                TakeBack::Wait => {
                    self.state = State::Waited;
                    JoinStep::Wait
                }
            },
            State::Waited => {
                self.state = State::Over;
                JoinStep::Done
            }
            State::Over => unreachable!("a join frame stepped after its end"),
        }
    }
}

/// The private stack refused `b` (a `join` nested deeper than it holds,
/// or private halves disabled): the marks end as a private push ends them
/// (`owner::push_private`), before `b` goes on the deque.
#[cold]
#[inline(never)]
fn refused<O: Owner>(o: &mut O) {
    if o.marks() != 0 {
        owner::end_marks(o, owner::STARTING | owner::CROSSING);
    }
}

#[cfg(test)]
mod tests {
    use crossbeam_deque::{Injector, Steal, Worker};

    use std::sync::Arc;

    use super::*;
    use crate::runtime::deal::Dealt;
    use crate::runtime::idle::{IdleMasks, IdleShape};
    use crate::runtime::private::PrivateStack;
    use crate::runtime::sleep::Sleep;

    /// A worker of a two-worker pool whose jobs are numbers; `B` is the
    /// frame's `b`. In a pool of two LLCs ([`Fake::two_llcs`]) it deals
    /// to the other LLC, whose pack queue is `dealt_to`, and keeps its
    /// holds in `holds` (as `deal::Holds`).
    struct Fake {
        deque: Worker<u32>,
        private: PrivateStack<u32>,
        sleep: Sleep,
        groups: [Injector<u32>; 2],
        marks: u8,
        holds: Vec<Arc<Dealt<u32>>>,
        dealt_to: Vec<Arc<Dealt<u32>>>,
    }

    const B: u32 = 7;

    impl Fake {
        fn new(private: PrivateStack<u32>) -> Fake {
            Fake {
                deque: Worker::new_lifo(),
                private,
                sleep: Sleep::new(IdleMasks::new(IdleShape::uniform(2, 2, 0)), 2),
                groups: [Injector::new(), Injector::new()],
                marks: 0,
                holds: Vec::new(),
                dealt_to: Vec::new(),
            }
        }

        /// Worker 0 of two LLCs of one worker each, worker 1 idle: the
        /// first promotion deals.
        fn two_llcs() -> Fake {
            let mut o = Fake::new(PrivateStack::new());
            o.sleep = Sleep::new(IdleMasks::new(IdleShape::uniform(2, 1, 0)), 2);
            o.sleep.start_searching(1);
            let _ = o.sleep.prepare_sleep(1);
            o
        }
    }

    // SAFETY: each test is the fake worker's only owner, on one thread.
    unsafe impl Owner for Fake {
        type Job = u32;
        fn deque(&self) -> &Worker<u32> {
            &self.deque
        }
        fn private(&self) -> &PrivateStack<u32> {
            &self.private
        }
        fn sleep(&self) -> &Sleep {
            &self.sleep
        }
        fn idle_word(&self) -> &crate::sync::AtomicU64 {
            self.sleep.idle().root_word()
        }
        fn marks(&self) -> u8 {
            self.marks
        }
        fn set_marks(&mut self, marks: u8) {
            self.marks = marks;
        }
        fn publish_starting(&mut self, _: bool) {}
        fn count_crossing(&mut self, _: bool) {}
        fn notify(&mut self) {}
        fn own_group_queues(&self) -> [&Injector<u32>; 2] {
            [&self.groups[0], &self.groups[1]]
        }
        fn llc(&self) -> usize {
            0
        }
        fn llc_free(&self, _: usize) -> bool {
            self.dealt_to.is_empty()
        }
        fn steal_oldest(&mut self) -> Option<u32> {
            self.deque.stealer().steal().success()
        }
        fn hold_dealt(&mut self, job: u32) -> u32 {
            self.holds.push(Arc::new(Dealt::new(job)));
            job
        }
        /// The queue's copy is the hold's record (the fake holds too few
        /// halves to re-deal, so it deals only held halves).
        fn deal_to(&mut self, _: usize, job: u32) {
            let d = self.holds.last().filter(|d| d.job() == job);
            self.dealt_to.push(d.expect("a held half").clone());
        }
        fn take_dealt(&mut self, b: u32) -> bool {
            if self.holds.last().is_none_or(|d| d.job() != b) {
                return false;
            }
            let d = self.holds.pop().expect("a hold");
            let won = d.claim();
            let _ = d.release();
            won
        }
    }

    /// Steps `frame` on `o` with `b`'s latch as `latch`, running `during_a`
    /// at `RunA`, until it ends; the steps in order.
    fn steps(
        o: &mut Fake,
        mut frame: JoinFrame,
        latch: bool,
        during_a: impl FnOnce(&mut Fake),
    ) -> Vec<JoinStep<u32>> {
        let mut during_a = Some(during_a);
        let mut out = Vec::new();
        loop {
            let step = frame.step(o, B, || latch, |&j| j == B);
            let end = matches!(step, JoinStep::RunB | JoinStep::Done);
            match step {
                JoinStep::Publish => o.deque.push(B),
                JoinStep::RunA => (during_a.take().expect("RunA once"))(o),
                _ => {}
            }
            out.push(step);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn an_untouched_private_half_runs_inline() {
        let mut o = Fake::new(PrivateStack::new());
        let s = steps(&mut o, JoinFrame::new(true), false, |_| {});
        assert_eq!(s, [JoinStep::RunA, JoinStep::RunB]);
        assert_eq!(o.private.depth(), 0);
    }

    #[test]
    fn a_promoted_half_nobody_stole_is_taken_back() {
        let mut o = Fake::new(PrivateStack::new());
        let s = steps(&mut o, JoinFrame::new(true), false, owner::promote);
        assert_eq!(s, [JoinStep::RunA, JoinStep::Gone, JoinStep::RunB]);
        assert!(o.deque.is_empty());
    }

    #[test]
    fn a_stolen_half_is_waited_for_unless_its_latch_is_set() {
        for latch in [false, true] {
            let mut o = Fake::new(PrivateStack::new());
            let thief = o.deque.stealer();
            let s = steps(&mut o, JoinFrame::new(true), latch, |o| {
                owner::promote(o);
                assert_eq!(thief.steal(), Steal::Success(B));
            });
            let end: &[JoinStep<u32>] = if latch {
                &[JoinStep::Done]
            } else {
                &[JoinStep::Wait, JoinStep::Done]
            };
            assert_eq!(s[..2], [JoinStep::RunA, JoinStep::Gone]);
            assert_eq!(&s[2..], end);
        }
    }

    #[test]
    fn jobs_left_on_the_deque_run_before_the_wait() {
        let mut o = Fake::new(PrivateStack::new());
        let thief = o.deque.stealer();
        let s = steps(&mut o, JoinFrame::new(true), false, |o| {
            owner::promote(o);
            assert_eq!(thief.steal(), Steal::Success(B));
            o.deque.push(3);
        });
        assert_eq!(
            s,
            [
                JoinStep::RunA,
                JoinStep::Gone,
                JoinStep::Run(3),
                JoinStep::Wait,
                JoinStep::Done
            ]
        );
    }

    #[test]
    fn a_refused_private_push_publishes_and_ends_the_marks() {
        let mut o = Fake::new(PrivateStack::disabled());
        o.marks = owner::STARTING | owner::CROSSING;
        let s = steps(&mut o, JoinFrame::new(true), false, |_| {});
        assert_eq!(
            s,
            [
                JoinStep::Publish,
                JoinStep::RunA,
                JoinStep::Gone,
                JoinStep::RunB
            ]
        );
        assert_eq!(o.marks, 0);
    }

    #[test]
    fn a_public_frame_publishes_at_once_and_never_goes_private() {
        let mut o = Fake::new(PrivateStack::new());
        let thief = o.deque.stealer();
        let s = steps(&mut o, JoinFrame::new(false), true, |o| {
            assert!(!o.private.has_private(), "nothing private left");
            assert_eq!(thief.steal(), Steal::Success(B));
        });
        assert_eq!(
            s,
            [
                JoinStep::Publish,
                JoinStep::RunA,
                JoinStep::Gone,
                JoinStep::Done
            ]
        );
    }

    #[test]
    fn a_dealt_half_no_receiver_claimed_is_taken_back() {
        let mut o = Fake::two_llcs();
        let s = steps(&mut o, JoinFrame::new(true), false, owner::promote);
        assert_eq!(s, [JoinStep::RunA, JoinStep::Gone, JoinStep::RunB]);
        assert!(o.deque.is_empty() && o.holds.is_empty());
        // The queue's copy, executed later, runs nothing and frees the
        // record.
        let copy = o.dealt_to.pop().expect("dealt");
        assert!(!copy.claim());
        assert!(copy.release());
    }

    #[test]
    fn a_dealt_half_its_receiver_claimed_is_waited_for() {
        let mut o = Fake::two_llcs();
        let s = steps(&mut o, JoinFrame::new(true), false, |o| {
            owner::promote(o);
            // The receiver's worker executes the copy while `a` runs.
            assert!(o.dealt_to[0].claim());
            assert!(!o.dealt_to[0].release());
        });
        assert_eq!(
            s,
            [
                JoinStep::RunA,
                JoinStep::Gone,
                JoinStep::Wait,
                JoinStep::Done
            ]
        );
        assert!(o.holds.is_empty());
    }

    /// The exit of a `join` with no private half left keeps the `wanted`
    /// hint while the deque is short, promoting nothing (`owner::refill`
    /// returns before `settle`), and clears it once the deque holds
    /// enough.
    #[test]
    fn an_exit_with_nothing_to_promote_keeps_the_hint_only_while_the_deque_is_short() {
        let mut o = Fake::new(PrivateStack::new());
        assert_eq!(o.private.wanted_by(), (true, true), "a new deque is short");
        for _ in 0..3 {
            let s = steps(&mut o, JoinFrame::new(true), false, |_| {});
            assert_eq!(s, [JoinStep::RunA, JoinStep::RunB]);
            assert!(o.deque.is_empty(), "nothing was private to promote");
            assert_eq!(o.private.wanted_by(), (true, true), "still short: kept");
        }
        o.deque.push(1);
        o.deque.push(2);
        let s = steps(&mut o, JoinFrame::new(true), false, |_| {});
        assert_eq!(s, [JoinStep::RunA, JoinStep::RunB]);
        assert_eq!(o.deque.len(), 2);
        assert_eq!(o.private.wanted_by(), (false, false), "enough: cleared");
    }

    /// With the hint set, an inner `join`'s exit still promotes the outer
    /// frame's private half (the oldest), which the outer frame then takes
    /// back from the deque; the hint stays set (the deque is short).
    #[test]
    fn an_inner_exit_promotes_the_outer_half() {
        let mut o = Fake::new(PrivateStack::new());
        let s = steps(&mut o, JoinFrame::new(true), false, |o| {
            let inner = steps(o, JoinFrame::new(true), false, |_| {});
            assert_eq!(inner, [JoinStep::RunA, JoinStep::RunB]);
            assert_eq!(o.deque.len(), 1, "the outer half was promoted");
            assert!(!o.private.has_private(), "nothing private left");
            assert_eq!(o.private.wanted_by(), (true, true));
        });
        assert_eq!(s, [JoinStep::RunA, JoinStep::Gone, JoinStep::RunB]);
        assert!(o.deque.is_empty());
        assert_eq!(o.private.wanted_by(), (true, true));
    }

    /// A refill that promotes: while the deque stays short after the
    /// promotion the hint stays set (`owner::refill` returns before
    /// `settle`); once the promotion fills it to `PROMOTED_AHEAD` jobs the
    /// hint is cleared in both words.
    #[test]
    fn an_exit_that_promotes_clears_the_hint_only_once_the_deque_holds_enough() {
        for queued in [0, 1] {
            let mut o = Fake::new(PrivateStack::new());
            for j in 0..queued {
                o.deque.push(100 + j);
            }
            steps(&mut o, JoinFrame::new(true), false, |o| {
                steps(o, JoinFrame::new(true), false, |_| {});
                assert_eq!(o.deque.len(), queued as usize + 1, "promoted");
                let enough = o.deque.len() >= crate::runtime::private::rules::PROMOTED_AHEAD;
                assert_eq!(o.private.wanted_by(), (!enough, !enough));
            });
        }
    }
}
